/* SPDX-License-Identifier: MIT */
/* Channels that are not paths, as the inventory of sbxspawn(7) lists them:
 * set-user-ID programs and POSIX message queues, closed by default, and
 * System V IPC, not mediated: shown open to a confined child, so that the
 * page changes the day it closes, beside the remedy the page names. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <mqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define NUDGE HELPER_DIR "/nudge"

static void quiet(const sbx_event_t *event, void *arg)
{
	(void)event;
	(void)arg;
}

/* A scope denying a directory of its own, under uid and gid 65534 when
 * nobody is set: the remedy the inventory names for these channels. */
static void scope_for(sbx_scopeattr_t *s, const char *deny, bool nobody)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(s, deny), 0);
	sbx_scopeattr_setlogger(s, quiet, NULL);
	if (nobody)
		ck_assert_int_eq(sbx_scopeattr_setids(s, 65534, 65534), 0);
}

/* What fsop printed for op and arg under scope (its result and what it
 * read), malloc'd. */
static char *fsop(const sbx_scopeattr_t *s, const char *op, const char *arg)
{
	char *argv[] = { FSOP, (char *)op, (char *)arg, NULL }, *out = NULL;

	run_scoped(s, argv, &out);
	ck_assert_ptr_nonnull(out);
	return out;
}

static void assert_reads(char *out, const char *what)
{
	ck_assert_msg(strstr(out, "ok") && strstr(out, what), "expected %s read, got: %s", what, out);
	free(out);
}

static void assert_refused(char *out)
{
	ck_assert_msg((strstr(out, "EACCES") || (hidden_way() && strstr(out, "ENOENT"))) &&
	                      !strstr(out, "the-secret"),
	              "expected a denial, got: %s", out);
	free(out);
}

/* Not mediated: a System V segment of the caller's user is reachable by
 * key, whatever the scope; another uid closes it (mode 0600). */
START_TEST(test_limit_sysv_ipc)
{
	char *deny = make_tmpdir(), arg[32];
	sbx_scopeattr_t s;
	key_t key;
	int id = -1;
	char *p;

	REQUIRE_LANDLOCK();
	/* A key of this run's own: one a run that stopped before its
	 * IPC_RMID left (a failing test does, a mutation's run among them),
	 * under a pid now taken again, is passed over. */
	for (int i = 0; id < 0 && i < 256; i++) {
		key = (key_t)(0x5b000000 | ((getpid() ^ (i << 16)) & 0xffffff));
		id = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600);
		ck_assert_msg(id >= 0 || errno == EEXIST, "shmget: %s", strerror(errno));
	}
	ck_assert_int_ge(id, 0);
	p = shmat(id, NULL, 0);
	ck_assert_ptr_ne(p, (void *)-1);
	strcpy(p, "the-secret");
	snprintf(arg, sizeof(arg), "%#x", (unsigned)key);
	scope_for(&s, deny, false);
	assert_reads(fsop(&s, "sysv-shm", arg), "the-secret");
	sbx_scopeattr_destroy(&s);
	if (nobody_can_run(FSOP, __func__, "under another uid")) {
		scope_for(&s, deny, true);
		assert_refused(fsop(&s, "sysv-shm", arg));
		sbx_scopeattr_destroy(&s);
	}
	shmdt(p);
	shmctl(id, IPC_RMID, NULL);
	rm_rf(deny);
	free(deny);
}
END_TEST

/* Closed by default, twice: a POSIX message queue is opened by name, through
 * the kernel's own mount of the queues, which no rule grants, so a Landlock
 * domain that handles reading refuses it; and the seccomp filter refuses
 * mq_open(3) first where the scope names no mqueue mount (the caller's own
 * children, with no scope, read it).  Either alone keeps it closed: neither
 * mutation breaks this test (tests/mutations), and each layer is shown
 * alone by test_mqueue_mounts (Landlock: the queue by path) and
 * test_mqueue_by_name (the filter: an unlink no hook sees). */
/* A queue's name of this test's own: the pid and the clock, for a run
 * that stopped before its mq_unlink (a failing test does) leaves its
 * queue, maybe another user's, under a name a later pid would take. */
static void queue_name(char *out, size_t cap, const char *what)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	snprintf(out, cap, "/sbxtest-%s%ld-%lx", what, (long)getpid(),
	         (unsigned long)(t.tv_sec * 1000000000L + t.tv_nsec));
}

START_TEST(test_posix_mqueue_closed)
{
	struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = 64 };
	char *deny = make_tmpdir(), name[64];
	sbx_scopeattr_t s;
	mqd_t q;

	REQUIRE_LANDLOCK();
	queue_name(name, sizeof(name), "");
	q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
	if (q == (mqd_t)-1 && (errno == ENOSYS || errno == ENOENT)) {
		say_skip("SKIP %s: no POSIX message queues here (%s)\n", __func__,
		        strerror(errno));
		goto out;
	}
	ck_assert_int_ne(q, (mqd_t)-1);
	ck_assert_int_eq(mq_send(q, "the-secret", 10, 0), 0);
	assert_reads(fsop(NULL, "mqueue", name), "the-secret");
	ck_assert_int_eq(mq_send(q, "the-secret", 10, 0), 0);
	scope_for(&s, deny, false);
	assert_refused(fsop(&s, "mqueue", name));
	sbx_scopeattr_destroy(&s);
	mq_close(q);
	mq_unlink(name);
