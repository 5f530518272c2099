/* SPDX-License-Identifier: MIT */
/* Memory exhaustion, injected allocation by allocation (allocs.c): every
 * object, spawn, compile, reuse and outcome call fails with ENOMEM, or
 * works, and nothing leaks, nothing is freed twice, no denied file is
 * read.  Part of the errors suite (check_errors.c). */
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

#define FSOP HELPER_DIR "/fsop"

/* ---- failing allocations (allocs.c) ------------------------------------ */

START_TEST(test_enomem_objects)
{
	sbx_scopeattr_t s;
	sbx_file_actions_t fa;

	REQUIRE_FAILING_ALLOCATIONS();
	EVERY_ALLOCATION_FAILS(sbx_scopeattr_init(&s), (void)0);
	EVERY_ALLOCATION_FAILS(sbx_scopeattr_adddeny(&s, "/a"), (void)0);
	EVERY_ALLOCATION_FAILS(sbx_scopeattr_addallow(&s, "/a/b"), (void)0);
	EVERY_ALLOCATION_FAILS(sbx_scopeattr_addreadonly(&s, "/c"), (void)0);
	EVERY_ALLOCATION_FAILS(sbx_scopeattr_allowtcp(&s, SBX_TCP_CONNECT, 443), (void)0);
	sbx_scopeattr_destroy(&s);

	/* Each on a new object, so that its first add has to allocate. */
#define ON_NEW_ACTIONS(call)                                                    \
	do {                                                                    \
		sbx_file_actions_init(&fa);                                     \
		EVERY_ALLOCATION_FAILS(call, (void)0);                          \
		ck_assert_int_eq(fa.__used, 1);                                 \
		sbx_file_actions_destroy(&fa);                                  \
	} while (0)
	ON_NEW_ACTIONS(sbx_file_actions_addopen(&fa, 3, "/x", O_RDONLY, 0));
	ON_NEW_ACTIONS(sbx_file_actions_addclose(&fa, 3));
	ON_NEW_ACTIONS(sbx_file_actions_adddup2(&fa, 1, 2));
	ON_NEW_ACTIONS(sbx_file_actions_addchdir(&fa, "/"));
	ON_NEW_ACTIONS(sbx_file_actions_addfchdir(&fa, 0));
	ON_NEW_ACTIONS(sbx_file_actions_addclosefrom(&fa, 3));
	ON_NEW_ACTIONS(sbx_file_actions_addtcsetpgrp(&fa, 0));
	sbx_file_actions_init(&fa);
	sbx_file_actions_destroy(&fa);
}
END_TEST

static int reap_all(void)
{
	int n = 0;

	while (waitpid(-1, NULL, 0) > 0)
		n++;
	return n;
}

/* What a scope may keep between its spawns, each at most once: a ruleset,
 * its mount table, the watch on what it lists, and a namespace kept with
 * it (the mount namespace, its root, and, for another user, the user
 * namespace).  Two of a kind is a compile, or a namespace, left behind. */
static void assert_keeps_one_of_each(int fds)
{
	static const char *const kinds[] = { "anon_inode:[landlock-ruleset]", "/mountinfo",
		                             "anon_inode:inotify", "mnt:[", "user:[" };
	int seen[6] = { 0 };
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], link[4096];
	ssize_t n;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		if (atoi(e->d_name) == alloc_world_fd() ||
		    (n = readlink(path, link, sizeof(link) - 1)) < 0)
			continue;
		link[n] = '\0';
		for (int i = 0; i < 5; i++)
			if (strstr(link, kinds[i]))
				ck_assert_msg(++seen[i] == 1, "two descriptors of %s kept", kinds[i]);
		if (!strcmp(link, "/"))
			ck_assert_msg(++seen[5] == 1, "two descriptors of / kept");
	}
	closedir(d);
	ck_assert_int_le(count_fds(), fds + 6);
}

/* What the scope keeps let go of: a change of its flags forgets its
 * compiles (scope.c), which closes their descriptors. */
