/* SPDX-License-Identifier: MIT */
/* Second names of what a denial holds, each made on the real kernel: a
 * filesystem image beneath a denial loop-mounted elsewhere (on an inner
 * mount too), a mount of the same filesystem, a FUSE image, a denial bound
 * beneath a read-only path, and the odd corners between them.  None may
 * read the secret.  Part of the channels suite (check_channels.c). */
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

#include "tests/reads.h"

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

void second_names_tests(TCase *tc)
{
	tcase_add_test(tc, test_loop_image_second_name);
	tcase_add_test(tc, test_inner_mount_second_name);
	tcase_add_test(tc, test_denial_bound_beneath_readonly);
	tcase_add_test(tc, test_second_names_odd_corners);
	tcase_add_test(tc, test_loop_image_on_inner_mount);
	tcase_add_test(tc, test_fuse_image_second_name);
}