out:
	rm_rf(deny);
	free(deny);
}
END_TEST

/* The verdict of one act of the nudge helper under scope, its output in
 * *said (malloc'd). */
static const char *nudge(const sbx_scopeattr_t *s, const char *act, const char *arg, char **said)
{
	char *argv[] = { NUDGE, (char *)act, (char *)arg, NULL }, *nl;

	run_scoped(s, argv, said);
	ck_assert_ptr_nonnull(*said);
	while ((nl = strrchr(*said, '\n')) && !nl[1])
		*nl = '\0';
	return (nl = strrchr(*said, '\n')) ? nl + 1 : *said;
}

#define MQ_READS(scope, act, arg)                                                          \
	do {                                                                               \
		char *said_;                                                               \
		ck_assert_str_eq(nudge(scope, act, arg, &said_), "ok");                    \
		ck_assert_msg(strstr(said_, "message: the-secret"), "%s %s: %s", act, arg, said_); \
		free(said_);                                                               \
	} while (0)
#define MQ_REFUSED(scope, act, arg)                                                      \
	do {                                                                             \
		char *said_;                                                             \
		ck_assert(denied_verdict(nudge(scope, act, arg, &said_)));               \
		ck_assert_msg(!strstr(said_, "the-secret"), "%s %s: %s", act, arg, said_); \
		free(said_);                                                             \
	} while (0)

/* An mqueue filesystem mounted where a scope would grant it: in a directory
 * the compile lists (beside a denial), or inside a directory granted whole.
 * Its queues reached by path, or by mq_open(3) through the kernel's own
 * mount, which a grant of the same root opens: both closed (kernelfs.c),
 * unless the scope names the mount point. */
static void mqueue_at(const char *point, const char *deny, const char *name)
{
	char path[4300];
	sbx_scopeattr_t s;

	ck_assert_int_eq(mount("mqueue", point, "mqueue", 0, NULL), 0);
	snprintf(path, sizeof(path), "%s%s", point, name);
	/* The control: each road works without a scope. */
	MQ_READS(NULL, "mq-path", path);
	MQ_READS(NULL, "mq-open", name);
	scope_for(&s, deny, false);
	MQ_REFUSED(&s, "mq-path", path);
	MQ_REFUSED(&s, "mq-open", name);
	/* Named, it is the scope's own: a re-admitted mount grants its
	 * queues, by path and by name (the same root). */
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, point), 0);
	MQ_READS(&s, "mq-open", name);
	MQ_READS(&s, "mq-path", path);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(umount2(point, MNT_DETACH), 0);
}

/* A test's own queues (an IPC namespace of its own, in a mount namespace
 * of its own), a tree, and a queue holding the secret: false, said, where
 * they cannot be had. */
static bool queue_of_own(const char *test, struct tree *t, char *name, size_t cap, mqd_t *q)
{
	struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = 64 };

	if (private_mounts(test) == MOUNT_NS_NONE)
		return false;
	if (unshare(CLONE_NEWIPC)) {
		say_skip("SKIP %s: unshare(CLONE_NEWIPC): %s\n", test, strerror(errno));
		return false;
	}
	tree_make(t);
	queue_name(name, cap, "");
	*q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
	ck_assert_int_ne(*q, (mqd_t)-1);
	ck_assert_int_eq(mq_send(*q, "the-secret", 10, 0), 0);
	return true;
}

/* An mqueue filesystem mounted at point, or false, said. */
static bool mqueue_mounted(const char *test, const char *point)
{
	if (!mount("mqueue", point, "mqueue", 0, NULL))
		return true;
	say_skip("SKIP %s: mounting an mqueue filesystem: %s\n", test, strerror(errno));
	return false;
}

static void queue_free(struct tree *t, const char *name, mqd_t q)
{
	mq_close(q);
	mq_unlink(name);
	tree_free(t);
}

START_TEST(test_mqueue_mounts)
{
	char beside[4200], inside[4200], name[64];
	struct tree t;
	mqd_t q;

	REQUIRE_LANDLOCK();
	if (!queue_of_own(__func__, &t, name, sizeof(name), &q))
		return;
	snprintf(beside, sizeof(beside), "%s/mq", t.projects);
	snprintf(inside, sizeof(inside), "%s/mq", t.mine);
	ck_assert_int_eq(mkdir(beside, 0755), 0);
	ck_assert_int_eq(mkdir(inside, 0755), 0);
	if (mqueue_mounted(__func__, beside)) {
		ck_assert_int_eq(umount2(beside, MNT_DETACH), 0);
		mqueue_at(beside, t.other, name);
		mqueue_at(inside, t.other, name);
	}
	queue_free(&t, name, q);
}
END_TEST

/* An mqueue mount made after a scope's first spawn is closed to the next
 * as to a scope made after it: a scope that restricts no path (its only
 * denial one the library leaves out) is compiled again, not kept, for an
 * mqueue mount changes what it gives (kernelfs.c). */
