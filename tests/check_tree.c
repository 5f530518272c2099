/* SPDX-License-Identifier: MIT */
/* sbxrun and the command's tree: what the command starts ends with it
 * (each survivor shown alive under --keep-tree first, the control), its
 * time limited, its signals passed on and its end made sbxrun's, and
 * the whole of it ended with sbxrun's caller under --die-with-parent. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"
/* An exit status as wait(2) gives it. */
#define LIFETIME_STATUS(n) ((n) << 8)

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

/* Whether a process here can be a subreaper (qemu-user refuses it): where
 * not, sbxrun finds what outlives its parent no more, and says so. */
static bool subreaper_here(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) ? 1 : 0);
	return wait_status(pid) == 0;
}

#define REQUIRE_SUBREAPER()                                                                  \
	do {                                                                                 \
		if (!subreaper_here()) {                                                     \
			say_skip("SKIP %s: no subreaper here (PR_SET_CHILD_SUBREAPER refused, " \
			         "as qemu-user does)\n", __func__);                           \
			return;                                                              \
		}                                                                            \
	} while (0)

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

/* A command that writes its pid to pidfile (whole, by a rename), then
 * becomes tail. */
static void pid_then(char *cmd, size_t cap, const char *pidfile, const char *tail)
{
	snprintf(cmd, cap, "echo $$ > %s.new; mv %s.new %s; %s", pidfile, pidfile, pidfile, tail);
}

/* Whether the process of pidfd has ended (a pidfd polls readable then),
 * or does within ms. */
static bool ended_within(int pidfd, int ms)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

static bool ended(int pidfd)
{
	return ended_within(pidfd, 0);
}

/* A command that leaves a process behind (setsid, then a fork), writes
 * its pid to dir/pid, and ends when dir/go is written.  The survivor is
 * shown alive under --keep-tree (the control), and ended without it. */