static void forget(sbx_scopeattr_t *s)
{
	int flags = 0;

	ck_assert_int_eq(sbx_scopeattr_getflags(s, &flags), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(s, flags ^ SBX_SCOPE_LISTABLE), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(s, flags), 0);
}

START_TEST(test_enomem_spawn_and_compile)
{
	struct tree t;
	sbx_scopeattr_t s;
	sbx_file_actions_t fa;
	char *argv[] = { FSOP, "read", NULL, NULL };
	pid_t pid = 0;
	int fds;

	REQUIRE_LANDLOCK();
	REQUIRE_FAILING_ALLOCATIONS();
	tree_make(&t);
	argv[2] = t.secret;
	sbx_scopeattr_init(&s);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	sbx_scopeattr_adddeny(&s, t.other);
	sbx_scopeattr_addallow(&s, t.secret);
	sbx_scopeattr_adddeny(&s, join(t.mine, "missing/deeper"));
	sbx_file_actions_init(&fa);
	sbx_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	sbx_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	fds = count_fds();
	/* Out of memory anywhere in the compile or the spawn: ENOMEM and no
	 * child, never a child that runs unconfined; and no descriptor left
	 * behind once the scope lets go of what it keeps (a compile made and
	 * kept, then an allocation failing in the spawn's later steps, such
	 * as those held.c makes where a denial is hidden). */
	EVERY_ALLOCATION_FAILS_OR(sbx_posix_spawn(&pid, FSOP, &fa, NULL, &s, argv, environ),
	                          ck_assert_int_eq(reap_all(), 0);
	                          forget(&s);
	                          ck_assert_int_eq(count_fds(), fds),
	                          ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 0));
	ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 0); /* the re-admitted file */
	/* The compile is kept now.  Out of memory anywhere while a spawn
	 * checks it, lists a changed directory again and grants what
	 * appeared there: ENOMEM, or a new compile; nothing leaks. */
	for (int k = 0; k < 2000; k++) {
		char name[32];
		int r;

		snprintf(name, sizeof(name), "new%d", k);
		write_file(join(t.projects, name), "", 0644);
		alloc_fail_after(k);
		r = sbx_posix_spawn(&pid, FSOP, &fa, NULL, &s, argv, environ);
		alloc_failed();
		if (r == 0) {
			ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 0);
			if (k > 200)
				break;
			continue;
		}
		ck_assert_msg(r == ENOMEM, "allocation %d failing: %s", k, sbx_strerror(r));
		ck_assert_int_eq(reap_all(), 0);
		/* One kept compile at most, and one kept namespace. */
		assert_keeps_one_of_each(fds);
	}
	sbx_file_actions_destroy(&fa);
	/* A snapshot's compile failing: nothing of it left once the scope
	 * lets go of what it keeps. */
	forget(&s);
	ck_assert_int_eq(count_fds(), fds);
	EVERY_ALLOCATION_FAILS_OR(sbx_scopeattr_compile(&s), forget(&s);
	                          ck_assert_int_eq(count_fds(), fds), (void)0);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* A burst of changes in an expanded directory: names made, renamed and
 * unlinked (each reported twice), and a few made to stay. */
#define BURST 40
#define STAYING 4

static void burst(const char *dir, bool undo)
{
	char a[4096], b[4096];

	for (int i = 0; i < BURST && !undo; i++) {
		snprintf(a, sizeof(a), "%s/made%d", dir, i);
		snprintf(b, sizeof(b), "%s/moved%d", dir, i);
		write_file(a, "", 0644);
		ck_assert_int_eq(rename(a, b), 0);
		ck_assert_int_eq(unlink(b), 0);
	}
	for (int i = 0; i < STAYING; i++) {
		snprintf(a, sizeof(a), "%s/stays%d", dir, i);
		if (undo)
			ck_assert_int_eq(unlink(a), 0);
		else
			write_file(a, "", 0644);
	}
}

/* What a reuse said of an expanded directory it looked at again: how many
 * names the kernel had reported there, or 0 (it listed the directory, or
 * compiled afresh). */
struct told {
	const char *dir;
	size_t names;
};

