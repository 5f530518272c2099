/* SPDX-License-Identifier: MIT */
/* The command's lifetime as the library shapes it: the resource limits and
 * the control group a scope sets, each shown to differ from the caller's
 * own first (the control), then set in the child through every call that
 * starts one (one the kernel refuses is a refusal, never a command run
 * without it); and the pid file descriptor of sbx_pidfd_spawn. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"
#define LIMITS_SCRIPT "ulimit -Sn; ulimit -Hn"

static char *limits_under(const sbx_scopeattr_t *scope)
{
	char *out = NULL;

	ck_assert_int_eq(run_scoped(scope, (char *[]){ "sh", "-c", LIMITS_SCRIPT, NULL }, &out), 0);
	return out;
}

static void scope_with_files(sbx_scopeattr_t *s, rlim_t soft, rlim_t hard)
{
	struct rlimit l = { soft, hard };

	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_setrlimit(s, RLIMIT_NOFILE, &l), 0);
}

/* The limits reach the child by sbx_posix_spawnp, sbx_system and
 * sbx_execve alike. */
START_TEST(test_rlimit_set)
{
	struct rlimit mine;
	sbx_scopeattr_t s;
	char *out, cmd[256], expect[64];
	pid_t pid;
	int fd;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &mine), 0);
	ck_assert_uint_ne(mine.rlim_cur, 37); /* the control: not the caller's */
	out = limits_under(NULL);
	snprintf(expect, sizeof(expect), "%llu\n", (unsigned long long)mine.rlim_cur);
	ck_assert_msg(!strncmp(out, expect, strlen(expect)), "%s", out);
	free(out);

	scope_with_files(&s, 37, 41);
	out = limits_under(&s);
	ck_assert_str_eq(out, "37\n41\n");
	free(out);

	/* sbx_system: the same, its output through a file. */
	char *dir = make_tmpdir();
	snprintf(cmd, sizeof(cmd), "(ulimit -Sn; ulimit -Hn) > %s/out", dir);
	ck_assert_int_eq(sbx_system(cmd, &s), 0);
	snprintf(cmd, sizeof(cmd), "%s/out", dir);
	ck_assert_int_ge(fd = open(cmd, O_RDONLY), 0);
	ck_assert_int_eq(read(fd, expect, sizeof(expect) - 1), 6);
	expect[6] = '\0';
	ck_assert_str_eq(expect, "37\n41\n");
	close(fd);

	/* sbx_execve: on the caller itself, before its exec. */
	snprintf(cmd, sizeof(cmd), "[ $(ulimit -Sn) = 37 ] && [ $(ulimit -Hn) = 41 ]");
	if ((pid = fork()) == 0)
		_exit(100 + sbx_execve("/bin/sh", &s, (char *[]){ "sh", "-c", cmd, NULL }, environ));
	ck_assert_int_eq(wait_status(pid), 0);
	sbx_scopeattr_destroy(&s);
	rm_rf(dir);
	free(dir);
}
END_TEST

START_TEST(test_rlimit_errors)
{
	struct rlimit l = { 5, 4 }, got;
	sbx_scopeattr_t s;
	int empty;

	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_setrlimit(&s, RLIMIT_NOFILE, &l), EINVAL); /* soft > hard */
	l = (struct rlimit){ 1, 2 };
	ck_assert_int_eq(sbx_scopeattr_setrlimit(&s, -1, &l), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_setrlimit(&s, RLIM_NLIMITS, &l), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_getrlimit(&s, RLIMIT_CPU, &got), ENOENT);
	ck_assert_int_eq(sbx_scopeattr_getrlimit(&s, RLIMIT_CPU, NULL), EINVAL);
	l = (struct rlimit){ 10, RLIM_INFINITY };
	ck_assert_int_eq(sbx_scopeattr_setrlimit(&s, RLIMIT_CPU, &l), 0);
	ck_assert_int_eq(sbx_scopeattr_getrlimit(&s, RLIMIT_CPU, &got), 0);
	ck_assert_uint_eq(got.rlim_cur, 10);
	ck_assert_uint_eq(got.rlim_max, RLIM_INFINITY);
	ck_assert_int_eq(sbx_scopeattr_isempty(&s, &empty), 0);
	ck_assert_int_eq(empty, 0);
	ck_assert_int_eq(sbx_scopeattr_setrlimit(&s, RLIMIT_CPU, NULL), 0);
	ck_assert_int_eq(sbx_scopeattr_getrlimit(&s, RLIMIT_CPU, &got), ENOENT);
	ck_assert_int_eq(sbx_scopeattr_isempty(&s, &empty), 0);
	ck_assert_int_eq(empty, 1);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(sbx_scopeattr_setrlimit(&s, RLIMIT_CPU, &l), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_getrlimit(&s, RLIMIT_CPU, &got), EINVAL);
}
END_TEST