START_TEST(test_mqueue_mounted_after_a_spawn)
{
	char point[4200], path[4300], name[64], *said;
	sbx_scopeattr_t s;
	struct tree t;
	mqd_t q;

	REQUIRE_LANDLOCK();
	if (!queue_of_own(__func__, &t, name, sizeof(name), &q))
		return;
	snprintf(point, sizeof(point), "%s/mq", t.mine);
	ck_assert_int_eq(mkdir(point, 0755), 0);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(&s, quiet, NULL), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/"), 0);
	nudge(&s, "mq-path", point, &said);
	free(said);
	if (mqueue_mounted(__func__, point)) {
		snprintf(path, sizeof(path), "%s%s", point, name);
		MQ_READS(NULL, "mq-path", path);
		MQ_REFUSED(&s, "mq-path", path);
		ck_assert_int_eq(umount2(point, MNT_DETACH), 0);
	}
	sbx_scopeattr_destroy(&s);
	queue_free(&t, name, q);
}
END_TEST

static bool queue_exists(const char *name)
{
	mqd_t q = mq_open(name, O_RDONLY);

	if (q == (mqd_t)-1) {
		ck_assert_msg(errno == ENOENT, "mq_open %s: %s", name, strerror(errno));
		return false;
	}
	mq_close(q);
	return true;
}

static void queue_make(const char *name)
{
	struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = 64 };
	mqd_t q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);

	ck_assert_msg(q != (mqd_t)-1, "mq_open %s: %s", name, strerror(errno));
	mq_close(q);
}

/* Queues by name, which no path rule sees: a child of the caller's user
 * removes the caller's queue (mq_unlink passes no Landlock hook) and makes
 * one in its name (mq_open makes the queue before the kernel's own mount
 * refuses the open).  Refused by the filter unless the scope names an
 * mqueue mount; named, they are the child's again.  In an IPC namespace of
 * the test's own where it may make one. */
START_TEST(test_mqueue_by_name)
{
	char name[64], planted[64], point[4200];
	enum mount_ns ns;
	sbx_scopeattr_t s;
	struct tree t;
	char *said;

	REQUIRE_LANDLOCK();
	/* Where no namespace can be made (a regular user), the names are the
	 * test's own all the same. */
	if (unshare(CLONE_NEWIPC))
		ck_assert_int_eq(errno, EPERM);
	queue_name(name, sizeof(name), "");
	queue_name(planted, sizeof(planted), "planted-");
	tree_make(&t);
	queue_make(name);
	/* The controls: both work without a scope. */
	ck_assert_str_eq(nudge(NULL, "mq-unlink", name, &said), "ok");
	free(said);
	ck_assert(!queue_exists(name));
	queue_make(name);
	ck_assert_str_eq(nudge(NULL, "mq-create", planted, &said), "ok");
	free(said);
	ck_assert(queue_exists(planted));
	ck_assert_int_eq(mq_unlink(planted), 0);
	/* Scoped: neither, and nothing made. */
	scope_for(&s, t.other, false);
	ck_assert_str_eq(nudge(&s, "mq-unlink", name, &said), "EACCES");
	free(said);
	ck_assert(queue_exists(name));
	ck_assert_str_eq(nudge(&s, "mq-create", planted, &said), "EACCES");
	free(said);
	ck_assert(!queue_exists(planted));
	/* An mqueue mount the scope names (not denied): the queues are the
	 * child's, by name too. */
	snprintf(point, sizeof(point), "%s/mq", t.mine);
	ck_assert_int_eq(mkdir(point, 0755), 0);
	/* In a user namespace, an mqueue filesystem is its IPC namespace's:
	 * one of the test's own, where the queue is made again. */
	ns = private_mounts(__func__);
	if (ns == MOUNT_NS_USER) {
		ck_assert_int_eq(mq_unlink(name), 0);
		ck_assert_int_eq(unshare(CLONE_NEWIPC), 0);
		queue_make(name);
	}
	if (ns == MOUNT_NS_NONE || mount("mqueue", point, "mqueue", 0, NULL)) {
		say_skip("SKIP %s (named): no mqueue filesystem of the test's own can be mounted "
		        "here\n", __func__);
	} else {
		ck_assert_int_eq(sbx_scopeattr_addallow(&s, point), 0);
		ck_assert_str_eq(nudge(&s, "mq-unlink", name, &said), "ok");
		free(said);
		ck_assert(!queue_exists(name));
		umount2(point, MNT_DETACH);
	}
	sbx_scopeattr_destroy(&s);
	mq_unlink(name);
	tree_free(&t);
}
END_TEST

/* The second names the compile said: what (path) is also reachable where
 * (path2), and whether one said the pair looked for. */
/* Whether test may mount, in a namespace of its own (as another user, in
 * a user namespace of its own: tmpfs, bind and overlay mounts work there);
 * a loop device needs root.  Else SKIP says why. */
static bool own_mounts(const char *test, const char *what)
{
	if (geteuid() != 0 && !strcmp(what, "a loop device")) {
		say_skip("SKIP %s: %s needs root\n", test, what);
		return false;
	}
	return private_mounts(test) != MOUNT_NS_NONE;
}

struct alias_seen {
	int count, matched;
	const char *want_path, *want_path2;
	bool wanted;
};

static void on_alias(const sbx_event_t *ev, void *arg)
{
	struct alias_seen *a = arg;

	if (ev->kind != SBX_EVENT_ALIAS)
		return;
	a->count++;
	if (ev->path && ev->path2 && !strcmp(ev->path, a->want_path) && !strcmp(ev->path2, a->want_path2)) {
		a->wanted = true;
		a->matched++;
	}
}

