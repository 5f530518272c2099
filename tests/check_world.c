/* SPDX-License-Identifier: MIT */
/* The escape suite, continued: attacks that come from the world around the
 * confined child, or that a child prepares for the next spawn.  Renames
 * between listing and opening, renames after a compile, symlinks a child
 * re-points, mounts in one thread's namespace, overlays, coarse timestamps.
 * Each runs on the real kernel; a test failing with "ESCAPE" is a way in
 * that the library claims is closed.  Renames around a compile and coarse
 * timestamps: check_world_renames.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "tests/world.h"

/* ---- 3: what a confined child does never changes a later spawn ---------- */

/* A denied path that is a symlink in a granted directory: the child may
 * re-point it, and the next spawn with the same scope still denies what it
 * named when it was added. */
START_TEST(test_denied_symlink_repointed)
{
	sbx_scopeattr_t s;
	char *link = (char *)join(world.mine, "dlink"), decoy[4096], cmd[8192];

	REQUIRE_LANDLOCK();
	snprintf(decoy, sizeof(decoy), "%s/decoy", world.mine);
	mkdir(decoy, 0755);
	ck_assert_int_eq(symlink(world.third, link), 0);
	scope_deny(&s, link);
	ck_assert_str_eq(reads(&s, join(world.third, "file"), false), "EACCES");
	snprintf(cmd, sizeof(cmd), "rm -f %s && ln -s %s %s", link, decoy, link);
	ck_assert_int_eq(child_sh(&s, cmd), 0);
	ck_assert_str_eq(reads(&s, join(world.third, "file"), false), "EACCES");
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A re-admission through a symlink in a directory the child may write:
 * re-pointed at the whole denial, it re-admits nothing more next time.
 * (Its target is re-admitted as written too: alone, a path that leads
 * into a denial through a symlink re-admits nothing, see below.) */
START_TEST(test_allowed_symlink_repointed)
{
	sbx_scopeattr_t s;
	char *link = (char *)join(world.mine, "alink"), pub[4096], cmd[8192];

	REQUIRE_LANDLOCK();
	snprintf(pub, sizeof(pub), "%s/pub", world.other);
	mkdir(pub, 0755);
	write_file(join(pub, "x"), "public\n", 0644);
	ck_assert_int_eq(symlink(pub, link), 0);
	scope_deny(&s, world.other);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, pub), 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, link), 0);
	ck_assert_str_eq(reads(&s, join(pub, "x"), false), "ok");
	ck_assert_str_eq(reads(&s, world.secret, false), "EACCES");
	snprintf(cmd, sizeof(cmd), "rm -f %s && ln -s %s %s", link, world.other, link);
	ck_assert_int_eq(child_sh(&s, cmd), 0);
	ck_assert_str_eq(reads(&s, world.secret, false), "EACCES");
	ck_assert_str_eq(reads(&s, join(pub, "x"), false), "ok");
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- 3b: a symlink into a denial, planted for a scope built anew --------- */

/* The scope a program builds anew from the same configuration at every
 * run (sbxrun, a build tool): the projects denied, mine re-admitted, and a
 * cache re-admitted where the child may write. */
static void scope_runs(sbx_scopeattr_t *s, const char *cache, int flags)
{
	scope_deny(s, world.projects);
	ck_assert_int_eq(sbx_scopeattr_addallow(s, world.mine), 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(s, cache), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(s, flags | SBX_SCOPE_EXPAND), 0);
}

static const char *scratch(const char *name)
{
	static char path[2][4096];
	static int i;

	mkdir(join(world.top, "scratch"), 0755);
	i = !i;
	snprintf(path[i], sizeof(path[i]), "%s/scratch/%s", world.top, name);
	return path[i];
}

/* The first run's child plants cache -> other, in a place it may write;
 * the same scope grants nothing more for it, and neither does the scope
 * the next run builds anew: the re-admission is left out, named as written
 * with where it led, and the outcome says so. */
