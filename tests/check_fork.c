/* SPDX-License-Identifier: MIT */
/* A caller that forks while its threads spawn: the fork child finds every
 * lock of the library free and spawns, confined, with the scopes it
 * inherited and with new ones. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

/* SBX_TEST_SCALE=N divides the counts by N (scale(), tests/common.h). */
/* The address sanitizer of this compiler (GCC 12's runtime) keeps its
 * allocator's locks across a fork: a fork child of a process with other
 * threads blocks in the sanitizer's own allocator, whatever the library
 * does (seen: the child asleep in its SizeClassAllocator64 mutex, from a
 * compile's malloc; and, with the threads merely held at a gate between
 * two spawns, from a free in the child, so the gate was not enough: the
 * suite hung in CI).  Under it, every other thread has ended before each
 * fork and starts again after it: what the child meets is what the
 * sanitizer can check, the state the threads left (rulesets kept,
 * compiled, replaced, made stale); a lock copied while held is the plain
 * build's part of this test. */
#if defined(__SANITIZE_ADDRESS__)
#define FORK_ALONE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FORK_ALONE 1
#endif
#endif

static struct tree tree;
static char secret[4096], mine_file[4096], churn_dir[4096], churn_a[4096], churn_b[4096];
static sbx_scopeattr_t kept, cached;
static atomic_int running;

static sbx_scopeattr_t *deny_other(sbx_scopeattr_t *s)
{
	if (sbx_scopeattr_init(s) || sbx_scopeattr_adddeny(s, tree.other))
		return NULL;
	sbx_scopeattr_setlogger(s, quiet, NULL);
	return s;
}

/* The first failure the spawning threads met, in words (a fork child's
 * are its own). */
static char first_failure[1024];
static atomic_bool failure_said;

static __attribute__((format(printf, 1, 2))) void said_first(const char *fmt, ...)
{
	va_list ap;

	if (atomic_exchange(&failure_said, true))
		return;
	va_start(ap, fmt);
	vsnprintf(first_failure, sizeof(first_failure), fmt, ap);
	va_end(ap);
}

/* Runs "cat path" under scope without Check (a fork child may not report
 * through it): the exit status, or -1 for a spawn that failed. */
