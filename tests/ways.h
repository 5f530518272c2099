/* SPDX-License-Identifier: MIT */
/* The spawn suites' harness: one spawn made four ways, compared.
 *
 * The reference is the C library's own posix_spawn[p]; then sbx_posix_spawn[p]
 * with a NULL scope, with a scope made for the spawn (compiled by it) and
 * with a scope compiled before (sbx_scopeattr_compile), both denying a
 * directory that has nothing to do with the test.  What a caller can
 * observe must be the same each way: the return value, whether *pid was
 * written, the child's exit status and state as the probe prints it
 * (arguments, environment, descriptors, working directory, signals,
 * process group and session, scheduling, ids), the caller's own descriptor
 * table, and the number its next open() returns.  The library's outcome
 * must agree with what the spawn returned.  The differences the library
 * documents are asserted exactly where they arise (ways_run's callers). */
#ifndef SBX_TESTS_WAYS_H
#define SBX_TESTS_WAYS_H

#include <spawn.h>
#include <stdbool.h>

#include "tests/common.h"

#define PROBE HELPER_DIR "/probe"

enum way { WAY_LIBC, WAY_NULL, WAY_FRESH, WAY_COMPILED, NWAYS };

/* The same file actions and attributes, built for both implementations. */
struct ways {
	posix_spawn_file_actions_t g;
	sbx_file_actions_t s;
	posix_spawnattr_t attr;
	bool use_attr, use_fa;
	char *const *envp;     /* what every way passes as the environment, where */
	bool envp_given;       /* it is given: else environ as it is at the spawn */
	int free_fds;          /* RLIMIT_NOFILE while the spawn runs leaves this
	                        * many descriptors free below it; -1: as it is */
	const char *tmpdir;    /* the scoped ways' sbx_scopeattr_settmpdir */
	const char *probe;     /* the probe ways_probe runs: PROBE unless set */
	const char *lacks;     /* what the C library lacks: the library's ways alone */
	const char *test;
};

struct way_result {
	int ret;
	bool pid_written;
	int status;            /* -1 where nothing ran */
	int next_fd;           /* what the caller's next open() returned */
	char *out;             /* what the probe printed */
	char *table_change;    /* the caller's descriptors after, beside before */
};

/* The flags of every scope the ways make (0: the library's default way of
 * denying; SBX_SCOPE_EXPAND for a test of the expanded way). */
extern int ways_scope_flags;

#define ways_init(d) ways_init_(d, __func__)
void ways_init_(struct ways *d, const char *test);
void ways_destroy(struct ways *d);

/* The file actions, added to both; each asserts the same answer. */
void w_open(struct ways *d, int fd, const char *path, int oflag, mode_t mode);
void w_close(struct ways *d, int fd);
void w_dup2(struct ways *d, int fd, int newfd);
void w_chdir(struct ways *d, const char *path);
void w_fchdir(struct ways *d, int fd);
void w_closefrom(struct ways *d, int from);
void w_tcsetpgrp(struct ways *d, int fd);
void w_flags(struct ways *d, short flags);

/* One way, as it went. */
struct way_result ways_one(struct ways *d, enum way w, bool search, const char *file,
                           char *const argv[]);
void way_result_free(struct way_result *r);

/* Every way: each must return want_ret and agree with the reference in
 * everything above.  Returns what the probe printed, for further checks. */
char *ways_run(struct ways *d, bool search, const char *file, char *const argv[], int want_ret);
/* The probe with two arguments ("a b"), every way, expected to succeed. */
char *ways_probe(struct ways *d);
/* A copy of the probe that any user may run (the build tree may lie in a
 * directory others cannot search: a 0700 home). */
const char *probe_for_anyone(void);

const char *way_name(enum way w);
/* The scope of a way (NULL for the first two): made on first use, the
 * compiled one kept for the test's process. */
sbx_scopeattr_t *way_scope(enum way w);
/* Where the scoped ways' unrelated denial is. */
const char *ways_denied(void);

void assert_has(const char *out, const char *needle);

/* Whether what the child prints of its argv[0] and environment can be held
 * to what the spawn passed: not under the emulator (qemu-user rewrites
 * them), which says SKIP for test and why; the ways are still compared
 * with each other there. */
bool child_sees_as_given(const char *test);

/* Whether the C library's posix_spawn can be the reference for a spawn that
 * fails: not under the emulator (it cannot tell a failed child there),
 * which says SKIP for test and why. */
bool libc_tells_failures(const char *test);
void assert_lacks(const char *out, const char *needle);

#endif
