/* SPDX-License-Identifier: MIT */
/* Hidden denials: a denial covered in the child's own mount namespace,
 * nothing above it frozen, the Landlock domain on top as the lock.  Each
 * attack on the cover is first shown working without a scope (or against
 * a cover with no lock), then refused with one.  check_hide_held.c holds
 * what the child holds, check_hide_ways.c the ways and what the child sees,
 * check_hide_race.c what the caller changes in its table while a spawn
 * looks at it, check_hide_moment.c what another process renames while the
 * child makes its covers. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/hide.h"

/* ---- 1. the home directory stays the command's --------------------------- */

START_TEST(test_hide_home_writable)
{
	const char *save = "echo v > .saved.tmp && mv .saved.tmp .saved && echo ok";
	const char *git = "git config --global x.y z && git config --global x.y && echo ok";
	sbx_scopeattr_t s;
	bool have_git = system("git --version >/dev/null 2>&1") == 0;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	/* Expanded, the home directory is frozen: the trap hiding is for. */
	scope_deny(&s, ssh, SBX_SCOPE_EXPAND);
	ck_assert_str_ne(VERDICT(&s, "/bin/sh", "-c", sh_in_home(save)), "ok");
	outcome(0, 1);
	sbx_scopeattr_destroy(&s);
	/* Hidden: a file saved by a rename, git config --global. */
	scope_deny(&s, ssh, 0);
	ck_assert_str_eq(VERDICT(&s, "/bin/sh", "-c", sh_in_home(save)), "ok");
	outcome(1, 0);
	if (have_git)
		ck_assert_str_eq(VERDICT(&s, "/bin/sh", "-c", sh_in_home(git)), "ok");
	else
		say_skip("SKIP %s (git config --global): no git here\n", __func__);
	/* And the key stays out of reach. */
	WORKS(FSOP, "read", key);
	REFUSED(&s, FSOP, "read", key);
	secret_intact();
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- 2. the denied directory: nothing of it, nothing to it --------------- */

/* Each act on .ssh, shown working without a scope on a tree of its own. */
START_TEST(test_hide_denial_untouchable)
{
	static const struct { const char *op, *a, *b; } acts[] = {
		{ "read", "id", NULL },          { "create", "new", NULL },
		{ "unlink", "id", NULL },        { "rename", "", "../ssh2" },
		{ "rename", "../x", "id" },      { "mkdir", "sub", NULL },
		{ "truncate", "id", NULL },
	};
	char a[4600], b[4600], *out;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++) {
		snprintf(a, sizeof(a), "%s%s%s", ssh, *acts[i].a ? "/" : "", acts[i].a);
		snprintf(b, sizeof(b), "%s/%s", ssh, acts[i].b ? acts[i].b : "");
		write_file(join(home, "x"), "planted\n", 0644);
		ck_assert_str_eq(verdict_of(NULL, ARGV(FSOP, (char *)acts[i].op, a, acts[i].b ? b : NULL),
		                            true, NULL), "ok");
		/* Made again as it was (a tree of a new name: the paths named
		 * again), then attempted under the scope. */
		teardown();
		setup();
		snprintf(a, sizeof(a), "%s%s%s", ssh, *acts[i].a ? "/" : "", acts[i].a);
		snprintf(b, sizeof(b), "%s/%s", ssh, acts[i].b ? acts[i].b : "");
		write_file(join(home, "x"), "planted\n", 0644);
		scope_deny(&s, ssh, 0);
		REFUSED(&s, FSOP, (char *)acts[i].op, a, acts[i].b ? b : NULL);
		outcome(1, 0);
		secret_intact();
		sbx_scopeattr_destroy(&s);
	}
	/* Listed: nothing of it (an empty directory, or none at all). */
	scope_deny(&s, ssh, 0);
	verdict_of(&s, ARGV(FSOP, "list", ssh), false, &out);
	ck_assert_msg(!strstr(out, "entry "), "%s", out);
	free(out);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- 3. the cover stays ----------------------------------------------------- */

/* A cover of the test's own (as the library makes it) in a mount namespace
 * of the test's own, with no Landlock domain above it: each attack works. */
static bool cover_unlocked(const char *test)
{
	if (!root_mounts(test))
		return false;
	ck_assert_int_eq(mount("cover", ssh, "tmpfs", MS_RDONLY, "mode=0"), 0);
	return true;
}

START_TEST(test_hide_cover_stays)
{
	char ns[64], parent_root[4600], hex[4096];
	sbx_scopeattr_t s;
	/* open_tree_attr(2) is Linux 6.15's. */
	bool attr_unknown = syscall(467, -1, "", 0, NULL, 0) < 0 && errno == ENOSYS;
	bool root = geteuid() == 0;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	if (attr_unknown)
		say_skip("SKIP %s (open_tree_attr): this kernel has none\n", __func__);
	snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", (int)getpid());
	snprintf(parent_root, sizeof(parent_root), "/proc/%d/root%s", (int)getpid(), key);
	(void)hex;
	scope_deny(&s, ssh, 0);
	/* Locked: each refused. */
	REFUSED(&s, LIFT, "umount", ssh, key);
	REFUSED(&s, LIFT, "mount-over", ssh);
	/* In a user namespace of its own the cover is locked (EINVAL). */
	ck_assert_str_eq(VERDICT(&s, LIFT, "userns-umount", ssh, key), "EINVAL");
	REFUSED(&s, LIFT, "setns-read", ns, key);
	REFUSED(&s, FSOP, "read", parent_root);
	REFUSED(&s, LIFT, "open-tree-read", home, ".ssh/id");
	REFUSED(&s, LIFT, "open-tree-read", "/", key + 1);
	REFUSED(&s, LIFT, "fsopen", "tmpfs");
	REFUSED(&s, LIFT, "fanotify");
	if (!attr_unknown)
		REFUSED(&s, LIFT, "open-tree-attr-read", "/", key + 1);
	REFUSED(&s, ESCAPE, "handle", key, home);
	outcome(1, 0);
	secret_intact();
	sbx_scopeattr_destroy(&s);
	/* Unlocked (a cover alone, in a namespace of the test's): the same
	 * attacks read the key. */
	if (!cover_unlocked(__func__))
		return;
	ck_assert_str_ne(verdict_of(NULL, ARGV(FSOP, "read", key), true, NULL), "ok");
	ck_assert_str_eq(verdict_of(NULL, ARGV(LIFT, "open-tree-read", home, ".ssh/id"), true, NULL), "ok");
	if (!attr_unknown)
		ck_assert_str_eq(verdict_of(NULL, ARGV(LIFT, "open-tree-attr-read", home, ".ssh/id"), true,
		                            NULL), "ok");
	if (root) {
		ck_assert_str_eq(verdict_of(NULL, ARGV(LIFT, "fanotify"), true, NULL), "ok");
		snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", (int)getppid()); /* the runner's, outside */
		ck_assert_str_eq(verdict_of(NULL, ARGV(LIFT, "setns-read", ns, key), true, NULL), "ok");
	} else {
		say_skip("SKIP %s (fanotify, setns, unlocked): root in a user namespace of the "
		         "test's own has no capability in the initial one, which they need\n", __func__);
	}
	ck_assert_str_eq(verdict_of(NULL, ARGV(LIFT, "umount", ssh, key), true, NULL), "ok");
}
END_TEST

/* A mount the caller makes after the spawn never reaches the child: its
 * namespace's mounts are private.  The child waits for a line, then reads
 * the new name; without a scope (the caller's namespace) it reads it. */
START_TEST(test_hide_later_mount)
{
	char alias[4400], cmd[9000];
	sbx_scopeattr_t s;
	sbx_file_actions_t fa;
	int in[2], out = memfd_create("out", MFD_CLOEXEC);
	char buf[256] = "";
	pid_t pid;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__) || private_mounts(__func__) == MOUNT_NS_NONE)
		return;
	/* Shared, as a host's mounts are where its init makes them so: a
	 * child's namespace copied from it receives what is mounted here
	 * later, but where the library makes its mounts private. */
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_SHARED, NULL), 0);
	snprintf(alias, sizeof(alias), "%s/alias", t.mine);
	ck_assert_int_eq(mkdir(alias, 0755), 0);
	snprintf(cmd, sizeof(cmd), "read x; cat '%s/id' || echo refused", alias);
	for (int scoped = 0; scoped < 2; scoped++) {
		ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
		sbx_file_actions_init(&fa);
		sbx_file_actions_adddup2(&fa, in[0], 0);
		sbx_file_actions_adddup2(&fa, out, 1);
		sbx_file_actions_adddup2(&fa, out, 2);
		if (scoped)
			scope_deny(&s, ssh, 0);
		ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/sh", &fa, NULL, scoped ? &s : NULL,
		                                 ARGV("sh", "-c", cmd), environ), 0);
		close(in[0]);
		ck_assert_int_eq(mount(ssh, alias, NULL, MS_BIND, NULL), 0);
		ck_assert_int_eq(write(in[1], "\n", 1), 1);
		close(in[1]);
		ck_assert_int_eq(wait_status(pid), 0);
		ck_assert_int_eq(umount2(alias, MNT_DETACH), 0);
		memset(buf, 0, sizeof(buf));
		ck_assert_int_ge(pread(out, buf, sizeof(buf) - 1, 0), 0);
		ck_assert_int_eq(ftruncate(out, 0), 0);
		ck_assert_int_eq(lseek(out, 0, SEEK_SET), 0);
		if (scoped)
			ck_assert_msg(!strstr(buf, SECRET) && strstr(buf, "refused"), "[%s]", buf);
		else
			ck_assert_msg(strstr(buf, SECRET), "the control read nothing: %s", buf);
		sbx_file_actions_destroy(&fa);
	}
	outcome(1, 0);
	sbx_scopeattr_destroy(&s);
	close(out);
}
END_TEST