START_TEST(test_planted_symlink_next_scope)
{
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	const char *cache = scratch("cache");
	char cmd[8192];
	bool listed = false;

	REQUIRE_LANDLOCK();
	scope_runs(&s, cache, 0);
	snprintf(cmd, sizeof(cmd), "ln -s %s %s", world.other, cache);
	ck_assert_int_eq(child_sh(&s, cmd), 0);
	ck_assert_str_eq(reads(&s, world.secret, false), "EACCES");
	ck_assert_int_eq(seen.ignored_link, 0);
	sbx_scopeattr_destroy(&s);

	scope_runs(&s, cache, 0);
	ck_assert_str_eq(reads(&s, world.secret, false), "EACCES");
	ck_assert_int_ge(seen.ignored_link, 1);
	ck_assert_str_eq(seen.link_path, cache);
	ck_assert_str_eq(seen.link_path2, world.other);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_NARROWED);
	for (unsigned i = 0; i < oc.dropped; i++)
		listed |= !strcmp(oc.dropped_paths[i], world.other);
	ck_assert_msg(listed, "%s not among the dropped paths", world.other);
	ck_assert_str_eq(reads(&s, join(cache, "secret"), false), "EACCES");
	/* What is re-admitted as written still is. */
	ck_assert_str_eq(reads(&s, join(world.mine, "file"), false), "ok");
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* Under SBX_SCOPE_STRICT such a scope is refused: nothing runs. */
START_TEST(test_planted_symlink_strict)
{
	sbx_scopeattr_t s;
	const char *cache = scratch("cache");
	char *argv[] = { FSOP, "read", world.secret, NULL }, *out = NULL;

	REQUIRE_LANDLOCK();
	ck_assert_int_eq(symlink(world.other, cache), 0);
	scope_runs(&s, cache, SBX_SCOPE_STRICT);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), EINVAL);
	ck_assert_int_eq(seen.ignored_link, 1);
	ck_assert_int_eq(run_scoped(&s, argv, &out), -1000 - EINVAL);
	ck_assert_int_eq(seen.ignored_link, 2);
	ck_assert_str_eq(seen.link_path, cache);
	ck_assert_str_eq(seen.link_path2, world.other);
	ck_assert_ptr_null(out && strstr(out, SECRET) ? out : NULL);
	free(out);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* path (re-admitted, or read-only) leads into the denial of the projects
 * through a symlink, to other: left out, whether it is added before or
 * after the denial, with one event naming it and other. */
static void left_out(const char *path, bool readonly, bool first)
{
	int (*add)(sbx_scopeattr_t *, const char *) =
		readonly ? sbx_scopeattr_addreadonly : sbx_scopeattr_addallow;
	sbx_scopeattr_t s;

	seen.ignored_link = 0;
	scope_deny(&s, NULL);
	ck_assert_int_eq(first ? add(&s, path) : sbx_scopeattr_adddeny(&s, world.projects), 0);
	ck_assert_int_eq(first ? sbx_scopeattr_adddeny(&s, world.projects) : add(&s, path), 0);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	ck_assert_str_eq(reads(&s, world.secret, false), "EACCES");
	ck_assert_msg(seen.ignored_link == 1, "%s: %d events", path, seen.ignored_link);
	ck_assert_str_eq(seen.link_path, path);
	ck_assert_str_eq(seen.link_path2, world.other);
	sbx_scopeattr_destroy(&s);
}

/* The symlink as the last component, in one on the way, relative, a
 * chain of them; a re-admission or a read-only path. */
START_TEST(test_symlink_into_denial_forms)
{
	REQUIRE_LANDLOCK();
	ck_assert_int_eq(symlink(world.other, scratch("last")), 0);
	left_out(scratch("last"), false, false);
	left_out(scratch("last"), false, true);
	left_out(scratch("last"), true, false);
	ck_assert_int_eq(symlink(world.projects, scratch("way")), 0);
	left_out(scratch("way/other"), false, true);
	ck_assert_int_eq(symlink("../projects/other", scratch("rel")), 0);
	left_out(scratch("rel"), false, false);
	ck_assert_int_eq(symlink("rel", scratch("chain2")), 0);
	ck_assert_int_eq(symlink(scratch("chain2"), scratch("chain1")), 0);
	left_out(scratch("chain1"), true, true);
}
END_TEST

/* Through a symlink, a path that widens no denial stays: one that leads
 * outside every denial (as before), one whose target is re-admitted as
 * written with as much (it adds nothing), a read-only one whose target lies
 * in a re-admission (it narrows).  One that would make a target the scope
 * re-admits read-only writable is left out. */