/* A filesystem image beneath a denial, loop-mounted elsewhere: a second
 * name of what the denial holds.  The mount table names /dev/loopN; sysfs
 * names the image behind it.  In a directory the compile lists, the mount
 * is not granted; beneath a granted one, an event names the image and
 * where it is mounted, as for a bind mount. */
START_TEST(test_loop_image_second_name)
{
	char src[4200], image[4200], beside[4200], inside[4200], cmd[16384];
	struct alias_seen seen = { 0 };
	struct tree t;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!own_mounts(__func__, "a loop device"))
		return;
	tree_make(&t);
	snprintf(src, sizeof(src), "%s/image-content", t.top);
	snprintf(image, sizeof(image), "%s/image.ext4", t.other);
	snprintf(beside, sizeof(beside), "%s/img", t.projects);
	snprintf(inside, sizeof(inside), "%s/img", t.mine);
	ck_assert_int_eq(mkdir(src, 0755), 0);
	write_file(join(src, "key"), "the-secret\n", 0644);
	ck_assert_int_eq(mkdir(beside, 0755), 0);
	ck_assert_int_eq(mkdir(inside, 0755), 0);
	snprintf(cmd, sizeof(cmd),
	         "PATH=$PATH:/usr/sbin:/sbin; mkfs.ext4 -q -F -d '%s' '%s' 4M >/dev/null 2>&1 && mount -o loop '%s' '%s' && "
	         "mount --bind '%s' '%s'", src, image, image, beside, beside, inside);
	if (system(cmd) != 0) {
		say_skip("SKIP %s: cannot make and loop-mount an ext4 image (e2fsprogs, loop "
		        "devices)\n", __func__);
		goto out;
	}
	/* The control: the image's key, read through either mount. */
	assert_reads(fsop(NULL, "read", join(beside, "key")), "the-secret");
	assert_reads(fsop(NULL, "read", join(inside, "key")), "the-secret");
	/* The compile says where the image shows beneath mine, granted whole,
	 * as it says a bind mount's: the one name it does not cover. */
	seen.want_path = image;
	seen.want_path2 = inside;
	scope_for(&s, t.other, false);
	sbx_scopeattr_setlogger(&s, on_alias, &seen);
	expand_way(&s);
	assert_refused(fsop(&s, "read", join(beside, "key")));
	ck_assert_msg(seen.wanted, "%d second names said, none %s as %s", seen.count, image, inside);
	assert_reads(fsop(&s, "read", join(inside, "key")), "the-secret");
	sbx_scopeattr_destroy(&s);
	/* Where a child can have a mount namespace of its own, that name is
	 * covered there: nothing of the image reads. */
	if (can_hide(__func__)) {
		scope_for(&s, t.other, false);
		assert_refused(fsop(&s, "read", join(inside, "key")));
		assert_refused(fsop(&s, "read", join(beside, "key")));
		sbx_scopeattr_destroy(&s);
	}
out:
	umount2(inside, MNT_DETACH);
	umount2(beside, MNT_DETACH);
	tree_free(&t);
}
END_TEST

/* A filesystem mounted beneath a denial is denied whole, whatever its
 * device: a bind mount of it (or of a directory of it) elsewhere is a
 * second name.  In a directory the compile lists, it is not granted;
 * beneath a granted one, an event names both names. */
START_TEST(test_inner_mount_second_name)
{
	char inner[4200], beside[4200], inside[4200];
	struct alias_seen seen = { 0 };
	struct tree t;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!own_mounts(__func__, "mounting"))
		return;
	tree_make(&t);
	snprintf(inner, sizeof(inner), "%s/inner", t.other);
	snprintf(beside, sizeof(beside), "%s/bound", t.projects);
	snprintf(inside, sizeof(inside), "%s/bound", t.mine);
	ck_assert_int_eq(mkdir(inner, 0755), 0);
	ck_assert_int_eq(mkdir(beside, 0755), 0);
	ck_assert_int_eq(mkdir(inside, 0755), 0);
	ck_assert_int_eq(mount("sbxtest", inner, "tmpfs", 0, "size=64k"), 0);
	ck_assert_int_eq(mkdir(join(inner, "sub"), 0755), 0);
	write_file(join(inner, "key"), "the-secret\n", 0644);
	write_file(join(join(inner, "sub"), "key"), "sub-secret\n", 0644);
	ck_assert_int_eq(mount(inner, beside, NULL, MS_BIND, NULL), 0);
	ck_assert_int_eq(mount(join(inner, "sub"), inside, NULL, MS_BIND, NULL), 0);
	/* The control: both read through the bind mounts. */
	assert_reads(fsop(NULL, "read", join(beside, "key")), "the-secret");
	assert_reads(fsop(NULL, "read", join(inside, "key")), "sub-secret");
	seen.want_path = join(inner, "sub");
	seen.want_path2 = inside;
	scope_for(&s, t.other, false);
	sbx_scopeattr_setlogger(&s, on_alias, &seen);
	expand_way(&s);
	assert_refused(fsop(&s, "read", join(beside, "key")));
	ck_assert_msg(seen.wanted, "%d second names said, none %s as %s", seen.count,
	              seen.want_path, inside);
	assert_reads(fsop(&s, "read", join(inside, "key")), "sub-secret");
	sbx_scopeattr_destroy(&s);
	/* Where a child can have a mount namespace of its own, that name is
	 * covered there. */
	if (can_hide(__func__)) {
		scope_for(&s, t.other, false);
		assert_refused(fsop(&s, "read", join(inside, "key")));
		sbx_scopeattr_destroy(&s);
	}
	umount2(inside, MNT_DETACH);
	umount2(beside, MNT_DETACH);
	umount2(inner, MNT_DETACH);
	tree_free(&t);
}
END_TEST

