/* SPDX-License-Identifier: MIT */
/* The command's lifetime as the library shapes it: the resource limits a
 * scope sets, each shown to differ from the caller's own first (the
 * control), then set in the child through every call that starts one; a
 * limit the kernel refuses is a refusal, never a command run without it. */
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
/* An exit status as wait(2) gives it. */
#define LIFETIME_STATUS(n) ((n) << 8)
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

/* ---- sbxrun and the command's tree ------------------------------------- */

/* sbxrun with args, started (not waited for): its pid. */
static pid_t sbxrun_start(char *const args[])
{
	char *argv[32] = { SBXRUN, "--quiet" };
	pid_t pid;
	int n = 2;

	for (; *args; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	ck_assert_int_eq(posix_spawn(&pid, SBXRUN, NULL, NULL, argv, environ), 0);
	return pid;
}

/* The pid a command wrote to path (waiting until it has, by count): a
 * pidfd of it, taken while it runs. */
static int pidfd_from(const char *path)
{
	long pid = 0;

	for (int i = 0; i < 100000 && pid <= 0; i++) {
		FILE *f = fopen(path, "r");

		if (!f || fscanf(f, "%ld", &pid) != 1)
			pid = 0;
		if (f)
			fclose(f);
		if (pid <= 0)
			usleep(1000);
	}
	ck_assert_int_gt(pid, 0);
	return (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
}

/* Whether the process of pidfd has ended (a pidfd polls readable then). */
static bool ended(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

/* A command that leaves a process behind (setsid, then a fork), writes
 * its pid to dir/pid, and ends when dir/go is written.  The survivor is
 * shown alive under --keep-tree (the control), and ended without it. */
START_TEST(test_sbxrun_ends_tree)
{
	char *dir = make_tmpdir(), pidfile[4096], go[4096], cmd[9000];

	snprintf(pidfile, sizeof(pidfile), "%s/pid", dir);
	snprintf(go, sizeof(go), "%s/go", dir);
	ck_assert_int_eq(mkfifo(go, 0600), 0);
	snprintf(cmd, sizeof(cmd),
	         "setsid sh -c 'sleep 300 & echo $! > %s.new; mv %s.new %s; wait' & read x < %s",
	         pidfile, pidfile, pidfile, go);
	for (int keep = 1; keep >= 0; keep--) {
		char *kept[] = { "--keep-tree", "--", "sh", "-c", cmd, NULL };
		char *ended_with[] = { "--", "sh", "-c", cmd, NULL };
		pid_t pid;
		int fd, w;

		unlink(pidfile);
		pid = sbxrun_start(keep ? kept : ended_with);
		ck_assert_int_ge(fd = pidfd_from(pidfile), 0);
		ck_assert_int_ge(w = open(go, O_WRONLY), 0);
		ck_assert_int_eq(write(w, "x\n", 2), 2);
		close(w);
		ck_assert_int_eq(wait_status(pid), 0);
		if (keep) {
			ck_assert_msg(!ended(fd), "the control: the survivor should still run");
			syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
		} else {
			ck_assert_msg(ended(fd), "a process of the tree outlived sbxrun");
		}
		close(fd);
	}
	rm_rf(dir);
	free(dir);
}
END_TEST

/* --timeout: 124, the command and a tree that ignores SIGTERM ended
 * (SIGKILL after the grace); a bad duration is sbxrun's failure. */
START_TEST(test_sbxrun_timeout)
{
	char *dir = make_tmpdir(), pidfile[4096], cmd[9000];
	int fd;
	pid_t pid;

	snprintf(pidfile, sizeof(pidfile), "%s/pid", dir);
	snprintf(cmd, sizeof(cmd), "(trap '' TERM; exec sleep 300) & echo $! > %s.new; mv %s.new %s; "
	                           "trap '' TERM; wait", pidfile, pidfile, pidfile);
	pid = sbxrun_start((char *[]){ "--timeout", "0.2", "--", "sh", "-c", cmd, NULL });
	ck_assert_int_ge(fd = pidfd_from(pidfile), 0);
	ck_assert_int_eq(wait_status(pid), LIFETIME_STATUS(124));
	ck_assert(ended(fd));
	close(fd);
	ck_assert_int_eq(wait_status(sbxrun_start((char *[]){ "--timeout", "1m", "--", "true", NULL })),
	                 0);
	for (const char *const *bad = (const char *const[]){ "x", "-1", "1w", "", NULL }; *bad; bad++)
		ck_assert_int_eq(wait_status(sbxrun_start((char *[]){ "--timeout", (char *)*bad, "--",
		                                                    "true", NULL })),
		                 LIFETIME_STATUS(125));
	rm_rf(dir);
	free(dir);
}
END_TEST

/* The command's end is sbxrun's: its status, or its signal raised again;
 * a signal sent to sbxrun alone is passed on to the command. */
START_TEST(test_sbxrun_signals)
{
	char *dir = make_tmpdir(), ready[4096], cmd[9000];
	int status, fd;
	pid_t pid;

	ck_assert_int_eq(wait_status(sbxrun_start((char *[]){ "--", "sh", "-c", "exit 7", NULL })),
	                 LIFETIME_STATUS(7));
	status = wait_status(sbxrun_start((char *[]){ "--", "sh", "-c", "kill -USR1 $$", NULL }));
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR1, "status %#x", status);
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	snprintf(cmd, sizeof(cmd), "trap 'exit 9' TERM; echo $$ > %s.new; mv %s.new %s; "
	                           "while :; do sleep 1; done", ready, ready, ready);
	pid = sbxrun_start((char *[]){ "--", "sh", "-c", cmd, NULL });
	ck_assert_int_ge(fd = pidfd_from(ready), 0);
	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	ck_assert_int_eq(wait_status(pid), LIFETIME_STATUS(9));
	close(fd);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* --die-with-parent: sbxrun's caller ends, and so do sbxrun and the
 * command; without it (the control) the command runs on. */
START_TEST(test_sbxrun_die_with_parent)
{
	char *dir = make_tmpdir(), pidfile[4096], cmd[9000];

	snprintf(pidfile, sizeof(pidfile), "%s/pid", dir);
	snprintf(cmd, sizeof(cmd), "echo $$ > %s.new; mv %s.new %s; exec sleep 300", pidfile, pidfile,
	         pidfile);
	for (int die = 0; die < 2; die++) {
		pid_t caller;
		int fd, hold[2];
		char c;

		unlink(pidfile);
		ck_assert_int_eq(pipe(hold), 0);
		/* The caller ends once the command runs (before, sbxrun would
		 * not start it at all). */
		if ((caller = fork()) == 0) {
			close(hold[1]);
			sbxrun_start(die ? (char *[]){ "--die-with-parent", "--", "sh", "-c", cmd, NULL }
			                 : (char *[]){ "--", "sh", "-c", cmd, NULL });
			_exit(read(hold[0], &c, 1) == 0 ? 0 : 1);
		}
		close(hold[0]);
		ck_assert_int_ge(fd = pidfd_from(pidfile), 0);
		close(hold[1]);
		ck_assert_int_eq(wait_status(caller), 0);
		if (die) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			ck_assert_int_eq(poll(&p, 1, -1), 1); /* the watchdog bounds it */
		} else {
			ck_assert_msg(!ended(fd), "the control: the command should run on");
			syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
		}
		close(fd);
	}
	rm_rf(dir);
	free(dir);
}
END_TEST

Suite *suite_lifetime(void)
{
	Suite *s = suite_create("lifetime");
	TCase *tc = tcase_create("rlimits");

	tcase_add_test(tc, test_rlimit_set);
	tcase_add_test(tc, test_rlimit_errors);
	tcase_add_test(tc, test_rlimit_refused);
	tcase_add_test(tc, test_sbxrun_rlimit);
	suite_add_tcase(s, tc);
	tc = tcase_create("pidfd");
	tcase_add_test(tc, test_pidfd_spawn);
	tcase_add_test(tc, test_pidfd_spawn_failures);
	suite_add_tcase(s, tc);
	tc = tcase_create("tree");
	tcase_add_test(tc, test_sbxrun_ends_tree);
	tcase_add_test(tc, test_sbxrun_timeout);
	tcase_add_test(tc, test_sbxrun_signals);
	tcase_add_test(tc, test_sbxrun_die_with_parent);
	suite_add_tcase(s, tc);
	return s;
}
