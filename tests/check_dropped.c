/* SPDX-License-Identifier: MIT */
/* The first outcome, provoked on the real kernel: one grant cannot be added
 * (it vanished or changed while the scope was compiled, Landlock refused
 * the rule, no descriptor was left to open it), and the spawn goes on
 * without it, the path named.  Part of the outcomes suite
 * (check_outcomes.c). */
#include "config.h"

#include <dlfcn.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/recorder.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* ---- 1. one grant cannot be added ---------------------------------------- */

START_TEST(test_dropped_grant_vanished)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	char *out;
	char *argv[] = { FSOP, "read", NULL, NULL };

	REQUIRE_LANDLOCK();
	tree_make(&t);
	scope_make(&s, &seen, t.other);
	expand_way(&s);
	/* third vanishes after its directory was listed, before it is opened. */
	seen.when = t.projects;
	seen.remove = t.third;
	argv[2] = (char *)join(t.mine, "file");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	free(out);
	ck_assert_int_eq(seen.count[SBX_EVENT_DROPPED], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_DROPPED], t.third);
	ck_assert_int_eq(seen.error[SBX_EVENT_DROPPED], ENOENT);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_NARROWED);
	ck_assert_uint_eq(oc.dropped, 1);
	ck_assert_str_eq(oc.dropped_paths[0], t.third);
	ck_assert_uint_gt(oc.rules, 0);

	/* The ruleset was kept: the denial holds, the rest works. */
	seen.remove = NULL;
	argv[2] = (char *)t.secret;
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "EACCES"));
	free(out);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_CONFINED);
	ck_assert_uint_eq(oc.dropped, 0);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* A directory whose times last moved well before the compile has its
 * entries that are directories proved in runs (expand.c): opened, then the
 * directory looked at once.  Aged here past the window in which its times
 * could not tell a change (stamps.c), so that the runs are what is tested. */
static void age(void)
{
	usleep(200 * 1000);
}

/* With the world changed as `seen' says while projects was listed, the
 * secret is out of reach through third, whose grant was dropped as not
 * what was listed. */
static void third_holds_no_secret(const struct tree *t, const sbx_scopeattr_t *s,
                                  const struct seen *seen)
{
	char *argv[] = { FSOP, "read", (char *)join(t->third, "secret"), NULL };
	char *out;

	ck_assert_int_eq(run_scoped(s, argv, &out), 1);
	ck_assert_msg(strstr(out, "EACCES"), "%s", out);
	free(out);
	ck_assert_int_ge(seen->count[SBX_EVENT_DROPPED], 1);
	ck_assert_int_eq(seen->error[SBX_EVENT_DROPPED], ESTALE);
}

/* The denied directory exchanged with a granted sibling between the
 * listing and the opens: the name listed as `third' now holds the secret.
 * The run sees the directory changed and judges each entry alone, which
 * drops `third' as not what was listed (it would be granted, and the
 * secret with it, if a run were taken on trust). */
START_TEST(test_run_proof_exchange)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	age();
	scope_make(&s, &seen, t.other);
	expand_way(&s);
	seen.when = t.projects;
	seen.swap = t.third;
	seen.swap_with = t.other;
	third_holds_no_secret(&t, &s, &seen);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* The denied directory bind-mounted onto a granted sibling between the
 * listing and the opens: the directory's times do not move, the mount
 * table does, and the run is judged entry by entry again. */
START_TEST(test_run_proof_mount)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	tree_make(&t);
	age();
	scope_make(&s, &seen, t.other);
	expand_way(&s);
	seen.when = t.projects;
	seen.bind = t.other;
	seen.bind_onto = t.third;
	third_holds_no_secret(&t, &s, &seen);
	umount2(t.third, MNT_DETACH);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* Quiet, a run grants what entry-by-entry judging grants. */