/* A directory above the denial cannot be renamed away with it (the next
 * spawn would not deny its new name): each is a mount point there. */
START_TEST(test_hide_ancestor_pinned)
{
	char moved[4400];
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	snprintf(moved, sizeof(moved), "%s/home2", t.top);
	scope_deny(&s, ssh, 0);
	ck_assert_str_eq(VERDICT(&s, FSOP, "rename", home, moved), "EBUSY");
	outcome(1, 0);
	sbx_scopeattr_destroy(&s);
	WORKS(FSOP, "rename", home, moved);
	ck_assert_int_eq(rename(moved, home), 0);
}
END_TEST

/* A cover that silently does not happen (here: every mount of the
 * library's made to return 0 and do nothing, as the suite's "hide"
 * mutation does) is caught by the child itself, which looks for it: the
 * spawn is refused, never run with the denial in reach; expanded, the
 * same spawn is Landlock's, and refused there. */
START_TEST(test_hide_cover_checked)
{
	sbx_scopeattr_t s;
	char *out;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	ck_assert_int_eq(mutate_hiding(), 0);
	/* A mount of a path that is not there says 0 under that filter. */
	if (mount("none", "/sbx-no-such-mount-point", "tmpfs", MS_SILENT, NULL)) {
		say_skip("SKIP %s: the filter that makes mounts do nothing did not take (%s: seccomp "
		         "switched off?)\n", __func__, strerror(errno));
		return;
	}
	scope_deny(&s, ssh, 0);
	ck_assert_int_eq(run_scoped(&s, ARGV(FSOP, "read", key), &out), -1000 - SBX_EREFUSED);
	ck_assert_msg(strstr(out, "its denials could not be hidden") && !strstr(out, SECRET), "%s",
	              out);
	free(out);
	sbx_scopeattr_destroy(&s);
	scope_deny(&s, ssh, SBX_SCOPE_EXPAND);
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", key), "EACCES");
	sbx_scopeattr_destroy(&s);
	secret_intact();
}
END_TEST

