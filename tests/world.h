/* SPDX-License-Identifier: MIT */
/* What the escape suite's attacks from the world share (world.c): the tree,
 * a logger that acts when a directory is listed, a scope with the denial
 * expanded, and what a confined fsop or shell says under it.  The attacks:
 * check_world.c (a child preparing the next spawn, a thread's own
 * namespace or table, overlays) and check_world_renames.c (renames around
 * a compile, coarse timestamps, an unrelated re-admission). */
#ifndef SBX_TESTS_WORLD_H
#define SBX_TESTS_WORLD_H

#include <stdbool.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define SECRET "the-secret"

/* What the logger saw, and one thing to do when a directory is listed. */
struct world_seen {
	int alias, dropped, expand;
	int ignored_link;               /* SBX_EVENT_IGNORED_LINK, the last one's paths: */
	char link_path[4096], link_path2[4096];
	int listed;                     /* EXPAND events of `watched' */
	const char *watched;
	char alias_path2[4096];
	const char *when;               /* on the EXPAND event of this directory */
	void (*then)(void);
};

/* Each test's tree, and what the logger saw (cleared by world_setup). */
extern struct tree world;
extern struct world_seen seen;

void world_setup(void);
void world_teardown(void);
/* The expanded way: these are the compile's races and reuses, against the
 * directories it lists (check_hide.c holds the hidden way's). */
void scope_deny(sbx_scopeattr_t *s, const char *path);
/* What fsop says doing op on path under scope: its verdict line ("ok",
 * "EACCES", ...).  Unless the road is a documented limit (may_leak), the
 * secret is never in it. */
const char *does(const sbx_scopeattr_t *s, const char *op, const char *path, bool may_leak);
const char *reads(const sbx_scopeattr_t *s, const char *path, bool may_leak);
/* A shell command run under scope, for what a confined child does. */
int child_sh(const sbx_scopeattr_t *s, const char *cmd);
/* check_world_renames.c's attacks, added to the world's case. */
void world_renames_tests(TCase *tc);

#endif /* SBX_TESTS_WORLD_H */