START_TEST(test_sbxrun_ends_tree)
{
	char *dir, pidfile[4096], go[4096], cmd[9000];

	REQUIRE_SUBREAPER();
	dir = make_tmpdir();
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
 * (SIGKILL after the grace); without it (the control) the same command
 * still runs well past that time.  A bad duration is sbxrun's failure. */
START_TEST(test_sbxrun_timeout)
{
	char *dir = make_tmpdir(), pidfile[4096], cmd[9000];
	int fd;

	snprintf(pidfile, sizeof(pidfile), "%s/pid", dir);
	snprintf(cmd, sizeof(cmd), "(trap '' TERM; exec sleep 300) & echo $! > %s.new; mv %s.new %s; "
	                           "trap '' TERM; wait", pidfile, pidfile, pidfile);
	for (int timed = 0; timed < 2; timed++) {
		pid_t pid;

		unlink(pidfile);
		pid = sbxrun_start(timed ? (char *[]){ "--timeout", "0.2", "--", "sh", "-c", cmd, NULL }
		                         : (char *[]){ "--", "sh", "-c", cmd, NULL });
		ck_assert_int_ge(fd = pidfd_from(pidfile), 0);
		if (timed) {
			int self = (int)syscall(SYS_pidfd_open, pid, 0);

			/* Ended by the time, not by the tree's own end (sleep
			 * 300, deaf to SIGTERM): a bound far past the 2 s grace,
			 * which only a missing SIGKILL round reaches. */
			ck_assert_int_ge(self, 0);
			ck_assert_msg(ended_within(self, 60000), "sbxrun outlived its timeout by 60 s");
			close(self);
			ck_assert_int_eq(wait_status(pid), LIFETIME_STATUS(124));
			ck_assert(ended(fd));
		} else {
			ck_assert(!ended_within(fd, 500)); /* alive past 0.2 s */
			ck_assert_int_eq(kill(pid, SIGKILL), 0);
			wait_status(pid);
			/* sbxrun gone, the command with it (its parent-death
			 * signal); its tree, reparented, is ours to end. */
			syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
		}
		close(fd);
	}
	ck_assert_int_eq(wait_status(sbxrun_start((char *[]){ "--timeout", "1m", "--", "true", NULL })),
	                 0);
	/* The same while reporting denials (whether or not the audit log can
	 * be read here: the command is watched either way). */
	ck_assert_int_eq(wait_status(sbxrun_start((char *[]){ "--report-denials", "--timeout", "0.2",
	                                                    "--", "sleep", "300", NULL })),
	                 LIFETIME_STATUS(124));
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
	/* Started with SIGCHLD ignored, which sbxrun does not keep: no child
	 * of its would be left to wait for. */
	char *ignoring[] = { "sh", "-c", "trap '' CHLD; exec \"$0\" --quiet -- sh -c 'exit 7'", SBXRUN,
		             NULL };
	ck_assert_int_eq(posix_spawn(&pid, "/bin/sh", NULL, NULL, ignoring, environ), 0);
	ck_assert_int_eq(wait_status(pid), LIFETIME_STATUS(7));
	status = wait_status(sbxrun_start((char *[]){ "--", "sh", "-c", "kill -USR1 $$", NULL }));
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR1, "status %#x", status);
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	/* The trap first: the pid says the command is ready for the signal. */
	snprintf(cmd, sizeof(cmd), "trap 'exit 9' TERM; echo $$ > %s.new; mv %s.new %s; "
	                           "while :; do sleep 1; done", ready, ready, ready);
	pid = sbxrun_start((char *[]){ "--", "sh", "-c", cmd, NULL });
	ck_assert_int_ge(fd = pidfd_from(ready), 0);
	/* Passed on: the command is sbxrun's child, not sbxrun become it. */
	{
		FILE *f = fopen(ready, "r");
		long command = 0;

		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(fscanf(f, "%ld", &command), 1);
		fclose(f);
		ck_assert_int_ne(command, pid);
	}
	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	ck_assert_int_eq(wait_status(pid), LIFETIME_STATUS(9));
	close(fd);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* A signal whose default ends a process (SIGALRM here) ends sbxrun only
 * after its tree: passed on, not sbxrun's death alone, which would leave
 * what the command started running (the command itself would end by its
 * parent-death signal).  The tree is found as its subreaper. */
START_TEST(test_sbxrun_signal_ends_tree)
{
	char *dir, ready[4096], cmd[9000];
	int status, fd;
	pid_t pid;

	REQUIRE_SUBREAPER();
	dir = make_tmpdir();
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	snprintf(cmd, sizeof(cmd), "sleep 300 & echo $! > %s.new; mv %s.new %s; wait", ready, ready,
	         ready);
	pid = sbxrun_start((char *[]){ "--", "sh", "-c", cmd, NULL });
	ck_assert_int_ge(fd = pidfd_from(ready), 0);
	ck_assert_int_eq(kill(pid, SIGALRM), 0);
	status = wait_status(pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM, "status %#x", status);
	ck_assert_msg(ended(fd), "the command's tree outlived sbxrun");
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
	pid_then(cmd, sizeof(cmd), pidfile, "exec sleep 300");
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
			ck_assert_msg(ended_within(fd, 60000), "still running a minute later");
		} else {
			/* Given time to end, had it been told to. */
			ck_assert_msg(!ended_within(fd, 500), "the control: the command should run on");
			syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
		}
		close(fd);
	}
	rm_rf(dir);
	free(dir);
}
END_TEST

/* sbxrun killed (SIGKILL, which nothing catches): the command ends with
 * it, by its parent-death signal, under another uid too (the kernel
 * clears that signal when the ids change: the library sets it again). */
START_TEST(test_sbxrun_killed)
{
	char *dir = make_tmpdir(), pidfile[4096], cmd[9000];

	snprintf(pidfile, sizeof(pidfile), "%s/pid", dir);
	chmod(dir, 0777);
	pid_then(cmd, sizeof(cmd), pidfile, "exec sleep 300");
	/* Plainly, as another user, and with the denial report (whose
	 * command outlived a killed sbxrun before). */
	for (int way = 0; way < 3; way++) {
		pid_t pid;
		int fd;

		if (way == 1 && geteuid() != 0) {
			say_skip("SKIP %s (--uid): needs root to become another user\n", __func__);
			continue;
		}
		unlink(pidfile);
		pid = sbxrun_start(way == 1   ? (char *[]){ "--uid", "65534", "--", "sh", "-c", cmd, NULL }
		                   : way == 2 ? (char *[]){ "--report-denials", "--", "sh", "-c", cmd, NULL }
		                              : (char *[]){ "--", "sh", "-c", cmd, NULL });
		ck_assert_int_ge(fd = pidfd_from(pidfile), 0);
		ck_assert(!ended(fd)); /* it runs while sbxrun does */
		ck_assert_int_eq(kill(pid, SIGKILL), 0);
		wait_status(pid);
		ck_assert_msg(ended_within(fd, 60000), "still running a minute later");
		close(fd);
	}
	rm_rf(dir);
	free(dir);
}
END_TEST