START_TEST(test_symlink_that_widens_nothing)
{
	sbx_scopeattr_t s;
	char outside[4096];

	REQUIRE_LANDLOCK();
	snprintf(outside, sizeof(outside), "%s/outside", world.top);
	mkdir(outside, 0755);
	write_file(join(outside, "f"), "outside\n", 0644);
	ck_assert_int_eq(symlink(outside, scratch("out")), 0);
	ck_assert_int_eq(symlink(world.other, scratch("in")), 0);
	ck_assert_int_eq(symlink(world.secret, scratch("sec")), 0);

	scope_deny(&s, world.projects);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, scratch("out")), 0);
	ck_assert_str_eq(reads(&s, join(outside, "f"), false), "ok");
	ck_assert_str_eq(does(&s, "write", join(outside, "f"), false), "EACCES");
	sbx_scopeattr_destroy(&s);

	scope_deny(&s, world.projects);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, scratch("in")), 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, world.other), 0);
	ck_assert_str_eq(reads(&s, world.secret, true), "ok");
	sbx_scopeattr_destroy(&s);

	scope_deny(&s, world.projects);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, world.other), 0);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, scratch("sec")), 0);
	ck_assert_str_eq(reads(&s, world.secret, true), "ok");
	ck_assert_str_eq(does(&s, "write", world.secret, true), "EACCES");
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(seen.ignored_link, 0);

	scope_deny(&s, world.projects);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, world.other), 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, scratch("in")), 0);
	ck_assert_str_eq(reads(&s, world.secret, true), "ok");
	ck_assert_str_eq(does(&s, "write", world.secret, true), "EACCES");
	ck_assert_int_ge(seen.ignored_link, 1);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- 4: a thread's own mount namespace ----------------------------------- */

struct thread_try {
	const char *verdict;
};

static void *in_own_namespace(void *arg)
{
	struct thread_try *tt = arg;
	char *alias = (char *)join(world.projects, "alias");
	sbx_scopeattr_t s;

	/* This thread alone: the rest of the process keeps the old table,
	 * which /proc/self/mountinfo (the thread-group leader's) shows. */
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount(world.other, alias, NULL, MS_BIND, NULL))
		return NULL;
	scope_deny(&s, world.other);
	tt->verdict = strdup(reads(&s, join(alias, "secret"), false));
	sbx_scopeattr_destroy(&s);
	umount(alias);
	return NULL;
}