/* A bind mount of a denied directory (and of a directory in it) beneath a
 * read-only one: the mount is placed as restricted by the read-only path
 * above it, and must not widen what the denial says of the same inode
 * (the compile granted it read-only, and the denial was read).  Beneath a
 * directory re-admitted in full, the mount is granted with it, and one
 * event (not one per restricted path above the denial) says so. */
START_TEST(test_denial_bound_beneath_readonly)
{
	char whole[4200], part[4200], admitted[4200];
	struct alias_seen seen = { 0 };
	struct tree t;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!own_mounts(__func__, "mounting"))
		return;
	tree_make(&t);
	snprintf(whole, sizeof(whole), "%s/bound", t.projects);
	snprintf(part, sizeof(part), "%s/bound-part", t.projects);
	snprintf(admitted, sizeof(admitted), "%s/bound", t.mine);
	ck_assert_int_eq(mkdir(whole, 0755), 0);
	ck_assert_int_eq(mkdir(part, 0755), 0);
	ck_assert_int_eq(mkdir(admitted, 0755), 0);
	ck_assert_int_eq(mkdir(join(t.other, "sub"), 0755), 0);
	write_file(join(join(t.other, "sub"), "key"), "the-secret\n", 0644);
	ck_assert_int_eq(mount(t.other, whole, NULL, MS_BIND, NULL), 0);
	ck_assert_int_eq(mount(join(t.other, "sub"), part, NULL, MS_BIND, NULL), 0);
	ck_assert_int_eq(mount(t.other, admitted, NULL, MS_BIND, NULL), 0);
	/* The control: both read without a scope. */
	assert_reads(fsop(NULL, "read", join(whole, "secret")), "the-secret");
	assert_reads(fsop(NULL, "read", join(part, "key")), "the-secret");
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	seen.want_path = t.other;
	seen.want_path2 = admitted;
	sbx_scopeattr_setlogger(&s, on_alias, &seen);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, t.projects), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, t.mine), 0);
	assert_refused(fsop(&s, "read", join(whole, "secret")));
	assert_refused(fsop(&s, "read", join(part, "key")));
	/* What the read-only path grants stays granted. */
	assert_reads(fsop(&s, "read", join(t.third, "file")), "third");
	/* Beneath the re-admitted directory: granted with it, said once. */
	assert_reads(fsop(&s, "read", join(admitted, "secret")), "the-secret");
	ck_assert_msg(seen.matched == 1, "%s as %s said %d times (%d second names said)",
	              seen.want_path, seen.want_path2, seen.matched, seen.count);
	sbx_scopeattr_destroy(&s);
	umount2(admitted, MNT_DETACH);
	umount2(part, MNT_DETACH);
	umount2(whole, MNT_DETACH);
	tree_free(&t);
}
END_TEST

/* Second names an outsider found through odd corners, each shown reading
 * without a scope, refused with one: a filesystem mounted beneath a denial
 * and again beneath a read-only path (the two restrictions added up to
 * read-only); an overlay layer whose path holds ':' (lowerdir+= names one
 * layer); a loop image in a denied directory whose name ends in a newline
 * (sysfs's line cut there); btrfs, whose statx device is not the mount
 * table's (places were looked up by the wrong one). */
static bool sh(const char *cmd)
{
	return system(cmd) == 0;
}

static void deny_two(sbx_scopeattr_t *s, const char *a, const char *b, const char *ro)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	sbx_scopeattr_setlogger(s, quiet, NULL);
	ck_assert_int_eq(sbx_scopeattr_adddeny(s, a), 0);
	if (b)
		ck_assert_int_eq(sbx_scopeattr_adddeny(s, b), 0);
	if (ro)
		ck_assert_int_eq(sbx_scopeattr_addreadonly(s, ro), 0);
}