static int cat_under(const sbx_scopeattr_t *scope, const char *path)
{
	char *argv[] = { "/bin/cat", (char *)path, NULL };
	sbx_file_actions_t fa;
	pid_t pid;
	int err, status;

	sbx_file_actions_init(&fa);
	sbx_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	sbx_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	err = sbx_posix_spawn(&pid, argv[0], &fa, NULL, scope, argv, environ);
	sbx_file_actions_destroy(&fa);
	if (err) {
		sbx_outcome_t oc;

		sbx_outcome_get(&oc);
		said_first("cat %s: spawn: %s (stage %s, error %s)", path, sbx_strerror(err),
		           sbx_stage_name(oc.stage), strerror(oc.error));
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(status))
		said_first("cat %s: status %#x", path, (unsigned)status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Confined as the scope says: the denied file unreadable, the other read. */
static bool holds(const sbx_scopeattr_t *scope)
{
	int denied = cat_under(scope, secret), read = denied == 1 ? cat_under(scope, mine_file) : -2;

	if (denied >= 0 && denied != 1)
		said_first("cat %s: exit %d (1: denied)", secret, denied);
	if (read > 0)
		said_first("cat %s: exit %d (0: read)", mine_file, read);
	return denied == 1 && read == 0;
}

/* Spawns with both inherited scopes and keeps them busy: reuse checks,
 * recompiles, snapshots replaced. */
static atomic_long spawn_failures;

static void *spawner(void *arg)
{
	for (unsigned i = 0; atomic_load(&running); i++) {
		atomic_fetch_add(&spawn_failures, !holds(&cached));
		atomic_fetch_add(&spawn_failures, !holds(&kept));
		if ((uintptr_t)arg == 0 && i % 4 == 0) {
			int err = sbx_scopeattr_compile(&kept);

			if (err)
				said_first("sbx_scopeattr_compile: %s", sbx_strerror(err));
			atomic_fetch_add(&spawn_failures, err != 0);
		}
	}
	return NULL;
}

/* Changes the directory the denial expands, so that spawns list it again
 * and compile anew. */
static void *churner(void *arg)
{
	(void)arg;
	while (atomic_load(&running)) {
		int fd = open(churn_a, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

		if (fd >= 0)
			close(fd);
		rename(churn_a, churn_b);
		unlink(churn_b);
	}
	return NULL;
}

/* What the fork child does: 0 when every spawn held, else which failed. */
static int in_fork_child(void)
{
	sbx_scopeattr_t fresh;

	/* A child stuck on a lock copied locked never returns: the watchdog
	 * around the test program (tests/watchdog) says where it is. */
	if (!holds(&kept))
		return 2;
	if (!holds(&cached))
		return 3;
	if (sbx_scopeattr_compile(&kept) || !holds(&kept))
		return 4;
	if (!deny_other(&fresh))
		return 5;
	if (!holds(&fresh))
		return 6;
	sbx_scopeattr_destroy(&fresh);
	return 0;
}

enum { SPAWNERS = 3 };
static pthread_t spawners[SPAWNERS], churn;

static void threads_start(void)
{
	atomic_store(&running, 1);
	for (uintptr_t i = 0; i < SPAWNERS; i++)
		ck_assert_int_eq(pthread_create(&spawners[i], NULL, spawner, (void *)i), 0);
	ck_assert_int_eq(pthread_create(&churn, NULL, churner, NULL), 0);
}

static void threads_stop(void)
{
	atomic_store(&running, 0);
	for (int i = 0; i < SPAWNERS; i++)
		pthread_join(spawners[i], NULL);
	pthread_join(churn, NULL);
}

/* _i 1: the spawning threads take the engine's fork fallback (some
 * container runtimes and seccomp profiles refuse clone(CLONE_VM)). */
START_TEST(test_fork_while_spawning)
{
	int forks = 24 / scale(), failed = 0, last = 0;

	REQUIRE_LANDLOCK();
#ifdef FORK_ALONE
	say_skip("SKIP test_fork_while_spawning (a fork inside a spawn): the address sanitizer's "
	        "allocator is not fork-safe in this runtime; each fork comes with no other thread\n");
#endif
	/* Read once per process, at the first spawn: none was made yet. */
	if (_i)
		setenv("SBXSPAWN_FORCE_FORK", "1", 1);
	tree_make(&tree);
	snprintf(secret, sizeof(secret), "%s", tree.secret);
	snprintf(mine_file, sizeof(mine_file), "%s/file", tree.mine);
	snprintf(churn_dir, sizeof(churn_dir), "%s", tree.projects);
	snprintf(churn_a, sizeof(churn_a), "%s/churn-a", churn_dir);
	snprintf(churn_b, sizeof(churn_b), "%s/churn-b", churn_dir);
	ck_assert_ptr_nonnull(deny_other(&kept));
	ck_assert_ptr_nonnull(deny_other(&cached));
	ck_assert_int_eq(sbx_scopeattr_compile(&kept), 0);
	ck_assert(holds(&kept) && holds(&cached));

	atomic_store(&spawn_failures, 0);
	atomic_store(&failure_said, false);
	threads_start();
	for (int i = 0; i < forks; i++) {
		pid_t pid;
		int status;

#ifdef FORK_ALONE
		threads_stop();
#endif
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0)
			_exit(in_fork_child());
#ifdef FORK_ALONE
		threads_start();
#endif
		while (waitpid(pid, &status, 0) < 0)
			ck_assert_int_eq(errno, EINTR);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed++, last = status;
		if (failed)
			break;
	}
	threads_stop();
	ck_assert_msg(atomic_load(&spawn_failures) == 0, "the spawning threads saw %ld spawns fail, "
	              "the first: %s", atomic_load(&spawn_failures), first_failure);
	ck_assert_msg(failed == 0, "a fork child failed: status %#x (2, 3: an inherited scope, 4: compiling it, 5, 6: a new one)",
	              last);
	sbx_scopeattr_destroy(&kept);
	sbx_scopeattr_destroy(&cached);
	tree_free(&tree);
}
END_TEST

static void *plain_spawner(void *arg)
{
	long failures = 0;

	for (int i = 0; i < 30 / scale(); i++) {
		failures += !holds(i % 2 ? &kept : &cached);
		failures += cat_under(arg ? NULL : &kept, mine_file) != 0;
	}
	return (void *)failures;
}

/* The engine's fork fallback, four threads at once, with and without a
 * scope: every child confined, reaped, no descriptor left. */
START_TEST(test_fallback_threads)
{
	enum { THREADS = 4 };
	pthread_t t[THREADS];
	int before;

	REQUIRE_LANDLOCK();
	setenv("SBXSPAWN_FORCE_FORK", "1", 1);
	tree_make(&tree);
	snprintf(secret, sizeof(secret), "%s", tree.secret);
	snprintf(mine_file, sizeof(mine_file), "%s/file", tree.mine);
	ck_assert_ptr_nonnull(deny_other(&kept));
	ck_assert_ptr_nonnull(deny_other(&cached));
	ck_assert_int_eq(sbx_scopeattr_compile(&kept), 0);
	ck_assert(holds(&kept) && holds(&cached));
	/* A scope's first compile at a spawn watches nothing, the next ones
	 * do (an inotify descriptor more): the one counted is a second. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&cached, SBX_SCOPE_LISTABLE), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(&cached, 0), 0);
	ck_assert(holds(&cached));
	before = count_fds();
	for (uintptr_t i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, plain_spawner, (void *)(i % 2)), 0);
	for (int i = 0; i < THREADS; i++) {
		void *failures;

		pthread_join(t[i], &failures);
		ck_assert_msg(failures == NULL, "%ld spawns failed", (long)failures);
	}
	ck_assert_int_eq(count_fds(), before);
	ck_assert_int_eq(count_zombies(), 0);
	sbx_scopeattr_destroy(&kept);
	sbx_scopeattr_destroy(&cached);
	tree_free(&tree);
}
END_TEST

/* A compile before a fork, and a spawn in the fork child: the child
 * compiles its own (the parent's lists what was there at its compile), in
 * a program linked with the shared library and in one linked with the
 * static library, whose fork handlers nothing in the program names. */
START_TEST(test_forked_program)
{
	static const char *const programs[] = { HELPER_DIR "/forked", HELPER_DIR "/forked_static" };
	char *dir = make_tmpdir();

	REQUIRE_LANDLOCK();
	for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); i++) {
		char *argv[] = { (char *)programs[i], dir, NULL };
		pid_t pid;
		int status;

		ck_assert_int_eq(posix_spawn(&pid, argv[0], NULL, NULL, argv, environ), 0);
		status = wait_status(pid);
		status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (status == 77) {
			say_skip("SKIP %s: %s: no Landlock confines its spawns\n", __func__, argv[0]);
			continue;
		}
		ck_assert_msg(status == 0, "%s: %s (status %d)", argv[0],
		              status == 1 ? "the fork child spawned with the parent's compile: "
		                            "a file made after it was denied"
		                          : "failed", status);
	}
	rm_rf(dir);
	free(dir);
}
END_TEST

Suite *suite_fork(void)
{
	Suite *s = suite_create("fork");
	TCase *tc = tcase_create("fork");

	untimed(tc);
	tcase_add_loop_test(tc, test_fork_while_spawning, 0, 2);
	tcase_add_test(tc, test_fallback_threads);
	tcase_add_test(tc, test_forked_program);
	suite_add_tcase(s, tc);
	return s;
}
