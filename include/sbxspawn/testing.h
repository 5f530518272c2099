/* SPDX-License-Identifier: MIT */
/*
 * libsbxspawn-testing: every outcome of sbx_posix_spawn(), provoked on the
 * real kernel inside a Check test, and assertions that read well.
 *
 * A provocation changes the calling process for good (a seccomp filter,
 * stacked Landlock domains, no_new_privs), as a test about a refused or
 * narrowed spawn needs it to: call it in a test that Check runs in a
 * process of its own (fork mode, the default), before the spawns it is
 * about.  Where it can tell that the calling process is no such copy, it
 * refuses with ECHILD and changes nothing.  Nothing here is for production
 * code: link it into test programs only (pkg-config sbxspawn-testing).
 *
 * Every function returns 0 or a positive error number and leaves errno as
 * it found it; the *_name functions return a description.
 */
#ifndef SBXSPAWN_TESTING_H
#define SBXSPAWN_TESTING_H

#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <sbxspawn/sbxspawn.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Provocations: each changes the calling process for good
 * --------------------------------------------------------------------- */

/* Steps of sbx_testing_landlock_refuse(). */
#define SBX_TESTING_CREATE_RULESET 1 /* landlock_create_ruleset: the spawn is refused */
#define SBX_TESTING_ADD_RULE 2       /* landlock_add_rule: every grant is dropped */
#define SBX_TESTING_RESTRICT_SELF 3  /* landlock_restrict_self: the spawn is refused */

/* The Landlock ABI this process can use, asked of the kernel directly:
 * 0 where it has none. */
int sbx_testing_landlock_abi(int *abi);
/* Landlock looks absent: its system calls fail with err (ENOSYS: not built
 * in; EOPNOTSUPP: disabled at boot).  Spawns run unconfined, or fail with
 * ENOTSUP under SBX_SCOPE_REQUIRE.  Before the process's first spawn. */
int sbx_testing_landlock_hide(int err);
/* Landlock refuses one step with err (EPERM, E2BIG, ...). */
int sbx_testing_landlock_refuse(int step, int err);
/* The kernel refuses every Landlock rule on the file path names now, with
 * err: that grant is dropped, the spawn is narrowed, the event names it. */
int sbx_testing_grant_drop(const char *path, int err);

/* ------------------------------------------------------------------------
 * What a child said, and how a program ended
 * --------------------------------------------------------------------- */

/* A memory file to hand a child as its stdout or stderr (sbx_file_actions_adddup2). */
int sbx_testing_capture_open(int *fd);
/* Everything written to it so far, NUL-terminated, in *text (free it). */
int sbx_testing_capture_read(int fd, char **text);
/* Runs argv (looked up in PATH) with stdin from /dev/null and stdout and
 * stderr captured together; waits for it.  *status: its wait status. */
int sbx_testing_run(char *const argv[], int *status, char **output);

/* The line a refused child writes on its stderr, after the file actions:
 * "sbxspawn: PROGRAM: not run: Landlock refused the ruleset: CALL: REASON". */
typedef struct sbx_testing_refusal {
	unsigned lines;     /* refusal lines in the text */
	char program[1024]; /* the program the first one names */
	char what[128];     /* what was refused: "Landlock refused the ruleset" */
	char call[128];     /* the call that failed */
	char reason[256];   /* its error, in the child's words */
} sbx_testing_refusal_t;

/* ENOENT when text holds no refusal line. */
int sbx_testing_refusal_find(const char *SBX_RESTRICT text,
                             sbx_testing_refusal_t *SBX_RESTRICT refusal);
/* 0 when the calling thread's last spawn dropped path's grant, else ENOENT. */
int sbx_testing_dropped_find(const char *path);

/* The constant's name: "SBX_OUTCOME_NARROWED", "SBX_STAGE_EXEC". */
const char *sbx_testing_confinement_name(int confinement);
const char *sbx_testing_stage_name(int stage);
/* A wait status in words: "exit 125 (SBX_EXIT_REFUSED: ...)", "exit 127
 * (not found)", "killed by signal 9 (Killed)".  Thread-local; valid until
 * the fourth next call from the same thread. */
const char *sbx_testing_status_name(int status);

/* ------------------------------------------------------------------------
 * Check assertions
 * --------------------------------------------------------------------- */

/* Skips the rest of the test, saying SKIP on stderr, where the kernel has
 * no Landlock. */
#define sbx_ck_require_landlock()                                                          \
	do {                                                                               \
		int sbx_ck_abi_ = 0;                                                       \
		if (sbx_testing_landlock_abi(&sbx_ck_abi_) == 0 && sbx_ck_abi_ == 0) {     \
			fprintf(stderr, "SKIP %s: this kernel has no Landlock\n", __func__); \
			return;                                                            \
		}                                                                          \
	} while (0)