/* A limit the kernel refuses, for root too: more open files than
 * fs.nr_open.  Not run: the one line names the resource, the spawn says
 * SBX_EREFUSED at the confinement, and sbxrun exits 125. */
START_TEST(test_rlimit_refused)
{
	unsigned long long nr_open = 0;
	sbx_scopeattr_t s;
	sbx_outcome_t o;
	char *out = NULL, arg[64];
	FILE *f = fopen("/proc/sys/fs/nr_open", "r");

	if (!f || fscanf(f, "%llu", &nr_open) != 1) {
		say_skip("SKIP %s: /proc/sys/fs/nr_open cannot be read here\n", __func__);
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	scope_with_files(&s, nr_open + 1, nr_open + 1);
	ck_assert_int_eq(run_scoped(&s, (char *[]){ "true", NULL }, &out), -1000 - SBX_EREFUSED);
	ck_assert_msg(strstr(out, "true: not run: its confinement could not be applied: "
	                          "prlimit64(RLIMIT_NOFILE): not permitted"), "%s", out);
	free(out);
	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	ck_assert_int_eq(o.stage, SBX_STAGE_CONFINE);
	ck_assert_int_eq(o.error, EPERM);
	sbx_scopeattr_destroy(&s);
	snprintf(arg, sizeof(arg), "nofile=%llu", nr_open + 1);
	ck_assert_int_eq(run_scoped(NULL, (char *[]){ SBXRUN, "--quiet", "--rlimit", arg, "--", "true",
	                                            NULL }, &out), SBX_EXIT_REFUSED);
	ck_assert_msg(strstr(out, "prlimit64(RLIMIT_NOFILE)"), "%s", out);
	free(out);
}
END_TEST

START_TEST(test_sbxrun_rlimit)
{
	static const struct {
		const char *arg, *expect;
		int status;
	} cases[] = {
		{ "nofile=64:128", "64\n128\n", 0 },
		{ "nofile=77", "77\n77\n", 0 },
		{ "nofile=:1000", NULL, 0 },  /* hard alone: the soft is sbxrun's */
		{ "nofile=200:100", "the soft limit is above the hard limit", SBX_EXIT_REFUSED },
		{ "nofile=x", "a limit is a number or \"unlimited\"", SBX_EXIT_REFUSED },
		{ "nofile=:", "a limit is a number", SBX_EXIT_REFUSED },
		{ "files=1", "not NAME=SOFT[:HARD]", SBX_EXIT_REFUSED },
		{ "nofile", "not NAME=SOFT[:HARD]", SBX_EXIT_REFUSED },
	};
	struct rlimit mine;
	char *out;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &mine), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = { SBXRUN, "--quiet", "--rlimit", (char *)cases[i].arg, "--", "sh", "-c",
			         "ulimit -Sn; ulimit -Hn", NULL };
		int status = run_scoped(NULL, argv, &out);

		if (i == 2 && mine.rlim_cur > 1000) {
			/* Above the hard limit asked for: refused, saying whose. */
			ck_assert_int_eq(status, SBX_EXIT_REFUSED);
			ck_assert_msg(strstr(out, "the half not given is sbxrun's own"), "%s", out);
		} else if (i == 2) {
			char expect[64];

			snprintf(expect, sizeof(expect), "%llu\n1000\n", (unsigned long long)mine.rlim_cur);
			ck_assert_int_eq(status, 0);
			ck_assert_str_eq(out, expect);
		} else {
			ck_assert_msg(status == cases[i].status, "%s: %d: %s", cases[i].arg, status, out);
			ck_assert_msg(strstr(out, cases[i].expect), "%s: %s", cases[i].arg, out);
		}
		free(out);
	}
}
END_TEST

/* ---- control groups ------------------------------------------------------ */

/* A new cgroup v2 directory beneath a writable hierarchy (the machine's
 * unified one, or /sys/fs/cgroup where it is v2): its path in *path, or
 * NULL with why. */