static void count_told(const sbx_event_t *ev, void *arg)
{
	struct told *told = arg;
	const char *said = ev->message ? strrchr(ev->message, '(') : NULL;
	size_t n;

	if (ev->kind == SBX_EVENT_EXPAND && ev->path && !strcmp(ev->path, told->dir) && said &&
	    strstr(said, " names reported)") && sscanf(said, "(%zu", &n) == 1)
		told->names = n;
}

/* The reuse after a burst: the kernel's reports drained into a log that
 * grows name by name, and every allocation of that spawn failing in turn
 * (each on a new compile, watched afresh).  A failure is ENOMEM and no
 * child, or a spawn that works: either way the denied file stays out of
 * reach, nothing is freed twice, nothing leaks.  A mount made anywhere on
 * the machine between the compile and the reuse sends the reuse to a new
 * compile, which makes fewer allocations: the test keeps the machine's
 * mounts out where it can (a mount namespace of its own), and the first
 * allocation that no longer fails counts only where the reuse read the
 * reports; where it did not, that allocation fails again (a bounded number
 * of times). */
START_TEST(test_enomem_reuse_after_burst)
{
	struct tree t;
	sbx_file_actions_t fa;
	char *argv[] = { FSOP, "read", NULL, NULL };
	struct told told = { 0 };
	int k, fds, mfd, again = 0, moved = 0;
	bool none_failed = false;

	REQUIRE_LANDLOCK();
	REQUIRE_FAILING_ALLOCATIONS();
	(void)private_mounts_if_can();
	tree_make(&t);
	told.dir = t.projects;
	argv[2] = t.secret;
	sbx_file_actions_init(&fa);
	sbx_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	sbx_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	ck_assert_int_ge(mfd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC), 0);
	fds = count_fds();
	for (k = 0; k < 10000 && !none_failed; k++) {
		sbx_scopeattr_t s;
		pid_t pid = 0;
		bool disturbed;
		int r;

		(void)mounts_moved(mfd);
		(void)alloc_world_moved();
		sbx_scopeattr_init(&s);
		expand_way(&s);
		sbx_scopeattr_setlogger(&s, count_told, &told);
		sbx_scopeattr_adddeny(&s, t.other); /* t.projects expanded, watched */
		/* Compiled by the caller: watched from the first compile (one
		 * made at a spawn is watched from the scope's second). */
		ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
		ck_assert_int_eq(sbx_posix_spawn(&pid, FSOP, &fa, NULL, &s, argv, environ), 0);
		ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 1);
		burst(t.projects, false);
		told.names = 0;
		alloc_fail_after(k);
		r = sbx_posix_spawn(&pid, FSOP, &fa, NULL, &s, argv, environ);
		none_failed = !alloc_failed();
		disturbed = mounts_moved(mfd) | alloc_world_moved();
		if (r == 0)
			ck_assert_msg(WEXITSTATUS(wait_status(pid)) == 1,
			              "allocation %d failing: the denied file was read", k);
		else
			ck_assert_msg(r == ENOMEM, "allocation %d failing: %s", k, sbx_strerror(r));
		ck_assert_int_eq(reap_all(), 0);
		sbx_scopeattr_destroy(&s);
		ck_assert_int_eq(count_fds(), fds);
		burst(t.projects, true);
		/* The mount table changed meanwhile (the reuse compiled anew,
		 * with allocations of its own), or names above the tree (the
		 * reuse logged them too): the same allocation fails again, and
		 * again where the reuse did not read the reports. */
		if (disturbed && ++moved > 1000) {
			say_skip("SKIP %s: the machine's mounts, or the names above its tree, changed "
			         "under %d of its spawns (a mount namespace of its own keeps the mounts "
			         "out, where one can be made): the reuse's allocations cannot be made to "
			         "fail\n", __func__, moved);
			break;
		}
		if ((disturbed || (none_failed && told.names != 2 * BURST + STAYING)) &&
		    (disturbed || again++ < 100)) {
			none_failed = false;
			k--;
		}
	}
	close(mfd);
	if (moved <= 1000) {
		ck_assert_msg(none_failed, "the spawn never ran without a failing allocation");
		ck_assert_msg(told.names == 2 * BURST + STAYING,
		              "the reuse read %zu names the kernel reported, not %d (asked %d times "
		              "again)", told.names, 2 * BURST + STAYING, again);
		ck_assert_int_gt(k, 2 * BURST); /* the log's names were among them */
	}
	sbx_file_actions_destroy(&fa);
	tree_free(&t);
}
END_TEST

