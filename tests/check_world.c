/* SPDX-License-Identifier: MIT */
/* The escape suite, continued: attacks that come from the world around the
 * confined child, or that a child prepares for the next spawn.  Renames
 * between listing and opening, renames after a compile, symlinks a child
 * re-points, mounts in one thread's namespace, overlays, coarse timestamps.
 * Each runs on the real kernel; a test failing with "ESCAPE" is a way in
 * that the library claims is closed. */
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
#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define SECRET "the-secret"

static struct tree t;

/* What the logger saw, and one thing to do when a directory is listed. */
static struct {
	int alias, dropped, expand;
	int ignored_link;               /* SBX_EVENT_IGNORED_LINK, the last one's paths: */
	char link_path[4096], link_path2[4096];
	int listed;                     /* EXPAND events of `watched' */
	const char *watched;
	char alias_path2[4096];
	const char *when;               /* on the EXPAND event of this directory */
	void (*then)(void);
} seen;

static void logger(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind == SBX_EVENT_ALIAS) {
		seen.alias++;
		snprintf(seen.alias_path2, sizeof(seen.alias_path2), "%s", ev->path2 ? ev->path2 : "");
	}
	if (ev->kind == SBX_EVENT_IGNORED_LINK) {
		seen.ignored_link++;
		snprintf(seen.link_path, sizeof(seen.link_path), "%s", ev->path);
		snprintf(seen.link_path2, sizeof(seen.link_path2), "%s", ev->path2);
	}
	seen.dropped += ev->kind == SBX_EVENT_DROPPED;
	seen.expand += ev->kind == SBX_EVENT_EXPAND;
	seen.listed += ev->kind == SBX_EVENT_EXPAND && seen.watched && !strcmp(ev->path, seen.watched);
	if (ev->kind == SBX_EVENT_EXPAND && seen.when && !strcmp(ev->path, seen.when) && seen.then) {
		seen.then();
		seen.then = NULL;
	}
}

static void setup(void)
{
	memset(&seen, 0, sizeof(seen));
	tree_make(&t);
}

static void teardown(void)
{
	tree_free(&t);
}

/* The expanded way: these are the compile's races and reuses, against the
 * directories it lists (check_hide.c holds the hidden way's). */
static void scope_deny(sbx_scopeattr_t *s, const char *path)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	sbx_scopeattr_setlogger(s, logger, NULL);
	if (path)
		ck_assert_int_eq(sbx_scopeattr_adddeny(s, path), 0);
	expand_way(s);
}

/* Reads path under scope: the child's verdict line ("ok", "EACCES", ...).
 * Unless the road is a documented limit, the secret is never in it. */
static const char *does(const sbx_scopeattr_t *s, const char *op, const char *path, bool may_leak)
{
	static char verdict[64];
	char *argv[] = { FSOP, (char *)op, (char *)path, NULL }, *out = NULL, *nl;
	int status = run_scoped(s, argv, &out);

	ck_assert_msg(status > -1000, "the spawn failed: %s", sbx_strerror(-1000 - status));
	ck_assert_msg(may_leak || !strstr(out, SECRET), "ESCAPE: %s read the secret:\n%s", path, out);
	nl = strrchr(out, '\n');
	if (nl && !nl[1]) {
		*nl = '\0';
		nl = strrchr(out, '\n');
	}
	snprintf(verdict, sizeof(verdict), "%s", nl ? nl + 1 : out);
	free(out);
	return verdict;
}

static const char *reads(const sbx_scopeattr_t *s, const char *path, bool may_leak)
{
	return does(s, "read", path, may_leak);
}

/* A shell command run under scope, for what a confined child does. */
static int child_sh(const sbx_scopeattr_t *s, const char *cmd)
{
	char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };

	return run_scoped(s, argv, NULL);
}

/* ---- 3: what a confined child does never changes a later spawn ---------- */

/* A denied path that is a symlink in a granted directory: the child may
 * re-point it, and the next spawn with the same scope still denies what it
 * named when it was added. */
