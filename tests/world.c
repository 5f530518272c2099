/* SPDX-License-Identifier: MIT */
/* What the escape suite's attacks from the world share (world.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "tests/world.h"

struct tree world;
struct world_seen seen;

static void logger(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind == SBX_EVENT_ALIAS) {
		seen.alias++;
		snprintf(seen.alias_path2, sizeof(seen.alias_path2), "%s", ev->path2 ? ev->path2 : "");
	}
	if (ev->kind == SBX_EVENT_IGNORED_LINK) {
		seen.ignored_link++;
		snprintf(seen.link_path, sizeof(seen.link_path), "%s", ev->path);
		snprintf(seen.link_path2, sizeof(seen.link_path2), "%s", ev->path2);
	}
	seen.dropped += ev->kind == SBX_EVENT_DROPPED;
	seen.expand += ev->kind == SBX_EVENT_EXPAND;
	seen.listed += ev->kind == SBX_EVENT_EXPAND && seen.watched && !strcmp(ev->path, seen.watched);
	if (ev->kind == SBX_EVENT_EXPAND && seen.when && !strcmp(ev->path, seen.when) && seen.then) {
		seen.then();
		seen.then = NULL;
	}
}

void world_setup(void)
{
	memset(&seen, 0, sizeof(seen));
	tree_make(&world);
}

void world_teardown(void)
{
	tree_free(&world);
}

/* The expanded way: these are the compile's races and reuses, against the
 * directories it lists (check_hide.c holds the hidden way's). */
void scope_deny(sbx_scopeattr_t *s, const char *path)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	sbx_scopeattr_setlogger(s, logger, NULL);
	if (path)
		ck_assert_int_eq(sbx_scopeattr_adddeny(s, path), 0);
	expand_way(s);
}

/* Reads path under scope: the child's verdict line ("ok", "EACCES", ...).
 * Unless the road is a documented limit, the secret is never in it. */
const char *does(const sbx_scopeattr_t *s, const char *op, const char *path, bool may_leak)
{
	static char verdict[64];
	char *argv[] = { FSOP, (char *)op, (char *)path, NULL }, *out = NULL, *nl;
	int status = run_scoped(s, argv, &out);

	ck_assert_msg(status > -1000, "the spawn failed: %s", sbx_strerror(-1000 - status));
	ck_assert_msg(may_leak || !strstr(out, SECRET), "ESCAPE: %s read the secret:\n%s", path, out);
	nl = strrchr(out, '\n');
	if (nl && !nl[1]) {
		*nl = '\0';
		nl = strrchr(out, '\n');
	}
	snprintf(verdict, sizeof(verdict), "%s", nl ? nl + 1 : out);
	free(out);
	return verdict;
}

const char *reads(const sbx_scopeattr_t *s, const char *path, bool may_leak)
{
	return does(s, "read", path, may_leak);
}

/* A shell command run under scope, for what a confined child does. */
int child_sh(const sbx_scopeattr_t *s, const char *cmd)
{
	char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };

	return run_scoped(s, argv, NULL);
}