static char *cgroup_make(const char **why)
{
	static const char *const roots[] = { "/sys/fs/cgroup/unified", "/sys/fs/cgroup" };
	static unsigned n;
	char path[256];

	*why = "no cgroup v2 hierarchy mounted at /sys/fs/cgroup/unified or /sys/fs/cgroup";
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		char controllers[300];

		snprintf(controllers, sizeof(controllers), "%s/cgroup.controllers", roots[i]);
		if (access(controllers, F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/sbxspawn-test-%ld-%u", roots[i], (long)getpid(), n++);
		if (mkdir(path, 0755) == 0)
			return strdup(path);
		*why = "the cgroup v2 hierarchy is not writable here (needs root, or a delegated group)";
	}
	return NULL;
}

/* The cgroup v2 path (the "0::" line) of the child's /proc/self/cgroup. */
static char *cgroup_of_child(const sbx_scopeattr_t *scope)
{
	char *out = NULL, *line;

	ck_assert_int_eq(run_scoped(scope, (char *[]){ "cat", "/proc/self/cgroup", NULL }, &out), 0);
	ck_assert_ptr_nonnull(line = strstr(out, "0::"));
	line += 3;
	line[strcspn(line, "\n")] = '\0';
	memmove(out, line, strlen(line) + 1);
	return out;
}

/* The child joins the cgroup before its exec (where the caller is not:
 * the control); a cgroup removed meanwhile is a refusal, never a child
 * run outside it. */
START_TEST(test_cgroup)
{
	const char *why;
	char *dir = cgroup_make(&why), *got, *mine;
	sbx_scopeattr_t s;
	int fd;

	if (!dir) {
		say_skip("SKIP %s: %s\n", __func__, why);
		return;
	}
	ck_assert_int_ge(fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), 0);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_getcgroup(&s, &(int){ 0 }), 0);
	ck_assert_int_eq(sbx_scopeattr_setcgroup(&s, -2), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_setcgroup(&s, fd), 0);
	mine = cgroup_of_child(NULL);
	got = cgroup_of_child(&s);
	ck_assert_msg(strstr(dir, got) && strlen(got) > 1, "child in %s, not %s", got, dir);
	ck_assert_msg(strcmp(mine, got), "the control: the caller's child is in %s too", mine);
	/* sbx_execve: the caller itself, before its exec. */
	char cmd[600];
	pid_t pid;
	snprintf(cmd, sizeof(cmd), "grep -qx '0::%s' /proc/self/cgroup", got);
	if ((pid = fork()) == 0)
		_exit(100 + sbx_execve("/bin/sh", &s, (char *[]){ "sh", "-c", cmd, NULL }, environ));
	ck_assert_int_eq(wait_status(pid), 0);
	free(got);
	free(mine);
	/* Removed (empty again): the child cannot join; not run. */
	ck_assert_int_eq(rmdir(dir), 0);
	got = NULL;
	ck_assert_int_eq(run_scoped(&s, (char *[]){ "true", NULL }, &got), -1000 - SBX_EREFUSED);
	ck_assert_msg(strstr(got, "true: not run: its confinement could not be applied: cgroup.procs: "
	                         "the control group is gone"), "%s", got);
	free(got);
	sbx_scopeattr_destroy(&s);
	close(fd);
	free(dir);
}
END_TEST

/* ---- pid file descriptors ---------------------------------------------- */

/* The pid of the process a pidfd names, from /proc/self/fdinfo. */
static long pid_of(int pidfd)
{
	char path[64], line[256];
	long pid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Pid: %ld", &pid) == 1)
			break;
	fclose(f);
	return pid;
}

/* A pidfd names the child, close-on-exec; it is waited for and signalled
 * through it; the child is the caller's, under a scope too. */