START_TEST(test_denied_symlink_repointed)
{
	sbx_scopeattr_t s;
	char *link = (char *)join(t.mine, "dlink"), decoy[4096], cmd[8192];

	REQUIRE_LANDLOCK();
	snprintf(decoy, sizeof(decoy), "%s/decoy", t.mine);
	mkdir(decoy, 0755);
	ck_assert_int_eq(symlink(t.third, link), 0);
	scope_deny(&s, link);
	ck_assert_str_eq(reads(&s, join(t.third, "file"), false), "EACCES");
	snprintf(cmd, sizeof(cmd), "rm -f %s && ln -s %s %s", link, decoy, link);
	ck_assert_int_eq(child_sh(&s, cmd), 0);
	ck_assert_str_eq(reads(&s, join(t.third, "file"), false), "EACCES");
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
	char *link = (char *)join(t.mine, "alink"), pub[4096], cmd[8192];

	REQUIRE_LANDLOCK();
	snprintf(pub, sizeof(pub), "%s/pub", t.other);
	mkdir(pub, 0755);
	write_file(join(pub, "x"), "public\n", 0644);
	ck_assert_int_eq(symlink(pub, link), 0);
	scope_deny(&s, t.other);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, pub), 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, link), 0);
	ck_assert_str_eq(reads(&s, join(pub, "x"), false), "ok");
	ck_assert_str_eq(reads(&s, t.secret, false), "EACCES");
	snprintf(cmd, sizeof(cmd), "rm -f %s && ln -s %s %s", link, t.other, link);
	ck_assert_int_eq(child_sh(&s, cmd), 0);
	ck_assert_str_eq(reads(&s, t.secret, false), "EACCES");
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
	scope_deny(s, t.projects);
	ck_assert_int_eq(sbx_scopeattr_addallow(s, t.mine), 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(s, cache), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(s, flags | SBX_SCOPE_EXPAND), 0);
}

static const char *scratch(const char *name)
{
	static char path[2][4096];
	static int i;

	mkdir(join(t.top, "scratch"), 0755);
	i = !i;
	snprintf(path[i], sizeof(path[i]), "%s/scratch/%s", t.top, name);
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
	snprintf(cmd, sizeof(cmd), "ln -s %s %s", t.other, cache);
	ck_assert_int_eq(child_sh(&s, cmd), 0);
	ck_assert_str_eq(reads(&s, t.secret, false), "EACCES");
	ck_assert_int_eq(seen.ignored_link, 0);
	sbx_scopeattr_destroy(&s);

	scope_runs(&s, cache, 0);
	ck_assert_str_eq(reads(&s, t.secret, false), "EACCES");
	ck_assert_int_ge(seen.ignored_link, 1);
	ck_assert_str_eq(seen.link_path, cache);
	ck_assert_str_eq(seen.link_path2, t.other);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_NARROWED);
	for (unsigned i = 0; i < oc.dropped; i++)
		listed |= !strcmp(oc.dropped_paths[i], t.other);
	ck_assert_msg(listed, "%s not among the dropped paths", t.other);
	ck_assert_str_eq(reads(&s, join(cache, "secret"), false), "EACCES");
	/* What is re-admitted as written still is. */
	ck_assert_str_eq(reads(&s, join(t.mine, "file"), false), "ok");
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* Under SBX_SCOPE_STRICT such a scope is refused: nothing runs. */
START_TEST(test_planted_symlink_strict)
{
	sbx_scopeattr_t s;
	const char *cache = scratch("cache");
	char *argv[] = { FSOP, "read", t.secret, NULL }, *out = NULL;

	REQUIRE_LANDLOCK();
	ck_assert_int_eq(symlink(t.other, cache), 0);
	scope_runs(&s, cache, SBX_SCOPE_STRICT);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), EINVAL);
	ck_assert_int_eq(seen.ignored_link, 1);
	ck_assert_int_eq(run_scoped(&s, argv, &out), -1000 - EINVAL);
	ck_assert_int_eq(seen.ignored_link, 2);
	ck_assert_str_eq(seen.link_path, cache);
	ck_assert_str_eq(seen.link_path2, t.other);
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
	ck_assert_int_eq(first ? add(&s, path) : sbx_scopeattr_adddeny(&s, t.projects), 0);
	ck_assert_int_eq(first ? sbx_scopeattr_adddeny(&s, t.projects) : add(&s, path), 0);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	ck_assert_str_eq(reads(&s, t.secret, false), "EACCES");
	ck_assert_msg(seen.ignored_link == 1, "%s: %d events", path, seen.ignored_link);
	ck_assert_str_eq(seen.link_path, path);
	ck_assert_str_eq(seen.link_path2, t.other);
	sbx_scopeattr_destroy(&s);
}

