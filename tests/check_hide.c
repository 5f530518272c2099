/* SPDX-License-Identifier: MIT */
/* Hidden denials: a denial covered in the child's own mount namespace,
 * nothing above it frozen, the Landlock domain on top as the lock.  Each
 * attack is first shown working without a scope (or against a cover with
 * no lock), then refused with one; what the child holds from before its
 * namespace makes the spawn expand instead; the ways are chosen as
 * documented; and the child differs from an expanded one only where
 * sbx_posix_spawn(3) says. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define ESCAPE HELPER_DIR "/escape"
#define LIFT HELPER_DIR "/lift"
#define NESTED HELPER_DIR "/nested"
#define SECRET "the-secret"
#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

static struct tree t;
/* A home directory of the test's own, its .ssh denied. */
static char home[4200], ssh[4300], key[4400];
static char said[4096]; /* the last SBX_EVENT_HIDING */

static void on_event(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind == SBX_EVENT_HIDING)
		snprintf(said, sizeof(said), "%s", ev->message);
}

static void setup(void)
{
	tree_make(&t);
	snprintf(home, sizeof(home), "%s/home", t.top);
	snprintf(ssh, sizeof(ssh), "%s/.ssh", home);
	snprintf(key, sizeof(key), "%s/id", ssh);
	ck_assert(mkdir(home, 0755) == 0 && mkdir(ssh, 0700) == 0);
	write_file(key, SECRET "\n", 0600);
	said[0] = '\0';
}

static void teardown(void)
{
	tree_free(&t);
}

static void scope_deny(sbx_scopeattr_t *s, const char *path, int flags)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	sbx_scopeattr_setlogger(s, on_event, NULL);
	ck_assert_int_eq(sbx_scopeattr_setflags(s, flags), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(s, path), 0);
}

/* argv under scope: its verdict (the last line), the whole output in *all
 * (malloc'd, may be NULL); never the secret, unless may_leak. */
static char *verdict_of(const sbx_scopeattr_t *s, char *const argv[], bool may_leak, char **all)
{
	static char v[256];
	char *out = NULL, *nl;
	int status = run_scoped(s, argv, &out);

	ck_assert_msg(status > -1000, "%s: the spawn failed: %s", argv[1], sbx_strerror(-1000 - status));
	ck_assert_msg(may_leak || !strstr(out, SECRET), "ESCAPE: %s %s read the secret:\n%s", argv[0],
	              argv[1], out);
	while ((nl = strrchr(out, '\n')) && !nl[1])
		*nl = '\0';
	nl = strrchr(out, '\n');
	snprintf(v, sizeof(v), "%s", nl ? nl + 1 : out);
	if (all)
		*all = out;
	else
		free(out);
	return v;
}

