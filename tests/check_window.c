/* SPDX-License-Identifier: MIT */
/* The window between clone and exec, where a signal is held: a handler of
 * the caller's never runs in the child.  The child shares the caller's
 * memory until its exec, so a handler that ran there would run on it; each
 * caught signal is reset to its default first, as glibc's posix_spawn
 * does.  The library learns which are caught from /proc/self/status:
 * the parent's, read before the clone where it is its process's one
 * thread (nothing else can change them until the clone), else the child's
 * own; or, where there is none, by asking for each.  Every way is held
 * here, against glibc's: the signal is sent by a thread of the test's (the
 * child reads), or by a process of its own (the parent reads).  (Part of
 * the spawn-edges suite.) */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

/* Where the handler says which process it ran in. */
static int said_fd = -1;

static void saying_handler(int sig)
{
	pid_t pid = getpid();

	(void)sig;
	(void)!write(said_fd, &pid, sizeof(pid));
}

/* The child's group: a process of the test's that ignores SIGUSR2 from
 * its start, so that the signal sent to the group reaches the child
 * alone. */
static pid_t group_leader(void)
{
	pid_t pid;

	signal(SIGUSR2, SIG_IGN);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed test leaves none */
		setpgid(0, 0);
		for (;;)
			pause();
	}
	ck_assert_int_eq(setpgid(pid, pid) == 0 || errno == EACCES, 1);
	return pid;
}

struct releaser {
	const char *first, *second;
	pid_t group;
};

/* Lets the child through its first FIFO (it has joined the group: the
 * attributes come before the file actions), signals the group while the
 * child waits at the second with every signal held, then lets it go on
 * to unblock them and exec. */
static void *release(void *arg)
{
	const struct releaser *r = arg;
	int fd = open(r->first, O_WRONLY);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(kill(-r->group, SIGUSR2), 0);
	fd = open(r->second, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	close(fd);
	return NULL;
}

enum way { WAY_GLIBC, WAY_NULL, WAY_SCOPED, WAY_COUNT };
static const char *const way_names[] = { "glibc's posix_spawn", "a NULL scope", "a scope" };

/* release(), from a process of its own, so that the spawning one stays
 * alone. */
static pid_t release_from_process(struct releaser *r)
{
	pid_t pid = fork();
	int fd;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if ((fd = open(r->first, O_WRONLY)) < 0)
			_exit(1);
		close(fd);
		if (kill(-r->group, SIGUSR2))
			_exit(2);
		_exit((fd = open(r->second, O_WRONLY)) < 0 ? 3 : 0);
	}
	return pid;
}

/* One spawn of /bin/true held in the window while SIGUSR2, which this
 * process catches, is sent to it: it dies of the signal, at its default,
 * and the handler said nothing from any other process.  alone: the
 * signal comes from another process, and the spawning one has one
 * thread. */
