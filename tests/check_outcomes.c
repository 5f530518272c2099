/* SPDX-License-Identifier: MIT */
/* The three outcomes, each provoked on the real kernel: a dropped grant, no
 * Landlock, and a refused ruleset.  Plus the denials that are refused and
 * the aliases that are warned about. */
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

#include "tests/common.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define FSOP HELPER_DIR "/fsop"

/* A logger that keeps what it is told. */
struct seen {
	int count[16];
	char path[16][4096];
	char path2[16][4096];
	int error[16];
	/* With remove set: on the EXPAND event of `when', rmdir `remove' (and
	 * put a file in its place when replace is set). */
	const char *when, *remove;
	int replace;
	const char *move_to; /* rename `remove' there instead */
	/* On the EXPAND event of `when': exchange `swap' with `swap_with', or
	 * bind-mount `bind' onto `bind_onto'. */
	const char *swap, *swap_with, *bind, *bind_onto;
};

static void record(const sbx_event_t *ev, void *arg)
{
	struct seen *s = arg;

	s->count[ev->kind]++;
	snprintf(s->path[ev->kind], sizeof(s->path[0]), "%s", ev->path ? ev->path : "");
	snprintf(s->path2[ev->kind], sizeof(s->path2[0]), "%s", ev->path2 ? ev->path2 : "");
	s->error[ev->kind] = ev->error;
	if (ev->kind == SBX_EVENT_EXPAND && s->when && !strcmp(ev->path, s->when) && s->swap)
		ck_assert_int_eq(syscall(SYS_renameat2, AT_FDCWD, s->swap, AT_FDCWD, s->swap_with,
		                         RENAME_EXCHANGE), 0);
	if (ev->kind == SBX_EVENT_EXPAND && s->when && !strcmp(ev->path, s->when) && s->bind)
		ck_assert_int_eq(mount(s->bind, s->bind_onto, NULL, MS_BIND, NULL), 0);
	if (ev->kind == SBX_EVENT_EXPAND && s->remove && s->move_to && !strcmp(ev->path, s->when)) {
		ck_assert_int_eq(rename(s->remove, s->move_to), 0);
	} else if (ev->kind == SBX_EVENT_EXPAND && s->remove && !strcmp(ev->path, s->when)) {
		rm_rf(s->remove);
		ck_assert_int_eq(access(s->remove, F_OK), -1);
		if (s->replace)
			write_file(s->remove, "now a file\n", 0644);
	}
}


static void scope_make(sbx_scopeattr_t *s, struct seen *seen, const char *deny)
{
	memset(seen, 0, sizeof(*seen));
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(s, record, seen), 0);
	if (deny)
		ck_assert_int_eq(sbx_scopeattr_adddeny(s, deny), 0);
}

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

/* ---- 2. no Landlock ------------------------------------------------------ */

#define no_landlock(err) no_landlock_(err, __func__)
static void no_landlock_(int err, const char *test)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	char *out;
	char *argv[] = { FSOP, "read", NULL, NULL };
	pid_t pid;

	tree_make(&t);
	argv[2] = (char *)t.secret;
	/* Before the first spawn, so the once-per-process probe sees it. */
	seccomp_fail_(SYS_landlock_create_ruleset, err, test);
	scope_make(&s, &seen, t.other);
	/* Unconfined, and said once per process. */
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
		ck_assert_ptr_nonnull(strstr(out, "the-secret"));
		free(out);
		ck_assert_int_eq(sbx_outcome_get(&oc), 0);
		ck_assert_int_eq(oc.confinement, SBX_OUTCOME_UNCONFINED);
		ck_assert_int_eq(oc.kernel_abi, 0);
		ck_assert_int_eq(oc.abi, 0);
	}
	ck_assert_int_eq(seen.count[SBX_EVENT_UNCONFINED], 1);
	ck_assert_int_eq(seen.error[SBX_EVENT_UNCONFINED], err);

	/* Failing closed: ENOTSUP, and no child. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_REQUIRE), 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, FSOP, NULL, NULL, &s, argv, environ), ENOTSUP);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), ENOTSUP);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}

START_TEST(test_no_landlock_enosys)
{
	no_landlock(ENOSYS);
}
END_TEST

START_TEST(test_no_landlock_eopnotsupp)
{
	no_landlock(EOPNOTSUPP);
}
END_TEST

/* ---- 3. Landlock refuses the ruleset ------------------------------------- */