START_TEST(test_second_names_odd_corners)
{
	char inner[4200], ro_view[4200], listed[4200], layer[4200], merged[4200], opts[9000],
	        nl_dir[4200], decoy[4200], image_mnt[4200], bt_img[4200], bt_mnt[4200], bt_den[4200],
	        cmd[40000];
	sbx_scopeattr_t s;
	struct tree t;

	REQUIRE_LANDLOCK();
	if (!own_mounts(__func__, "mounting"))
		return;
	tree_make(&t);
	/* A tmpfs beneath the denial, bound beneath a read-only path and in
	 * a directory the compile lists. */
	snprintf(inner, sizeof(inner), "%s/inner", t.other);
	snprintf(ro_view, sizeof(ro_view), "%s/view", t.mine);
	snprintf(listed, sizeof(listed), "%s/view", t.projects);
	ck_assert(mkdir(inner, 0755) == 0 && mkdir(ro_view, 0755) == 0 && mkdir(listed, 0755) == 0);
	ck_assert_int_eq(mount("sbxtest", inner, "tmpfs", 0, "size=64k"), 0);
	write_file(join(inner, "key"), "the-secret\n", 0644);
	ck_assert_int_eq(mount(inner, ro_view, NULL, MS_BIND, NULL), 0);
	ck_assert_int_eq(mount(inner, listed, NULL, MS_BIND, NULL), 0);
	assert_reads(fsop(NULL, "read", join(listed, "key")), "the-secret");
	deny_two(&s, t.other, t.third, t.mine);
	assert_refused(fsop(&s, "read", join(listed, "key")));
	assert_refused(fsop(&s, "read", join(inner, "key")));
	sbx_scopeattr_destroy(&s);
	umount2(listed, MNT_DETACH);
	umount2(ro_view, MNT_DETACH);
	umount2(inner, MNT_DETACH);

	/* An overlay layer named with ':' in its path. */
	snprintf(layer, sizeof(layer), "%s/a:/tmp", t.other);
	snprintf(merged, sizeof(merged), "%s/merged", t.projects);
	ck_assert_int_eq(mkdir(join(t.other, "a:"), 0755), 0);
	ck_assert_int_eq(mkdir(layer, 0755), 0);
	ck_assert_int_eq(mkdir(merged, 0755), 0);
	write_file(join(layer, "key"), "the-secret\n", 0644);
	snprintf(opts, sizeof(opts), "lowerdir+=%s,lowerdir+=%s", layer, t.third);
	if (mount("sbxtest", merged, "overlay", 0, opts) == 0) {
		assert_reads(fsop(NULL, "read", join(merged, "key")), "the-secret");
		deny_two(&s, layer, NULL, NULL);
		assert_refused(fsop(&s, "read", join(merged, "key")));
		sbx_scopeattr_destroy(&s);
		umount2(merged, MNT_DETACH);
	} else {
		say_skip("SKIP %s (an overlay layer with ':'): lowerdir+= refused: %s\n", __func__,
		         strerror(errno));
	}

	/* A loop image in a directory whose name ends in a newline, beside a
	 * file named as the name's cut would be. */
	snprintf(nl_dir, sizeof(nl_dir), "%s/x\n", t.top);
	snprintf(decoy, sizeof(decoy), "%s/x", t.top);
	snprintf(image_mnt, sizeof(image_mnt), "%s/img", t.projects);
	ck_assert_int_eq(mkdir(nl_dir, 0755), 0);
	ck_assert_int_eq(mkdir(image_mnt, 0755), 0);
	write_file(decoy, "decoy\n", 0644);
	write_file(join(t.third, "key"), "the-secret\n", 0644);
	snprintf(cmd, sizeof(cmd),
	         "PATH=$PATH:/usr/sbin:/sbin; mkfs.ext4 -q -F -d '%s' '%s/image' 4M >/dev/null 2>&1 && "
	         "mount -o loop '%s/image' '%s'", t.third, nl_dir, nl_dir, image_mnt);
	if (sh(cmd)) {
		assert_reads(fsop(NULL, "read", join(image_mnt, "key")), "the-secret");
		deny_two(&s, nl_dir, t.other, NULL);
		assert_refused(fsop(&s, "read", join(image_mnt, "key")));
		sbx_scopeattr_destroy(&s);
		umount2(image_mnt, MNT_DETACH);
	} else {
		say_skip("SKIP %s (a loop image named with a newline): mkfs.ext4 or the loop mount "
		         "failed\n", __func__);
	}

	/* btrfs: a directory bound out of it and denied there, its own name
	 * in a directory the compile lists. */
	snprintf(bt_img, sizeof(bt_img), "%s/b.img", t.top);
	snprintf(bt_mnt, sizeof(bt_mnt), "%s/bt", t.projects);
	snprintf(bt_den, sizeof(bt_den), "%s/bt-den", t.top);
	ck_assert_int_eq(mkdir(bt_mnt, 0755), 0);
	ck_assert_int_eq(mkdir(bt_den, 0755), 0);
	snprintf(cmd, sizeof(cmd),
	         "PATH=$PATH:/usr/sbin:/sbin; truncate -s 128M '%s' && mkfs.btrfs -q -f '%s' >/dev/null 2>&1 && "
	         "mount -o loop '%s' '%s' && btrfs -q subvolume create '%s/sv' >/dev/null && "
	         "mkdir -p '%s/sv/d/hidden' '%s/sv/d/other' && echo the-secret > '%s/sv/d/hidden/key' && "
	         "mount --bind '%s/sv/d/hidden' '%s'",
	         bt_img, bt_img, bt_img, bt_mnt, bt_mnt, bt_mnt, bt_mnt, bt_mnt, bt_mnt, bt_den);
	if (sh(cmd)) {
		char hidden[4300], other[4300];

		snprintf(hidden, sizeof(hidden), "%s/sv/d/hidden/key", bt_mnt);
		snprintf(other, sizeof(other), "%s/sv/d/other", bt_mnt);
		assert_reads(fsop(NULL, "read", hidden), "the-secret");
		deny_two(&s, bt_den, other, NULL);
		assert_refused(fsop(&s, "read", hidden));
		assert_refused(fsop(&s, "read", join(bt_den, "key")));
		sbx_scopeattr_destroy(&s);
		umount2(bt_den, MNT_DETACH);
		umount2(bt_mnt, MNT_DETACH);
	} else {
		say_skip("SKIP %s (btrfs): making or mounting a btrfs image failed (btrfs-progs)\n",
		         __func__);
	}
	tree_free(&t);
}
END_TEST

