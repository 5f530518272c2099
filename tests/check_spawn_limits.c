/* SPDX-License-Identifier: MIT */
/* The edges of posix_spawn's semantics, continued (check_spawn_edges.c):
 * the caller's signals (a SIGCHLD handler that reaps, no stray signal at a
 * first spawn), its descriptors high in the table, and the descriptor
 * limit, for file actions and for a compile short of descriptors, each
 * tried the four ways of tests/ways.h. */
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

/* ---- signals of the caller's ---------------------------------------------- */

static atomic_int chld_signals, stolen;

static void reaping_handler(int sig)
{
	int saved = errno;

	(void)sig;
	atomic_fetch_add(&chld_signals, 1);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		atomic_fetch_add(&stolen, 1);
	errno = saved;
}

/* A caller whose SIGCHLD handler reaps whatever has exited: a spawn that
 * fails reaps its child itself, before the handler can (signals blocked
 * until then, as glibc does), so the handler never takes a child it was
 * never given.  Bounded by a count of spawns, each way. */
START_TEST(test_sigchld_handler_takes_no_failed_child)
{
	struct sigaction sa = { .sa_handler = reaping_handler, .sa_flags = SA_RESTART };
	char *argv[] = { "x", NULL };

	enum way first = libc_tells_failures(__func__) ? WAY_LIBC : WAY_NULL;

	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGCHLD, &sa, NULL), 0);
	for (enum way w = first; w < NWAYS; w++) {
		atomic_store(&stolen, 0);
		for (int i = 0; i < 200; i++) {
			struct ways d;
			struct way_result r;

			ways_init(&d);
			d.use_fa = false;
			r = ways_one(&d, w, false, "/nonexistent/program", argv);
			ck_assert_int_eq(r.ret, ENOENT);
			way_result_free(&r);
			ways_destroy(&d);
		}
		ck_assert_msg(atomic_load(&stolen) == 0, "%s: the caller's handler reaped %d failed "
		              "children", way_name(w), atomic_load(&stolen));
	}
	signal(SIGCHLD, SIG_DFL);
}
END_TEST

/* The first spawn of a process: no SIGCHLD of a child the caller did not
 * ask for (the library's own probe of the engine makes none). */
START_TEST(test_first_spawn_no_stray_signal)
{
	struct sigaction sa = { .sa_handler = reaping_handler, .sa_flags = SA_RESTART };
	char *argv[] = { "sh", "-c", "read line", NULL };
	sbx_file_actions_t fa;
	int p[2];
	pid_t pid;

	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGCHLD, &sa, NULL), 0);
	ck_assert_int_eq(pipe(p), 0);
	sbx_file_actions_init(&fa);
	sbx_file_actions_adddup2(&fa, p[0], 0);
	atomic_store(&chld_signals, 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/sh", &fa, NULL, NULL, argv, environ), 0);
	/* Its child waits for the pipe: no child has exited yet. */
	ck_assert_int_eq(atomic_load(&chld_signals), 0);
	/* The handler goes before the child is let go: it reaps what it is
	 * told of, and the child's end is the test's to wait for. */
	signal(SIGCHLD, SIG_DFL);
	ck_assert_int_eq(write(p[1], "\n", 1), 1);
	close(p[1]);
	ck_assert_int_eq(wait_status(pid), 0);
	sbx_file_actions_destroy(&fa);
	close(p[0]);
}
END_TEST

/* The caller's descriptors reach into the room the library keeps its own
 * in (the top 64 of the first 1024): a hole there is still what its next
 * open() returns after the spawn, each way; where the room is full, the
 * library keeps nothing (sbx_posix_spawn(3), Descriptors). */