/* A confined command cannot signal sbxrun, which could then not end its
 * tree (Landlock ABI 6 scopes signals); under --keep-tree, sbxrun becomes
 * the command, and its parent is reached (the control). */
START_TEST(test_sbxrun_unsignalled)
{
	char *argv[] = { SBXRUN, "--quiet", NULL, "--", "sh", "-c",
		         "kill -0 $PPID 2>/dev/null && echo reached || echo refused", NULL };
	char *out;

	REQUIRE_LANDLOCK();
	if (landlock_abi() < 6) {
		say_skip("SKIP %s: signals are scoped from Landlock ABI 6\n", __func__);
		return;
	}
	argv[2] = "--keep-tree";
	ck_assert_int_eq(run_scoped(NULL, argv, &out), 0);
	ck_assert_str_eq(out, "reached\n");
	free(out);
	argv[2] = "--no-io-uring"; /* a scope: the command is confined */
	ck_assert_int_eq(run_scoped(NULL, argv, &out), 0);
	ck_assert_str_eq(out, "refused\n");
	free(out);
}
END_TEST

/* How many processes are named name (their comm), SIGKILL sent to each
 * where kill. */
static unsigned named(const char *name, bool kill_them)
{
	unsigned n = 0;
	struct dirent *e;
	DIR *proc = opendir("/proc");

	ck_assert_ptr_nonnull(proc);
	while ((e = readdir(proc))) {
		char path[300], comm[64] = "";
		long pid = strtol(e->d_name, NULL, 10);
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		if (pid <= 0 || !(f = fopen(path, "r")))
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, name, strlen(name)) &&
		    comm[strlen(name)] == '\n') {
			n++;
			if (kill_them)
				kill((pid_t)pid, SIGKILL);
		}
		fclose(f);
	}
	closedir(proc);
	return n;
}

/* What tries to outlive the tree: a process whose first thread ended
 * (SIGTERM ignored; /proc says "Z" of it while its other thread runs),
 * and chains that fork and end faster than a pass over /proc.  Under
 * --keep-tree (the control) they run on after sbxrun; without it, not one
 * is left when sbxrun has ended. */
START_TEST(test_sbxrun_outlivers)
{
	static const char *const ways[] = { "leader", "hop" };

	REQUIRE_SUBREAPER();
	for (size_t w = 0; w < 2; w++) {
		for (int keep = 1; keep >= 0; keep--) {
			char name[16], *cmd[] = { HELPER_DIR "/escapee", (char *)ways[w], name, "5", NULL };
			char *kept[] = { "--keep-tree", "--", cmd[0], cmd[1], cmd[2], cmd[3], NULL };
			char *ended_with[] = { "--", cmd[0], cmd[1], cmd[2], cmd[3], NULL };

			snprintf(name, sizeof(name), "sbxe%d%zu%d", (int)(getpid() % 100000), w, keep);
			ck_assert_int_eq(wait_status(sbxrun_start(keep ? kept : ended_with)), 0);
			if (keep) {
				ck_assert_msg(named(name, false) > 0, "the control: %s left nothing",
				              ways[w]);
				/* Ended here, round after round (the chains hop). */
				while (named(name, true))
					usleep(1000);
			} else {
				ck_assert_msg(named(name, false) == 0, "%s: %u processes outlived sbxrun",
				              ways[w], named(name, false));
			}
		}
	}
}
END_TEST

Suite *suite_tree(void)
{
	Suite *s = suite_create("tree");
	TCase *tc = tcase_create("sbxrun");
	untimed(tc);

	tcase_add_test(tc, test_sbxrun_ends_tree);
	tcase_add_test(tc, test_sbxrun_timeout);
	tcase_add_test(tc, test_sbxrun_signals);
	tcase_add_test(tc, test_sbxrun_signal_ends_tree);
	tcase_add_test(tc, test_sbxrun_die_with_parent);
	tcase_add_test(tc, test_sbxrun_outlivers);
	tcase_add_test(tc, test_sbxrun_killed);
	tcase_add_test(tc, test_sbxrun_unsignalled);
	suite_add_tcase(s, tc);
	return s;
}