/* An image on a filesystem mounted beneath a denial, loop-mounted in a
 * directory the compile lists: a second name, traced through sysfs to the
 * image, whose filesystem the denial holds; an image mounted through a
 * device node since removed (the table's source names nothing now): traced
 * through the filesystem's own device number; and an image on an overlay
 * whose lower layer lies in the denial: in which layer the image lies
 * cannot be told, so it is not granted there either. */
START_TEST(test_loop_image_on_inner_mount)
{
	char src[4200], inner[4200], image[4200], image2[4200], beside[4200], beside2[4200],
	        node[4200], lower[4200], upper[4200], work[4200], merged[4200], beside3[4200],
	        opts[20000], cmd[32768];
	struct tree t;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!own_mounts(__func__, "a loop device"))
		return;
	tree_make(&t);
	snprintf(src, sizeof(src), "%s/image-content", t.top);
	snprintf(inner, sizeof(inner), "%s/inner", t.other);
	snprintf(image, sizeof(image), "%s/image.ext4", inner);
	snprintf(image2, sizeof(image2), "%s/image2.ext4", t.other);
	snprintf(beside, sizeof(beside), "%s/img", t.projects);
	snprintf(beside2, sizeof(beside2), "%s/img2", t.projects);
	snprintf(node, sizeof(node), "%s/blk", t.top);
	ck_assert_int_eq(mkdir(src, 0755), 0);
	write_file(join(src, "key"), "the-secret\n", 0644);
	ck_assert_int_eq(mkdir(inner, 0755), 0);
	ck_assert_int_eq(mkdir(beside, 0755), 0);
	ck_assert_int_eq(mkdir(beside2, 0755), 0);
	ck_assert_int_eq(mount("sbxtest", inner, "tmpfs", 0, "size=8m"), 0);
	snprintf(cmd, sizeof(cmd),
	         "PATH=$PATH:/usr/sbin:/sbin; mkfs.ext4 -q -F -d '%s' '%s' 4M >/dev/null 2>&1 && "
	         "cp '%s' '%s' && mount -o loop '%s' '%s' && dev=$(losetup -f --show '%s') && "
	         "mknod '%s' b $(stat -c '0x%%t 0x%%T' $dev) && mount '%s' '%s' && rm '%s' && "
	         "losetup -d $dev",
	         src, image, image, image2, image, beside, image2, node, node, beside2, node);
	if (system(cmd) != 0) {
		say_skip("SKIP %s: cannot make and loop-mount an ext4 image (e2fsprogs, loop "
		        "devices)\n", __func__);
		goto out;
	}
	snprintf(lower, sizeof(lower), "%s/lower", t.other);
	snprintf(upper, sizeof(upper), "%s/upper", t.top);
	snprintf(work, sizeof(work), "%s/work", t.top);
	snprintf(merged, sizeof(merged), "%s/merged", t.top);
	snprintf(beside3, sizeof(beside3), "%s/img3", t.projects);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", lower, upper, work);
	ck_assert_int_eq(mkdir(lower, 0755), 0);
	ck_assert_int_eq(mkdir(upper, 0755), 0);
	ck_assert_int_eq(mkdir(work, 0755), 0);
	ck_assert_int_eq(mkdir(merged, 0755), 0);
	ck_assert_int_eq(mkdir(beside3, 0755), 0);
	snprintf(cmd, sizeof(cmd),
	         "PATH=$PATH:/usr/sbin:/sbin; mkfs.ext4 -q -F -d '%s' '%s/image3.ext4' 4M >/dev/null 2>&1",
	         src, lower);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_msg(mount("overlay", merged, "overlay", 0, opts) == 0, "overlay: %s",
	              strerror(errno));
	snprintf(cmd, sizeof(cmd), "mount -o loop,ro '%s/image3.ext4' '%s'", merged, beside3);
	ck_assert_int_eq(system(cmd), 0);
	assert_reads(fsop(NULL, "read", join(beside, "key")), "the-secret");
	assert_reads(fsop(NULL, "read", join(beside2, "key")), "the-secret");
	assert_reads(fsop(NULL, "read", join(beside3, "key")), "the-secret");
	scope_for(&s, t.other, false);
	assert_refused(fsop(&s, "read", join(beside, "key")));
	assert_refused(fsop(&s, "read", join(beside2, "key")));
	assert_refused(fsop(&s, "read", join(beside3, "key")));
	assert_reads(fsop(&s, "read", join(t.mine, "file")), "mine");
	sbx_scopeattr_destroy(&s);
	umount2(beside3, MNT_DETACH);
	umount2(merged, MNT_DETACH);
out:
	umount2(beside2, MNT_DETACH);
	umount2(beside, MNT_DETACH);
	umount2(inner, MNT_DETACH);
	tree_free(&t);
}
END_TEST

/* The same image served through FUSE (fuse2fs): the mount table names the
 * image file itself as the source, a second name of the denial. */
