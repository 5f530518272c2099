/* SPDX-License-Identifier: MIT */
/* libsbxspawn-testing's readers and assertions, on the real kernel: what a
 * spawn left (its output, its refusal, its dropped grants, the names and
 * the ABI) read as the pages say, and the assertions holding and failing
 * where they should.  Part of check_testing (check_testing.c). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "sbxspawn/testing.h"
#include "tests/emulated.h"
#include "tests/testing_fixtures.h"

extern char **environ;

/* ---- reading what a spawn left ------------------------------------------- */

START_TEST(test_capture)
{
	char *text;
	int fd;

	ck_assert_int_eq(sbx_testing_capture_open(&fd), 0);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ck_assert_int_eq(sbx_testing_capture_read(fd, &text), 0);
	ck_assert_str_eq(text, "");
	free(text);
	/* Everything from the start, wherever the writers left the offset,
	 * and more than one buffer of it. */
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(write(fd, "0123456789", 10), 10);
	ck_assert_int_eq(sbx_testing_capture_read(fd, &text), 0);
	ck_assert_uint_eq(strlen(text), 10000);
	ck_assert_int_eq(strncmp(text + 9990, "0123456789", 10), 0);
	free(text);
	close(fd);
	ck_assert_int_eq(sbx_testing_capture_read(fd, &text), EBADF);
	ck_assert_int_eq(sbx_testing_capture_open(NULL), EINVAL);
}
END_TEST

START_TEST(test_run)
{
	char *exit3[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	char *killed[] = { "sh", "-c", "kill -9 $$", NULL };
	/* By path: a search of PATH says EACCES where a directory of it
	 * cannot be searched. */
	char *missing[] = { "/nonexistent/sbx-testing-program", NULL };
	char *out;
	int status;

	ck_assert_int_eq(sbx_testing_run(exit3, &status, &out), 0);
	sbx_ck_assert_exit(status, 3);
	ck_assert_str_eq(out, "out\nerr\n");
	free(out);
	ck_assert_int_eq(sbx_testing_run(killed, &status, NULL), 0);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == 9);
	ck_assert_str_eq(sbx_testing_status_name(status), "killed by signal 9 (Killed)");
	ck_assert_int_eq(sbx_testing_run(missing, &status, &out), ENOENT);
	ck_assert_int_eq(sbx_testing_run(NULL, &status, &out), EINVAL);
	/* Running the program under test leaves the thread's outcome alone. */
	sbx_ck_assert_outcome(SBX_OUTCOME_NONE);
}
END_TEST

START_TEST(test_refusal_find)
{
	const char *one = "cat: starting\n"
	                  "sbxspawn: /bin/cat: not run: Landlock refused the ruleset: "
	                  "landlock_restrict_self: not permitted (no_new_privs could not be set, "
	                  "or a filter forbids Landlock)\n";
	sbx_testing_refusal_t r;

	ck_assert_int_eq(sbx_testing_refusal_find(one, &r), 0);
	ck_assert_uint_eq(r.lines, 1);
	ck_assert_str_eq(r.program, "/bin/cat");
	ck_assert_str_eq(r.what, "Landlock refused the ruleset");
	ck_assert_str_eq(r.call, "landlock_restrict_self");
	ck_assert_str_eq(r.reason,
	                 "not permitted (no_new_privs could not be set, or a filter forbids Landlock)");
	/* Without its newline, and twice. */
	ck_assert_int_eq(sbx_testing_refusal_find("sbxspawn: a b: not run: Landlock refused the "
	                                          "ruleset: landlock_create_ruleset(VERSION): "
	                                          "error 77\nsbxspawn: x: not run: Landlock "
	                                          "refused the ruleset: y: z",
	                                          &r),
	                 0);
	ck_assert_uint_eq(r.lines, 2);
	ck_assert_str_eq(r.program, "a b");
	ck_assert_str_eq(r.call, "landlock_create_ruleset(VERSION)");
	ck_assert_str_eq(r.reason, "error 77");
	/* The other refusal the child words so. */
	ck_assert_int_eq(sbx_testing_refusal_find("sbxspawn: sh: not run: its confinement could not be "
	                                          "applied: setgroups: not permitted\n",
	                                          &r),
	                 0);
	ck_assert_str_eq(r.what, "its confinement could not be applied");
	ck_assert_str_eq(r.call, "setgroups");
	ck_assert_str_eq(r.reason, "not permitted");
	/* The parent's event about a refusal is no refusal line. */
	ck_assert_int_eq(sbx_testing_refusal_find("sbxspawn: true: not run: Landlock refused the "
	                                          "ruleset (Operation not permitted)\n",
	                                          &r),
	                 ENOENT);
	/* Only at the start of a line; none is ENOENT. */
	ck_assert_int_eq(sbx_testing_refusal_find("said: sbxspawn: x: not run: Landlock refused the "
	                                          "ruleset: y: z\n",
	                                          &r),
	                 ENOENT);
	ck_assert_uint_eq(r.lines, 0);
	ck_assert_int_eq(sbx_testing_refusal_find("", &r), ENOENT);
	ck_assert_int_eq(sbx_testing_refusal_find(NULL, &r), EINVAL);
}
END_TEST