/* The symlink as the last component, in one on the way, relative, a
 * chain of them; a re-admission or a read-only path. */
START_TEST(test_symlink_into_denial_forms)
{
	REQUIRE_LANDLOCK();
	ck_assert_int_eq(symlink(t.other, scratch("last")), 0);
	left_out(scratch("last"), false, false);
	left_out(scratch("last"), false, true);
	left_out(scratch("last"), true, false);
	ck_assert_int_eq(symlink(t.projects, scratch("way")), 0);
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
	snprintf(outside, sizeof(outside), "%s/outside", t.top);
	mkdir(outside, 0755);
	write_file(join(outside, "f"), "outside\n", 0644);
	ck_assert_int_eq(symlink(outside, scratch("out")), 0);
	ck_assert_int_eq(symlink(t.other, scratch("in")), 0);
	ck_assert_int_eq(symlink(t.secret, scratch("sec")), 0);

	scope_deny(&s, t.projects);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, scratch("out")), 0);
	ck_assert_str_eq(reads(&s, join(outside, "f"), false), "ok");
	ck_assert_str_eq(does(&s, "write", join(outside, "f"), false), "EACCES");
	sbx_scopeattr_destroy(&s);

	scope_deny(&s, t.projects);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, scratch("in")), 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, t.other), 0);
	ck_assert_str_eq(reads(&s, t.secret, true), "ok");
	sbx_scopeattr_destroy(&s);

	scope_deny(&s, t.projects);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, t.other), 0);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, scratch("sec")), 0);
	ck_assert_str_eq(reads(&s, t.secret, true), "ok");
	ck_assert_str_eq(does(&s, "write", t.secret, true), "EACCES");
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(seen.ignored_link, 0);

	scope_deny(&s, t.projects);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, t.other), 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, scratch("in")), 0);
	ck_assert_str_eq(reads(&s, t.secret, true), "ok");
	ck_assert_str_eq(does(&s, "write", t.secret, true), "EACCES");
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
	char *alias = (char *)join(t.projects, "alias");
	sbx_scopeattr_t s;

	/* This thread alone: the rest of the process keeps the old table,
	 * which /proc/self/mountinfo (the thread-group leader's) shows. */
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount(t.other, alias, NULL, MS_BIND, NULL))
		return NULL;
	scope_deny(&s, t.other);
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
	mkdir(join(t.projects, "alias"), 0755);
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
	scope_deny(&s, t.other); /* opened at decoy_fd in this table alone */
	ot->verdict = strdup(reads(&s, t.secret, false));
	sbx_scopeattr_destroy(&s);
	return NULL;
}

