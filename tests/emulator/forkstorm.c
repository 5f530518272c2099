/* SPDX-License-Identifier: MIT */
/*
 * forkstorm: forks from many threads at once, without libsbxspawn: the
 * reproduction of a deadlock of qemu-user, the reason the tests that spawn
 * from several threads skip under it (tests/emulated.h).
 *
 *   forkstorm [-t THREADS] [-n ITERATIONS] [-m raw|fork|vfork] [-c exec|exit] [-p] [-x K]
 *
 * THREADS threads (default 8) each create ITERATIONS children (default 50):
 *   raw   syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0), all signals blocked
 *         around it (the spawn engine's fork fallback);
 *   fork  the C library's fork();
 *   vfork the C library's vfork() (qemu-user turns it into a fork).
 * The child execs /bin/true (-c exec, default) or exits at once (-c exit).
 * With -p the parent also waits on a close-on-exec pipe before waitpid, as
 * the engine does.  With -x K, K more threads start and join empty threads
 * meanwhile.  Exits 0 when every child exited 0.
 *
 * Under qemu-aarch64 7.2 (Debian 12, linked with GLib 2.74) on a loaded
 * machine, some runs never end (seen: 1 in 11 runs with -p, 4 in 9 with
 * -p -x 2, 3 in 3 with -m fork -p -x 2; the suite's threads test, 6 in 24).
 * Every hang has the same shape: a forked child, a copy of the emulator, is
 * asleep in futex(FUTEX_WAIT) on the lock of GLib's slice allocator
 * (g_slice_alloc, from the emulator's translation of new code: tcg_tb_insert,
 * g_tree_insert), which another thread of the emulator held at the fork;
 * the emulator's fork_start() takes its own locks, not that one.  The child
 * never execs, and the parent waits for it forever.  With
 * G_SLICE=always-malloc (the slice allocator on malloc, which the C library
 * keeps consistent across a fork) no run hung (0 in 7; the suite's test, 0
 * in 16).  GLib 2.76 and later allocate slices with malloc always.
 *
 * Build and run (binfmt_misc, or qemu-aarch64 ./forkstorm ...):
 *   aarch64-linux-gnu-gcc -O2 -pthread -o forkstorm tests/emulator/forkstorm.c
 *   for i in $(seq 20); do timeout 150 ./forkstorm -p -x 2 || echo HANG; done
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int iterations = 50, use_pipe;
static const char *mode = "raw", *child = "exec";
extern char **environ;
static atomic_int done;

static void *empty(void *arg)
{
	return arg;
}

static void *churner(void *arg)
{
	long n = 0;

	(void)arg;

	while (!atomic_load(&done)) {
		pthread_t t;

		if (pthread_create(&t, NULL, empty, NULL) == 0) {
			pthread_join(t, NULL);
			n++;
		}
	}
	return (void *)n;
}

static void in_child(int wfd)
{
	char *argv[] = { "true", NULL };

	(void)wfd;
	if (strcmp(child, "exec") == 0)
		syscall(SYS_execve, "/bin/true", argv, environ);
	syscall(SYS_exit_group, 0);
}

static void *worker(void *arg)
{
	long failures = 0;

	(void)arg;
	for (int i = 0; i < iterations; i++) {
		sigset_t all, old;
		int p[2] = { -1, -1 }, status;
		pid_t pid;
		char c;

		if (use_pipe && pipe2(p, O_CLOEXEC))
			abort();
		if (strcmp(mode, "raw") == 0) {
			sigfillset(&all);
			syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &old, 8);
			pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
			if (pid == 0)
				in_child(p[1]);
			syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, 8);
		} else if (strcmp(mode, "fork") == 0) {
			pid = fork();
			if (pid == 0)
				in_child(p[1]);
		} else {
			pid = vfork();
			if (pid == 0)
				in_child(p[1]);
		}
		if (use_pipe) {
			close(p[1]);
			while (pid > 0 && read(p[0], &c, 1) < 0 && errno == EINTR)
				;
			close(p[0]);
		}
		if (pid < 0) {
			failures++;
			continue;
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failures++;
	}
	return (void *)failures;
}

int main(int argc, char **argv)
{
	int threads = 8, churners = 0, opt;
	long total = 0, churned = 0;
	pthread_t *t, *x;

	while ((opt = getopt(argc, argv, "t:n:m:c:px:")) != -1) {
		switch (opt) {
		case 't': threads = atoi(optarg); break;
		case 'n': iterations = atoi(optarg); break;
		case 'm': mode = optarg; break;
		case 'c': child = optarg; break;
		case 'p': use_pipe = 1; break;
		case 'x': churners = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-t N] [-n N] [-m raw|fork|vfork] [-c exec|exit] [-p] [-x K]\n", argv[0]);
			return 2;
		}
	}
	t = calloc((size_t)threads, sizeof(*t));
	x = calloc((size_t)churners + 1, sizeof(*x));
	for (int i = 0; i < churners; i++)
		if (pthread_create(&x[i], NULL, churner, NULL))
			abort();
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			abort();
	for (int i = 0; i < threads; i++) {
		void *f;

		pthread_join(t[i], &f);
		total += (long)f;
	}
	atomic_store(&done, 1);
	for (int i = 0; i < churners; i++) {
		void *n;

		pthread_join(x[i], &n);
		churned += (long)n;
	}
	printf("forkstorm: %d threads x %d %s children (%s%s), %ld threads churned: %ld failures\n",
	       threads, iterations, mode, child, use_pipe ? ", pipe" : "", churned, total);
	return total != 0;
}
