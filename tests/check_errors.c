/* SPDX-License-Identifier: MIT */
/* Every error number the manual pages document, provoked for real: memory
 * exhaustion injected allocation by allocation (check_enomem.c), an
 * unprivileged caller, a seccomp filter, limits and files in the way. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/allocs.h"
#include "tests/common.h"


/* ---- a destroyed scope, for every function that takes one --------------- */

START_TEST(test_einval_destroyed_scope)
{
	sbx_scopeattr_t s;
	int v;
	char *argv[] = { "true", NULL };

	sbx_scopeattr_init(&s);
	ck_assert_int_eq(sbx_scopeattr_destroy(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_destroy(&s), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_setlogger(&s, quiet, NULL), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, 0), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_setabi(&s, 1), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_getabi(&s, &v), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_allowtcp(&s, SBX_TCP_BIND, 80), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, "/x"), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, "/x"), EINVAL);
	ck_assert_int_eq(sbx_execve("/bin/true", &s, argv, environ), EINVAL);
	ck_assert_int_eq(sbx_execvpe("true", &s, argv, environ), EINVAL);
	ck_assert_int_eq(sbx_posix_spawnp(NULL, "true", NULL, NULL, &s, argv, environ), EINVAL);
}
END_TEST

/* ---- sbx_execve's own ------------------------------------------------------ */

START_TEST(test_execve_errors)
{
	sbx_scopeattr_t s;
	char *argv[] = { "x", NULL };
	char *dir = make_tmpdir(), loop[4200];

	sbx_scopeattr_init(&s);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	ck_assert_int_eq(sbx_execvpe("", &s, argv, environ), ENOENT);
	ck_assert_int_eq(sbx_execvpe("", NULL, argv, environ), ENOENT);
	/* A scope path that cannot be resolved is refused when it is added,
	 * and the scope is as it was: the exec that follows is of a program
	 * that is not there, and returns (an exec that succeeded would end
	 * this test as a pass that proves nothing). */
	snprintf(loop, sizeof(loop), "%s/loop", dir);
	ck_assert_msg(symlink(loop, loop) == 0, "symlink %s: %s", loop, strerror(errno));
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, loop), ELOOP);
	ck_assert_int_eq(sbx_execve(join(dir, "absent"), &s, argv, environ), ENOENT);
	rm_rf(dir);
	free(dir);
	sbx_scopeattr_destroy(&s);

}
END_TEST

/* A confinement for one exec sets up nothing a later spawn would use: no
 * inotify instance, no descriptor moved up out of the caller's way, and,
 * the exec failing, nothing left open.  Looked at from the logger, while
 * the compile lists a directory. */
static struct {
	int expands, inotify, high;
} once_seen;

static void look_at_fds(const sbx_event_t *ev, void *arg)
{
	DIR *d;
	struct dirent *de;
	char link[64], to[256];
	ssize_t n;

	(void)arg;
	if (ev->kind != SBX_EVENT_EXPAND || !(d = opendir("/proc/self/fd")))
		return;
	once_seen.expands++;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		once_seen.high += atoi(de->d_name) >= 960;
		snprintf(link, sizeof(link), "/proc/self/fd/%s", de->d_name);
		if ((n = readlink(link, to, sizeof(to) - 1)) > 0) {
			to[n] = '\0';
			once_seen.inotify += strstr(to, "inotify") != NULL;
		}
	}
	closedir(d);
}

START_TEST(test_execve_once)
{
	struct tree t;
	sbx_scopeattr_t s;
	char *argv[] = { "x", NULL };
	int before, status;
	pid_t pid;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(&s, look_at_fds, NULL), 0);
	/* In a child: it confines itself, then fails to exec, and says
	 * what it saw in its status. */
	if ((pid = fork()) == 0) {
		before = count_fds();
		if (sbx_execve(join(t.mine, "absent"), &s, argv, environ) != ENOENT)
			_exit(1);
		_exit(!once_seen.expands ? 2 : once_seen.inotify ? 3 : once_seen.high ? 4
		      : count_fds() != before ? 5 : 0);
	}
	status = wait_status(pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	              "status %#x (1 not ENOENT, 2 nothing listed, 3 an inotify instance, "
	              "4 a descriptor moved up, 5 descriptors left open)", status);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_execve_enotsup)
{
	sbx_scopeattr_t s;
	char *argv[] = { "x", NULL };

	/* No Landlock (before this process asked) and SBX_SCOPE_REQUIRE:
	 * ENOTSUP, nothing applied. */
	seccomp_fail(SYS_landlock_create_ruleset, ENOSYS);
	sbx_scopeattr_init(&s);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	sbx_scopeattr_adddeny(&s, "/nonexistent");
	sbx_scopeattr_setflags(&s, SBX_SCOPE_REQUIRE);
	ck_assert_int_eq(sbx_execve("/bin/true", &s, argv, environ), ENOTSUP);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), ENOTSUP);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- paths the compile cannot resolve ------------------------------------ */

