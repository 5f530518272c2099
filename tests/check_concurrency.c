/* Many threads spawning at once, and a parent flooded with signals. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define THREADS 8
#define SPAWNS 500

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

START_TEST(test_signal_flood)
{
	struct sigaction sa = { .sa_handler = counting_handler };
	char *argv[] = { "true", NULL };
	pthread_t t;
	int before = count_fds();

	parent_pid = getpid();
	for (int i = 0; i < 64; i++)
		canary[i] = 0x5bd1e995UL * (unsigned long)(i + 1);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	atomic_store(&flooding, 1);
	ck_assert_int_eq(pthread_create(&t, NULL, flooder, NULL), 0);
	for (int i = 0; i < SPAWNS; i++) {
		pid_t pid;
		int err = sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, NULL, argv, environ);

		ck_assert_int_eq(err, 0);
		ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 0);
	}
	atomic_store(&flooding, 0);
	pthread_join(t, NULL);
	ck_assert_int_eq(atomic_load(&in_child), 0);
	ck_assert_int_gt(atomic_load(&in_parent), 0);
	for (int i = 0; i < 64; i++)
		ck_assert_uint_eq(canary[i], 0x5bd1e995UL * (unsigned long)(i + 1));
	ck_assert_int_eq(count_fds(), before);
	ck_assert_int_eq(count_zombies(), 0);
}
END_TEST

Suite *suite_concurrency(void)
{
	Suite *s = suite_create("concurrency");
	TCase *tc = tcase_create("stress");

	tcase_set_timeout(tc, 4 * SPAWN_TIMEOUT);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_signal_flood);
	suite_add_tcase(s, tc);
	return s;
}