START_TEST(test_thread_own_fd_table)
{
	struct own_table ot = { -1, NULL };
	pthread_t th;

	REQUIRE_LANDLOCK();
	ot.decoy_fd = open(t.mine, O_PATH | O_DIRECTORY | O_CLOEXEC);
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
	snprintf(upper, sizeof(upper), "%s/upper", t.top);
	snprintf(work, sizeof(work), "%s/work", t.top);
	snprintf(merged, sizeof(merged), "%s/merged", t.projects);
	snprintf(granted, sizeof(granted), "%s/merged", t.mine);
	mkdir(upper, 0755);
	mkdir(work, 0755);
	mkdir(merged, 0755);
	mkdir(granted, 0755);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", t.other, upper, work);
	if (mount("overlay", merged, "overlay", 0, opts)) {
		say_skip("SKIP %s: no overlay here (%s)\n", __func__, strerror(errno));
		return;
	}
	/* Its lower directory denied: the merged view, an entry of an
	 * expanded directory, is not granted. */
	scope_deny(&s, t.other);
	ck_assert_str_eq(reads(&s, join(merged, "secret"), false), "EACCES");
	ck_assert_int_ge(seen.alias, 1);
	sbx_scopeattr_destroy(&s);
	umount(merged);

	/* Mounted inside a granted directory it stays readable, the
	 * documented limit, and the compile names it. */
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", t.other, upper, work);
	ck_assert_int_eq(mount("overlay", granted, "overlay", 0, opts), 0);
	memset(&seen, 0, sizeof(seen));
	scope_deny(&s, t.other);
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
	snprintf(upper, sizeof(upper), "%s/upper", t.top);
	snprintf(work, sizeof(work), "%s/work", t.top);
	snprintf(merged, sizeof(merged), "%s/merged", t.projects);
	snprintf(granted, sizeof(granted), "%s/merged", t.mine);
	snprintf(link, sizeof(link), "%s/to-other", t.top);
	mkdir(upper, 0755);
	mkdir(work, 0755);
	mkdir(merged, 0755);
	mkdir(granted, 0755);
	ck_assert_int_eq(symlink(t.other, link), 0);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	for (int named = 0; named < 2; named++) {
		/* Through a symlink, then relative to the projects directory. */
		ck_assert_int_eq(chdir(t.projects), 0);
		snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s",
		         named ? "other" : link, upper, work);
		if (mount("overlay", merged, "overlay", 0, opts)) {
			say_skip("SKIP %s: no overlay here (%s)\n", __func__, strerror(errno));
			ck_assert_int_eq(chdir(cwd), 0);
			return;
		}
		ck_assert_int_eq(chdir(cwd), 0);
		memset(&seen, 0, sizeof(seen));
		scope_deny(&s, t.other);
		ck_assert_str_eq(reads(&s, join(merged, "secret"), false), "EACCES");
		ck_assert_int_ge(seen.dropped, 1);
		sbx_scopeattr_destroy(&s);
		umount(merged);

		ck_assert_int_eq(chdir(t.projects), 0);
		ck_assert_int_eq(mount("overlay", granted, "overlay", 0, opts), 0);
		ck_assert_int_eq(chdir(cwd), 0);
		memset(&seen, 0, sizeof(seen));
		scope_deny(&s, t.other);
		ck_assert_str_eq(reads(&s, join(granted, "secret"), true), "ok");
		ck_assert_int_eq(seen.alias, 1);
		ck_assert_str_eq(seen.alias_path2, granted);
		sbx_scopeattr_destroy(&s);
		umount(granted);
	}
	unlink(link);
}
END_TEST

/* ---- 6: renames between listing and opening ------------------------------ */

static void exchange_dirs(void)
{
	ck_assert_int_eq(syscall(SYS_renameat2, AT_FDCWD, t.third, AT_FDCWD, t.other, 2 /* EXCHANGE */), 0);
}

static void exchange_files(void)
{
	ck_assert_int_eq(syscall(SYS_renameat2, AT_FDCWD, join(t.projects, "README"), AT_FDCWD,
	                         t.secret, 2 /* EXCHANGE */), 0);
}

/* Another process swaps a granted directory and the denied one while the
 * compile has listed their parent and not yet opened them: the name the
 * listing granted now names the denied inode, which must not be granted. */
START_TEST(test_exchange_during_compile)
{
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	scope_deny(&s, t.other);
	seen.when = t.projects;
	seen.then = exchange_dirs;
	ck_assert_str_eq(reads(&s, join(t.third, "secret"), false), "EACCES");
	ck_assert_int_ge(seen.dropped, 1);
	sbx_scopeattr_destroy(&s);
	exchange_dirs();

	/* A file deep inside the denial swapped with a granted file. */
	memset(&seen, 0, sizeof(seen));
	scope_deny(&s, t.other);
	seen.when = t.projects;
	seen.then = exchange_files;
	ck_assert_str_eq(reads(&s, join(t.projects, "README"), false), "EACCES");
	sbx_scopeattr_destroy(&s);
	exchange_files();
}
END_TEST