/* Every kind of refusal, for real, read by the same reader: the child's
 * line, said once (the default logger leaves the parent's event to loggers
 * that keep data). */
START_TEST(test_refusal_kinds)
{
	char *argv[] = { "cat", "/etc/hostname", NULL };
	struct tree t;
	sbx_testing_refusal_t r;
	sbx_file_actions_t fa;
	sbx_scopeattr_t s;
	char *text;
	int fd, saved;
	pid_t pid;

	if (kernel_abi() < 4) {
		fprintf(stderr, "SKIP %s: needs Landlock ABI 4 (it caps below it)\n", __func__);
		return;
	}
	/* A control asked for strictly that the ABI the scope is capped at
	 * cannot enforce; the default logger writes on the same file. */
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_NO_TCP_CONNECT | SBX_SCOPE_STRICT), 0);
	ck_assert_int_eq(sbx_scopeattr_setabi(&s, 3), 0);
	ck_assert_int_eq(sbx_testing_capture_open(&fd), 0);
	ck_assert_int_ge(saved = dup(2), 0);
	ck_assert_int_eq(dup2(fd, 2), 2);
	ck_assert_int_eq(sbx_file_actions_init(&fa), 0);
	ck_assert_int_eq(sbx_file_actions_adddup2(&fa, fd, 1), 0);
	ck_assert_int_eq(sbx_file_actions_adddup2(&fa, fd, 2), 0);
	ck_assert_int_eq(sbx_posix_spawnp(&pid, "cat", &fa, NULL, &s, argv, environ), SBX_EREFUSED);
	ck_assert_int_eq(dup2(saved, 2), 2);
	close(saved);
	sbx_file_actions_destroy(&fa);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(sbx_testing_capture_read(fd, &text), 0);
	close(fd);
	ck_assert_msg(strstr(text, "(tcp_connect: needs Landlock ABI 4)") == NULL,
	              "the parent's event, said a second time: %s", text);
	sbx_ck_assert_refusal(text, "cat");
	ck_assert_int_eq(sbx_testing_refusal_find(text, &r), 0);
	ck_assert_str_eq(r.what, "SBX_SCOPE_STRICT refuses a control not enforced in full");
	ck_assert_str_eq(r.call, "tcp_connect");
	ck_assert_str_eq(r.reason, "needs Landlock ABI 4");
	free(text);

	/* A scope compiled inside a domain that froze what it must list:
	 * sbxrun, which runs no child, writes the line itself. */
	tree_make(&t);
	{
		char *nested[] = { SBXRUN, "--quiet", "--expand", "--deny", t.other, "--", SBXRUN,
			           "--deny", t.third, "--", "true", NULL };
		/* sbxrun names its own option. */
		const char *remedy = " (make the enclosing scope listable, with --listable)";
		int status;

		ck_assert_int_eq(sbx_testing_run(nested, &status, &text), 0);
		sbx_ck_assert_exit(status, SBX_EXIT_REFUSED);
		sbx_ck_assert_refusal(text, "true");
		ck_assert_int_eq(sbx_testing_refusal_find(text, &r), 0);
		ck_assert_str_eq(r.what, "the Landlock domain this process runs in forbids listing");
		ck_assert_str_eq(r.call, "open(O_DIRECTORY)");
		ck_assert_msg(r.reason[0] == '/' && strlen(r.reason) > strlen(remedy) &&
		                      !strcmp(r.reason + strlen(r.reason) - strlen(remedy), remedy),
		              "the directory and the remedy: %s", r.reason);
		free(text);
	}
	tree_free(&t);
}
END_TEST