#define VERDICT(s, ...) verdict_of(s, ARGV(__VA_ARGS__), false, NULL)
/* Without a scope: it works (the positive control). */
#define WORKS(...) ck_assert_str_eq(verdict_of(NULL, ARGV(__VA_ARGS__), true, NULL), "ok")
/* With s: refused, by the cover or by Landlock. */
#define REFUSED(s, ...)                                                             \
	do {                                                                        \
		const char *v_ = VERDICT(s, __VA_ARGS__);                           \
		ck_assert_msg(denied_verdict(v_), "%s: %s, not a denial", #__VA_ARGS__, v_); \
	} while (0)

static void secret_intact(void)
{
	char buf[64] = "";
	int fd = open(key, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_gt(read(fd, buf, sizeof(buf) - 1), 0);
	close(fd);
	ck_assert_str_eq(buf, SECRET "\n");
}

static void outcome(unsigned hidden, unsigned expanded)
{
	sbx_outcome_t oc;

	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_msg(oc.hidden == hidden && oc.expanded == expanded,
	              "hidden %u, expanded %u; want %u, %u (%s)", oc.hidden, oc.expanded, hidden,
	              expanded, said);
}

static char *sh_in_home(const char *cmd)
{
	static char buf[16384];

	snprintf(buf, sizeof(buf), "HOME='%s'; cd \"$HOME\" && %s", home, cmd);
	return buf;
}

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
		/* Made again as it was, then attempted under the scope. */
		teardown();
		setup();
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
	if (geteuid() != 0) {
		say_skip("SKIP %s (the attacks against a cover with no lock): they need root\n", test);
		return false;
	}
	if (private_mounts(test) != MOUNT_NS_PLAIN)
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
	ck_assert_str_eq(verdict_of(NULL, ARGV(LIFT, "fanotify"), true, NULL), "ok");
	snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", (int)getppid()); /* the runner's, outside */
	ck_assert_str_eq(verdict_of(NULL, ARGV(LIFT, "setns-read", ns, key), true, NULL), "ok");
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

/* ---- 4. what the child holds from before its namespace ---------------------- */

struct extra {
	int kind; /* 0 none, 1 chdir, 2 open, 3 fchdir, 4 closefrom */
	const char *path;
	int fd;
};

/* argv under s, with the test's file action after the output's: the
 * verdict, as verdict_of. */
static const char *with_action(const sbx_scopeattr_t *s, struct extra x, char *const argv[],
                               bool may_leak)
{
	static char v[256];
	sbx_file_actions_t fa;
	int out = memfd_create("out", MFD_CLOEXEC), err, status;
	char *o, *nl;
	pid_t pid;

	sbx_file_actions_init(&fa);
	sbx_file_actions_adddup2(&fa, out, 1);
	sbx_file_actions_adddup2(&fa, out, 2);
	if (x.kind == 1)
		sbx_file_actions_addchdir(&fa, x.path);
	else if (x.kind == 2)
		sbx_file_actions_addopen(&fa, x.fd, x.path, O_RDONLY, 0);
	else if (x.kind == 3)
		sbx_file_actions_addfchdir(&fa, x.fd);
	else if (x.kind == 4)
		sbx_file_actions_addclosefrom(&fa, x.fd);
	err = sbx_posix_spawn(&pid, argv[0], &fa, NULL, s, argv, environ);
	sbx_file_actions_destroy(&fa);
	ck_assert_msg(!err, "the spawn failed: %s (%s)", sbx_strerror(err), said);
	status = wait_status(pid);
	(void)status;
	o = calloc(1, 65536);
	ck_assert_int_ge(pread(out, o, 65535, 0), 0);
	close(out);
	ck_assert_msg(may_leak || !strstr(o, SECRET), "ESCAPE: %s", o);
	while ((nl = strrchr(o, '\n')) && !nl[1])
		*nl = '\0';
	nl = strrchr(o, '\n');
	snprintf(v, sizeof(v), "%s", nl ? nl + 1 : o);
	free(o);
	return v;
}

START_TEST(test_hide_held_working_directory)
{
	sbx_scopeattr_t s;
	char here[4096];

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	scope_deny(&s, ssh, 0);
	/* A chdir action into the denial: expanded, and Landlock refuses. */
	ck_assert_str_eq(with_action(NULL, (struct extra){ 1, ssh, 0 }, ARGV(FSOP, "read", "id"), true),
	                 "ok");
	ck_assert_str_eq(with_action(&s, (struct extra){ 1, ssh, 0 }, ARGV(FSOP, "read", "id"), false),
	                 "EACCES");
	outcome(0, 1);
	ck_assert_ptr_nonnull(strstr(said, "the working directory"));
	/* The caller's own, there. */
	ck_assert_ptr_nonnull(getcwd(here, sizeof(here)));
	ck_assert_int_eq(chdir(ssh), 0);
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", "id"), "EACCES");
	outcome(0, 1);
	ck_assert_int_eq(chdir(here), 0);
	/* Above the denial it stays hidden: the lookup meets the cover. */
	REFUSED(&s, FSOP, "read", key);
	outcome(1, 0);
	ck_assert(denied_verdict(with_action(&s, (struct extra){ 1, home, 0 },
	                                     ARGV(FSOP, "read", ".ssh/id"), false)));
	outcome(1, 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

START_TEST(test_hide_held_descriptors)
{
	sbx_scopeattr_t s;
	char num[16], rel[4600];
	int dir;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	dir = open(t.top, O_RDONLY | O_DIRECTORY); /* left open past exec */
	ck_assert_int_ge(dir, 0);
	snprintf(num, sizeof(num), "%d", dir);
	snprintf(rel, sizeof(rel), "home/.ssh/id");
	/* The control: from the inherited directory, the key. */
	ck_assert_str_eq(verdict_of(NULL, ARGV(ESCAPE, "openat", num, rel), true, NULL), "ok");
	/* An inherited directory, anywhere (".." climbs from it): expanded. */
	scope_deny(&s, ssh, 0);
	ck_assert_str_eq(VERDICT(&s, ESCAPE, "openat", num, rel), "EACCES");
	outcome(0, 1);
	ck_assert_ptr_nonnull(strstr(said, "directory descriptor"));
	/* Closed by the file actions: hidden again. */
	REFUSED(&s, FSOP, "read", key);
	ck_assert(denied_verdict(with_action(&s, (struct extra){ 4, NULL, 3 },
	                                     ARGV(FSOP, "read", key), false)));
	outcome(1, 0);
	/* fchdir to one close-on-exec: the working directory names the
	 * caller's tree, expanded. */
	ck_assert_int_eq(fcntl(dir, F_SETFD, FD_CLOEXEC), 0);
	ck_assert_str_eq(with_action(&s, (struct extra){ 3, NULL, dir }, ARGV(FSOP, "read", rel),
	                             false), "EACCES");
	outcome(0, 1);
	/* A file in the denial opened by a file action: the child's, either
	 * way; the spawn expands, so that no reopen widens it. */
	ck_assert_str_eq(with_action(&s, (struct extra){ 2, key, 3 }, ARGV(ESCAPE, "fd-read", "3"), true),
	                 "ok");
	outcome(0, 1);
	sbx_scopeattr_destroy(&s);
	/* Demanded, hiding refuses the spawn that holds one. */
	ck_assert_int_eq(fcntl(dir, F_SETFD, 0), 0);
	scope_deny(&s, ssh, SBX_SCOPE_HIDE);
	ck_assert_int_eq(run_scoped(&s, ARGV(FSOP, "read", key), NULL), -1000 - EINVAL);
	ck_assert_ptr_nonnull(strstr(said, "SBX_SCOPE_HIDE: nothing runs"));
	sbx_scopeattr_destroy(&s);
	close(dir);
}
END_TEST

/* ---- 5. choosing the way ---------------------------------------------------- */

START_TEST(test_hide_ways)
{
	sbx_scopeattr_t s;
	char missing[4400], *out;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	snprintf(missing, sizeof(missing), "%s/missing", home);
	/* Forced either way. */
	scope_deny(&s, ssh, SBX_SCOPE_EXPAND);
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", key), "EACCES");
	outcome(0, 1);
	sbx_scopeattr_destroy(&s);
	scope_deny(&s, ssh, SBX_SCOPE_HIDE);
	REFUSED(&s, FSOP, "read", key);
	outcome(1, 0);
	/* A path that is not there: no cover sits on it; expanded by
	 * default, refused where hiding is demanded. */
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, missing), 0);
	ck_assert_int_eq(run_scoped(&s, ARGV(FSOP, "read", key), NULL), -1000 - EINVAL);
	ck_assert_ptr_nonnull(strstr(said, "does not exist"));
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, 0), 0);
	REFUSED(&s, FSOP, "read", key);
	outcome(1, 1);
	ck_assert_str_eq(VERDICT(&s, FSOP, "create", missing), "EACCES");
	sbx_scopeattr_destroy(&s);
	/* /proc, which the child reads to check what it holds: expanded. */
	scope_deny(&s, "/proc", 0);
	/* The verdict's line: a sanitizer of the helper's may say more after
	 * it, not finding /proc. */
	verdict_of(&s, ARGV(FSOP, "read", "/proc/self/status"), false, &out);
	ck_assert_msg(!strcmp(out, "EACCES") || !strncmp(out, "EACCES\n", 7) ||
	                      strstr(out, "\nEACCES\n"), "%s", out);
	free(out);
	outcome(0, 1);
	sbx_scopeattr_destroy(&s);
	/* Logged denials are Landlock's: expanded. */
	scope_deny(&s, ssh, SBX_SCOPE_LOG_DENIALS);
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", key), "EACCES");
	outcome(0, 1);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* Where no child can make its namespace (here: unshare(2) refused by a
 * filter, as a container's may): every spawn expands, said once; demanded,
 * hiding fails, at the compile too. */
START_TEST(test_hide_unavailable)
{
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	seccomp_fail(SYS_unshare, EPERM);
	scope_deny(&s, ssh, 0);
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", key), "EACCES");
	outcome(0, 1);
	ck_assert_msg(strstr(said, "unshare") || strstr(said, "mount namespace"), "%s", said);
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", key), "EACCES");
	outcome(0, 1);
	sbx_scopeattr_destroy(&s);
	scope_deny(&s, ssh, SBX_SCOPE_HIDE);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), EINVAL);
	ck_assert_int_eq(run_scoped(&s, ARGV(FSOP, "read", key), NULL), -1000 - EINVAL);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A second name of the denial (a bind mount made before the spawn): the
 * denial is expanded, and the second name, beneath a granted directory,
 * covered too. */
START_TEST(test_hide_second_name_covered)
{
	char alias[4400];
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__) || geteuid() != 0 || private_mounts(__func__) != MOUNT_NS_PLAIN) {
		if (geteuid() != 0)
			say_skip("SKIP %s: a bind mount needs root\n", __func__);
		return;
	}
	snprintf(alias, sizeof(alias), "%s/alias", t.mine);
	ck_assert_int_eq(mkdir(alias, 0755), 0);
	ck_assert_int_eq(mount(ssh, alias, NULL, MS_BIND, NULL), 0);
	WORKS(FSOP, "read", (char *)join(alias, "id"));
	scope_deny(&s, ssh, 0);
	REFUSED(&s, FSOP, "read", (char *)join(alias, "id"));
	REFUSED(&s, FSOP, "read", key);
	outcome(1, 1);
	ck_assert_ptr_nonnull(strstr(said, "another mount shows"));
	sbx_scopeattr_destroy(&s);
	umount2(alias, MNT_DETACH);
}
END_TEST

