/* SPDX-License-Identifier: MIT */
/* capture's own handling of every way a confined spawn ends, each one
 * provoked on the real kernel with libsbxspawn-testing: refused, run
 * unconfined, run narrowed, failed at a file action or at exec.  Each test
 * runs in a process of its own (Check's fork mode), which is what the
 * provocations need: they change that process for good. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sbxspawn/testing.h>

#include "capture.h"

/* A directory the command may read and one it may not. */
static char top[] = "/var/tmp/capture-test.XXXXXX";
static char open_dir[64], open_file[80], closed_dir[64], closed_file[80];
static char deny_var[96];
static char *confined_env[] = { deny_var, NULL };
static struct capture_options confined = { .env = confined_env };
/* The denial expanded: the directories above it listed, each entry granted
 * on its own, one of which a test can have the kernel refuse. */
static char *expanded_env[] = { deny_var, "CAPTURE_EXPAND=1", NULL };
static struct capture_options expanded = { .env = expanded_env };

/* What capture wrote on each stream. */
static FILE *out, *err;
static char *said, *complained;
static size_t said_len, complained_len;

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static void streams_open(void)
{
	out = open_memstream(&said, &said_len);
	err = open_memstream(&complained, &complained_len);
	ck_assert(out && err);
}

static void streams_close(void)
{
	fclose(out);
	fclose(err);
	free(said);
	free(complained);
}

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(top));
	snprintf(open_dir, sizeof(open_dir), "%s/open", top);
	snprintf(closed_dir, sizeof(closed_dir), "%s/closed", top);
	snprintf(open_file, sizeof(open_file), "%s/f", open_dir);
	snprintf(closed_file, sizeof(closed_file), "%s/f", closed_dir);
	snprintf(deny_var, sizeof(deny_var), "CAPTURE_DENY=%s", closed_dir);
	mkdir(open_dir, 0755);
	mkdir(closed_dir, 0755);
	put(open_file, "visible\n", 0644);
	put(closed_file, "hidden\n", 0644);
	streams_open();
}

static void teardown(void)
{
	streams_close();
	unlink(open_file);
	unlink(closed_file);
	rmdir(open_dir);
	rmdir(closed_dir);
	rmdir(top);
}

/* capture_run, with both streams readable afterwards. */
static int capture(char *const argv[], const struct capture_options *opt)
{
	int status = capture_run(argv, opt, out, err);

	fflush(out);
	fflush(err);
	return status;
}

/* ---- the four outcomes --------------------------------------------------- */

START_TEST(test_refused)
{
	char *argv[] = { "cat", open_file, NULL };

	sbx_ck_require_landlock();
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_RESTRICT_SELF, EPERM), 0);
	ck_assert_int_eq(capture(argv, &confined), CAPTURE_NOT_RUN);
	sbx_ck_assert_outcome(SBX_OUTCOME_REFUSED);
	sbx_ck_assert_refusal(said, "cat");
	ck_assert_str_eq(complained, "capture: cat: not run: the sandbox was refused\n");
}
END_TEST

START_TEST(test_refused_at_creation)
{
	char *argv[] = { "cat", open_file, NULL };

	/* No Landlock needed: the first question to it is refused. */
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_CREATE_RULESET, EPERM), 0);
	ck_assert_int_eq(capture(argv, &confined), CAPTURE_NOT_RUN);
	sbx_ck_assert_refusal(said, "cat");
	ck_assert_str_eq(complained, "capture: cat: not run: the sandbox was refused\n");
}
END_TEST

START_TEST(test_refused_whole_program)
{
	char *argv[] = { CAPTURE, "cat", open_file, NULL };
	char *output;
	int status;

	sbx_ck_require_landlock();
	/* Sixteen domains stacked: the kernel's own E2BIG, inherited by
	 * the program, which exits 125, not 127. */
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_RESTRICT_SELF, E2BIG), 0);
	ck_assert_int_eq(setenv("CAPTURE_DENY", closed_dir, 1), 0);
	ck_assert_int_eq(sbx_testing_run(argv, &status, &output), 0);
	sbx_ck_assert_exit(status, CAPTURE_NOT_RUN);
	sbx_ck_assert_refusal(output, "cat");
	ck_assert_ptr_nonnull(strstr(output, "capture: cat: not run: the sandbox was refused\n"));
	ck_assert_ptr_null(strstr(output, "visible"));
	free(output);
}
END_TEST

