/* SPDX-License-Identifier: MIT */
/* The edges of posix_spawn's semantics, each tried the four ways of
 * tests/ways.h: missing and empty environments and argument vectors,
 * programs that cannot run, every file action and attribute that can fail,
 * the descriptor limit (check_spawn_limits.c, with the caller's signals);
 * and the same environments through sbx_execve. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/ways.h"

/* ---- environments -------------------------------------------------------- */

START_TEST(test_environments)
{
	char *none[] = { NULL };
	char *odd[] = { "A=1", "EMPTY=", "=no-name", "no-equals-sign", "A=2", "TMPDIR=/nowhere",
		        NULL };
	struct ways d;
	char *out;

	/* NULL: the program gets an empty environment (execve's rule). */
	ways_init(&d);
	d.envp = NULL;
	d.envp_given = true;
	out = ways_probe(&d);
	assert_lacks(out, "env=");
	free(out);
	d.envp = none;
	out = ways_probe(&d);
	assert_lacks(out, "env=");
	free(out);
	/* Passed as they are, in order, oddities and duplicates too. */
	d.envp = odd;
	out = ways_probe(&d);
	if (child_sees_as_given(__func__))
		assert_has(out, "env=A=1\nenv=EMPTY=\nenv==no-name\nenv=no-equals-sign\nenv=A=2\n"
		                "env=TMPDIR=/nowhere\n");
	free(out);
	ways_destroy(&d);
}
END_TEST

/* A scope's TMPDIR (sbx_scopeattr_settmpdir) is the C library's spawn given
 * the environment with TMPDIR set to it: from NULL, an environment of that
 * one entry. */
static void tmpdir_as_reference(char *const given[], char *const reference[], const char *dir,
                                const char *want)
{
	struct ways d;
	struct way_result g, s;
	char *argv[] = { "probe", NULL };

	ways_init(&d);
	d.envp = reference;
	d.envp_given = true;
	g = ways_one(&d, WAY_LIBC, false, PROBE, argv);
	ck_assert_int_eq(g.ret, 0);
	if (!emulated())
		assert_has(g.out, want);
	d.envp = given;
	d.tmpdir = dir;
	for (enum way w = WAY_FRESH; w <= WAY_COMPILED; w++) {
		s = ways_one(&d, w, false, PROBE, argv);
		ck_assert_msg(s.ret == 0, "%s: %s", way_name(w), strerror(s.ret));
		ck_assert_msg(!*s.table_change, "%s changed the caller's descriptors:%s", way_name(w),
		              s.table_change);
		ck_assert_int_eq(s.status, g.status);
		ck_assert_msg(!strcmp(s.out, g.out), "%s, TMPDIR %s: the child printed\n%s", way_name(w),
		              dir, s.out);
		way_result_free(&s);
	}
	way_result_free(&g);
	ways_destroy(&d);
}