/* ---- 6. what the child sees differently --------------------------------------- */

START_TEST(test_hide_differences)
{
	char cmd[9000], *out, want[64];
	sbx_scopeattr_t s;
	pid_t pid;
	int fd = memfd_create("out", MFD_CLOEXEC);
	sbx_file_actions_t fa;
	char buf[64] = "";

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	scope_deny(&s, ssh, 0);
	/* The mount table shows the cover. */
	snprintf(cmd, sizeof(cmd), "grep -F ' %s ' /proc/self/mountinfo", ssh);
	verdict_of(&s, ARGV("/bin/sh", "-c", cmd), false, &out);
	ck_assert_msg(strstr(out, "tmpfs"), "%s", out);
	free(out);
	/* The ids: the child's own as the caller's; another user's, as
	 * root's files, shown as the overflow id inside a user namespace. */
	snprintf(want, sizeof(want), "%u %u %s", (unsigned)geteuid(), (unsigned)getegid(),
	         geteuid() ? "65534" : "0");
	ck_assert_str_eq(VERDICT(&s, "/bin/sh", "-c", "echo $(id -u) $(id -g) $(stat -c %u /)"), want);
	/* The pid is the one returned; a signal ends it as it would. */
	sbx_file_actions_init(&fa);
	sbx_file_actions_adddup2(&fa, fd, 1);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/sh", &fa, NULL, &s,
	                                 ARGV("sh", "-c", "echo $$; kill -TERM $$"), environ), 0);
	ck_assert_int_eq(wait_status(pid), SIGTERM);
	ck_assert_int_gt(pread(fd, buf, sizeof(buf) - 1, 0), 0);
	ck_assert_int_eq(atoi(buf), pid);
	sbx_file_actions_destroy(&fa);
	close(fd);
	outcome(1, 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A set-user-ID program gains nothing either way (no_new_privs). */
START_TEST(test_hide_setuid)
{
	char prog[4400], cmd[9000];
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (geteuid() != 0) {
		say_skip("SKIP %s: making a set-user-ID program of root's needs root\n", __func__);
		return;
	}
	if (!can_hide(__func__))
		return;
	snprintf(prog, sizeof(prog), "%s/id", t.top);
	snprintf(cmd, sizeof(cmd), "cp /usr/bin/id '%s' && chmod 4755 '%s'", prog, prog);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(chmod(t.top, 0755), 0);
	if (!nobody_can_run(prog, __func__, "as uid 65534"))
		return;
	for (int way = 0; way < 2; way++) {
		scope_deny(&s, ssh, way ? SBX_SCOPE_EXPAND : 0);
		ck_assert_int_eq(sbx_scopeattr_setids(&s, 65534, 65534), 0);
		ck_assert_str_eq(VERDICT(&s, prog, "-u"), "65534");
		outcome(way ? 0 : 1, way ? 1 : 0);
		sbx_scopeattr_destroy(&s);
	}
}
END_TEST

/* ---- 7. explained, nested ------------------------------------------------------ */

START_TEST(test_hide_explained)
{
	sbx_scopeattr_t s;
	sbx_explanation_t x;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	scope_deny(&s, ssh, 0);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, key, &x), 0);
	ck_assert_int_eq(x.reason, SBX_REASON_DENIED);
	ck_assert_int_eq(x.access, 0);
	ck_assert_msg(strstr(x.message, "hidden"), "%s", x.message);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, join(home, "new"), &x), 0);
	ck_assert_int_eq(x.reason, SBX_REASON_GRANTED);
	ck_assert(x.access & SBX_ACCESS_CREATE || !x.exists);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, home, &x), 0);
	ck_assert_msg(!(x.access & SBX_ACCESS_UNLINK) && (x.access & SBX_ACCESS_CREATE) &&
	                      strstr(x.message, "mount point"), "%s", x.message);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A scope inside a hidden one: its child cannot mount (the outer Landlock
 * domain), so it expands; nothing above the outer denial froze, so the
 * inner walk lists what it needs. */
START_TEST(test_hide_nested)
{
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	scope_deny(&s, ssh, 0);
	ck_assert_str_eq(VERDICT(&s, NESTED, "-d", t.other, FSOP, "read", (char *)join(t.mine, "file")),
	                 "ok");
	ck_assert_str_eq(VERDICT(&s, NESTED, "-d", t.other, FSOP, "read", t.secret), "EACCES");
	REFUSED(&s, NESTED, "-d", t.other, FSOP, "read", key);
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
	tcase_add_test(tc, test_hide_held_working_directory);
	tcase_add_test(tc, test_hide_held_descriptors);
	tcase_add_test(tc, test_hide_ways);
	tcase_add_test(tc, test_hide_unavailable);
	tcase_add_test(tc, test_hide_second_name_covered);
	tcase_add_test(tc, test_hide_differences);
	tcase_add_test(tc, test_hide_setuid);
	tcase_add_test(tc, test_hide_explained);
	tcase_add_test(tc, test_hide_nested);
	suite_add_tcase(su, tc);
	return su;
}
