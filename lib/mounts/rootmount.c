/* SPDX-License-Identifier: MIT */
/*
 * The mount a chroot's table leaves out.  The kernel lists only the mounts
 * whose point lies beneath the reader's root: in a chroot whose root is a
 * directory, not a mount point, the mount that holds the root is not among
 * them, and nothing would say where "/" and all beneath it are.  That
 * mount is added here as statmount(2) says it is (the device the table
 * would give, and its type), with the root as its own root: paths in it
 * are then told from the chroot's root, not from the filesystem's, which
 * cannot be seen from inside.
 *
 * It is added only where nothing can show what it holds under another
 * name that the compile would not find:
 *  - the root is no mount's own: a mount root the table does not list is
 *    in another namespace (a chroot through /proc/PID/root), where what is
 *    mounted beneath it is not listed either;
 *  - statmount(2) answers for it in the caller's namespace (Linux 6.8;
 *    for another user than root, not at all: its mount lies outside the
 *    root);
 *  - no other mount in the table is of the same device: its root, which
 *    the table gives from the filesystem's own, could not be compared with
 *    a path told from the chroot's;
 *  - it is backed by nothing a child could reach: a block device with no
 *    image file behind it, as sysfs says (no sysfs here: it cannot be
 *    told), or a tmpfs or ramfs.  An overlay (whose layers the table names
 *    by paths of another root), a FUSE or a network filesystem has no
 *    block device, and is not added.
 * Where it is not added, nothing beneath the root is granted, and the
 * compile says so.  Outside the root the domain grants nothing: a child
 * that leaves the chroot finds no rule on its way.
 *
 * A chroot is also told here, into a mount point too (m->chrooted): there
 * the table names an overlay's layers, a mount's source directory and a
 * loop device's image by the paths their mounter gave, in its own root,
 * and the same paths here name other directories, or the same ones by
 * chance or by design (a decoy): mounts.c leaves every such layer unknown.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/compiler.h"
#include "lib/confine.h"
#include "lib/child.h"

#ifndef SYS_statmount
#define SYS_statmount 457 /* the same number on every architecture but alpha and mips */
#endif

/* statmount(2)'s request and the part of its answer read here (Linux 6.8;
 * sb_source, 6.11), as the kernel lays them out. */
struct mnt_id_req0 {
	uint32_t size, spare;
	uint64_t mnt_id, param;
};

struct statmount0 {
	uint32_t size, mnt_opts;
	uint64_t mask;
	uint32_t sb_dev_major, sb_dev_minor;
	uint64_t sb_magic;
	uint32_t sb_flags, fs_type;
	uint64_t mnt_id, mnt_parent_id;
	uint32_t mnt_id_old, mnt_parent_id_old;
	uint64_t mnt_attr, mnt_propagation, mnt_peer_group, mnt_master, propagate_from;
	uint32_t mnt_root, mnt_point;
	uint64_t mnt_ns_id;
	uint32_t fs_subtype, sb_source;
	uint64_t rest[48];
	char str[2048];
};

#define SM_SB_BASIC 0x1U
#define SM_MNT_BASIC 0x2U
#define SM_FS_TYPE 0x20U
#define SM_SB_SOURCE 0x200U

/* The string at offset off of the answer's, or "" where it is not whole. */
static const char *sm_str(const struct statmount0 *sm, uint32_t off)
{
	if (off >= sizeof(sm->str) || !memchr(sm->str + off, '\0', sizeof(sm->str) - off))
		return "";
	return sm->str + off;
}

/* Whether nothing a child could reach backs the filesystem: no image file
 * behind its block device (sysfs says so), or none at all (tmpfs). */
static int backed_plainly(const struct statmount0 *sm, bool *plain)
{
	const char *type = sm_str(sm, sm->fs_type);
	const char *source = sm->mask & SM_SB_SOURCE ? sm_str(sm, sm->sb_source) : "";
	unsigned maj = sm->sb_dev_major, min = sm->sb_dev_minor;
	struct mounts tmp = { 0 };
	struct mount mt = { 0 };
	size_t cap = 0;
	struct stat st;
	int err;

	*plain = false;
	if (!strcmp(type, "tmpfs") || !strcmp(type, "ramfs")) {
		*plain = true;
		return 0;
	}
	/* A filesystem with a device number of its own (btrfs, per subvolume)
	 * names its block device as its source. */
	if (!maj && source[0] == '/' && !stat(source, &st) && S_ISBLK(st.st_mode)) {
		maj = major(st.st_rdev);
		min = minor(st.st_rdev);
	}
	if (!maj)
		return 0;
	err = sbx__mounts_note_images(&tmp, &cap, &mt, maj, min, 0);
	*plain = !err && !mt.image && !mt.nlayers && !mt.layers_unknown;
	sbx__mounts_free(&tmp);
	return err;
}

/* A child that asks for a user namespace and says what it got. */
CHILD static int ask_userns(void *arg)
{
	(void)arg;
	_exit(syscall(SYS_unshare, CLONE_NEWUSER) ? 1 : 0);
}

/* Whether the kernel refuses this process a user namespace, as it refuses
 * every chrooted one: asked of a child that does nothing else
 * (sbx__ask_child).  Where user namespaces are switched off, or a filter
 * refuses them, or no child could be made, the answer is yes too: a chroot
 * is assumed, the safe side (only mounts whose layers are named by path
 * lose by it). */
