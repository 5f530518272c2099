/* SPDX-License-Identifier: MIT */
/* The spawn engine against the C library: the same calls through
 * posix_spawn[p] and sbx_posix_spawn[p], with no scope, a scope made for the
 * spawn and a compiled one (tests/ways.h), must return the same and leave
 * the child and the caller in the same state, as a probe program prints it.
 * Where the C library lacks a call (musl: closefrom and tcsetpgrp actions)
 * or does not do what glibc does, the child is checked against what glibc
 * would give, and a SKIP line says the comparison was not made.  The
 * attributes: check_spawn_attrs.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/ways.h"

/* ---- no attributes, no actions -------------------------------------- */

START_TEST(test_plain)
{
	struct ways d;
	char *out;

	ways_init(&d);
	out = ways_probe(&d);
	assert_has(out, "arg=a b");
	assert_has(out, "fd=1 ");
	free(out);
	ways_destroy(&d);
}
END_TEST

START_TEST(test_null_everything)
{
	char *argv[] = { "true", NULL };
	pid_t pid;

	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, NULL, argv, environ), 0);
	ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 0);
	/* posix_spawn accepts a NULL pid. */
	ck_assert_int_eq(sbx_posix_spawn(NULL, "/bin/true", NULL, NULL, NULL, argv, environ), 0);
	ck_assert_int_gt(wait(NULL), 0);
}
END_TEST

/* ---- file actions ----------------------------------------------------- */

START_TEST(test_open_actions)
{
	struct ways d;
	char *dir = make_tmpdir(), *out;
	int busy = open("/dev/null", O_RDONLY); /* not close-on-exec */

	ways_init(&d);
	w_open(&d, 5, join(dir, "new"), O_WRONLY | O_CREAT | O_APPEND, 0600);
	w_open(&d, 0, "/etc/hostname", O_RDONLY, 0);
	/* Onto a descriptor that is already open: it is closed first. */
	w_open(&d, busy, "/etc/passwd", O_RDONLY | O_NONBLOCK, 0);
	out = ways_probe(&d);
	assert_has(out, "fd=0 /etc/hostname");
	assert_has(out, "/new flags=0x401 cloexec=0");
	assert_has(out, "/etc/passwd flags=0x800");
	free(out);
	close(busy);
	ways_destroy(&d);
	rm_rf(dir);
	free(dir);
}
END_TEST

START_TEST(test_close_actions)
{
	struct ways d;
	char *out;
	int a = open("/etc/passwd", O_RDONLY), b = open("/etc/hostname", O_RDONLY);

	ck_assert_int_ge(b, 0);
	ways_init(&d);
	w_close(&d, a);
	w_close(&d, 200); /* not open: not an error */
	out = ways_probe(&d);
	assert_lacks(out, "/etc/passwd");
	assert_has(out, "/etc/hostname");
	free(out);
	ways_destroy(&d);
	close(a);
	close(b);
}
END_TEST

START_TEST(test_dup2_actions)
{
	struct ways d;
	char *out;
	int a = open("/etc/passwd", O_RDONLY);
	int b = open("/etc/hostname", O_RDONLY | O_CLOEXEC);
	/* A number nothing holds, whatever this process inherited. */
	int to = (a > b ? a : b) + 1;
	char want[64];

	while (fcntl(to, F_GETFD) != -1 || errno != EBADF)
		to++;

	ways_init(&d);
	w_dup2(&d, a, to);
	/* dup2(fd, fd) clears close-on-exec. */
	w_dup2(&d, b, b);
	out = ways_probe(&d);
	snprintf(want, sizeof(want), "fd=%d /etc/passwd", to);
	assert_has(out, want);
	snprintf(want, sizeof(want), "fd=%d /etc/hostname", b);
	assert_has(out, want);
	free(out);
	ways_destroy(&d);
	close(a);
	close(b);
}
END_TEST