START_TEST(test_caller_descriptors_high)
{
	struct rlimit rl;
	struct ways d;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max < 2048) {
		say_skip("SKIP %s: the hard descriptor limit is below 2048 here\n", __func__);
		return;
	}
	rl.rlim_cur = 2048;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	/* 100 is the harness's; 970 a hole in the room. */
	for (int fd = 3; fd <= 1000; fd++)
		if (fd != 100 && fd != 970 && fcntl(fd, F_GETFD) < 0)
			ck_assert_int_eq(dup2(0, fd), fd);
	ways_init(&d);
	free(ways_probe(&d));
	ways_destroy(&d);
	/* Full up to 1100: no room below 1024 at all. */
	ck_assert_int_eq(dup2(0, 970), 970);
	for (int fd = 1001; fd <= 1100; fd++)
		ck_assert_int_eq(dup2(0, fd), fd);
	ways_init(&d);
	free(ways_probe(&d));
	ways_destroy(&d);
}
END_TEST

/* ---- the descriptor limit ------------------------------------------------ */

/* Where clone(CLONE_VM) shares no memory (the emulator), or the fallback is
 * forced, the engine is a copy of the process that reports its exec
 * through a pipe: two descriptors more, each way of the library's
 * (sbx_posix_spawn(3)); and under the emulator no Landlock, so no compile
 * to need its three. */
static bool engine_forks(void)
{
	return emulated() || getenv("SBXSPAWN_FORCE_FORK");
}

/* With 0 to 5 descriptors free below RLIMIT_NOFILE, every way runs the
 * probe as the C library does, but one: a scope compiled at the spawn
 * needs three free descriptors, and with fewer the spawn fails with EMFILE
 * (documented in sbx_posix_spawn(3)); the caller's next open() is the same
 * each way.  The portable build makes the system's file actions at the
 * spawn, whose numbers the limit then judges: the harness's dup2 from 100
 * is EBADF there, every way of the library's (README, the portable build). */
static int limits_want(enum way w, int nfree)
{
	if (!SBX_BUILD_LANDLOCK)
		return w == WAY_LIBC ? 0 : EBADF;
	if (w != WAY_LIBC && engine_forks() && nfree < 2)
		return EMFILE;
	return w == WAY_FRESH && nfree < 3 && landlock_abi() > 0 ? EMFILE : 0;
}

/* glibc's posix_spawn needs no descriptor; another C library's may (musl's
 * reports the exec through a pipe): there the library's NULL scope, which
 * needs none either, is the reference at the limit. */
static enum way limits_reference(const char *test)
{
#ifdef __GLIBC__
	(void)test;
	return WAY_LIBC;
#else
	say_skip("SKIP %s (beside the C library's posix_spawn at the limit): it is not glibc's, "
	         "and may need descriptors of its own (musl's: a pipe); the library's NULL scope "
	         "is the reference\n", test);
	return WAY_NULL;
#endif
}

START_TEST(test_descriptor_limits)
{
	char *argv[] = { "probe", NULL };
	enum way ref = limits_reference(__func__);

	/* The expanded way, whose walk holds a directory and an entry of it
	 * open beside the ruleset: the three the manual counts. */
	ways_scope_flags = SBX_SCOPE_EXPAND;
	/* The log's lines that follow are the test's own: said before them. */
	fprintf(stderr, "test_descriptor_limits: the probe starts with no descriptor free: "
	        "where its loader cannot open the C library, it says \"error while loading "
	        "shared libraries ... Error 24\" (EMFILE), as under posix_spawn\n");
	for (int nfree = 0; nfree <= 5; nfree++) {
		struct ways d;
		struct way_result r[NWAYS];

		ways_init(&d);
		d.free_fds = nfree;
		for (enum way w = ref; w < NWAYS; w++) {
			int want = limits_want(w, nfree);

			r[w] = ways_one(&d, w, false, PROBE, argv);
			/* A compiled scope needs none while its directories stay as
			 * they were; one that changed (a test tree made beside
			 * it) is listed again, which takes what a compile does. */
			if (w == WAY_COMPILED && nfree < 3 && r[w].ret == EMFILE)
				want = EMFILE;
			ck_assert_msg(r[w].ret == want, "%d free: %s returned %d (%s)", nfree, way_name(w),
			              r[w].ret, strerror(r[w].ret));
			ck_assert_msg(!*r[w].table_change, "%d free: %s changed the caller's descriptors:%s",
			              nfree, way_name(w), r[w].table_change);
			ck_assert_msg(r[w].next_fd == r[ref].next_fd, "%d free: %s: next open %d, not %d",
			              nfree, way_name(w), r[w].next_fd, r[ref].next_fd);
			if (want)
				continue;
			ck_assert_int_eq(r[w].status, r[ref].status);
			ck_assert_msg(!strcmp(r[w].out, r[ref].out), "%d free: %s: the child printed\n%s",
			              nfree, way_name(w), r[w].out);
		}
		for (enum way w = ref; w < NWAYS; w++)
			way_result_free(&r[w]);
		ways_destroy(&d);
	}
}
END_TEST