START_TEST(test_pidfd_spawn)
{
	char *argv[] = { "sh", "-c", "exit 5", NULL }, *sleeper[] = { "sleep", "300", NULL };
	sbx_scopeattr_t s;
	siginfo_t si;
	int fd, scoped;

	for (scoped = 0; scoped < 2; scoped++) {
		if (scoped) {
			ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
			sbx_scopeattr_setlogger(&s, NULL, NULL);
		}
		fd = -1;
		ck_assert_int_eq(sbx_pidfd_spawnp(&fd, "sh", NULL, NULL, scoped ? &s : NULL, argv,
		                                  environ), 0);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
		ck_assert_int_gt(pid_of(fd), 0);
		memset(&si, 0, sizeof(si));
		ck_assert_int_eq(waitid(P_PIDFD, (id_t)fd, &si, WEXITED), 0);
		ck_assert_int_eq(si.si_code, CLD_EXITED);
		ck_assert_int_eq(si.si_status, 5);
		close(fd);

		ck_assert_int_eq(sbx_pidfd_spawn(&fd, "/bin/sleep", NULL, NULL, scoped ? &s : NULL,
		                                 sleeper, environ), 0);
		ck_assert_int_eq(syscall(SYS_pidfd_send_signal, fd, SIGTERM, NULL, 0), 0);
		ck_assert_int_eq(waitid(P_PIDFD, (id_t)fd, &si, WEXITED), 0);
		ck_assert_int_eq(si.si_code, CLD_KILLED);
		ck_assert_int_eq(si.si_status, SIGTERM);
		close(fd);
		if (scoped)
			sbx_scopeattr_destroy(&s);
	}
	/* NULL: the child starts, its descriptor closed. */
	int before = count_fds();
	ck_assert_int_eq(sbx_pidfd_spawnp(NULL, "true", NULL, NULL, NULL, (char *[]){ "true", NULL },
	                                  environ), 0);
	ck_assert_int_eq(count_fds(), before);
	while (wait(NULL) > 0)
		;
}
END_TEST

/* Where the child does not start, no descriptor is left and *pidfd is
 * as it was: an exec that fails, a refused confinement, a kernel (here a
 * filter) that makes no pidfds (ENOSYS, no child at all). */
START_TEST(test_pidfd_spawn_failures)
{
	char *argv[] = { "x", NULL };
	sbx_scopeattr_t s;
	int fd = -7, before = count_fds();

	ck_assert_int_eq(sbx_pidfd_spawn(&fd, "/nonexistent/x", NULL, NULL, NULL, argv, environ),
	                 ENOENT);
	ck_assert_int_eq(fd, -7);
	ck_assert_int_eq(count_fds(), before);
	ck_assert_int_eq(count_zombies(), 0);
	if (landlock_abi() > 0) {
		ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
		sbx_scopeattr_setlogger(&s, NULL, NULL);
		ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_NO_NETWORK), 0);
		seccomp_fail(SYS_landlock_restrict_self, EPERM);
		ck_assert_int_eq(sbx_pidfd_spawnp(&fd, "true", NULL, NULL, &s, argv, environ),
		                 SBX_EREFUSED);
		ck_assert_int_eq(fd, -7);
		sbx_scopeattr_destroy(&s); /* with what its compile kept open */
		ck_assert_int_eq(count_fds(), before);
	}
	seccomp_fail(SYS_pidfd_open, ENOSYS);
	ck_assert_int_eq(sbx_pidfd_spawnp(&fd, "true", NULL, NULL, NULL, argv, environ), ENOSYS);
	ck_assert_int_eq(fd, -7);
	ck_assert_int_eq(count_fds(), before);
	ck_assert_int_eq(wait(NULL), -1); /* no child was made */
	ck_assert_int_eq(errno, ECHILD);
	/* posix_spawn itself is untouched by the filter. */
	pid_t pid;
	ck_assert_int_eq(sbx_posix_spawnp(&pid, "true", NULL, NULL, NULL, argv, environ), 0);
	ck_assert_int_eq(wait_status(pid), 0);
}
END_TEST

Suite *suite_lifetime(void)
{
	Suite *s = suite_create("lifetime");
	TCase *tc = tcase_create("rlimits");
	untimed(tc);

	tcase_add_test(tc, test_rlimit_set);
	tcase_add_test(tc, test_rlimit_errors);
	tcase_add_test(tc, test_rlimit_refused);
	tcase_add_test(tc, test_sbxrun_rlimit);
	suite_add_tcase(s, tc);
	tc = tcase_create("cgroup");
	untimed(tc);
	tcase_add_test(tc, test_cgroup);
	suite_add_tcase(s, tc);
	tc = tcase_create("pidfd");
	untimed(tc);
	tcase_add_test(tc, test_pidfd_spawn);
	tcase_add_test(tc, test_pidfd_spawn_failures);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tcase_lifetime_parent());
	return s;
}