START_TEST(test_chdir_actions)
{
	struct ways d;
	char *out;
	int usr = open("/usr", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	ways_init(&d);
	w_chdir(&d, "/");
	w_chdir(&d, "tmp");
	out = ways_probe(&d);
	assert_has(out, "cwd=/tmp\n");
	free(out);
	ways_destroy(&d);

	ways_init(&d);
	w_fchdir(&d, usr);
	out = ways_probe(&d);
	assert_has(out, "cwd=/usr\n");
	free(out);
	ways_destroy(&d);
	close(usr);
}
END_TEST

START_TEST(test_closefrom_action)
{
	struct ways d;
	char *out;

	for (int fd = 5; fd < 9; fd++)
		ck_assert_int_eq(dup2(0, fd), fd);
	ways_init(&d);
	w_dup2(&d, 0, 3);
	w_closefrom(&d, 5);
	out = ways_probe(&d);
	assert_has(out, "fd=3 ");
	assert_lacks(out, "fd=5 ");
	assert_lacks(out, "fd=8 ");
	free(out);
	ways_destroy(&d);
}
END_TEST

START_TEST(test_closefrom_without_close_range)
{
	struct ways d;
	char *out;

	/* A kernel before 5.9: both fall back to closing what /proc lists. */
	seccomp_fail(SYS_close_range, ENOSYS);
	for (int fd = 5; fd < 9; fd++)
		ck_assert_int_eq(dup2(0, fd), fd);
	ways_init(&d);
	w_closefrom(&d, 6);
	out = ways_probe(&d);
	assert_has(out, "fd=5 ");
	assert_lacks(out, "fd=6 ");
	assert_lacks(out, "fd=8 ");
	free(out);
	ways_destroy(&d);
}
END_TEST

START_TEST(test_tcsetpgrp_action)
{
	struct ways d;
	char *out;
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);

	ck_assert_int_ge(master, 0);
	ck_assert_int_eq(grantpt(master), 0);
	ck_assert_int_eq(unlockpt(master), 0);
	ways_init(&d);
	w_flags(&d, POSIX_SPAWN_SETSID);
	/* A session leader opening a terminal makes it its controlling one. */
	w_open(&d, 0, ptsname(master), O_RDWR, 0);
	w_tcsetpgrp(&d, 0);
	out = ways_probe(&d);
	assert_has(out, "tpgid=self");
	assert_has(out, "sid=self");
	free(out);
	ways_destroy(&d);
	close(master);
}
END_TEST

/* ---- errors ------------------------------------------------------------ */

START_TEST(test_exec_errors)
{
	struct ways d;
	char *dir = make_tmpdir();
	char *argv[] = { "x", NULL };
	char noexec[4096], garbage[4096];

	snprintf(noexec, sizeof(noexec), "%s/noexec", dir);
	snprintf(garbage, sizeof(garbage), "%s/garbage", dir);
	write_file(noexec, "#!/bin/sh\nexit 0\n", 0644);
	write_file(garbage, "\x01\x02\x03 not a program\n", 0755);

	ways_init(&d);
	free(ways_run(&d, 0, join(dir, "missing"), argv, ENOENT));
	/* root may exec nothing without an x bit either */
	free(ways_run(&d, 0, noexec, argv, EACCES));
	free(ways_run(&d, 0, garbage, argv, ENOEXEC));
	free(ways_run(&d, 0, "/etc/passwd/x", argv, ENOTDIR));
	free(ways_run(&d, 0, "", argv, ENOENT));
	free(ways_run(&d, 1, "", argv, ENOENT));
	free(ways_run(&d, 1, garbage, argv, ENOEXEC));
	ways_destroy(&d);
	rm_rf(dir);
	free(dir);
}
END_TEST

START_TEST(test_action_errors)
{
	struct ways d;
	char *argv[] = { "probe", NULL };
	int file = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
	sbx_outcome_t oc;

	ways_init(&d);
	w_dup2(&d, 150, 3); /* 150 is not open */
	free(ways_run(&d, 0, PROBE, argv, EBADF));
	ways_destroy(&d);

	ways_init(&d);
	w_open(&d, 3, "/nonexistent/file", O_RDONLY, 0);
	free(ways_run(&d, 0, PROBE, argv, ENOENT));
	/* The stage and the index of the failing action are on record (the
	 * portable build's posix_spawn does not say which step failed). */
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.stage, SBX_BUILD_LANDLOCK ? SBX_STAGE_FILE_ACTION : SBX_STAGE_EXEC);
	ck_assert_int_eq(oc.action, SBX_BUILD_LANDLOCK ? 1 : -1);
	ck_assert_int_eq(oc.error, ENOENT);
	ways_destroy(&d);

	ways_init(&d);
	w_chdir(&d, "/nonexistent");
	free(ways_run(&d, 0, PROBE, argv, ENOENT));
	ways_destroy(&d);

	ways_init(&d);
	w_fchdir(&d, file);
	free(ways_run(&d, 0, PROBE, argv, ENOTDIR));
	ways_destroy(&d);
	close(file);

	/* Add-time errors are the same as glibc's (elsewhere, the file_actions
	 * suite checks them against glibc's rule). */
#ifndef __GLIBC__
	say_skip("SKIP %s (add-time errors beside the C library): it is not glibc, "
	        "whose checks these are\n", __func__);
	return;
#endif
	ways_init(&d);
	w_open(&d, -1, "/x", O_RDONLY, 0);
	w_close(&d, -1);
	w_dup2(&d, -1, 3);
	w_dup2(&d, 3, 1 << 30);
	w_fchdir(&d, -5);
	w_closefrom(&d, -1);
	w_tcsetpgrp(&d, -2);
	ways_destroy(&d);
}
END_TEST

START_TEST(test_exec_stage_and_errno)
{
	char *argv[] = { "x", NULL };
	sbx_outcome_t oc;
	pid_t pid;

	errno = 4242;
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/nonexistent", NULL, NULL, NULL, argv, environ), ENOENT);
	ck_assert_int_eq(errno, 4242);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.stage, SBX_STAGE_EXEC);
	ck_assert_int_eq(oc.error, ENOENT);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_NONE);
	ck_assert_int_eq(errno, 4242);

	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, NULL, argv, environ), 0);
	ck_assert_int_eq(errno, 4242);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.stage, SBX_STAGE_NONE);
	wait_status(pid);
	/* the failed spawn's child was reaped */
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
}
END_TEST