/* The numbers that are free now, the lowest n of them. */
static void free_numbers(int *fds, int n)
{
	for (int fd = 0, k = 0; k < n; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			fds[k++] = fd;
}

/* File actions on every number free below the limit, with three free: the
 * child of a scope compiled at the spawn holds its ruleset in one of them
 * until exec.  Closing them all is closing nothing of the caller's, the
 * same each way; opening onto them all leaves that child no number for its
 * ruleset at the last one, which fails with EMFILE (sbx_posix_spawn(3)):
 * the one descriptor a confined child needs beyond posix_spawn's.  The
 * fork engine (an emulator, or forced) needs its pipe besides, each way of
 * the library's, and fails so too. */
START_TEST(test_actions_on_every_free_number)
{
	char *argv[] = { "probe", NULL };
	enum way ref = limits_reference(__func__);
	int fds[3];

	free_numbers(fds, 3);
	for (int fill = 0; fill < 3; fill++) {
		struct ways d;
		struct way_result r[NWAYS];
		sbx_outcome_t oc;

		ways_init(&d);
		d.free_fds = 3;
		for (int k = 0; k < 3; k++)
			if (fill == 0)
				w_close(&d, fds[k]);
			else if (fill == 1)
				w_open(&d, fds[k], "/dev/null", O_RDONLY, 0);
			else
				w_dup2(&d, 0, fds[k]);
		for (enum way w = ref; w < NWAYS; w++) {
			int want = !SBX_BUILD_LANDLOCK ? limits_want(w, 3)
			           : fill && (w == WAY_FRESH || (w != WAY_LIBC && engine_forks())) ? EMFILE
			                                                                            : 0;

			r[w] = ways_one(&d, w, false, PROBE, argv);
			ck_assert_msg(r[w].ret == want, "%s of every free number: %s returned %d (%s)",
			              fill ? "an action onto" : "a close", way_name(w), r[w].ret,
			              strerror(r[w].ret));
			ck_assert_msg(!*r[w].table_change, "%s changed the caller's descriptors:%s",
			              way_name(w), r[w].table_change);
			if (want && !SBX_BUILD_LANDLOCK)
				continue;
			if (want) {
				ck_assert_int_eq(sbx_outcome_get(&oc), 0);
				ck_assert_int_eq(oc.stage, SBX_STAGE_FILE_ACTION);
				/* The fork engine's child holds the pipe's end beside
				 * the ruleset: it runs out one action sooner. */
				ck_assert_int_eq(oc.action, engine_forks() && w == WAY_FRESH &&
				                                            landlock_abi() > 0 ? 2 : 3);
				continue;
			}
			ck_assert_int_eq(r[w].status, r[ref].status);
			ck_assert_msg(!strcmp(r[w].out, r[ref].out), "%s: the child printed\n%s",
			              way_name(w), r[w].out);
		}
		for (enum way w = ref; w < NWAYS; w++)
			way_result_free(&r[w]);
		ways_destroy(&d);
	}
}
END_TEST

/* sbx_scopeattr_compile with 3, 4 and 5 descriptors free: it compiles, and
 * keeps nothing where it has no room out of the caller's way (the limit is
 * below 128): no number the caller's next open() would take, and every
 * spawn with the scope then compiles it as if it had not been compiled. */
START_TEST(test_compile_short_of_descriptors)
{
	char *argv[] = { "true", NULL };

	for (int nfree = 2; nfree <= 5; nfree++) {
		sbx_scopeattr_t s;
		struct rlimit saved, low;
		int lowest = -1, after = -1;

		ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
		expand_way(&s);
		ck_assert_int_eq(sbx_scopeattr_adddeny(&s, ways_denied()), 0);
		ck_assert_int_eq(sbx_scopeattr_setevents(&s, 0), 0);
		ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
		low = saved;
		for (int fd = 0, n = 0; n <= nfree; fd++)
			if (fcntl(fd, F_GETFD) < 0) {
				if (lowest < 0)
					lowest = fd;
				if (n++ == nfree)
					low.rlim_cur = (rlim_t)fd;
			}
		/* The portable build compiles nothing, nor a kernel (or an
		 * emulator) without Landlock. */
		int want = SBX_BUILD_LANDLOCK && landlock_abi() > 0 && nfree < 3 ? EMFILE : 0;

		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
		ck_assert_int_eq(sbx_scopeattr_compile(&s), want);
		for (int i = 0; i < 3; i++) {
			pid_t pid;
			sbx_outcome_t oc;
			int err = sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, argv, environ);

			ck_assert_msg(err == want, "%d free, spawn %d: %s", nfree, i, strerror(err));
			if (err)
				continue;
			ck_assert_int_eq(wait_status(pid), 0);
			ck_assert_int_eq(sbx_outcome_get(&oc), 0);
			if (landlock_abi() > 0)
				ck_assert_int_eq(oc.confinement, SBX_OUTCOME_CONFINED);
		}
		after = open("/dev/null", O_RDONLY | O_CLOEXEC);
		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &saved), 0);
		ck_assert_msg(after == lowest, "%d free: the caller's next open() gave %d, not %d", nfree,
		              after, lowest);
		close(after);
		sbx_scopeattr_destroy(&s);
	}
}
END_TEST