/* Spawns `fsop read secret' with stderr captured; asserts a refusal. */
static void assert_refused(sbx_scopeattr_t *s, struct seen *seen, const struct tree *t,
                           const char *reason)
{
	char *argv[] = { FSOP, "read", (char *)t->secret, NULL };
	char *out;
	sbx_outcome_t oc;

	ck_assert_int_eq(run_scoped(s, argv, &out), -1000 - SBX_EREFUSED);
	/* One line, on the child's (redirected) stderr, naming the program
	 * and the reason; the program never ran. */
	ck_assert_msg(strstr(out, "sbxspawn: " FSOP ": not run: Landlock refused the ruleset") != NULL,
	              "refusal line missing: %s", out);
	ck_assert_msg(strstr(out, reason) != NULL, "reason \"%s\" missing: %s", reason, out);
	ck_assert_ptr_null(strstr(out, "the-secret"));
	ck_assert_int_eq((int)(strchr(out, '\n') - out), (int)strlen(out) - 1);
	free(out);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_REFUSED);
	ck_assert_int_eq(oc.stage, SBX_STAGE_CONFINE);
	ck_assert_int_eq(seen->count[SBX_EVENT_REFUSED], 1);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1); /* reaped */
}

START_TEST(test_refused_restrict_self_eperm)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	scope_make(&s, &seen, t.other);
	seccomp_fail(SYS_landlock_restrict_self, EPERM);
	assert_refused(&s, &seen, &t, "landlock_restrict_self: not permitted");
	ck_assert_int_eq(seen.error[SBX_EVENT_REFUSED], EPERM);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_refused_sixteen_domains)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	uint64_t handled = 1; /* EXECUTE: enough to make a domain */

	REQUIRE_LANDLOCK();
	tree_make(&t);
	scope_make(&s, &seen, t.other);
	ck_assert_int_eq(prctl_no_new_privs(), 0);
	for (int i = 0; i < 16; i++) {
		int fd = (int)syscall(SYS_landlock_create_ruleset, &handled, sizeof(handled), 0);
		int root = open("/", O_PATH | O_CLOEXEC);
		struct {
			uint64_t access;
			int32_t fd;
		} __attribute__((packed)) pb = { 1, root };

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(syscall(SYS_landlock_add_rule, fd, 1, &pb, 0), 0);
		ck_assert_int_eq(syscall(SYS_landlock_restrict_self, fd, 0), 0);
		close(fd);
		close(root);
	}
	assert_refused(&s, &seen, &t, "16 Landlock domains are already stacked");
	ck_assert_int_eq(seen.error[SBX_EVENT_REFUSED], E2BIG);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_refused_probe)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	scope_make(&s, &seen, t.other);
	/* The very first question to Landlock answered with EPERM: present and
	 * refusing, not absent.  Nothing runs unconfined. */
	seccomp_fail(SYS_landlock_create_ruleset, EPERM);
	assert_refused(&s, &seen, &t, "landlock_create_ruleset(VERSION): not permitted");
	ck_assert_int_eq(seen.count[SBX_EVENT_UNCONFINED], 0);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_refused_create_ruleset)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	char *argv[] = { "true", NULL };
	char *out;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	scope_make(&s, &seen, t.other);
	/* The probe is done (and cached) by a first spawn with another scope;
	 * then creating a ruleset fails, which is a refusal, not an absence. */
	{
		sbx_scopeattr_t first;

		sbx_scopeattr_init(&first);
		sbx_scopeattr_adddeny(&first, t.third);
		ck_assert_int_eq(run_scoped(&first, argv, &out), 0);
		free(out);
		sbx_scopeattr_destroy(&first);
	}
	seccomp_fail(SYS_landlock_create_ruleset, EPERM);
	assert_refused(&s, &seen, &t, "landlock_create_ruleset: not permitted");
	ck_assert_int_eq(seen.count[SBX_EVENT_UNCONFINED], 0);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* ---- denials refused, aliases warned ------------------------------------- */