START_TEST(test_run_quiet)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	char *out;
	char *argv[] = { FSOP, "read", NULL, NULL };

	REQUIRE_LANDLOCK();
	tree_make(&t);
	age();
	scope_make(&s, &seen, t.other);
	argv[2] = (char *)join(t.third, "file");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	free(out);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_CONFINED);
	argv[2] = (char *)join(t.mine, "file");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	free(out);
	argv[2] = t.secret;
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_dropped_grant_add_rule_error)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	pid_t pid;
	char *argv[] = { FSOP, "read", NULL, NULL };

	REQUIRE_LANDLOCK();
	tree_make(&t);
	scope_make(&s, &seen, t.other);
	expand_way(&s);
	argv[2] = (char *)t.secret;
	/* Every rule refused by the kernel (a filter says EPERM to
	 * landlock_add_rule): each grant is dropped, the ruleset is kept, and
	 * the child, confined with nothing granted, cannot even be executed.
	 * Narrower, never wider. */
	seccomp_fail(SYS_landlock_add_rule, EPERM);
	ck_assert_int_eq(sbx_posix_spawn(&pid, FSOP, NULL, NULL, &s, argv, environ), EACCES);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_gt(seen.count[SBX_EVENT_DROPPED], 10);
	ck_assert_int_eq(seen.error[SBX_EVENT_DROPPED], EPERM);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_NARROWED);
	ck_assert_int_eq(oc.stage, SBX_STAGE_EXEC);
	ck_assert_uint_eq(oc.rules, 0);
	ck_assert_uint_eq(oc.dropped, (unsigned)seen.count[SBX_EVENT_DROPPED]);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* The highest descriptor open. */
static int highest_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int top = -1, self;

	ck_assert_ptr_nonnull(d);
	self = dirfd(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != self && atoi(e->d_name) > top)
			top = atoi(e->d_name);
	closedir(d);
	return top;
}

/* Leaves exactly n descriptors free (n < 0: the limit back at 1024): the
 * gaps below the highest one filled, the soft limit n above it. */
static void leave_free(int n)
{
	struct rlimit rl;
	int fd;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = 1024;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	for (int i = 0; i < highest_fd(); i++)
		if (fcntl(i, F_GETFD) < 0)
			ck_assert_int_eq(dup2(fd, i), i);
	if (n >= 0) {
		rl.rlim_cur = (rlim_t)highest_fd() + 1 + (rlim_t)n;
		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
}

/* Descriptors short: a compile needs three free, whatever the depth of the
 * denial (it lets go of a directory on the way down and opens it again from
 * below), and keeps nothing for reuse then.  Below three: EMFILE, said by
 * an event, and nothing started. */
START_TEST(test_dropped_grant_descriptor_limit)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	char deep[4096], secret[4096];
	char *argv[] = { FSOP, "read", secret, NULL };
	int levels = 0, saw_emfile = 0;
	pid_t pid;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	/* Two more levels below the tree's denial: seven below /. */
	snprintf(deep, sizeof(deep), "%s/a", t.other);
	ck_assert_int_eq(mkdir(deep, 0755), 0);
	snprintf(deep, sizeof(deep), "%s/a/b", t.other);
	ck_assert_int_eq(mkdir(deep, 0755), 0);
	snprintf(secret, sizeof(secret), "%s/secret", deep);
	write_file(secret, "secret\n", 0644);
	for (const char *p = deep; *p; p++)
		levels += *p == '/';
	ck_assert_int_ge(levels, 5);
	for (int spare = 0; spare <= 3 + levels; spare++) {
		int err;

		/* A new scope each time: nothing cached, every grant opened. */
		scope_make(&s, &seen, deep);
		expand_way(&s);
		leave_free(spare);
		err = sbx_posix_spawn(&pid, FSOP, NULL, NULL, &s, argv, environ);
		ck_assert_int_eq(sbx_outcome_get(&oc), 0);
		/* Never narrowed for want of descriptors (a child that cannot
		 * reach what it needs), never unconfined. */
		ck_assert_msg(seen.count[SBX_EVENT_DROPPED] == 0, "spare %d: dropped %s (%s)", spare,
		              seen.path[SBX_EVENT_DROPPED], strerror(seen.error[SBX_EVENT_DROPPED]));
		if (spare < 3) {
			ck_assert_msg(err == EMFILE, "spare %d: %s", spare, sbx_strerror(err));
			ck_assert_int_eq(seen.count[SBX_EVENT_FAILED], 1);
			ck_assert_int_eq(seen.error[SBX_EVENT_FAILED], EMFILE);
			ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
			saw_emfile = 1;
		} else {
			ck_assert_msg(err == 0, "%d spare descriptors, %d levels: %s", spare, levels,
			              sbx_strerror(err));
			ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 1); /* the denial held */
			ck_assert_int_eq(oc.confinement, SBX_OUTCOME_CONFINED);
		}
		sbx_scopeattr_destroy(&s);
	}
	ck_assert(saw_emfile);
	leave_free(-1);
	tree_free(&t);
}
END_TEST

/* Descriptors short, a run's proof still holds: the denial bind-mounted
 * onto a sibling while the directory is listed, with 3 to 12 descriptors
 * free (runs off where the mount table's descriptor went before the
 * listing, on from 8).  One window is not reached here: the table's
 * descriptor let go of while a run is pending, which mounts_still() takes
 * for no proof (a poll of a closed descriptor says nothing changed). */