/* Where the room out of the caller's way is taken (the top 64 numbers
 * under a limit of 1024 all open), a compile keeps nothing either. */
START_TEST(test_compile_without_room)
{
	char *argv[] = { "true", NULL };
	struct rlimit saved, lim;
	sbx_scopeattr_t s;
	int lowest, next, before;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
	lim = (struct rlimit){ 1024, saved.rlim_max < 1024 ? saved.rlim_max : 1024 };
	if (saved.rlim_max < 1024) {
		say_skip("SKIP %s: the hard descriptor limit is below 1024 here\n", __func__);
		return;
	}
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &lim), 0);
	for (int fd = 960; fd < 1024; fd++)
		ck_assert_int_eq(dup2(0, fd), fd);
	lowest = open("/dev/null", O_RDONLY | O_CLOEXEC);
	close(lowest);
	before = count_fds();
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, ways_denied()), 0);
	ck_assert_int_eq(sbx_scopeattr_setevents(&s, 0), 0);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	for (int i = 0; i < 3; i++) {
		pid_t pid;

		ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, argv, environ), 0);
		ck_assert_int_eq(wait_status(pid), 0);
	}
	ck_assert_int_eq(count_fds(), before);
	next = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(next, lowest);
	close(next);
	sbx_scopeattr_destroy(&s);
}
END_TEST

void spawn_limits_tests(TCase *tc)
{
	tcase_add_test(tc, test_sigchld_handler_takes_no_failed_child);
	tcase_add_test(tc, test_first_spawn_no_stray_signal);
	tcase_add_test(tc, test_caller_descriptors_high);
	tcase_add_test(tc, test_descriptor_limits);
	tcase_add_test(tc, test_actions_on_every_free_number);
	tcase_add_test(tc, test_compile_short_of_descriptors);
	tcase_add_test(tc, test_compile_without_room);
}
