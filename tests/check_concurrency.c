/* SPDX-License-Identifier: MIT */
/* Many threads spawning at once, and a parent flooded with signals; file
 * actions and descriptors across threads: check_concurrency_fds.c. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/common.h"

#define THREADS 8
/* SBX_TEST_SCALE=N divides the counts by N (scale(), tests/common.h). */
#define SPAWNS (500 / scale())

static void *spawner(void *arg)
{
	char *argv[] = { "true", NULL };
	long failures = 0;

	(void)arg;
	for (int i = 0; i < SPAWNS; i++) {
		pid_t pid;
		int status;

		if (sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, NULL, argv, environ)) {
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

START_TEST(test_threads)
{
	pthread_t t[THREADS];
	int before = count_fds();

	SKIP_IF_EMULATED_THREADS();

	for (int i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, spawner, NULL), 0);
	for (int i = 0; i < THREADS; i++) {
		void *failures;

		pthread_join(t[i], &failures);
		ck_assert_int_eq((long)failures, 0);
	}
	ck_assert_int_eq(count_fds(), before);
	ck_assert_int_eq(count_zombies(), 0);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
}
END_TEST

/* A handler that notices when it runs in another process: with CLONE_VM a
 * child shares this memory, so that is where it would be counted. */
static pid_t parent_pid;
static atomic_long in_parent, in_child;
static volatile unsigned long canary[64];

static void counting_handler(int sig)
{
	(void)sig;
	if (getpid() == parent_pid)
		atomic_fetch_add(&in_parent, 1);
	else
		atomic_fetch_add(&in_child, 1);
}

static atomic_int flooding;

static void *flooder(void *arg)
{
	(void)arg;
	while (atomic_load(&flooding)) {
		kill(parent_pid, SIGUSR1);
		kill(parent_pid, SIGUSR2);
		kill(parent_pid, SIGCHLD);
	}
	return NULL;
}

/* Fills the canary, catches SIGUSR1, SIGUSR2 and SIGCHLD with the counting
 * handler and starts the flooding thread. */
static void start_flood(pthread_t *t)
{
	struct sigaction sa = { .sa_handler = counting_handler };

	parent_pid = getpid();
	for (int i = 0; i < 64; i++)
		canary[i] = 0x5bd1e995UL * (unsigned long)(i + 1);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	atomic_store(&flooding, 1);
	ck_assert_int_eq(pthread_create(t, NULL, flooder, NULL), 0);
}

/* Stops the flood; no handler ran in a child, the canary is whole. */
static void stop_flood(pthread_t t)
{
	atomic_store(&flooding, 0);
	pthread_join(t, NULL);
	ck_assert_int_eq(atomic_load(&in_child), 0);
	for (int i = 0; i < 64; i++)
		ck_assert_uint_eq(canary[i], 0x5bd1e995UL * (unsigned long)(i + 1));
}

START_TEST(test_signal_flood)
{
	char *argv[] = { "true", NULL };
	pthread_t t;
	int before = count_fds();

	SKIP_IF_EMULATED_THREADS();

	start_flood(&t);
	for (int i = 0; i < SPAWNS; i++) {
		pid_t pid;
		int err = sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, NULL, argv, environ);

		ck_assert_int_eq(err, 0);
		ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 0);
	}
	stop_flood(t);
	ck_assert_int_gt(atomic_load(&in_parent), 0);
	ck_assert_int_eq(count_fds(), before);
	ck_assert_int_eq(count_zombies(), 0);
}
END_TEST

/* ---- stress: several threads, every kind of spawn, a reaper racing ---- */

#define STRESS_THREADS 4
#define STRESS_SPAWNS (10000 / scale())

static atomic_long reaped, spawned;
static atomic_int reaping;

/* Reaps every child as soon as it exits, until the spawners are done and no
 * child is left: it races the library, which reaps the children of failed
 * spawns itself (and then finds some already gone). */
static void *reaper(void *arg)
{
	(void)arg;
	for (;;) {
		int more = atomic_load(&reaping);
		pid_t pid = waitpid(-1, NULL, 0);

		if (pid > 0)
			atomic_fetch_add(&reaped, 1);
		else if (errno == ECHILD && !more)
			break;
		else if (errno == ECHILD)
			usleep(100);
	}
	return NULL;
}