/* A denial deep in the tree: a pin for each directory above it, and each
 * pin a copy of the cover beneath it, not of the pins (which would double
 * the mounts at each level: a depth of 17 made the kernel's limit). */
START_TEST(test_hide_deep_denial)
{
	char deep[4600], cmd[128], *out;
	sbx_scopeattr_t s;
	int depth = 20, outside, inside;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	snprintf(deep, sizeof(deep), "%s", home);
	for (int i = 0; i < depth; i++) {
		snprintf(deep + strlen(deep), sizeof(deep) - strlen(deep), "/%c", 'a' + i);
		ck_assert_int_eq(mkdir(deep, 0755), 0);
	}
	write_file(join(deep, "key"), SECRET "\n", 0600);
	snprintf(cmd, sizeof(cmd), "grep -c . /proc/self/mountinfo");
	outside = atoi(verdict_of(NULL, ARGV("/bin/sh", "-c", cmd), true, NULL));
	scope_deny(&s, deep, 0);
	inside = atoi(VERDICT(&s, "/bin/sh", "-c", cmd));
	outcome(1, 0);
	/* The cover, a pin per level (but those already mount points), a
	 * copy of the cover in each. */
	ck_assert_msg(inside > outside && inside - outside <= 2 * (depth + 8) + 1,
	              "%d mounts, %d outside", inside, outside);
	/* Each directory above it a mount point in the child's table: a pin
	 * (no name of the test's has a byte mountinfo escapes). */
	verdict_of(&s, ARGV("/bin/cat", "/proc/self/mountinfo"), false, &out);
	for (char level[4600], *end = strrchr(deep, '/'); end > deep + strlen(home); ) {
		char needle[4700];

		snprintf(level, sizeof(level), "%.*s", (int)(end - deep), deep);
		snprintf(needle, sizeof(needle), " %s ", level);
		ck_assert_msg(strstr(out, needle), "no pin at %s:\n%s", level, out);
		while (--end > deep && *end != '/')
			;
	}
	free(out);
	verdict_of(&s, ARGV(FSOP, "read", (char *)join(deep, "key")), false, &out);
	free(out);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A denial replaced between spawns (renamed away, made again): the next
 * spawn does not reuse the compile that covered the old one; it covers
 * the new. */
START_TEST(test_hide_replaced_between_spawns)
{
	char old[4600];
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	snprintf(old, sizeof(old), "%s.old", ssh);
	scope_deny(&s, ssh, 0);
	REFUSED(&s, FSOP, "read", key);
	ck_assert_int_eq(rename(ssh, old), 0);
	ck_assert_int_eq(mkdir(ssh, 0700), 0);
	write_file(key, SECRET "\n", 0600);
	REFUSED(&s, FSOP, "read", key);
	outcome(1, 0);
	/* Where a name of the scope's no longer is, nothing denies it. */
	ck_assert_str_eq(verdict_of(&s, ARGV(FSOP, "read", (char *)join(old, "id")), true, NULL), "ok");
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- a working directory its name no longer names ------------------------ */

/* Removed, inside the denial: its ".." climbs into the denial beneath the
 * cover (an outside attack read the key so); the spawn expands. */
START_TEST(test_hide_cwd_removed)
{
	char gone[4600];
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	snprintf(gone, sizeof(gone), "%s/gone", ssh);
	ck_assert_int_eq(mkdir(gone, 0700), 0);
	ck_assert_int_eq(chdir(gone), 0);
	ck_assert_int_eq(rmdir(gone), 0);
	WORKS(FSOP, "read", "../id");
	scope_deny(&s, ssh, 0);
	REFUSED(&s, FSOP, "read", "../id");
	outcome(0, 1);
	ck_assert_int_eq(chdir(t.top), 0);
	secret_intact();
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A mount made over it since: the denial's name now names the new mount's
 * directory, and what the old one holds no compile saw (an outside attack
 * read its key so); the spawn expands. */
START_TEST(test_hide_cwd_mounted_over)
{
	char top[4600], deny[4600], old_key[4700];
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__) || !can_hide(__func__))
		return;
	snprintf(top, sizeof(top), "%s/over", t.top);
	snprintf(deny, sizeof(deny), "%s/H", top);
	snprintf(old_key, sizeof(old_key), "%s/H/.ssh/id", top);
	ck_assert_int_eq(mkdir(top, 0755), 0);
	ck_assert_int_eq(mount("old", top, "tmpfs", 0, "mode=0755"), 0);
	ck_assert(mkdir(deny, 0755) == 0 && mkdir(join(deny, ".ssh"), 0700) == 0);
	write_file(old_key, SECRET "\n", 0600);
	ck_assert_int_eq(chdir(top), 0);
	ck_assert_int_eq(mount("new", top, "tmpfs", 0, "mode=0755"), 0);
	ck_assert(mkdir(deny, 0755) == 0 && mkdir(join(deny, ".ssh"), 0700) == 0);
	WORKS(FSOP, "read", "H/.ssh/id");
	scope_deny(&s, deny, 0);
	REFUSED(&s, FSOP, "read", "H/.ssh/id");
	outcome(0, 1);
	ck_assert_int_eq(chdir(t.top), 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A probe that cannot be made proves nothing: where clone(2) refuses the
 * children with no exit signal (the library's probes, not a spawn's
 * child), a compile demanding hiding still succeeds, an explanation says
 * hidden, and the spawn hides. */
START_TEST(test_hide_probe_unmade)
{
	sbx_scopeattr_t s;
	sbx_explanation_t x;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	WORKS(FSOP, "read", key);
	seccomp_fail_when(SYS_clone, CLONE_VM | CLONE_VFORK, EAGAIN);
	scope_deny(&s, ssh, SBX_SCOPE_HIDE);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, key, &x), 0);
	ck_assert_msg(x.reason == SBX_REASON_DENIED && strstr(x.message, "hidden"), "%s", x.message);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	REFUSED(&s, FSOP, "read", key);
	outcome(1, 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A thread of the caller's that reaps every child as it ends (waitid(2)
 * on P_ALL with __WALL, as a supervisor may) ends the probe's child before
 * the probe waits for it: the child's answer, in the probe's pipe already,
 * counts all the same.  Here the child is refused its namespace (a filter
 * fails unshare): no explanation says hidden, and a compile that demands
 * hiding fails.  (The probe read its answer only after a wait that
 * succeeded once: a reaped child's refusal was "not known", and hidden.) */
static atomic_bool reaping;

static void *reaper(void *arg)
{
	siginfo_t si;

	(void)arg;
	while (atomic_load(&reaping))
		(void)waitid(P_ALL, 0, &si, WEXITED | __WALL);
	return NULL;
}

START_TEST(test_hide_probe_reaped)
{
	sbx_scopeattr_t s;
	sbx_explanation_t x;
	pthread_t th;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	scope_deny(&s, ssh, 0);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, key, &x), 0);
	ck_assert_msg(strstr(x.message, "hidden"), "%s", x.message);
	seccomp_fail(SYS_unshare, EPERM);
	atomic_store(&reaping, true);
	ck_assert_int_eq(pthread_create(&th, NULL, reaper, NULL), 0);
	for (int i = 0; i < 200; i++) {
		ck_assert_int_eq(sbx_scopeattr_explain(&s, key, &x), 0);
		ck_assert_msg(x.reason == SBX_REASON_DENIED && !strstr(x.message, "hidden:"),
		              "explanation %d: %s", i, x.message);
	}
	sbx_scopeattr_destroy(&s);
	scope_deny(&s, ssh, SBX_SCOPE_HIDE);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), EINVAL);
	atomic_store(&reaping, false);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

Suite *suite_hide(void)
{
	Suite *su = suite_create("hide");
	TCase *tc = tcase_create("hidden");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_hide_home_writable);
	tcase_add_test(tc, test_hide_denial_untouchable);
	tcase_add_test(tc, test_hide_cover_stays);
	tcase_add_test(tc, test_hide_later_mount);
	tcase_add_test(tc, test_hide_ancestor_pinned);
	tcase_add_test(tc, test_hide_cover_checked);
	tcase_add_test(tc, test_hide_deep_denial);
	tcase_add_test(tc, test_hide_replaced_between_spawns);
	tcase_add_test(tc, test_hide_cwd_removed);
	tcase_add_test(tc, test_hide_cwd_mounted_over);
	tcase_add_test(tc, test_hide_probe_unmade);
	tcase_add_test(tc, test_hide_probe_reaped);
	suite_add_tcase(su, tc);
	return su;
}