/* ---- 7: renames after a compile ------------------------------------------ */

/* An atomic save onto a denied name: a file granted at the compile, filled
 * and renamed over the denied file afterwards.  A snapshot, too, notices
 * that the denied name names another inode, and compiles again. */
START_TEST(test_snapshot_atomic_save)
{
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	char *saved = (char *)join(t.projects, "key.txt"), *tmp = (char *)join(t.projects, "key.txt.tmp");

	REQUIRE_LANDLOCK();
	write_file(saved, "old\n", 0644);
	write_file(tmp, "", 0644);
	scope_deny(&s, saved);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	ck_assert_str_eq(reads(&s, saved, false), "EACCES");
	write_file(tmp, SECRET "\n", 0644);
	ck_assert_int_eq(rename(tmp, saved), 0);
	ck_assert_str_eq(reads(&s, saved, false), "EACCES");
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_CONFINED);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A granted directory moved beneath the denial after a snapshot: its grant
 * went with its inode, and must not go with it into the denial. */
START_TEST(test_snapshot_granted_moved_in)
{
	sbx_scopeattr_t s;
	char *moved = (char *)join(t.other, "third");

	REQUIRE_LANDLOCK();
	write_file(join(t.third, "data"), SECRET "\n", 0644);
	scope_deny(&s, t.other);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	ck_assert_int_eq(rename(t.third, moved), 0);
	ck_assert_str_eq(reads(&s, join(moved, "data"), false), "EACCES");
	ck_assert_int_eq(rename(moved, t.third), 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A move in two steps, as maildir delivery and link-based moves make it:
 * a granted file linked into the denial, then its granted name unlinked.
 * The rule went with the inode, which now has a name beneath the denial
 * alone; the kernel reports an unlink, which proves nothing while the
 * inode has a name left.  Before the unlink, the child reaches the inode
 * by both names: the documented second name of a file it holds already. */
static void link_then_unlink(bool snapshot)
{
	sbx_scopeattr_t s;
	char *granted = (char *)join(t.projects, "notes"), *moved = (char *)join(t.other, "notes");
	char cmd[16384];

	write_file(granted, SECRET "\n", 0644);
	/* Older than a compile can tell a change by its time from (50 ms):
	 * else the next spawn lists projects again, finds the file's second
	 * name, compiles anew and grants it no more, and whether it does
	 * depends on how fast the machine got from here to the compile. */
	usleep(200 * 1000);
	scope_deny(&s, t.other);
	if (snapshot)
		ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	ck_assert_str_eq(reads(&s, granted, true), "ok");
	ck_assert_int_eq(link(granted, moved), 0);
	ck_assert_str_eq(reads(&s, moved, true), "ok");
	ck_assert_int_eq(unlink(granted), 0);
	ck_assert_str_eq(reads(&s, moved, false), "EACCES");
	snprintf(cmd, sizeof(cmd), "%s write %s", FSOP, moved);
	ck_assert_int_eq(child_sh(&s, cmd), 1);
	sbx_scopeattr_destroy(&s);
}

START_TEST(test_linked_into_denial_then_unlinked)
{
	REQUIRE_LANDLOCK();
	link_then_unlink(false);
}
END_TEST

START_TEST(test_snapshot_linked_into_denial_then_unlinked)
{
	REQUIRE_LANDLOCK();
	link_then_unlink(true);
}
END_TEST

/* Whether a spawn after a granted file of the projects directory was
 * unlinked compiled again (the root listed anew). */
static bool unlink_compiles(const char *name)
{
	sbx_scopeattr_t s;
	char *granted = (char *)join(t.projects, name);
	int before;

	write_file(granted, "gone soon\n", 0644);
	scope_deny(&s, t.other);
	seen.watched = "/";
	/* A scope's first compile at a spawn watches nothing: the one read
	 * from here is its second (the scope changed in between). */
	ck_assert_str_eq(reads(&s, granted, true), "ok");
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_LISTABLE | SBX_SCOPE_EXPAND), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, 0 | SBX_SCOPE_EXPAND), 0);
	ck_assert_str_eq(reads(&s, granted, true), "ok");
	before = seen.listed;
	ck_assert_int_eq(unlink(granted), 0);
	ck_assert_str_eq(reads(&s, join(t.third, "file"), true), "ok");
	sbx_scopeattr_destroy(&s);
	return seen.listed != before;
}