START_TEST(test_thread_mount_namespace)
{
	struct thread_try tt = { NULL };
	pthread_t th;

	REQUIRE_LANDLOCK();
	/* The whole process first (a user namespace, where that is how it
	 * may mount, can only be entered before there are threads); the
	 * thread then makes one more of its own. */
	if (!private_mounts(__func__))
		return;
	mkdir(join(world.projects, "alias"), 0755);
	ck_assert_int_eq(pthread_create(&th, NULL, in_own_namespace, &tt), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_msg(tt.verdict, "the thread could not make its mount");
	ck_assert_str_eq(tt.verdict, "EACCES");
	free((char *)tt.verdict);
}
END_TEST

/* A thread with a descriptor table of its own: the number its resolution
 * opens may name something else entirely in the thread-group leader's
 * table, which /proc/self/fd shows.  The leader holds a granted directory
 * at the number the thread's open will get; the denial must still be the
 * path that was added. */
struct own_table {
	int decoy_fd;
	const char *verdict;
};

static void *in_own_fd_table(void *arg)
{
	struct own_table *ot = arg;
	sbx_scopeattr_t s;

	if (unshare(CLONE_FILES) || close(ot->decoy_fd))
		return NULL;
	scope_deny(&s, world.other); /* opened at decoy_fd in this table alone */
	ot->verdict = strdup(reads(&s, world.secret, false));
	sbx_scopeattr_destroy(&s);
	return NULL;
}

START_TEST(test_thread_own_fd_table)
{
	struct own_table ot = { -1, NULL };
	pthread_t th;

	REQUIRE_LANDLOCK();
	ot.decoy_fd = open(world.mine, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(ot.decoy_fd, 0);
	ck_assert_int_eq(pthread_create(&th, NULL, in_own_fd_table, &ot), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_msg(ot.verdict, "the thread could not unshare its descriptor table");
	ck_assert_str_eq(ot.verdict, "EACCES");
	free((char *)ot.verdict);
	close(ot.decoy_fd);
}
END_TEST

/* ---- 5: stacking filesystems are second names ---------------------------- */

START_TEST(test_overlay_second_name)
{
	sbx_scopeattr_t s;
	char opts[16384], upper[4096], work[4096], merged[4096], granted[4096];

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	snprintf(upper, sizeof(upper), "%s/upper", world.top);
	snprintf(work, sizeof(work), "%s/work", world.top);
	snprintf(merged, sizeof(merged), "%s/merged", world.projects);
	snprintf(granted, sizeof(granted), "%s/merged", world.mine);
	mkdir(upper, 0755);
	mkdir(work, 0755);
	mkdir(merged, 0755);
	mkdir(granted, 0755);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", world.other, upper, work);
	if (mount("overlay", merged, "overlay", 0, opts)) {
		say_skip("SKIP %s: no overlay here (%s)\n", __func__, strerror(errno));
		return;
	}
	/* Its lower directory denied: the merged view, an entry of an
	 * expanded directory, is not granted. */
	scope_deny(&s, world.other);
	ck_assert_str_eq(reads(&s, join(merged, "secret"), false), "EACCES");
	ck_assert_int_ge(seen.alias, 1);
	sbx_scopeattr_destroy(&s);
	umount(merged);

	/* Mounted inside a granted directory it stays readable, the
	 * documented limit, and the compile names it. */
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", world.other, upper, work);
	ck_assert_int_eq(mount("overlay", granted, "overlay", 0, opts), 0);
	memset(&seen, 0, sizeof(seen));
	scope_deny(&s, world.other);
	ck_assert_str_eq(reads(&s, join(granted, "secret"), true), "ok");
	ck_assert_int_ge(seen.alias, 1);
	ck_assert_str_eq(seen.alias_path2, granted);
	sbx_scopeattr_destroy(&s);
	umount(granted);
}
END_TEST

/* The mount table keeps a layer's path as the mounter wrote it: relative
 * to its working directory, or through a symlink that may point elsewhere
 * by now.  Such layers cannot be placed: in an expanded directory the
 * merged view is not granted; beneath a granted one, one line says it. */
START_TEST(test_overlay_layers_misnamed)
{
	sbx_scopeattr_t s;
	char opts[16384], upper[4096], work[4096], merged[4096], granted[4096], link[4096];
	char cwd[4096];

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	snprintf(upper, sizeof(upper), "%s/upper", world.top);
	snprintf(work, sizeof(work), "%s/work", world.top);
	snprintf(merged, sizeof(merged), "%s/merged", world.projects);
	snprintf(granted, sizeof(granted), "%s/merged", world.mine);
	snprintf(link, sizeof(link), "%s/to-other", world.top);
	mkdir(upper, 0755);
	mkdir(work, 0755);
	mkdir(merged, 0755);
	mkdir(granted, 0755);
	ck_assert_int_eq(symlink(world.other, link), 0);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	for (int named = 0; named < 2; named++) {
		/* Through a symlink, then relative to the projects directory. */
		ck_assert_int_eq(chdir(world.projects), 0);
		snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s",
		         named ? "other" : link, upper, work);
		if (mount("overlay", merged, "overlay", 0, opts)) {
			say_skip("SKIP %s: no overlay here (%s)\n", __func__, strerror(errno));
			ck_assert_int_eq(chdir(cwd), 0);
			return;
		}
		ck_assert_int_eq(chdir(cwd), 0);
		memset(&seen, 0, sizeof(seen));
		scope_deny(&s, world.other);
		ck_assert_str_eq(reads(&s, join(merged, "secret"), false), "EACCES");
		ck_assert_int_ge(seen.dropped, 1);
		sbx_scopeattr_destroy(&s);
		umount(merged);

		ck_assert_int_eq(chdir(world.projects), 0);
		ck_assert_int_eq(mount("overlay", granted, "overlay", 0, opts), 0);
		ck_assert_int_eq(chdir(cwd), 0);
		memset(&seen, 0, sizeof(seen));
		scope_deny(&s, world.other);
		ck_assert_str_eq(reads(&s, join(granted, "secret"), true), "ok");
		ck_assert_int_eq(seen.alias, 1);
		ck_assert_str_eq(seen.alias_path2, granted);
		sbx_scopeattr_destroy(&s);
		umount(granted);
	}
	unlink(link);
}
END_TEST

TCase *tcase_escape_world(void)
{
	TCase *tc = tcase_create("world");

	untimed(tc);
	tcase_add_checked_fixture(tc, world_setup, world_teardown);
	tcase_add_test(tc, test_denied_symlink_repointed);
	tcase_add_test(tc, test_allowed_symlink_repointed);
	tcase_add_test(tc, test_planted_symlink_next_scope);
	tcase_add_test(tc, test_planted_symlink_strict);
	tcase_add_test(tc, test_symlink_into_denial_forms);
	tcase_add_test(tc, test_symlink_that_widens_nothing);
	tcase_add_test(tc, test_thread_mount_namespace);
	tcase_add_test(tc, test_thread_own_fd_table);
	tcase_add_test(tc, test_overlay_second_name);
	tcase_add_test(tc, test_overlay_layers_misnamed);
	world_renames_tests(tc);
	return tc;
}