struct stress_arg {
	const sbx_scopeattr_t *fresh, *compiled;
	long failures;
	int first, first_err; /* the first failure: its spawn and its error */
};

static void *stress_spawner(void *p)
{
	struct stress_arg *a = p;
	char *argv[] = { "true", NULL };
	sbx_file_actions_t fa;

	sbx_file_actions_init(&fa);
	sbx_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	for (int i = 0; i < STRESS_SPAWNS / STRESS_THREADS; i++) {
		const sbx_scopeattr_t *scope = i % 3 == 0 ? NULL : i % 3 == 1 ? a->fresh : a->compiled;
		const char *path = i % 17 == 0 ? "/nonexistent/true" : "/bin/true";
		pid_t pid;
		int err;

		err = sbx_posix_spawn(&pid, path, i % 2 ? &fa : NULL, NULL, scope, argv, environ);
		if (!err)
			atomic_fetch_add(&spawned, 1);
		if (err != (i % 17 == 0 ? ENOENT : 0) && !a->failures++) {
			a->first = i;
			a->first_err = err;
		}
	}
	sbx_file_actions_destroy(&fa);
	return NULL;
}

START_TEST(test_stress_with_reaper)
{
	pthread_t t[STRESS_THREADS], r, f;
	struct stress_arg args[STRESS_THREADS];
	sbx_scopeattr_t fresh, compiled;
	char *dir = make_tmpdir();
	int before;

	SKIP_IF_EMULATED_THREADS();

	sbx_scopeattr_init(&fresh);
	sbx_scopeattr_init(&compiled);
	sbx_scopeattr_setlogger(&fresh, quiet, NULL);
	sbx_scopeattr_setlogger(&compiled, quiet, NULL);
	sbx_scopeattr_adddeny(&fresh, dir);
	sbx_scopeattr_adddeny(&compiled, dir);
	ck_assert_int_eq(sbx_scopeattr_compile(&compiled), 0);
	before = count_fds();
	atomic_store(&reaping, 1);
	ck_assert_int_eq(pthread_create(&r, NULL, reaper, NULL), 0);
	start_flood(&f);
	for (int i = 0; i < STRESS_THREADS; i++) {
		args[i] = (struct stress_arg){ .fresh = &fresh, .compiled = &compiled };
		ck_assert_int_eq(pthread_create(&t[i], NULL, stress_spawner, &args[i]), 0);
	}
	for (int i = 0; i < STRESS_THREADS; i++) {
		pthread_join(t[i], NULL);
		ck_assert_msg(!args[i].failures, "%ld spawns failed; the first, number %d: %s",
		              args[i].failures, args[i].first, sbx_strerror(args[i].first_err));
	}
	atomic_store(&reaping, 0);
	pthread_join(r, NULL);
	stop_flood(f);

	/* Every child of a spawn that succeeded was there for the reaper; a few
	 * of the failed ones' too, before the library could reap them. */
	ck_assert_int_ge(atomic_load(&reaped), atomic_load(&spawned));
	ck_assert_int_le(atomic_load(&reaped), STRESS_SPAWNS);
	/* The scopes' own descriptors (the snapshot, the cached compile) are
	 * released with them. */
	sbx_scopeattr_destroy(&fresh);
	sbx_scopeattr_destroy(&compiled);
	ck_assert_int_le(count_fds(), before);
	ck_assert_int_eq(count_zombies(), 0);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* ---- cancellation --------------------------------------------------------- */

struct cancelled {
	sbx_scopeattr_t *scope;
	pid_t pid;
	int err;
};

/* A logger that asks for its own thread's cancellation in the middle of a
 * compile, where a cancellation point comes next (an openat, a poll). */
static void cancel_self(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind == SBX_EVENT_EXPAND)
		pthread_cancel(pthread_self());
}

static void *spawn_then_testcancel(void *arg)
{
	struct cancelled *c = arg;
	char *argv[] = { "true", NULL };

	c->err = sbx_posix_spawn(&c->pid, "/bin/true", NULL, NULL, c->scope, argv, environ);
	pthread_testcancel();
	c->err = -1; /* not reached: the cancel acts here, after the call */
	return NULL;
}