static void held_in_window(enum way way, const char *dir, bool alone)
{
	char first[4200], second[4200], *argv[] = { "/bin/true", NULL };
	struct sigaction sa = { .sa_handler = saying_handler };
	struct releaser r = { first, second, 0 };
	posix_spawn_file_actions_t pfa;
	sbx_file_actions_t fa;
	posix_spawnattr_t attr;
	sbx_scopeattr_t scope;
	pthread_t t;
	pid_t pid, ran, releaser = -1;
	int pipefd[2], err, status;

	snprintf(first, sizeof(first), "%s/first", dir);
	snprintf(second, sizeof(second), "%s/second", dir);
	ck_assert_int_eq(mkfifo(first, 0600), 0);
	ck_assert_int_eq(mkfifo(second, 0600), 0);
	ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC | O_NONBLOCK), 0);
	said_fd = pipefd[1];
	r.group = group_leader();
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR2, &sa, NULL), 0);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, r.group);
	if (alone) {
		int threads = threads_here();

		releaser = release_from_process(&r);
		/* -1: no /proc to tell (then the child asks for each signal). */
		ck_assert_msg(threads == 1 || threads == -1, "%d threads", threads);
	} else {
		ck_assert_int_eq(pthread_create(&t, NULL, release, &r), 0);
	}
	if (way == WAY_GLIBC) {
		posix_spawn_file_actions_init(&pfa);
		posix_spawn_file_actions_addopen(&pfa, 3, first, O_RDONLY, 0);
		posix_spawn_file_actions_addopen(&pfa, 4, second, O_RDONLY, 0);
		err = posix_spawn(&pid, argv[0], &pfa, &attr, argv, environ);
		posix_spawn_file_actions_destroy(&pfa);
	} else {
		sbx_file_actions_init(&fa);
		sbx_file_actions_addopen(&fa, 3, first, O_RDONLY, 0);
		sbx_file_actions_addopen(&fa, 4, second, O_RDONLY, 0);
		ck_assert_int_eq(sbx_scopeattr_init(&scope), 0);
		ck_assert_int_eq(sbx_scopeattr_adddeny(&scope, join(dir, "denied")), 0);
		err = sbx_posix_spawn(&pid, argv[0], &fa, &attr, way == WAY_SCOPED ? &scope : NULL,
		                      argv, environ);
		sbx_scopeattr_destroy(&scope);
		sbx_file_actions_destroy(&fa);
	}
	if (alone)
		ck_assert_int_eq(wait_status(releaser), 0);
	else
		pthread_join(t, NULL);
	ck_assert_msg(err == 0, "%s: the spawn failed: %s", way_names[way], strerror(err));
	status = wait_status(pid);
	kill(r.group, SIGKILL);
	waitpid(r.group, NULL, 0);
	signal(SIGUSR2, SIG_DFL);
	while (read(pipefd[0], &ran, sizeof(ran)) == sizeof(ran))
		ck_assert_msg(ran == getpid(), "%s: the caller's handler ran in process %ld, its child",
		              way_names[way], (long)ran);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR2,
	              "%s: the child, held in its window, ended with status %#x, not of SIGUSR2 "
	              "at its default", way_names[way], status);
	close(pipefd[0]);
	close(pipefd[1]);
	posix_spawnattr_destroy(&attr);
	unlink(first);
	unlink(second);
}

/* Under an emulator (qemu-user) the signals between clone and exec are
 * its own to hold and deliver: what this holds is the kernel's. */
static bool emulated_here(const char *test)
{
	if (!emulated())
		return false;
	say_skip("SKIP %s: the spawns run under the emulator (qemu-user), which holds and "
	         "delivers their signals itself\n", test);
	return true;
}

START_TEST(test_window_handlers_reset)
{
	char *dir;

	if (emulated_here(__func__))
		return;
	dir = make_tmpdir();

	mkdir(join(dir, "denied"), 0700);
	/* Alone first: once this process made a thread, the C library says
	 * so for good, and the library leaves the signals to the child. */
	for (int way = 0; way < WAY_COUNT; way++)
		held_in_window((enum way)way, dir, true);
	for (int way = 0; way < WAY_COUNT; way++)
		held_in_window((enum way)way, dir, false);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* Where the child has no /proc to read, it asks for each signal; where
 * /proc is no procfs (a file put there that says nothing is caught), it
 * takes no word of it. */
START_TEST(test_window_handlers_reset_without_proc)
{
	char *dir;

	if (emulated_here(__func__))
		return;
	dir = make_tmpdir();

	if (!private_mounts(__func__)) {
		rm_rf(dir);
		free(dir);
		return;
	}
	mkdir(join(dir, "denied"), 0700);
	hide_proc();
	held_in_window(WAY_NULL, dir, true);
	show_proc();
	ck_assert_int_eq(mount("none", "/proc", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=64k"),
	                 0);
	ck_assert_int_eq(mkdir("/proc/self", 0755), 0);
	write_file("/proc/self/status", "Name:\tfake\nSigIgn:\t0000000000000000\n"
	                                "SigCgt:\t0000000000000000\nThreads:\t1\n", 0644);
	held_in_window(WAY_NULL, dir, true);
	held_in_window(WAY_NULL, dir, false);
	show_proc();
	hide_proc();
	held_in_window(WAY_NULL, dir, false);
	show_proc();
	rm_rf(dir);
	free(dir);
}
END_TEST

TCase *tcase_spawn_window(void)
{
	TCase *tc = tcase_create("window");

	untimed(tc);
	tcase_add_test(tc, test_window_handlers_reset);
	tcase_add_test(tc, test_window_handlers_reset_without_proc);
	return tc;
}