START_TEST(test_unconfined)
{
	char *argv[] = { "cat", closed_file, NULL };
	char *required_env[] = { deny_var, "CAPTURE_REQUIRE=1", NULL };
	struct capture_options required = { .env = required_env };

	ck_assert_int_eq(sbx_testing_landlock_hide(ENOSYS), 0);
	ck_assert_int_eq(capture(argv, &confined), CAPTURE_RAN);
	sbx_ck_assert_outcome(SBX_OUTCOME_UNCONFINED);
	ck_assert_str_eq(said, "hidden\n[exit 0]\n");
	ck_assert_str_eq(complained, "capture: warning: cat ran unconfined: this kernel has no "
	                             "Landlock (CAPTURE_REQUIRE=1 refuses instead)\n");
	/* Asked never to run unconfined: it does not. */
	streams_close();
	streams_open();
	ck_assert_int_eq(capture(argv, &required), CAPTURE_NOT_RUN);
	ck_assert_str_eq(complained, "capture: cat: not run: this kernel has no Landlock and "
	                             "CAPTURE_REQUIRE is set\n");
}
END_TEST

START_TEST(test_narrowed)
{
	char *argv[] = { "cat", open_file, NULL };
	char warning[160];

	sbx_ck_require_landlock();
	ck_assert_int_eq(sbx_testing_grant_drop(open_dir, EPERM), 0);
	ck_assert_int_eq(capture(argv, &expanded), CAPTURE_RAN);
	sbx_ck_assert_outcome(SBX_OUTCOME_NARROWED);
	sbx_ck_assert_dropped(open_dir);
	/* Narrower, never wider: the command ran, and could not read it. */
	ck_assert_ptr_nonnull(strstr(said, "Permission denied"));
	ck_assert_ptr_nonnull(strstr(said, "[exit 1]\n"));
	snprintf(warning, sizeof(warning), "capture: warning: %s was out of cat's reach too\n",
	         open_dir);
	ck_assert_str_eq(complained, warning);
}
END_TEST

START_TEST(test_failed_file_action)
{
	char *argv[] = { "cat", NULL };
	struct capture_options input = { .env = confined_env, .input = "/nonexistent/input" };

	ck_assert_int_eq(capture(argv, &input), CAPTURE_BAD_INPUT);
	sbx_ck_assert_stage(SBX_STAGE_FILE_ACTION, ENOENT);
	ck_assert_str_eq(complained, "capture: /nonexistent/input: cannot be the input: "
	                             "No such file or directory\n");
	ck_assert_str_eq(said, "");
}
END_TEST

START_TEST(test_failed_exec)
{
	/* By path: a search of PATH says EACCES, not ENOENT, where one of its
	 * directories cannot be searched. */
	char *missing[] = { "/nonexistent/capture-no-such-command", NULL };
	char *not_executable[] = { open_file, NULL };
	char expected[160];

	ck_assert_int_eq(capture(missing, &confined), CAPTURE_NOT_FOUND);
	sbx_ck_assert_stage(SBX_STAGE_EXEC, ENOENT);
	ck_assert_str_eq(complained,
	                 "capture: /nonexistent/capture-no-such-command: command not found\n");
	streams_close();
	streams_open();
	ck_assert_int_eq(capture(not_executable, &confined), CAPTURE_CANNOT_EXEC);
	sbx_ck_assert_stage(SBX_STAGE_EXEC, EACCES);
	snprintf(expected, sizeof(expected), "capture: %s: cannot be executed: Permission denied\n",
	         open_file);
	ck_assert_str_eq(complained, expected);
}
END_TEST

/* ---- and when all goes well ---------------------------------------------- */

START_TEST(test_confined)
{
	char *argv[] = { "cat", open_file, closed_file, NULL };

	sbx_ck_require_landlock();
	ck_assert_int_eq(capture(argv, &confined), CAPTURE_RAN);
	sbx_ck_assert_outcome(SBX_OUTCOME_CONFINED);
	ck_assert_ptr_nonnull(strstr(said, "visible\n"));
	ck_assert_ptr_null(strstr(said, "hidden"));
	ck_assert_ptr_nonnull(strstr(said, "[exit 1]\n"));
	ck_assert_str_eq(complained, "");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("capture");
	TCase *tc = tcase_create("outcomes");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	/* No time limit (Check's default is 4 s): a test a busy build machine
	 * fails by being slow tells nothing.  A hang is the build's to catch. */
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_refused_at_creation);
	tcase_add_test(tc, test_refused_whole_program);
	tcase_add_test(tc, test_unconfined);
	tcase_add_test(tc, test_narrowed);
	tcase_add_test(tc, test_failed_file_action);
	tcase_add_test(tc, test_failed_exec);
	tcase_add_test(tc, test_confined);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