/* Paths seen through a second mount of their filesystem (a bind mount of
 * a subdirectory): each is placed, and named as that mount shows it (an
 * allocation of its own, after the places grew for it; the ninth moves
 * them).  Every allocation of the compile failing in turn. */
START_TEST(test_enomem_places)
{
	struct tree t;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", NULL, NULL }, alias[4096], name[4200];
	pid_t pid = 0;
	int fds;

	REQUIRE_LANDLOCK();
	REQUIRE_FAILING_ALLOCATIONS();
	/* As root, or in a user namespace of the test's own (it says SKIP,
	 * and why, where neither can be made). */
	if (private_mounts(__func__) == MOUNT_NS_NONE)
		return;
	tree_make(&t);
	argv[2] = t.secret;
	snprintf(alias, sizeof(alias), "%s/alias", t.top);
	ck_assert_int_eq(mkdir(alias, 0755), 0);
	ck_assert_int_eq(mount(t.third, alias, NULL, MS_BIND, NULL), 0);
	sbx_scopeattr_init(&s);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	sbx_scopeattr_adddeny(&s, t.other);
	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "%s/denied%d", alias, i);
		write_file(name, "", 0644);
		ck_assert_int_eq(sbx_scopeattr_adddeny(&s, name), 0);
	}
	fds = count_fds();
	EVERY_ALLOCATION_FAILS_OR(sbx_posix_spawn(&pid, FSOP, NULL, NULL, &s, argv, environ),
	                          ck_assert_int_eq(reap_all(), 0);
	                          ck_assert_int_eq(count_fds(), fds),
	                          ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 1));
	ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 1);
	sbx_scopeattr_destroy(&s);
	/* Unmounted, so that the tree can be removed. */
	ck_assert_int_eq(umount2(alias, MNT_DETACH), 0);
	tree_free(&t);
}
END_TEST

/* Every kind of scope, through spawnp: a read-only root with a writable
 * directory (the harmless devices), listable expanded directories, the
 * TCP controls with a port (a seccomp filter built), io_uring off; with
 * file actions, which a hidden denial's spawn follows. */