/* Where file handles cannot be opened (CAP_DAC_READ_SEARCH, which root
 * has), nothing proves an unlinked grant nameless: the move in two steps
 * is caught by a new compile, and so is every unlink of a grant. */
START_TEST(test_linked_away_without_handles)
{
	struct __user_cap_header_struct head = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	pid_t pid;

	REQUIRE_LANDLOCK();
	/* With file handles (root), a plain unlink is told from a move. */
	if (geteuid() == 0)
		ck_assert(!unlink_compiles("tmp1"));
	else
		say_skip("SKIP %s (a plain unlink told from a move): this caller cannot open file "
		         "handles (no CAP_DAC_READ_SEARCH); the part without them runs\n", __func__);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (syscall(SYS_capget, &head, data))
			_exit(2);
		data[0].effective &= ~(UINT32_C(1) << CAP_DAC_READ_SEARCH);
		data[0].permitted &= ~(UINT32_C(1) << CAP_DAC_READ_SEARCH);
		if (syscall(SYS_capset, &head, data))
			_exit(2);
		link_then_unlink(false);
		ck_assert(unlink_compiles("tmp2"));
		_exit(0);
	}
	ck_assert_int_eq(wait_status(pid), 0);
}
END_TEST

/* ---- 8: coarse timestamps ----------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The one-minute load average, for a SKIP line. */
static double load_average(void)
{
	double load = -1;
	FILE *f = fopen("/proc/loadavg", "re");

	if (f) {
		if (fscanf(f, "%lf", &load) != 1)
			load = -1;
		fclose(f);
	}
	return load;
}

/* An ext4 with 128-byte inodes keeps whole seconds: a directory changed
 * twice within one second keeps its stamp.  A compile between the two
 * changes must not be reused as if nothing had changed. */
