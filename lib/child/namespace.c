/* SPDX-License-Identifier: MIT */
/*
 * The child's own mount namespace, before the file actions (cover.c makes
 * the covers in it after them): made (a user namespace first, for a caller
 * without CAP_SYS_ADMIN, the caller's ids mapped to themselves), "/" made
 * private; or, where a ruleset keeps one (hidens.c), entered, and each of
 * its mounts found where its keeper made it.  A refusal here (user
 * namespaces off, a seccomp filter, a Landlock domain that forbids mounts)
 * leaves nothing done twice when the parent starts the child again with
 * the denials expanded.  Raw system calls only.  The mount(2) here says
 * MS_SILENT too (tests/filters.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/confine.h"

#define CAP_BIT_SYS_ADMIN 21

struct caps {
	struct { uint32_t version; int pid; } head;
	struct { uint32_t effective, permitted, inheritable; } data[2];
};

CHILD static long caps_get(struct caps *c)
{
	c->head.version = 0x20080522; /* v3 */
	c->head.pid = 0;
	return sys(SYS_capget, (long)&c->head, (long)c->data, 0, 0);
}

/* The effective set made the permitted one, or emptied: a user namespace's
 * capabilities serve the mounts, never the caller's file actions (a file
 * of the caller's own with mode 000 stays closed to them). */
CHILD int sbx__caps_effective(bool on, const char **call)
{
	struct caps c;
	long r;

	*call = "capget";
	if ((r = caps_get(&c)) < 0)
		return (int)-r;
	for (int i = 0; i < 2; i++)
		c.data[i].effective = on ? c.data[i].permitted : 0;
	*call = "capset";
	r = sys(SYS_capset, (long)&c.head, (long)c.data, 0, 0);
	return r < 0 ? (int)-r : 0;
}

CHILD static int write_once(const char *path, const char *text, size_t len)
{
	long fd = sys(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_CLOEXEC, 0), r;

	if (fd < 0)
		return (int)-fd;
	r = sys(SYS_write, fd, (long)text, (long)len, 0);
	(void)sys(SYS_close, fd, 0, 0, 0);
	return r < 0 ? (int)-r : r == (long)len ? 0 : EIO;
}

/* "ID ID 1": the caller's own id, to itself (never to 0: a program that
 * runs as its user keeps no capability past its exec). */
CHILD static int map_id(const char *path, unsigned long id)
{
	char line[64];
	size_t n = put_uint(line, id);

	line[n++] = ' ';
	n += put_uint(line + n, id);
	memcpy(line + n, " 1\n", 3);
	return write_once(path, line, n + 3);
}

CHILD int sbx__hide_enter(bool *user, const char **call)
{
	unsigned long uid = (unsigned long)sys(SYS_geteuid, 0, 0, 0, 0);
	unsigned long gid = (unsigned long)sys(SYS_getegid, 0, 0, 0, 0);
	struct caps c;
	long r;
	int err;

	*call = "capget";
	if ((r = caps_get(&c)) < 0)
		return (int)-r;
	*user = !(c.data[0].effective & (1U << CAP_BIT_SYS_ADMIN));
	*call = "unshare";
	if ((r = sys(SYS_unshare, CLONE_NEWNS | (*user ? CLONE_NEWUSER : 0), 0, 0, 0)) < 0)
		return (int)-r;
	if (*user) {
		*call = "/proc/self/setgroups";
		if ((err = write_once("/proc/self/setgroups", "deny", 4)))
			return err;
		*call = "/proc/self/uid_map";
		if ((err = map_id("/proc/self/uid_map", uid)))
			return err;
		*call = "/proc/self/gid_map";
		if ((err = map_id("/proc/self/gid_map", gid)))
			return err;
	}
	/* Nothing the caller mounts later reaches the child.  Also the first
	 * mount call: a Landlock domain the caller runs in refuses it here,
	 * before anything of the spawn is done. */
	*call = "mount(MS_PRIVATE)";
	if ((r = sys5(SYS_mount, 0, (long)"/", 0, MS_REC | MS_PRIVATE | MS_SILENT, 0)) < 0) {
		/* The mount holding a chroot's root is not its to change:
		 * covers made there would reach the caller's namespace. */
		if (r == -EINVAL)
			*call = "mount(MS_PRIVATE) of a root that is no mount point here (a chroot)";
		return (int)-r;
	}
	return *user ? sbx__caps_effective(false, call) : 0;
}

/* ---- a namespace kept ------------------------------------------------- */

/* The path of the i-th mount a kept namespace records: covers, binds, pins. */
CHILD static const char *kept_path(const struct hiding *h, size_t i)
{
	return i < h->ncovers              ? h->covers[i].path
	       : i < h->ncovers + h->nbinds ? h->binds[i - h->ncovers].path
	                                    : h->pins[i - h->ncovers - h->nbinds];
}

CHILD int sbx__hide_join(const struct hiding *h, bool *user, const char **call)
{
	const struct keptns *k = h->kept;
	char cwd[PATH_MAX];
	struct statx was, now;
	uint64_t id;
	long r;

	/* Where the child is, by its path and its inode: setns(2) leaves it
	 * at the namespace's root. */
	*call = "getcwd";
	if (sys(SYS_getcwd, (long)cwd, sizeof(cwd), 0, 0) < 0 || cwd[0] != '/' ||
	    statx_of(AT_FDCWD, ".", 0, &was) < 0)
		return ENOENT; /* removed, or "(unreachable)": no path leads there */
	/* The caller's root, the one the keeper had (a chroot since: no). */
	*call = "statx";
	if (!kept_root(k))
		return ESTALE;
	*user = k->user >= 0;
	*call = "setns(CLONE_NEWUSER)";
	if (*user && (r = sys(SYS_setns, k->user, CLONE_NEWUSER, 0, 0)) < 0)
		return (int)-r;
	*call = "setns(CLONE_NEWNS)";
	if ((r = sys(SYS_setns, k->mnt, CLONE_NEWNS, 0, 0)) < 0)
		return (int)-r;
	/* The caller's root, as the keeper had it (a caller in a chroot keeps
	 * it), then its working directory. */
	*call = "chroot";
	if ((r = sys(SYS_fchdir, k->root, 0, 0, 0)) < 0 ||
	    (r = sys(SYS_chroot, (long)".", 0, 0, 0)) < 0)
		return (int)-r;
	*call = "chdir";
	if (sys(SYS_chdir, (long)cwd, 0, 0, 0) < 0 || statx_of(AT_FDCWD, ".", 0, &now) < 0 ||
	    !same_inode(&was, &now))
		return ENOENT;
	/* Each cover, bind and pin is the mount the keeper made: a path the
	 * caller removed and made again since (a file linked back) has none. */
	for (size_t i = 0; i < h->ncovers + h->nbinds + h->npins; i++)
		if ((r = mount_of(AT_FDCWD, kept_path(h, i), &id, &now)) < 0 || id != k->ids[i])
			return ESTALE;
	return *user ? sbx__caps_effective(false, call) : 0;
}