START_TEST(test_ignored_denials)
{
	struct seen seen;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", "/etc/passwd", NULL };
	char *out, libc[4096];
	Dl_info info;

	REQUIRE_LANDLOCK();
	scope_make(&s, &seen, "/");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	free(out);
	ck_assert_int_eq(seen.count[SBX_EVENT_IGNORED_DENY], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_IGNORED_DENY], "/");
	sbx_scopeattr_destroy(&s);

	/* The directory that holds this process's C library (glibc's, or
	 * musl's, which is its loader too), where the loader found it. */
	ck_assert(dladdr((void *)&getpid, &info) && info.dli_fname);
	ck_assert_ptr_nonnull(realpath(info.dli_fname, libc));
	scope_make(&s, &seen, dirname(libc));
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	free(out);
	ck_assert_int_eq(seen.count[SBX_EVENT_IGNORED_DENY], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_IGNORED_DENY], libc);
	/* Re-admitted below the denial, the runtime is not in the way. */
	sbx_scopeattr_destroy(&s);
	scope_make(&s, &seen, "/usr");
	sbx_scopeattr_addallow(&s, libc);
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	free(out);
	ck_assert_int_eq(seen.count[SBX_EVENT_IGNORED_DENY], 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

START_TEST(test_bind_mount_alias)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", NULL, NULL };
	char beside[4096], up[4096], inside[4096], *out;

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	tree_make(&t);
	/* A second name of the denied directory beside it, one of its parent
	 * in an expanded directory above, and one inside a granted directory. */
	snprintf(beside, sizeof(beside), "%s/alias", t.projects);
	snprintf(up, sizeof(up), "%s/projects-again", t.top);
	snprintf(inside, sizeof(inside), "%s/mnt", t.mine);
	mkdir(beside, 0755);
	mkdir(up, 0755);
	mkdir(inside, 0755);
	ck_assert_int_eq(mount(t.other, beside, NULL, MS_BIND, NULL), 0);
	ck_assert_int_eq(mount(t.projects, up, NULL, MS_BIND, NULL), 0);
	ck_assert_int_eq(mount(t.other, inside, NULL, MS_BIND, NULL), 0);
	scope_make(&s, &seen, t.other);
	expand_way(&s);

	/* The denied name stays denied: a grant on a second name in an
	 * expanded directory would have landed on the same inode. */
	argv[2] = t.secret;
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	/* Those second names are not granted ... */
	argv[2] = (char *)join(beside, "secret");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	argv[2] = (char *)join(up, "other/secret");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	/* ... but one inside a granted directory reads it: the documented
	 * limit, which the compile reports, naming both names. */
	argv[2] = (char *)join(inside, "secret");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	free(out);
	ck_assert_int_ge(seen.count[SBX_EVENT_ALIAS], 3);
	ck_assert_str_eq(seen.path[SBX_EVENT_ALIAS], t.other);
	ck_assert_str_eq(seen.path2[SBX_EVENT_ALIAS], inside);
	sbx_scopeattr_destroy(&s);

	/* Denying every name closes it, quietly. */
	scope_make(&s, &seen, t.other);
	expand_way(&s);
	sbx_scopeattr_adddeny(&s, inside);
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	sbx_scopeattr_destroy(&s);
	umount(inside);
	umount(up);
	umount(beside);
	tree_free(&t);
}
END_TEST

START_TEST(test_hard_link_alias)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", NULL, NULL };
	char denied[4096], beside[4096], inside[4096], *out;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	/* A denied file with a second name beside it (in the expanded
	 * directory) and one in a granted directory, made before the spawn. */
	snprintf(denied, sizeof(denied), "%s/key", t.projects);
	snprintf(beside, sizeof(beside), "%s/key-link", t.projects);
	snprintf(inside, sizeof(inside), "%s/key-link", t.mine);
	write_file(denied, "the-key\n", 0644);
	ck_assert_int_eq(link(denied, beside), 0);
	ck_assert_int_eq(link(denied, inside), 0);
	scope_make(&s, &seen, denied);
	argv[2] = denied;
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	argv[2] = beside;
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	ck_assert_int_ge(seen.count[SBX_EVENT_ALIAS], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_ALIAS], denied);
	/* The limit: a hard link in a granted directory is a second name
	 * nothing looks for. */
	argv[2] = inside;
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	free(out);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_alias_directory_expanded)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", NULL, NULL };
	char sub[4096], alias[4096], *out;

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	tree_make(&t);
	snprintf(sub, sizeof(sub), "%s/sub", t.other);
	snprintf(alias, sizeof(alias), "%s/x", t.mine);
	mkdir(sub, 0755);
	mkdir(alias, 0755);
	write_file(join(sub, "key"), "the-key\n", 0644);
	ck_assert_int_eq(mount(sub, alias, NULL, MS_BIND, NULL), 0);
	/* Denying something below the second name makes the compile list it:
	 * its entries are inodes of the denied directory and must not be
	 * granted, whichever name they are reached by. */
	scope_make(&s, &seen, t.other);
	sbx_scopeattr_adddeny(&s, join(alias, "nonexistent"));
	argv[2] = (char *)join(sub, "key");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	ck_assert_ptr_null(strstr(out, "the-key"));
	free(out);
	argv[2] = (char *)join(alias, "key");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	ck_assert_int_ge(seen.count[SBX_EVENT_ALIAS], 1);
	sbx_scopeattr_destroy(&s);
	umount2(alias, MNT_DETACH);
	tree_free(&t);
}
END_TEST