START_TEST(test_coarse_timestamps)
{
	sbx_scopeattr_t s;
	char img[4096], fs[4096], cmd[16384], d[4096], x[4096], secret[4096];
	bool tried = false;

	REQUIRE_LANDLOCK();
	switch (private_mounts(__func__)) {
	case MOUNT_NS_NONE:
		return;
	case MOUNT_NS_USER:
		/* ext4 cannot be mounted in a user namespace, nor a loop
		 * device set up there. */
		say_skip("SKIP %s: loop-mounting an ext4 image needs CAP_SYS_ADMIN in the "
		        "initial user namespace (real root); a user namespace of its own is all "
		        "there is here\n", __func__);
		return;
	case MOUNT_NS_PLAIN:
		break;
	}
	snprintf(img, sizeof(img), "%s/coarse.img", t.top);
	snprintf(fs, sizeof(fs), "%s/fs", t.top);
	mkdir(fs, 0755);
	snprintf(cmd, sizeof(cmd),
	         "PATH=/usr/sbin:/sbin:$PATH; "
	         "truncate -s 16M %s && mkfs.ext4 -q -I 128 -F %s >/dev/null 2>&1 && mount -o loop %s %s",
	         img, img, img, fs);
	if (system(cmd) != 0) {
		say_skip("SKIP %s: cannot make and loop-mount an ext4 (e2fsprogs, loop devices)\n",
		        __func__);
		return;
	}
	snprintf(d, sizeof(d), "%s/d", fs);
	snprintf(x, sizeof(x), "%s/x", d);
	snprintf(secret, sizeof(secret), "%s/secret", d);
	mkdir(d, 0755);
	mkdir(x, 0755);
	mkdir(secret, 0755);
	write_file(join(x, "f"), "x-data\n", 0644);
	write_file(join(secret, "f"), SECRET "\n", 0644);
	scope_deny(&s, secret);
	/* Reuse works here at all: once d's times are older than the
	 * filesystem can tell apart, a spawn takes the compile as it is,
	 * without listing d again (else what follows proves nothing). */
	seen.watched = d;
	ck_assert_str_eq(reads(&s, join(x, "f"), false), "ok");
	ck_assert_int_eq(seen.listed, 1);
	sleep(4);
	/* Listed once more, its times then trusted (a few tries: what other
	 * processes do in /var/tmp meanwhile may make a spawn compile anew). */
	bool clean = false;
	for (int i = 0; i < 6 && !clean; i++) {
		int before = seen.listed;

		ck_assert_str_eq(reads(&s, join(x, "f"), false), "ok");
		clean = i > 0 && seen.listed == before;
	}
	ck_assert_msg(clean, "no spawn took the compile without listing %s again", d);
	for (int i = 0; i < 20 && !tried; i++) {
		double start = now_s(), frac = start - (long)start;

		if (frac < 0.05 || frac > 0.35) {
			usleep((useconds_t)((frac < 0.05 ? 0.05 - frac : 1.05 - frac) * 1e6));
			continue;
		}
		/* One second: a change, a compile, a swap. */
		write_file(join(d, "tick"), "", 0644);
		unlink(join(d, "tick"));
		ck_assert_str_eq(reads(&s, join(x, "f"), false), "ok");
		ck_assert_int_eq(syscall(SYS_renameat2, AT_FDCWD, x, AT_FDCWD, secret, 2), 0);
		if ((long)now_s() == (long)start) {
			tried = true;
			/* The denied name now names the inode the compile granted
			 * as x: reusing that compile would read it. */
			ck_assert_str_eq(reads(&s, join(secret, "f"), false), "EACCES");
		}
		ck_assert_int_eq(syscall(SYS_renameat2, AT_FDCWD, x, AT_FDCWD, secret, 2), 0);
		sleep(1);
	}
	/* Whether a compile and a swap fit in one second is the machine's
	 * load, not the library: where none did, the test says so. */
	if (!tried)
		say_skip("SKIP %s: never fit a compile and a swap into one second in 20 tries "
		        "(load %.2f): the race was not tried\n", __func__, load_average());
	sbx_scopeattr_destroy(&s);
	umount2(fs, MNT_DETACH);
}
END_TEST

/* ---- 9: an unrelated re-admission silences no warning -------------------- */

START_TEST(test_alias_warning_stays)
{
	sbx_scopeattr_t s;
	char *view = (char *)join(t.mine, "view");

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	mkdir(view, 0755);
	ck_assert_int_eq(mount(t.other, view, NULL, MS_BIND, NULL), 0);
	scope_deny(&s, t.other);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, join(t.mine, "unrelated")), 0);
	/* The documented limit: a second name in a granted directory reads
	 * it; the warning must say so, whatever else the scope re-admits. */
	ck_assert_str_eq(reads(&s, join(view, "secret"), true), "ok");
	ck_assert_int_ge(seen.alias, 1);
	ck_assert_str_eq(seen.alias_path2, view);
	sbx_scopeattr_destroy(&s);
	umount(view);
}
END_TEST

TCase *tcase_escape_world(void)
{
	TCase *tc = tcase_create("world");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
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
	tcase_add_test(tc, test_exchange_during_compile);
	tcase_add_test(tc, test_snapshot_atomic_save);
	tcase_add_test(tc, test_snapshot_granted_moved_in);
	tcase_add_test(tc, test_linked_into_denial_then_unlinked);
	tcase_add_test(tc, test_snapshot_linked_into_denial_then_unlinked);
	tcase_add_test(tc, test_linked_away_without_handles);
	tcase_add_test(tc, test_coarse_timestamps);
	tcase_add_test(tc, test_alias_warning_stays);
	return tc;
}