START_TEST(test_path_errors)
{
	sbx_scopeattr_t s;
	char *longpath = malloc(PATH_MAX + 64), *dir;

	memset(longpath, 'a', PATH_MAX + 63);
	longpath[0] = '/';
	longpath[PATH_MAX + 63] = '\0';
	sbx_scopeattr_init(&s);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, longpath), ENAMETOOLONG);
	sbx_scopeattr_destroy(&s);
	free(longpath);

	/* A path below a directory the caller may not search: EACCES, as for
	 * any lookup, when it is added.  Needs a caller without the power to
	 * bypass that. */
	if (geteuid() != 0) {
		say_skip("SKIP %s (EACCES part): needs root to become another user\n", __func__);
		return;
	}
	dir = make_tmpdir();
	chmod(dir, 0700);
	mkdir(join(dir, "inner"), 0755);
	/* As another user in a copy of the process, so that this one can
	 * remove the directory after. */
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (setresuid(65534, 65534, 65534))
			_exit(2);
		sbx_scopeattr_init(&s);
		sbx_scopeattr_setlogger(&s, quiet, NULL);
		_exit(sbx_scopeattr_adddeny(&s, join(join(dir, "inner"), "x")) == EACCES ? 0 : 1);
	}
	ck_assert_int_eq(wait_status(pid), 0);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* ---- the child's errors that the differential suite does not reach ------- */

/* Whether the C library's posix_spawn cannot tell a failed child here
 * (an emulator that breaks CLONE_VM); said once, for test. */
static bool libc_unreliable(const char *test)
{
	if (!emulated())
		return false;
	if (test)
		say_skip("SKIP %s (beside the C library): under the emulator (qemu-user) its "
		        "posix_spawn cannot tell a failed child\n", test);
	return true;
}

START_TEST(test_child_errors)
{
	char *argv[] = { "true", NULL };
	char **big;
	size_t n = 4096;
	sbx_file_actions_t fa;
	char *dir = make_tmpdir(), prog[4096];
	int fd;
	pid_t pid;

	/* E2BIG: more arguments than exec takes, as posix_spawn says. */
	big = calloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		big[i] = malloc(2048);
		memset(big[i], 'x', 2047);
		big[i][2047] = '\0';
	}
	/* Beside the C library's own (which under an emulator cannot tell a
	 * failed child). */
	if (!libc_unreliable(__func__))
		ck_assert_int_eq(posix_spawn(&pid, "/bin/true", NULL, NULL, big, environ), E2BIG);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, NULL, big, environ), E2BIG);
	for (size_t i = 0; i < n; i++)
		free(big[i]);
	free(big);

	/* ETXTBSY: a program open for writing. */
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	write_file(prog, "#!/bin/sh\nexit 0\n", 0755);
	fd = open(prog, O_WRONLY | O_CLOEXEC);
	if (!libc_unreliable(NULL))
		ck_assert_int_eq(posix_spawn(&pid, prog, NULL, NULL, argv, environ), ETXTBSY);
	ck_assert_int_eq(sbx_posix_spawn(&pid, prog, NULL, NULL, NULL, argv, environ), ETXTBSY);
	close(fd);

	/* ENOTTY: tcsetpgrp on what is not a terminal. */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	sbx_file_actions_init(&fa);
	sbx_file_actions_addtcsetpgrp(&fa, fd);
#if HAVE_DECL_POSIX_SPAWN_FILE_ACTIONS_ADDTCSETPGRP_NP
	posix_spawn_file_actions_t g;

	posix_spawn_file_actions_init(&g);
	posix_spawn_file_actions_addtcsetpgrp_np(&g, fd);
	if (!libc_unreliable(NULL))
		ck_assert_int_eq(posix_spawn(&pid, "/bin/true", &g, NULL, argv, environ), ENOTTY);
	posix_spawn_file_actions_destroy(&g);
#else
	say_skip("SKIP %s (ENOTTY, beside the C library): it has no "
	        "posix_spawn_file_actions_addtcsetpgrp_np\n", __func__);
#endif
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", &fa, NULL, NULL, argv, environ), ENOTTY);
	sbx_file_actions_destroy(&fa);
	close(fd);

	/* EBADF: fchdir to a descriptor that is not open. */
	sbx_file_actions_init(&fa);
	sbx_file_actions_addfchdir(&fa, 777);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", &fa, NULL, NULL, argv, environ), EBADF);
	sbx_file_actions_destroy(&fa);
	rm_rf(dir);
	free(dir);

	/* As another user: EACCES from chdir, and EAGAIN from the clone when
	 * the process limit is reached. */
	if (geteuid() != 0) {
		say_skip("SKIP %s (user part): needs root to become another user\n", __func__);
		return;
	}
	struct rlimit nproc;
	ck_assert_int_eq(getrlimit(RLIMIT_NPROC, &nproc), 0);
	ck_assert_int_eq(setresuid(65534, 65534, 65534), 0);
	sbx_file_actions_init(&fa);
	sbx_file_actions_addchdir(&fa, "/root");
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", &fa, NULL, NULL, argv, environ), EACCES);
	sbx_file_actions_destroy(&fa);
	rlim_t was = nproc.rlim_cur;
	nproc.rlim_cur = 0;
	ck_assert_int_eq(setrlimit(RLIMIT_NPROC, &nproc), 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, NULL, argv, environ), EAGAIN);
	/* Back, for whatever starts a thread at exit (a leak checker does). */
	nproc.rlim_cur = was;
	ck_assert_int_eq(setrlimit(RLIMIT_NPROC, &nproc), 0);
}
END_TEST

Suite *suite_errors(void)
{
	Suite *s = suite_create("errors");
	TCase *tc = tcase_create("documented");

	untimed(tc);
	enomem_tests(tc);
	tcase_add_test(tc, test_einval_destroyed_scope);
	tcase_add_test(tc, test_execve_errors);
	tcase_add_test(tc, test_execve_once);
	tcase_add_test(tc, test_execve_enotsup);
	tcase_add_test(tc, test_path_errors);
	tcase_add_test(tc, test_child_errors);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tcase_errors_answers());
	return s;
}