START_TEST(test_alias_moved_mount)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", NULL, NULL };
	char sub[4096], staging[4096], x[4096], *out;

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	tree_make(&t);
	snprintf(sub, sizeof(sub), "%s/sub", t.other);
	snprintf(staging, sizeof(staging), "%s/staging", t.top);
	snprintf(x, sizeof(x), "%s/x", t.projects);
	mkdir(sub, 0755);
	mkdir(staging, 0755);
	mkdir(x, 0755);
	write_file(join(sub, "key"), "the-key\n", 0644);
	/* A bind made first, moved on top of a mount made later: the mount
	 * table lists them by age, not by which one is seen. */
	ck_assert_int_eq(mount(sub, staging, NULL, MS_BIND, NULL), 0);
	ck_assert_int_eq(mount("none", x, "tmpfs", 0, NULL), 0);
	ck_assert_int_eq(mount(staging, x, NULL, MS_MOVE, NULL), 0);
	scope_make(&s, &seen, t.other);
	argv[2] = (char *)join(sub, "key");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	ck_assert_ptr_null(strstr(out, "the-key"));
	free(out);
	argv[2] = (char *)join(x, "key");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	sbx_scopeattr_destroy(&s);
	umount2(x, MNT_DETACH);
	umount2(x, MNT_DETACH);
	tree_free(&t);
}
END_TEST

START_TEST(test_no_mount_table)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", NULL, NULL };
	pid_t pid;

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	tree_make(&t);
	argv[2] = t.secret;
	scope_make(&s, &seen, t.other);
	/* Without /proc no second name can be told apart: the spawn fails,
	 * it does not grant blind. */
	hide_proc();
	ck_assert_int_eq(sbx_posix_spawn(&pid, FSOP, NULL, NULL, &s, argv, environ), ENOENT);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	/* Back, for whatever reads it at exit (a leak checker does). */
	show_proc();
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* Without /proc, a scope that restricts nothing needs no mount table: it
 * re-admits, and nothing is denied that a second name could show. */
START_TEST(test_allow_only_without_proc)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	/* Not a helper of ours: one built with a sanitizer reads /proc as it
	 * starts. */
	char *argv[] = { "/bin/cat", NULL, NULL };
	sbx_outcome_t oc;
	pid_t pid;

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	tree_make(&t);
	argv[1] = t.secret;
	scope_make(&s, &seen, NULL);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, t.other), 0);
	hide_proc();
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/cat", NULL, NULL, &s, argv, environ), 0);
	ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 0);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_CONFINED);
	show_proc();
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* A name holding a newline and what looks like a line of the library's own
 * must not forge a second line: every event is one line, its names
 * escaped (and bytes that are no text, too). */