static bool userns_refused(void)
{
	SBX_KEEP_ERRNO;
	const char *call;
	int status = 0;

	return sbx__ask_child(ask_userns, NULL, 0, ASK_STACK, &status, &call) ||
	       !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

/* Whether the mount id (the root's, a mount's own root) lies on a mount
 * that is not the namespace's root: a chroot into a mount point, or into
 * a filesystem mounted over "/" (the namespace's root is its own parent;
 * the root of a namespace not chrooted, or entered by pivot_root(2), lies
 * on it).  statmount(2) tells root; another user, for whom the parent is
 * out of reach, learns it from the kernel's refusal of a user namespace
 * to a chroot, once for each mount its root is. */
static bool on_inner_mount(uint64_t id)
{
	static atomic_uint_least64_t told; /* id << 1 | the answer, once asked */
	struct mnt_id_req0 req = { .size = 24, .mnt_id = id, .param = SM_MNT_BASIC };
	struct statmount0 sm;
	uint64_t was = atomic_load_explicit(&told, memory_order_relaxed);
	bool inner;

	if (syscall(SYS_statmount, &req, &sm, sizeof(sm), 0) < 0 || !(sm.mask & SM_MNT_BASIC) ||
	    sm.mnt_parent_id == id)
		return false;
	req.mnt_id = sm.mnt_parent_id;
	if (syscall(SYS_statmount, &req, &sm, sizeof(sm), 0) == 0)
		return (sm.mask & SM_MNT_BASIC) && sm.mnt_parent_id != req.mnt_id;
	if (errno != EPERM)
		return false;
	if (was && was >> 1 == id)
		return was & 1;
	inner = userns_refused();
	atomic_store_explicit(&told, id << 1 | inner, memory_order_relaxed);
	return inner;
}

int sbx__mounts_root(struct mounts *m)
{
	struct mnt_id_req0 req = { .size = 24, .param = SM_SB_BASIC | SM_MNT_BASIC | SM_FS_TYPE |
	                                                 SM_SB_SOURCE };
	struct statmount0 sm;
	struct statx sx;
	struct mount *grown;
	const char *type;
	size_t cap = m->n;
	bool plain, listed = false;
	int err;

	/* The root's mount by the table's id: a mount stacked on "/" after
	 * the root was set is the table's last at "/", but no path of this
	 * process's goes through it (mounts.c). */
	if (!statx(AT_FDCWD, "/", AT_STATX_DONT_SYNC, STATX_MNT_ID, &sx) &&
	    (sx.stx_mask & STATX_MNT_ID))
		m->root_id = sx.stx_mnt_id;
	if (statx(AT_FDCWD, "/", AT_STATX_DONT_SYNC, STATX_TYPE | SBX_STATX_MNT_ID_UNIQUE, &sx))
		return errno == ENOMEM ? ENOMEM : 0;
	/* Told by Linux 5.8 and later, the unique id or not. */
	m->root_unmounted = (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	                    !(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
	if (!(sx.stx_mask & SBX_STATX_MNT_ID_UNIQUE) ||
	    !(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
		return 0;
	for (size_t i = 0; i < m->n; i++)
		listed |= !strcmp(m->v[i].point, "/");
	if (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) {
		m->chrooted = on_inner_mount(sx.stx_mnt_id);
		if (!listed)
			m->root_why = "the root is a mount's own root this table does not list "
			              "(another namespace's, as through /proc/PID/root)";
		return 0;
	}
	m->chrooted = true;
	if (listed)
		return 0;
	req.mnt_id = sx.stx_mnt_id;
	if (syscall(SYS_statmount, &req, &sm, sizeof(sm), 0) < 0) {
		m->root_why = errno == EPERM ? "a chroot's root, which only root is told of by "
		                               "statmount(2)"
		              : errno == ENOENT ? "a chroot's root in another mount namespace (as "
		                                  "through /proc/PID/root)"
		              : errno == ENOSYS ? "a chroot's root, and this kernel has no statmount(2) "
		                                  "(Linux 6.8)"
		                                : "a chroot's root, which statmount(2) did not tell";
		return errno == ENOMEM ? ENOMEM : 0;
	}
	if ((sm.mask & (SM_SB_BASIC | SM_MNT_BASIC | SM_FS_TYPE)) !=
	    (SM_SB_BASIC | SM_MNT_BASIC | SM_FS_TYPE))
		return 0;
	m->root_why = "a chroot's root, whose filesystem is mounted there again";
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].own.dev_major == sm.sb_dev_major && m->v[i].own.dev_minor == sm.sb_dev_minor)
			return 0;
	m->root_why = access("/sys/dev/block", F_OK)
		              ? "a chroot's root, and no /sys in it tells what lies behind its device"
		              : "a chroot's root, on an image, an overlay, or a filesystem of no block "
		                "device";
	if ((err = backed_plainly(&sm, &plain)) || !plain)
		return err;
	m->root_why = NULL;
	if (!(type = sbx__mounts_keep(m, sm_str(&sm, sm.fs_type), "")) ||
	    !(grown = sbx__grow(m->v, &cap, m->n + 1, sizeof(*m->v))))
		return ENOMEM;
	m->v = grown;
	m->v[m->n++] = (struct mount){ .id = sm.mnt_id_old, .point = "/", .type = type,
	                               .own = { .dev_major = sm.sb_dev_major,
	                                        .dev_minor = sm.sb_dev_minor, .rel = "/" } };
	return 0;
}