START_TEST(test_fuse_image_second_name)
{
	char src[4200], image[4200], beside[4200], cmd[16384];
	struct tree t;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!own_mounts(__func__, "mounting"))
		return;
	tree_make(&t);
	snprintf(src, sizeof(src), "%s/image-content", t.top);
	snprintf(image, sizeof(image), "%s/fuse.ext4", t.other);
	snprintf(beside, sizeof(beside), "%s/fimg", t.projects);
	ck_assert_int_eq(mkdir(src, 0755), 0);
	write_file(join(src, "key"), "the-secret\n", 0644);
	ck_assert_int_eq(mkdir(beside, 0755), 0);
	snprintf(cmd, sizeof(cmd),
	         "PATH=$PATH:/usr/sbin:/sbin; mkfs.ext4 -q -F -d '%s' '%s' 4M >/dev/null 2>&1 && "
	         "fuse2fs -o ro '%s' '%s' >/dev/null 2>&1",
	         src, image, image, beside);
	/* As another user, in a user namespace, fuse2fs may say it served
	 * the image and mount nothing (fusermount3's set-user-ID bit does
	 * not hold there): the key is not there. */
	if (system(cmd) != 0 || access(join(beside, "key"), F_OK) != 0) {
		say_skip("SKIP %s: cannot serve an ext4 image through FUSE here (fuse2fs, "
		        "/dev/fuse%s)\n", __func__,
		        geteuid() ? "; in a user namespace, fusermount3 mounts nothing" : "");
		goto out;
	}
	assert_reads(fsop(NULL, "read", join(beside, "key")), "the-secret");
	scope_for(&s, t.other, false);
	assert_refused(fsop(&s, "read", join(beside, "key")));
	assert_reads(fsop(&s, "read", join(t.mine, "file")), "mine");
	sbx_scopeattr_destroy(&s);
	/* The image renamed in the denial: the table's source names nothing
	 * now, and what the mount shows cannot be told. */
	snprintf(cmd, sizeof(cmd), "%s.moved", image);
	ck_assert_int_eq(rename(image, cmd), 0);
	assert_reads(fsop(NULL, "read", join(beside, "key")), "the-secret");
	scope_for(&s, t.other, false);
	assert_refused(fsop(&s, "read", join(beside, "key")));
	sbx_scopeattr_destroy(&s);
out:
	umount2(beside, MNT_DETACH);
	tree_free(&t);
}
END_TEST

/* What the set-user-ID copy printed when run by uid 65534 without the
 * library: it takes uid 0 back (the test can fail). */
static char *regain_unconfined(const char *prog, const char *file)
{
	char buf[256];
	int p[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(p[1], 1);
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(3);
		execl(prog, prog, "regain-openw", file, (char *)NULL);
		_exit(4);
	}
	close(p[1]);
	while ((n = read(p[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	return strdup(buf);
}

/* Closed by default: a set-user-ID-root program run by a confined child
 * gains nothing (no_new_privs), under another uid too. */
START_TEST(test_setuid_program_gains_nothing)
{
	char *dir, *deny, prog[4096], file[4096], *out;
	struct statvfs vfs;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (geteuid() != 0) {
		say_skip("SKIP %s: needs root, to make a set-user-ID-root program\n",
		        __func__);
		return;
	}
	dir = make_tmpdir();
	deny = make_tmpdir();
	ck_assert_int_eq(chmod(dir, 0755), 0);
	if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)) {
		say_skip("SKIP %s: %s is on a nosuid mount\n", __func__, dir);
		goto out;
	}
	snprintf(prog, sizeof(prog), "%s/fsop", dir);
	snprintf(file, sizeof(file), "%s/root-only", dir);
	write_file(file, "root's only\n", 0600);
	{
		char *cp[] = { "/bin/cp", FSOP, prog, NULL };
		ck_assert_int_eq(run_scoped(NULL, cp, NULL), 0);
	}
	ck_assert_int_eq(chown(prog, 0, 0), 0);
	ck_assert_int_eq(chmod(prog, 04755), 0);
	if (!nobody_can_run(prog, __func__, "a set-user-ID program"))
		goto out;
	out = regain_unconfined(prog, file);
	ck_assert_msg(strstr(out, "ok"), "the set-user-ID copy did not work unconfined: %s", out);
	free(out);
	scope_for(&s, deny, true);
	{
		char *argv[] = { prog, "regain-openw", file, NULL };
		char *said = NULL;

		run_scoped(&s, argv, &said);
		ck_assert_msg(said && strstr(said, "EPERM"), "the confined copy said: %s", said);
		free(said);
	}
	sbx_scopeattr_destroy(&s);
out:
	rm_rf(dir);
	rm_rf(deny);
	free(dir);
	free(deny);
}
END_TEST

Suite *suite_channels(void)
{
	Suite *s = suite_create("channels");
	TCase *tc = tcase_create("channels");

	untimed(tc);
	tcase_add_test(tc, test_setuid_program_gains_nothing);
	tcase_add_test(tc, test_limit_sysv_ipc);
	tcase_add_test(tc, test_posix_mqueue_closed);
	tcase_add_test(tc, test_mqueue_mounts);
	tcase_add_test(tc, test_mqueue_mounted_after_a_spawn);
	tcase_add_test(tc, test_mqueue_by_name);
	tcase_add_test(tc, test_loop_image_second_name);
	tcase_add_test(tc, test_inner_mount_second_name);
	tcase_add_test(tc, test_denial_bound_beneath_readonly);
	tcase_add_test(tc, test_second_names_odd_corners);
	tcase_add_test(tc, test_loop_image_on_inner_mount);
	tcase_add_test(tc, test_fuse_image_second_name);
	suite_add_tcase(s, tc);
	return s;
}