/* Like posix_spawn, sbx_posix_spawn cannot be cancelled: a cancel that
 * comes during the call acts at the caller's next cancellation point, and
 * leaves no lock held, no descriptor open, no child lost. */
START_TEST(test_cancel_inside_spawn)
{
	struct cancelled c = { 0 };
	sbx_scopeattr_t s;
	char *dir = make_tmpdir(), *argv[] = { "true", NULL };
	pthread_t t;
	void *ret;
	pid_t pid;
	int before = count_fds();

	SKIP_IF_EMULATED_THREADS();

	/* The cancel is asked for by an event of the compile. */
	REQUIRE_LANDLOCK();
	sbx_scopeattr_init(&s);
	sbx_scopeattr_setlogger(&s, cancel_self, NULL);
	sbx_scopeattr_adddeny(&s, join(dir, "denied"));
	c.scope = &s;
	ck_assert_int_eq(pthread_create(&t, NULL, spawn_then_testcancel, &c), 0);
	ck_assert_int_eq(pthread_join(t, &ret), 0);
	ck_assert_ptr_eq(ret, PTHREAD_CANCELED);
	ck_assert_int_eq(c.err, 0);
	ck_assert_int_gt(c.pid, 0);
	ck_assert_int_eq(WEXITSTATUS(wait_status(c.pid)), 0);
	/* The scope still works, from another thread (nothing was left
	 * locked), and releases everything. */
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, argv, environ), 0);
	ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 0);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(count_fds(), before);
	rm_rf(dir);
	free(dir);
}
END_TEST

static void *spawn_and_wait(void *arg)
{
	sbx_scopeattr_t *scope = arg;
	char *argv[] = { "true", NULL };
	pid_t pid;

	for (;;) {
		if (sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, scope, argv, environ) == 0)
			waitpid(pid, NULL, 0); /* a cancellation point */
	}
	return NULL;
}

/* Threads cancelled at random moments while they spawn with one kept scope,
 * its directory changing meanwhile (so that spawns list it again). */
START_TEST(test_cancel_stress)
{
	sbx_scopeattr_t s;
	char *dir = make_tmpdir(), *argv[] = { "true", NULL };
	int before, rounds = 200 / scale();
	pid_t pid;

	SKIP_IF_EMULATED_THREADS();

	sbx_scopeattr_init(&s);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	sbx_scopeattr_adddeny(&s, join(dir, "denied"));
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, argv, environ), 0);
	wait_status(pid);
	/* A scope's first compile at a spawn watches nothing, the next ones
	 * do (an inotify descriptor more): the one counted is a second. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_LISTABLE), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, 0), 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, argv, environ), 0);
	wait_status(pid);
	before = count_fds();
	srand(7);
	for (int i = 0; i < rounds; i++) {
		pthread_t t;
		char name[64];

		snprintf(name, sizeof(name), "churn%d", i);
		write_file(join(dir, name), "", 0644);
		ck_assert_int_eq(pthread_create(&t, NULL, spawn_and_wait, &s), 0);
		usleep((useconds_t)(rand() % 2000));
		pthread_cancel(t);
		pthread_join(t, NULL);
	}
	while (waitpid(-1, NULL, WNOHANG) > 0 || waitpid(-1, NULL, 0) > 0)
		;
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, argv, environ), 0);
	ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 0);
	/* The kept compile's own descriptors may have been renewed, not
	 * multiplied. */
	ck_assert_int_le(count_fds(), before);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(count_zombies(), 0);
	rm_rf(dir);
	free(dir);
}
END_TEST

Suite *suite_concurrency(void)
{
	Suite *s = suite_create("concurrency");
	TCase *threads = tcase_create("threads");
	TCase *stress = tcase_create("stress");

	untimed(threads);
	tcase_add_test(threads, test_threads);
	suite_add_tcase(s, threads);
	/* Busy threads and signal floods: real time, not for valgrind. */
	untimed(stress);
	tcase_add_test(stress, test_signal_flood);
	tcase_add_test(stress, test_stress_with_reaper);
	tcase_add_test(stress, test_cancel_inside_spawn);
	tcase_add_test(stress, test_cancel_stress);
	concurrency_fd_tests(stress);
	suite_add_tcase(s, stress);
	return s;
}