START_TEST(test_dropped_find)
{
	/* Before any spawn, nothing was dropped. */
	ck_assert_int_eq(sbx_testing_dropped_find("/usr"), ENOENT);
	ck_assert_int_eq(sbx_testing_dropped_find(NULL), EINVAL);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(sbx_testing_confinement_name(SBX_OUTCOME_NONE), "SBX_OUTCOME_NONE");
	ck_assert_str_eq(sbx_testing_confinement_name(SBX_OUTCOME_REFUSED), "SBX_OUTCOME_REFUSED");
	ck_assert_str_eq(sbx_testing_confinement_name(99), "confinement 99 (unknown)");
	ck_assert_str_eq(sbx_testing_stage_name(SBX_STAGE_FILE_ACTION), "SBX_STAGE_FILE_ACTION");
	ck_assert_str_eq(sbx_testing_stage_name(-1), "stage -1 (unknown)");
	ck_assert_str_eq(sbx_testing_status_name(0), "exit 0");
	ck_assert_str_eq(sbx_testing_status_name(SBX_EXIT_REFUSED << 8),
	                 "exit 125 (SBX_EXIT_REFUSED: not run, the confinement was refused)");
	ck_assert_str_eq(sbx_testing_status_name(126 << 8), "exit 126 (found, but could not be executed)");
	ck_assert_str_eq(sbx_testing_status_name(127 << 8), "exit 127 (not found)");
	ck_assert_str_eq(sbx_testing_status_name(0x137f), "stopped by signal 19 (Stopped (signal))");
	/* Four at a time, in one thread. */
	{
		const char *a = sbx_testing_status_name(1 << 8), *b = sbx_testing_status_name(2 << 8),
		           *c = sbx_testing_status_name(3 << 8), *d = sbx_testing_status_name(4 << 8);

		ck_assert_str_eq(a, "exit 1");
		ck_assert_str_eq(b, "exit 2");
		ck_assert_str_eq(c, "exit 3");
		ck_assert_str_eq(d, "exit 4");
	}
}
END_TEST

START_TEST(test_landlock_abi)
{
	long direct = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	ck_assert_int_eq(kernel_abi(), direct > 0 ? (int)direct : 0);
	ck_assert_int_eq(sbx_testing_landlock_abi(NULL), EINVAL);
	/* A filter that says no hides nothing: the ABI is unknown. */
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_CREATE_RULESET, EPERM), 0);
	{
		int abi = -1;

		ck_assert_int_eq(sbx_testing_landlock_abi(&abi), EPERM);
		ck_assert_int_eq(abi, -1);
	}
}
END_TEST

/* ---- the assertions ------------------------------------------------------ */

START_TEST(test_asserts_hold)
{
	sbx_testing_refusal_t r;

	/* Each holds where it should (the failing side: test_asserts_fail). */
	sbx_ck_assert_outcome(SBX_OUTCOME_NONE);
	sbx_ck_assert_stage(SBX_STAGE_NONE, 0);
	sbx_ck_assert_exit(SBX_EXIT_REFUSED << 8, SBX_EXIT_REFUSED);
	sbx_ck_assert_refusal("sbxspawn: true: not run: Landlock refused the ruleset: a: b\n", "true");
	ck_assert_int_eq(sbx_testing_refusal_find("x\n", &r), ENOENT);
}
END_TEST

START_TEST(test_asserts_fail)
{
	/* strerror(0): "Success" in glibc, "No error information" in musl. */
	char stage_said[256];
	const char *const said[] = {
		"the last spawn was SBX_OUTCOME_NONE, not SBX_OUTCOME_REFUSED",
		stage_said,
		"/sbx-testing/x is not among the 0 dropped grants of the last spawn",
		"exit 127 (not found), not exit 125 (SBX_EXIT_REFUSED: not run, the confinement was "
		"refused)",
		"killed by signal 9 (Killed), not exit 0",
		"no refusal line in \"cat: x: No such file or directory\n\"",
		"2 refusal lines in \"sbxspawn: a: not run: Landlock refused the ruleset: c: d\n"
		"sbxspawn: a: not run: Landlock refused the ruleset: c: d\n\"",
		"the refusal names /bin/true, not true",
	};
	char *argv[] = { ASSERTS, NULL };
	char *out;
	int status;

	snprintf(stage_said, sizeof(stage_said), "the last spawn stopped at SBX_STAGE_NONE with "
	         "error 0 (%s), not at SBX_STAGE_EXEC with error 2", strerror(0));
	/* A Check program of failing assertions, run as one. */
	ck_assert_int_eq(sbx_testing_run(argv, &status, &out), 0);
	sbx_ck_assert_exit(status, 0);
	ck_assert_msg(strstr(out, "0%: Checks: 8, Failures: 8, Errors: 0") != NULL, "%s", out);
	for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++)
		ck_assert_msg(strstr(out, said[i]) != NULL, "missing \"%s\" in:\n%s", said[i], out);
	free(out);
}
END_TEST

/* Why a test cannot run under a user-mode emulator (qemu-user), or NULL:
 * the library provokes its outcomes with seccomp filters, which the
 * emulator refuses, and runs a program with the C library's posix_spawn,
 * which cannot tell a failed child there. */

void testing_report_cases(const TTest *report[12], const TTest *asserts[12])
{
	const TTest *r[] = { test_capture, test_run, test_refusal_find, test_refusal_kinds,
	                     test_dropped_find, test_names, test_landlock_abi, NULL };
	const TTest *a[] = { test_asserts_hold, test_asserts_fail, NULL };

	for (size_t i = 0; i < 12; i++) {
		report[i] = i < sizeof(r) / sizeof(r[0]) ? r[i] : NULL;
		asserts[i] = i < sizeof(a) / sizeof(a[0]) ? a[i] : NULL;
	}
}
