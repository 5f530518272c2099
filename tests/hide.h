/* SPDX-License-Identifier: MIT */
/* What the suites of hidden denials share (check_hide.c: the cover and
 * what would lift it; check_hide_held.c: what the child holds;
 * check_hide_ways.c: the ways, what it sees; and the rest of check_hide_*):
 * a home directory of the test's own with its .ssh denied,
 * and the verdicts of the helpers run under a scope.  Each suite has its
 * own copy (static): Check runs every test in a process of its own. */
#ifndef SBX_TESTS_HIDE_H
#define SBX_TESTS_HIDE_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define ESCAPE HELPER_DIR "/escape"
#define LIFT HELPER_DIR "/lift"
#define NESTED HELPER_DIR "/nested"
#define SECRET "the-secret"
#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

static struct tree t;
/* A home directory of the test's own, its .ssh denied. */
static char home[4200], ssh[4300], key[4400];
static char said[4096]; /* the last SBX_EVENT_HIDING */

static void on_event(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind == SBX_EVENT_HIDING)
		snprintf(said, sizeof(said), "%s", ev->message);
}

static void setup(void)
{
	tree_make(&t);
	snprintf(home, sizeof(home), "%s/home", t.top);
	snprintf(ssh, sizeof(ssh), "%s/.ssh", home);
	snprintf(key, sizeof(key), "%s/id", ssh);
	ck_assert(mkdir(home, 0755) == 0 && mkdir(ssh, 0700) == 0);
	write_file(key, SECRET "\n", 0600);
	said[0] = '\0';
}

static void teardown(void)
{
	tree_free(&t);
}

static void scope_deny(sbx_scopeattr_t *s, const char *path, int flags)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	sbx_scopeattr_setlogger(s, on_event, NULL);
	ck_assert_int_eq(sbx_scopeattr_setflags(s, flags), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(s, path), 0);
}

/* argv under scope: its verdict (the last line), the whole output in *all
 * (malloc'd, may be NULL); never the secret, unless may_leak. */
static __attribute__((unused)) char *verdict_of(const sbx_scopeattr_t *s, char *const argv[], bool may_leak, char **all)
{
	static char v[256];
	char *out = NULL, *nl;
	int status = run_scoped(s, argv, &out);

	ck_assert_msg(status > -1000, "%s: the spawn failed: %s", argv[1], sbx_strerror(-1000 - status));
	ck_assert_msg(may_leak || !strstr(out, SECRET), "ESCAPE: %s %s read the secret:\n%s", argv[0],
	              argv[1], out);
	while ((nl = strrchr(out, '\n')) && !nl[1])
		*nl = '\0';
	nl = strrchr(out, '\n');
	snprintf(v, sizeof(v), "%s", nl ? nl + 1 : out);
	if (all)
		*all = out;
	else
		free(out);
	return v;
}

#define VERDICT(s, ...) verdict_of(s, ARGV(__VA_ARGS__), false, NULL)
/* Without a scope: it works (the positive control). */
#define WORKS(...) ck_assert_str_eq(verdict_of(NULL, ARGV(__VA_ARGS__), true, NULL), "ok")
/* With s: refused, by the cover or by Landlock. */
#define REFUSED(s, ...)                                                             \
	do {                                                                        \
		const char *v_ = VERDICT(s, __VA_ARGS__);                           \
		ck_assert_msg(denied_verdict(v_), "%s: %s, not a denial", #__VA_ARGS__, v_); \
	} while (0)

static __attribute__((unused)) void secret_intact(void)
{
	char buf[64] = "";
	int fd = open(key, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_gt(read(fd, buf, sizeof(buf) - 1), 0);
	close(fd);
	ck_assert_str_eq(buf, SECRET "\n");
}

static __attribute__((unused)) void outcome(unsigned hidden, unsigned expanded)
{
	sbx_outcome_t oc;

	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_msg(oc.hidden == hidden && oc.expanded == expanded,
	              "hidden %u, expanded %u; want %u, %u (%s)", oc.hidden, oc.expanded, hidden,
	              expanded, said);
}

static __attribute__((unused)) char *sh_in_home(const char *cmd)
{
	static char buf[16384];

	snprintf(buf, sizeof(buf), "HOME='%s'; cd \"$HOME\" && %s", home, cmd);
	return buf;
}

#endif