START_TEST(test_forged_log_line)
{
	struct tree t;
	sbx_scopeattr_t s;
	char forged[4096], bad[4096], *argv[] = { "true", NULL }, buf[65536];
	int fd = memfd_create("stderr", 0), saved = dup(2), lines = 0;
	ssize_t n;
	pid_t pid;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	/* Hard-linked (so that the compile says it stays unreachable). */
	snprintf(forged, sizeof(forged), "%s/x\nsbxspawn: forged \033[2J", t.projects);
	snprintf(bad, sizeof(bad), "%s/\xff\xfe", t.projects);
	write_file(forged, "x\n", 0644);
	ck_assert_int_eq(link(forged, join(t.mine, "l1")), 0);
	ck_assert_int_eq(link(forged, bad), 0);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0); /* the default logger */
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	dup2(fd, 2);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, argv, environ), 0);
	dup2(saved, 2);
	wait_status(pid);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	for (char *p = buf; *p; p = strchr(p, '\n') + 1) {
		ck_assert_msg(!strncmp(p, "sbxspawn: ", 10), "a line not the library's: %s", p);
		ck_assert_msg(strncmp(p, "sbxspawn: forged", 16), "a forged line: %s", buf);
		lines += strstr(p, "stay unreachable") && strstr(p, "stay unreachable") < strchr(p, '\n');
	}
	/* The two said in one line (the names in it escaped as in any). */
	ck_assert_int_eq(lines, 1);
	ck_assert_ptr_nonnull(strstr(buf, "2 entries of "));
	ck_assert_ptr_nonnull(strstr(buf, "x\\nsbxspawn: forged \\x1b[2J"));
	ck_assert_ptr_nonnull(strstr(buf, "\\xff\\xfe"));
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_reuse_after_dotdot)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", NULL, NULL };
	char via[4096], y[4096], elsewhere[4096], *out;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	/* deny T/x/y/../../projects/other: resolved when added, through the
	 * real directories T/x/y, to T/projects/other. */
	snprintf(y, sizeof(y), "%s/x/y", t.top);
	mkdir(join(t.top, "x"), 0755);
	mkdir(y, 0755);
	snprintf(via, sizeof(via), "%s/../../projects/other", y);
	scope_make(&s, &seen, via);
	argv[2] = t.secret;
	for (int i = 0; i < 10; i++) {
		ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
		free(out);
	}
	/* y becomes a symlink: the same words would now name another
	 * directory, but the scope names what they named when it was made. */
	snprintf(elsewhere, sizeof(elsewhere), "%s/e/f", t.third);
	mkdir(join(t.third, "e"), 0755);
	mkdir(elsewhere, 0755);
	mkdir(join(t.third, "projects"), 0755);
	mkdir(join(join(t.third, "projects"), "other"), 0755);
	write_file(join(join(join(t.third, "projects"), "other"), "key"), "moved-key\n", 0644);
	rmdir(y);
	ck_assert_int_eq(symlink(elsewhere, y), 0);
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	ck_assert_ptr_null(strstr(out, "the-secret"));
	free(out);
	argv[2] = (char *)join(join(join(t.third, "projects"), "other"), "key");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "moved-key"));
	free(out);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

Suite *suite_outcomes(void)
{
	Suite *s = suite_create("outcomes");
	TCase *tc = tcase_create("provoked");

	untimed(tc);
	tcase_add_test(tc, test_dropped_grant_vanished);
	tcase_add_test(tc, test_run_proof_exchange);
	tcase_add_test(tc, test_run_proof_mount);
	tcase_add_test(tc, test_run_quiet);
	tcase_add_test(tc, test_run_proof_mount_short);
	tcase_add_test(tc, test_dropped_grant_add_rule_error);
	tcase_add_test(tc, test_dropped_grant_descriptor_limit);
	tcase_add_test(tc, test_descriptors_short_moved_away);
	tcase_add_test(tc, test_no_landlock_enosys);
	tcase_add_test(tc, test_no_landlock_eopnotsupp);
	tcase_add_test(tc, test_refused_restrict_self_eperm);
	tcase_add_test(tc, test_refused_sixteen_domains);
	tcase_add_test(tc, test_refused_create_ruleset);
	tcase_add_test(tc, test_refused_probe);
	tcase_add_test(tc, test_ignored_denials);
	tcase_add_test(tc, test_bind_mount_alias);
	tcase_add_test(tc, test_hard_link_alias);
	tcase_add_test(tc, test_alias_directory_expanded);
	tcase_add_test(tc, test_alias_moved_mount);
	tcase_add_test(tc, test_no_mount_table);
	tcase_add_test(tc, test_reuse_after_dotdot);
	tcase_add_test(tc, test_allow_only_without_proc);
	tcase_add_test(tc, test_forged_log_line);
	suite_add_tcase(s, tc);
	return s;
}