/* The calling thread's last spawn was confined so (SBX_OUTCOME_*).  The
 * parameters are named apart from the members the macros read. */
#define sbx_ck_assert_outcome(kind)                                                \
	do {                                                                              \
		sbx_outcome_t sbx_ck_o_;                                                  \
		int sbx_ck_want_ = (kind);                                         \
		ck_assert_msg(sbx_outcome_get(&sbx_ck_o_) == 0, "sbx_outcome_get failed"); \
		ck_assert_msg(sbx_ck_o_.confinement == sbx_ck_want_,                      \
		              "the last spawn was %s, not %s",                            \
		              sbx_testing_confinement_name(sbx_ck_o_.confinement),        \
		              sbx_testing_confinement_name(sbx_ck_want_));                \
	} while (0)

/* The calling thread's last spawn failed at where (SBX_STAGE_*) with err
 * (SBX_STAGE_NONE and 0: it did not fail). */
#define sbx_ck_assert_stage(where, err)                                                 \
	do {                                                                              \
		sbx_outcome_t sbx_ck_o_;                                                  \
		int sbx_ck_stage_ = (where), sbx_ck_err_ = (err);                       \
		ck_assert_msg(sbx_outcome_get(&sbx_ck_o_) == 0, "sbx_outcome_get failed"); \
		ck_assert_msg(sbx_ck_o_.stage == sbx_ck_stage_ &&                         \
		                  sbx_ck_o_.error == sbx_ck_err_,                         \
		              "the last spawn stopped at %s with error %d (%s), not at "  \
		              "%s with error %d",                                         \
		              sbx_testing_stage_name(sbx_ck_o_.stage), sbx_ck_o_.error,   \
		              sbx_strerror(sbx_ck_o_.error),                              \
		              sbx_testing_stage_name(sbx_ck_stage_), sbx_ck_err_);        \
	} while (0)

/* The calling thread's last spawn dropped the grant of path. */
#define sbx_ck_assert_dropped(path)                                                       \
	do {                                                                              \
		const char *sbx_ck_path_ = (path);                                        \
		sbx_outcome_t sbx_ck_o_;                                                  \
		ck_assert_msg(sbx_outcome_get(&sbx_ck_o_) == 0, "sbx_outcome_get failed"); \
		ck_assert_msg(sbx_testing_dropped_find(sbx_ck_path_) == 0,                \
		              "%s is not among the %u dropped grants of the last spawn%s%s", \
		              sbx_ck_path_, sbx_ck_o_.dropped,                            \
		              sbx_ck_o_.dropped ? ", the first: " : "",                   \
		              sbx_ck_o_.dropped ? sbx_ck_o_.dropped_paths[0] : "");       \
	} while (0)

/* The wait status is an exit with code: SBX_EXIT_REFUSED (125), 127, ... */
#define sbx_ck_assert_exit(status, code)                                                  \
	do {                                                                              \
		int sbx_ck_status_ = (status), sbx_ck_code_ = (code);                     \
		ck_assert_msg(WIFEXITED(sbx_ck_status_) &&                                \
		                  WEXITSTATUS(sbx_ck_status_) == sbx_ck_code_,            \
		              "%s, not %s", sbx_testing_status_name(sbx_ck_status_),      \
		              sbx_testing_status_name((sbx_ck_code_ & 0xff) << 8));       \
	} while (0)

/* text holds exactly one refusal line, and it names the program name. */
#define sbx_ck_assert_refusal(text, name)                                              \
	do {                                                                              \
		const char *sbx_ck_text_ = (text), *sbx_ck_prog_ = (name);             \
		sbx_testing_refusal_t sbx_ck_r_;                                          \
		ck_assert_msg(sbx_testing_refusal_find(sbx_ck_text_, &sbx_ck_r_) == 0,    \
		              "no refusal line in \"%s\"", sbx_ck_text_);                 \
		ck_assert_msg(sbx_ck_r_.lines == 1, "%u refusal lines in \"%s\"",         \
		              sbx_ck_r_.lines, sbx_ck_text_);                             \
		ck_assert_msg(strcmp(sbx_ck_r_.program, sbx_ck_prog_) == 0,               \
		              "the refusal names %s, not %s", sbx_ck_r_.program,          \
		              sbx_ck_prog_);                                              \
	} while (0)

#ifdef __cplusplus
}
#endif

#endif /* SBXSPAWN_TESTING_H */