START_TEST(test_environment_with_tmpdir)
{
	char *dir = make_tmpdir(), entry[4200], want[4300];
	char *none[] = { NULL }, *other[] = { "X=1", "TMPDIR=/elsewhere", "Y=2", NULL };
	char *alone[] = { entry, NULL }, *others[] = { "X=1", "Y=2", entry, NULL };

	snprintf(entry, sizeof(entry), "TMPDIR=%s", dir);
	child_sees_as_given(__func__);
	snprintf(want, sizeof(want), "argc=1\narg0=probe\nenv=TMPDIR=%s\nfd=", dir);
	tmpdir_as_reference(NULL, alone, dir, want);
	tmpdir_as_reference(none, alone, dir, want);
	snprintf(want, sizeof(want), "env=X=1\nenv=Y=2\nenv=TMPDIR=%s\nfd=", dir);
	tmpdir_as_reference(other, others, dir, want);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* sbx_execve and sbx_execvpe in a child of the test: what the probe printed,
 * and how the child ended. */
enum exec_kind { EXEC_LIBC, EXEC_SBX, EXEC_SBXP };

static char *exec_probe(enum exec_kind kind, const sbx_scopeattr_t *scope, char *const envp[],
                        int *status)
{
	char *argv[] = { "probe", NULL };
	char path[64];
	int fd;
	pid_t pid;

	snprintf(path, sizeof(path), "/tmp/sbxexec.%ld", (long)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int err;

		dup2(fd, 1);
		if (kind == EXEC_LIBC)
			err = execve(PROBE, argv, envp) ? errno : 0;
		else if (kind == EXEC_SBX)
			err = sbx_execve(PROBE, scope, argv, envp);
		else
			err = sbx_execvpe(PROBE, scope, argv, envp);
		/* Returned: the error, and whether it ever said 0. */
		_exit(err ? 100 : 99);
	}
	*status = wait_status(pid);
	char *out = calloc(1, 1 << 16);
	ssize_t n = pread(fd, out, (1 << 16) - 1, 0);

	out[n > 0 ? n : 0] = '\0';
	close(fd);
	return out;
}

static void execs_agree(const sbx_scopeattr_t *scope, const char *what, char *const given[],
                        char *const reference[])
{
	int gs, ss;
	char *g = exec_probe(EXEC_LIBC, NULL, reference, &gs);

	ck_assert_msg(WIFEXITED(gs) && WEXITSTATUS(gs) == 0, "execve of the probe: status %#x", gs);
	for (enum exec_kind k = EXEC_SBX; k <= EXEC_SBXP; k++) {
		char *s = exec_probe(k, scope, given, &ss);

		ck_assert_msg(ss == gs, "%s, %s: status %#x (99: returned 0 without exec)",
		              k == EXEC_SBX ? "sbx_execve" : "sbx_execvpe", what, ss);
		ck_assert_msg(!strcmp(s, g), "%s, %s: the probe printed\n%s\nexecve's printed\n%s",
		              k == EXEC_SBX ? "sbx_execve" : "sbx_execvpe", what, s, g);
		free(s);
	}
	free(g);
}

START_TEST(test_execve_environments)
{
	char *dir = make_tmpdir(), entry[4200];
	char *none[] = { NULL }, *alone[] = { entry, NULL };
	sbx_scopeattr_t fresh, compiled, fresh_tmp, compiled_tmp;

	snprintf(entry, sizeof(entry), "TMPDIR=%s", dir);
	sbx_scopeattr_t *scopes[] = { &fresh, &compiled, &fresh_tmp, &compiled_tmp };
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(sbx_scopeattr_init(scopes[i]), 0);
		ck_assert_int_eq(sbx_scopeattr_adddeny(scopes[i], ways_denied()), 0);
		ck_assert_int_eq(sbx_scopeattr_setevents(scopes[i], 0), 0);
		if (i >= 2)
			ck_assert_int_eq(sbx_scopeattr_settmpdir(scopes[i], dir), 0);
		if (i % 2)
			ck_assert_int_eq(sbx_scopeattr_compile(scopes[i]), 0);
	}
	execs_agree(NULL, "NULL scope, NULL environment", NULL, NULL);
	execs_agree(NULL, "NULL scope, empty environment", none, none);
	execs_agree(&fresh, "a fresh scope, NULL environment", NULL, NULL);
	execs_agree(&compiled, "a compiled scope, NULL environment", NULL, NULL);
	execs_agree(&fresh_tmp, "a fresh scope with a TMPDIR, NULL environment", NULL, alone);
	execs_agree(&compiled_tmp, "a compiled scope with a TMPDIR, NULL environment", NULL, alone);
	execs_agree(&compiled_tmp, "a compiled scope with a TMPDIR, empty environment", none, alone);
	for (int i = 0; i < 4; i++)
		sbx_scopeattr_destroy(scopes[i]);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* ---- argument vectors ------------------------------------------------------ */

START_TEST(test_argument_vectors)
{
	char *empty[] = { NULL }, *blank[] = { "", NULL }, *many[40];
	char *huge = malloc(200 * 1024);
	bool given = child_sees_as_given(__func__);
	struct ways d;
	char *out;

	ways_init(&d);
	/* No argument at all: the kernel (5.18 on) gives one, empty. */
	out = ways_run(&d, false, PROBE, empty, 0);
	if (given)
		ck_assert_msg(strstr(out, "argc=1\narg0=\n") || strstr(out, "argc=0\n"), "%s", out);
	free(out);
	out = ways_run(&d, false, PROBE, blank, 0);
	if (given)
		assert_has(out, "argc=1\narg0=\n");
	free(out);
	for (int i = 0; i < 39; i++)
		many[i] = i % 2 ? "" : "x y";
	many[39] = NULL;
	out = ways_run(&d, false, PROBE, many, 0);
	assert_has(out, "argc=39\n");
	free(out);
	/* One argument longer than the kernel takes (32 pages). */
	memset(huge, 'x', 200 * 1024 - 1);
	huge[200 * 1024 - 1] = '\0';
	char *too_long[] = { "probe", huge, NULL };
	free(ways_run(&d, false, PROBE, too_long, E2BIG));
	ways_destroy(&d);
	free(huge);
}
END_TEST

/* A NULL argument vector is no vector posix_spawn allows; the C library's
 * may crash on it (glibc counts the arguments first).  The library hands it
 * to the kernel, which runs the program with one empty argument: a
 * difference sbx_posix_spawn(3) documents, asserted here. */
START_TEST(test_null_argument_vector)
{
	bool given = child_sees_as_given(__func__);
	char *out;

	for (enum way w = WAY_NULL; w < NWAYS; w++) {
		struct ways d;
		struct way_result r;

		ways_init(&d);
		r = ways_one(&d, w, false, PROBE, NULL);
		ck_assert_msg(r.ret == 0, "%s: %s", way_name(w), strerror(r.ret));
		ck_assert_int_eq(r.status, 0);
		out = r.out;
		if (given)
			ck_assert_msg(strstr(out, "argc=1\narg0=\n") || strstr(out, "argc=0\n"), "%s",
			              out);
		way_result_free(&r);
		ways_destroy(&d);
	}
}
END_TEST

/* ---- programs that cannot run -------------------------------------------- */

START_TEST(test_programs_that_cannot_run)
{
	struct ways d;
	char *dir = make_tmpdir();
	char *argv[] = { "x", NULL };
	char long_name[PATH_MAX + 16], busy[4096];
	int writer;

	write_file(join(dir, "no-interpreter"), "#!/nonexistent/sh\n", 0755);
	write_file(join(dir, "dir-interpreter"), "#!/tmp\n", 0755);
	ck_assert_int_eq(symlink("loop-b", join(dir, "loop-a")), 0);
	ck_assert_int_eq(symlink("loop-a", join(dir, "loop-b")), 0);
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[0] = '/';
	long_name[sizeof(long_name) - 1] = '\0';
	/* A program open for writing cannot run (ETXTBSY). */
	snprintf(busy, sizeof(busy), "%s/busy", dir);
	writer = open(busy, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
	ck_assert_int_ge(writer, 0);
	ck_assert_int_eq(write(writer, "#!/bin/sh\n", 10), 10);

	ways_init(&d);
	free(ways_run(&d, false, dir, argv, EACCES));
	free(ways_run(&d, false, join(dir, "no-interpreter"), argv, ENOENT));
	free(ways_run(&d, false, join(dir, "dir-interpreter"), argv, EACCES));
	free(ways_run(&d, false, join(dir, "loop-a"), argv, ELOOP));
	free(ways_run(&d, false, long_name, argv, ENAMETOOLONG));
	free(ways_run(&d, false, busy, argv, ETXTBSY));
	free(ways_run(&d, true, busy, argv, ETXTBSY));
	ways_destroy(&d);
	close(writer);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* ---- every file action that fails ----------------------------------------- */

/* The action at index 1 (after the harness's own dup2) fails with want,
 * every way; the library's outcome names it. */
static void action_fails(struct ways *d, int want)
{
	char *argv[] = { "probe", NULL };
	sbx_outcome_t oc;

	free(ways_run(d, false, PROBE, argv, want));
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.stage, SBX_BUILD_LANDLOCK ? SBX_STAGE_FILE_ACTION : SBX_STAGE_EXEC);
	ck_assert_int_eq(oc.action, SBX_BUILD_LANDLOCK ? 1 : -1);
	ck_assert_int_eq(oc.error, want);
	ways_destroy(d);
}

START_TEST(test_file_action_failures)
{
	char *dir = make_tmpdir();
	struct ways d;
	int notdir = open("/etc/passwd", O_RDONLY | O_CLOEXEC), unused;

	ck_assert_int_eq(symlink("/etc/passwd", join(dir, "link")), 0);
	ck_assert_int_eq(mkfifo(join(dir, "fifo"), 0600), 0);
	write_file(join(dir, "exists"), "", 0644);
	unused = dup(0);
	close(unused); /* a number nothing holds */

	ways_init(&d);
	w_open(&d, 3, dir, O_WRONLY, 0);
	action_fails(&d, EISDIR);
	ways_init(&d);
	w_open(&d, 3, join(dir, "exists"), O_WRONLY | O_CREAT | O_EXCL, 0600);
	action_fails(&d, EEXIST);
	ways_init(&d);
	w_open(&d, 3, join(dir, "link"), O_RDONLY | O_NOFOLLOW, 0);
	action_fails(&d, ELOOP);
	ways_init(&d);
	w_open(&d, 3, "/etc/passwd/x", O_RDONLY, 0);
	action_fails(&d, ENOTDIR);
	ways_init(&d);
	/* A FIFO nobody reads, opened for writing without waiting. */
	w_open(&d, 3, join(dir, "fifo"), O_WRONLY | O_NONBLOCK, 0);
	action_fails(&d, ENXIO);
	ways_init(&d);
	w_dup2(&d, unused, 4);
	action_fails(&d, EBADF);
	ways_init(&d);
	w_fchdir(&d, unused);
	action_fails(&d, EBADF);
	ways_init(&d);
	w_fchdir(&d, notdir);
	action_fails(&d, ENOTDIR);
	ways_init(&d);
	w_chdir(&d, join(dir, "missing"));
	action_fails(&d, ENOENT);
	ways_init(&d);
	w_chdir(&d, join(dir, "exists"));
	action_fails(&d, ENOTDIR);
#if HAVE_DECL_POSIX_SPAWN_FILE_ACTIONS_ADDTCSETPGRP_NP
	ways_init(&d);
	w_tcsetpgrp(&d, 1); /* the capture file: no terminal */
	action_fails(&d, ENOTTY);
	ways_init(&d);
	w_tcsetpgrp(&d, unused);
	action_fails(&d, EBADF);
#else
	say_skip("SKIP %s (tcsetpgrp's failures): the C library has no "
	        "posix_spawn_file_actions_addtcsetpgrp_np to compare with\n", __func__);
#endif
	/* Closing what is not open is no failure. */
	ways_init(&d);
	w_close(&d, unused);
	free(ways_probe(&d));
	ways_destroy(&d);
	close(notdir);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* ---- every attribute that fails ------------------------------------------ */

START_TEST(test_attribute_failures)
{
	char *argv[] = { "probe", NULL };
	sigset_t all;
	struct ways d;
	char *out;

	/* A new session's leader cannot then move to a group: glibc makes the
	 * session first. */
	ways_init(&d);
	w_flags(&d, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&d.attr, 0);
	free(ways_run(&d, false, PROBE, argv, EPERM));
	ways_destroy(&d);

	/* Every signal in the mask and to its default: what cannot be
	 * (SIGKILL, SIGSTOP, the C library's own) is passed over. */
	sigfillset(&all);
	ways_init(&d);
	w_flags(&d, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(&d.attr, &all);
	posix_spawnattr_setsigdefault(&d.attr, &all);
	out = ways_probe(&d);
	assert_lacks(out, "SigBlk:\t0000000000000000");
	free(out);
	ways_destroy(&d);

	/* A real-time policy without the privilege: EPERM.  As root, the
	 * test drops it (another effective user, no capability left). */
	if (geteuid() == 0) {
		const char *probe = probe_for_anyone();

		ways_denied(); /* made as root: test_resetids says why */
		ck_assert_int_eq(setresgid(-1, 65534, -1), 0);
		ck_assert_int_eq(setresuid(-1, 65534, -1), 0);
		argv[0] = (char *)probe;
	}
	struct rlimit none = { 0, 0 };
	struct sched_param sp = { .sched_priority = 1 };

	ck_assert_int_eq(setrlimit(RLIMIT_RTPRIO, &none), 0);
	ways_init(&d);
	if (posix_spawnattr_setschedpolicy(&d.attr, SCHED_FIFO) == ENOSYS) {
		say_skip("SKIP %s (a real-time policy): the C library keeps no scheduling "
		        "in posix_spawnattr_t\n", __func__);
	} else {
		posix_spawnattr_setschedparam(&d.attr, &sp);
		w_flags(&d, POSIX_SPAWN_SETSCHEDULER);
		free(ways_run(&d, false, argv[0], argv, EPERM));
	}
	ways_destroy(&d);
	/* root again: a sanitizer's leak check at exit traces this process,
	 * which its effective ids apart from the real ones would forbid. */
	if (getuid() == 0) {
		ck_assert_int_eq(setresuid(-1, 0, -1), 0);
		ck_assert_int_eq(setresgid(-1, 0, -1), 0);
	}
}
END_TEST

/* A mask with every bit set: glibc's own two signals (32, 33) stay open in
 * its child, and so in the library's under glibc. */
START_TEST(test_full_sigmask)
{
	sigset_t all;
	struct ways d;

	memset(&all, 0xff, sizeof(all));
	ways_init(&d);
	w_flags(&d, POSIX_SPAWN_SETSIGMASK);
	posix_spawnattr_setsigmask(&d.attr, &all);
	free(ways_probe(&d));
	ways_destroy(&d);
}
END_TEST

/* posix_spawnp of an empty name: looked up nowhere, but the child is made
 * and runs its file actions first (a file an O_CREAT action names is
 * there after), then its exec fails with ENOENT. */
START_TEST(test_spawnp_empty_name)
{
	char *dir = make_tmpdir(), *argv[] = { "x", NULL };
	enum way first = libc_tells_failures(__func__) ? WAY_LIBC : WAY_NULL;

	for (enum way w = first; w < NWAYS; w++) {
		struct ways d;
		struct way_result r;

		ways_init(&d);
		w_open(&d, 3, join(dir, "made"), O_WRONLY | O_CREAT, 0600);
		r = ways_one(&d, w, true, "", argv);
		ck_assert_msg(r.ret == ENOENT, "%s: %s", way_name(w), strerror(r.ret));
		ck_assert_msg(access(join(dir, "made"), F_OK) == 0,
		              "%s: the file action did not run", way_name(w));
		unlink(join(dir, "made"));
		way_result_free(&r);
		ways_destroy(&d);
	}
	rm_rf(dir);
	free(dir);
}
END_TEST

Suite *suite_spawn_edges(void)
{
	Suite *s = suite_create("spawn-edges");
	TCase *tc = tcase_create("edges");

	untimed(tc);
	tcase_add_test(tc, test_environments);
	tcase_add_test(tc, test_environment_with_tmpdir);
	tcase_add_test(tc, test_execve_environments);
	tcase_add_test(tc, test_argument_vectors);
	tcase_add_test(tc, test_null_argument_vector);
	tcase_add_test(tc, test_programs_that_cannot_run);
	tcase_add_test(tc, test_file_action_failures);
	tcase_add_test(tc, test_attribute_failures);
	tcase_add_test(tc, test_full_sigmask);
	tcase_add_test(tc, test_spawnp_empty_name);
	spawn_limits_tests(tc);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tcase_spawn_window());
	return s;
}