/* ---- PATH search ----------------------------------------------------- */

START_TEST(test_path_search)
{
	struct ways d;
	char *dir = make_tmpdir();
	char denied[4096], good[4096], path[16384], *out;
	char *argv[] = { "prog", "hello", NULL };
	char script[8192];

	snprintf(denied, sizeof(denied), "%s/a", dir);
	snprintf(good, sizeof(good), "%s/b", dir);
	mkdir(denied, 0755);
	mkdir(good, 0755);
	write_file(join(denied, "prog"), "#!/bin/sh\necho wrong\n", 0644);
	snprintf(script, sizeof(script), "#!/bin/sh\nexec %s \"$@\"\n", PROBE);
	write_file(join(good, "prog"), script, 0755);

	/* An entry that denies execution is remembered, the search goes on. */
	snprintf(path, sizeof(path), "/nonexistent:%s:/etc/passwd:%s", denied, good);
	setenv("PATH", path, 1);
	ways_init(&d);
	out = ways_run(&d, 1, "prog", argv, 0);
	assert_has(out, "arg=hello");
	free(out);

	/* Nothing better found: EACCES. */
	snprintf(path, sizeof(path), "%s:/nonexistent", denied);
	setenv("PATH", path, 1);
	free(ways_run(&d, 1, "prog", argv, EACCES));

	setenv("PATH", "/nonexistent:/also/not", 1);
	free(ways_run(&d, 1, "prog", argv, ENOENT));

	/* An empty element is the current directory. */
	ck_assert_int_eq(chdir(good), 0);
	setenv("PATH", "/nonexistent:", 1);
	out = ways_run(&d, 1, "prog", argv, 0);
	assert_has(out, "arg=hello");
	free(out);

	/* PATH comes from the caller's environment, not envp; with none, the
	 * C library's default. */
	unsetenv("PATH");
	char *tv[] = { "true", NULL };
	free(ways_run(&d, 1, "true", tv, 0));
	/* A name with a slash is not looked up. */
	free(ways_run(&d, 1, "./prog", argv, 0));

	/* The longest name a directory holds is found; one byte more is
	 * ENAMETOOLONG. */
	char longest[NAME_MAX + 2];
	memset(longest, 'x', NAME_MAX);
	longest[NAME_MAX] = '\0';
	write_file(join(good, longest), script, 0755);
	setenv("PATH", good, 1);
	out = ways_run(&d, 1, longest, argv, 0);
	assert_has(out, "arg=hello");
	free(out);
	longest[NAME_MAX] = 'x';
	longest[NAME_MAX + 1] = '\0';
	free(ways_run(&d, 1, longest, argv, ENAMETOOLONG));
	ways_destroy(&d);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* ---- the fork fallback ------------------------------------------------ */

START_TEST(test_fork_fallback)
{
	struct ways d;
	char *argv[] = { "probe", NULL };
	char *out;
	int a = open("/etc/passwd", O_RDONLY);

	/* Read once per process, at the first spawn: this test process has
	 * not spawned yet. */
	setenv("SBXSPAWN_FORCE_FORK", "1", 1);
	ways_init(&d);
	w_dup2(&d, a, 7);
	w_closefrom(&d, 8);
	out = ways_probe(&d);
	assert_has(out, "fd=7 /etc/passwd");
	free(out);
	w_open(&d, 3, "/nonexistent", O_RDONLY, 0);
	free(ways_run(&d, 0, PROBE, argv, ENOENT));
	ways_destroy(&d);
	ways_init(&d);
	free(ways_run(&d, 0, "/nonexistent", argv, ENOENT));
	ways_destroy(&d);
	close(a);
}
END_TEST

Suite *suite_spawn(void)
{
	Suite *s = suite_create("spawn");
	TCase *tc = tcase_create("differential");

	untimed(tc);
	tcase_add_test(tc, test_plain);
	tcase_add_test(tc, test_null_everything);
	tcase_add_test(tc, test_open_actions);
	tcase_add_test(tc, test_close_actions);
	tcase_add_test(tc, test_dup2_actions);
	tcase_add_test(tc, test_chdir_actions);
	tcase_add_test(tc, test_closefrom_action);
	tcase_add_test(tc, test_closefrom_without_close_range);
	tcase_add_test(tc, test_tcsetpgrp_action);
	spawn_attr_tests(tc);
	tcase_add_test(tc, test_exec_errors);
	tcase_add_test(tc, test_action_errors);
	tcase_add_test(tc, test_exec_stage_and_errno);
	tcase_add_test(tc, test_path_search);
	tcase_add_test(tc, test_fork_fallback);
	suite_add_tcase(s, tc);
	return s;
}