START_TEST(test_enomem_every_scope)
{
	struct tree t;
	sbx_scopeattr_t s[3];
	sbx_file_actions_t fa;
	sbx_outcome_t oc;
	bool hides;
	char *argv[] = { "true", NULL };
	pid_t pid = 0;
	int fds;

	REQUIRE_LANDLOCK();
	REQUIRE_FAILING_ALLOCATIONS();
	tree_make(&t);
	for (int i = 0; i < 3; i++) {
		sbx_scopeattr_init(&s[i]);
		sbx_scopeattr_setlogger(&s[i], quiet, NULL);
	}
	sbx_scopeattr_addreadonly(&s[0], "/");
	sbx_scopeattr_addallow(&s[0], t.mine);
	sbx_scopeattr_setflags(&s[1], SBX_SCOPE_LISTABLE);
	sbx_scopeattr_adddeny(&s[1], t.other);
	sbx_scopeattr_setflags(&s[2], SBX_SCOPE_NO_TCP_CONNECT | SBX_SCOPE_NO_TCP_BIND |
	                                      SBX_SCOPE_NO_IO_URING);
	sbx_scopeattr_allowtcp(&s[2], SBX_TCP_CONNECT, 443);
	sbx_scopeattr_adddeny(&s[2], t.other);
	/* What the child holds, followed where a denial is hidden (held.c). */
	sbx_file_actions_init(&fa);
	sbx_file_actions_addopen(&fa, 5, "/dev/null", O_RDONLY, 0);
	sbx_file_actions_addchdir(&fa, t.mine);
	fds = count_fds();
	for (int i = 0; i < 3; i++) {
		/* A failure after the compile keeps it: its ruleset, its mount
		 * table open (and a namespace kept with it, where a mount made
		 * meanwhile had a later spawn compile anew). */
		EVERY_ALLOCATION_FAILS_OR(sbx_posix_spawnp(&pid, "true", &fa, NULL, &s[i], argv,
		                                           environ),
		                          ck_assert_int_eq(reap_all(), 0);
		                          assert_keeps_one_of_each(fds),
		                          ck_assert_int_eq(wait_status(pid), 0));
		ck_assert_int_eq(sbx_outcome_get(&oc), 0);
		ck_assert_int_eq(wait_status(pid), 0);
		/* Compiled, and kept: each failure where a spawn checks it
		 * and follows what the child holds past a hidden denial, at
		 * the same place in every pass.  Where none is hidden (every
		 * denial expanded: SBXSPAWN_EXPAND, no user namespace), nothing
		 * is followed: said. */
		hides = i > 0 && oc.hidden > 0;
		if (i > 0 && !hides)
			say_skip("SKIP %s (what a child holds, scope %d): no denial is hidden here\n",
			         __func__, i);
		if (hides)
			EVERY_ALLOCATION_FAILS_OR(sbx_posix_spawnp(&pid, "true", &fa, NULL, &s[i], argv,
		                                           environ),
		                          ck_assert_int_eq(reap_all(), 0);
		                          assert_keeps_one_of_each(fds),
		                          ck_assert_int_eq(wait_status(pid), 0));
		if (hides)
			ck_assert_int_eq(wait_status(pid), 0);
		sbx_scopeattr_destroy(&s[i]);
		ck_assert_int_eq(count_fds(), fds);
	}
	sbx_file_actions_destroy(&fa);
	tree_free(&t);
}
END_TEST

/* sbx_execve, each failing allocation in a copy of the process: ENOMEM
 * returned, the process as it was, until the exec happens (the program
 * then reads the denied file, and is refused). */
START_TEST(test_enomem_execve)
{
	struct tree t;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", NULL, NULL };
	int k, status = 0;

	REQUIRE_LANDLOCK();
	REQUIRE_FAILING_ALLOCATIONS();
	tree_make(&t);
	argv[2] = t.secret;
	sbx_scopeattr_init(&s);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	sbx_scopeattr_adddeny(&s, t.other);
	for (k = 0; k < 10000; k++) {
		pid_t pid = fork();

		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY), err;

			dup2(null, 1);
			alloc_fail_after(k);
			err = sbx_execve(FSOP, &s, argv, environ);
			alloc_failed();
			/* Still itself, and unconfined: it reads the file. */
			_exit(err == ENOMEM && access(t.secret, R_OK) == 0 ? 100 : 101);
		}
		status = wait_status(pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 100)
			break;
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1,
	              "allocation %d failing: status %#x", k, status);
	ck_assert_int_gt(k, 0);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

static void *outcome_in_new_thread(void *arg)
{
	sbx_outcome_t oc;

	(void)arg;
	alloc_fail_after(0);
	long r = sbx_outcome_get(&oc);
	alloc_failed();
	return (void *)r;
}

START_TEST(test_enomem_outcome)
{
	pthread_t t;
	void *r = NULL;
	int made;

	REQUIRE_FAILING_ALLOCATIONS();
	/* A thread's record is made at its first question.  Nothing here
	 * allocates until it has ended (a check of Check's own would, and
	 * take the failing allocation). */
	if (!(made = pthread_create(&t, NULL, outcome_in_new_thread, NULL)))
		pthread_join(t, &r);
	ck_assert_int_eq(made, 0);
	ck_assert_int_eq((long)r, ENOMEM);
}
END_TEST

void enomem_tests(TCase *tc)
{
	tcase_add_test(tc, test_enomem_objects);
	tcase_add_test(tc, test_enomem_spawn_and_compile);
	tcase_add_test(tc, test_enomem_reuse_after_burst);
	tcase_add_test(tc, test_enomem_places);
	tcase_add_test(tc, test_enomem_outcome);
	tcase_add_test(tc, test_enomem_every_scope);
	tcase_add_test(tc, test_enomem_execve);
}