START_TEST(test_run_proof_mount_short)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	char secret[4096];
	char *argv[] = { FSOP, "read", secret, NULL };
	pid_t pid;

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	tree_make(&t);
	for (int i = 0; i < 8; i++) {
		char d[4096];

		snprintf(d, sizeof(d), "%s/d%d", t.projects, i);
		ck_assert_int_eq(mkdir(d, 0755), 0);
	}
	/* A file listed after the run's first directories and before third:
	 * judged alone, its open is where descriptors may run out while the
	 * run holds its own. */
	write_file(join(t.projects, "e-file"), "e\n", 0644);
	snprintf(secret, sizeof(secret), "%s/secret", t.third);
	age();
	for (int spare = 3; spare <= 12; spare++) {
		int err;

		scope_make(&s, &seen, t.other);
		expand_way(&s);
		seen.when = t.projects;
		seen.bind = t.other;
		seen.bind_onto = t.third;
		leave_free(spare);
		err = sbx_posix_spawn(&pid, FSOP, NULL, NULL, &s, argv, environ);
		leave_free(-1);
		ck_assert_msg(err == 0, "%d spare descriptors: %s", spare, sbx_strerror(err));
		ck_assert_msg(WEXITSTATUS(wait_status(pid)) == 1,
		              "%d spare descriptors: the secret was read through the mount", spare);
		ck_assert_int_eq(umount2(t.third, MNT_DETACH), 0);
		sbx_scopeattr_destroy(&s);
	}
	tree_free(&t);
}
END_TEST

/* Descriptors short, the walk lets go of the directory above and opens it
 * again through "..": moved away meanwhile, the directory it finds is
 * another one, and what it had still to emit beneath the one it let go of
 * is dropped (never granted blind). */
START_TEST(test_descriptors_short_moved_away)
{
	struct seen seen;
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	char *dir = make_tmpdir(), p[4096], x[4096], y[4096], q[4096], moved[4096];
	char deny_x[4096], deny_y[4096], beside_y[4096];
	char *argv[] = { FSOP, "read", beside_y, NULL };
	pid_t pid;

	REQUIRE_LANDLOCK();
	snprintf(p, sizeof(p), "%s/p", dir);
	snprintf(x, sizeof(x), "%s/x", p);
	snprintf(y, sizeof(y), "%s/y", p);
	snprintf(q, sizeof(q), "%s/q", dir);
	snprintf(moved, sizeof(moved), "%s/x", q);
	snprintf(deny_x, sizeof(deny_x), "%s/denied", x);
	snprintf(deny_y, sizeof(deny_y), "%s/denied", y);
	snprintf(beside_y, sizeof(beside_y), "%s/beside", y);
	ck_assert_int_eq(mkdir(p, 0755) | mkdir(x, 0755) | mkdir(y, 0755) | mkdir(q, 0755), 0);
	ck_assert_int_eq(mkdir(deny_x, 0755) | mkdir(deny_y, 0755), 0);
	write_file(beside_y, "beside\n", 0644);
	scope_make(&s, &seen, deny_x);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, deny_y), 0);
	seen.when = x;
	seen.remove = x;
	seen.move_to = moved;

	leave_free(3);
	ck_assert_int_eq(sbx_posix_spawn(&pid, FSOP, NULL, NULL, &s, argv, environ), 0);
	leave_free(-1);
	ck_assert_int_eq(access(moved, F_OK), 0); /* the move was made */
	ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 1);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_NARROWED);
	ck_assert_int_ge(seen.count[SBX_EVENT_DROPPED], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_DROPPED], y);
	ck_assert_int_eq(seen.error[SBX_EVENT_DROPPED], ESTALE);
	sbx_scopeattr_destroy(&s);
	rm_rf(dir);
	free(dir);
}
END_TEST

void dropped_tests(TCase *tc)
{
	tcase_add_test(tc, test_dropped_grant_vanished);
	tcase_add_test(tc, test_run_proof_exchange);
	tcase_add_test(tc, test_run_proof_mount);
	tcase_add_test(tc, test_run_quiet);
	tcase_add_test(tc, test_run_proof_mount_short);
	tcase_add_test(tc, test_dropped_grant_add_rule_error);
	tcase_add_test(tc, test_dropped_grant_descriptor_limit);
	tcase_add_test(tc, test_descriptors_short_moved_away);
}
