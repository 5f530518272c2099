/* SPDX-License-Identifier: MIT */
/*
 * Hiding, in the child (hide.c chooses what, in the parent; namespace.c
 * makes or enters the namespace, before the file actions).  After them, so
 * that the caller's paths mean what they mean to posix_spawn, each hidden
 * denial is covered by an empty, read-only, mode 000 tmpfs (a file by
 * /dev/null, made nodev), mounted on the inode the compile found by a
 * descriptor of it, not by its name (which another process could give to
 * something else meanwhile), each directory above one that is no mount
 * point is made one (a bind of itself, so that no rename carries the
 * denial to a name the next spawn does not deny), and what the child holds
 * from before is checked to meet a cover on its way.  The Landlock domain
 * applied next refuses every mount, unmount and move: the covers stay.
 * Raw system calls only.  Every mount(2) here says MS_SILENT, and every
 * cover's move_mount(2) goes onto a descriptor (MOVE_MOUNT_T_EMPTY_PATH),
 * which nothing else of the project does: the test suite's "hide" mutation
 * makes just these do nothing (tests/filters.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/confine.h"

/* ---- the covers ------------------------------------------------------- */

/* Whether path is still the inode c was (fd: at it; -1: by path). */
CHILD static int still(const struct cover *c, long fd, const char **call)
{
	struct statx sx;
	long r;

	*call = "statx";
	r = fd < 0 ? statx_of(AT_FDCWD, c->path, AT_SYMLINK_NOFOLLOW, &sx)
	           : statx_of(fd, "", AT_EMPTY_PATH, &sx);
	if (r < 0)
		return r == -ENOENT || r == -ENOTDIR ? ESTALE : (int)-r;
	return is_cover(c, &sx) && S_ISDIR(sx.stx_mode) == c->dir ? 0 : ESTALE;
}

/* Read-only, nosuid, nodev, noexec: the mount at path, made so; a
 * read-only path's bind (ro) only read-only and nodev, keeping the rest of
 * what it was (a remount clears what it does not name; a user namespace
 * refuses clearing what it was given locked; the times stay as they are). */
CHILD static long seal(const char *path, bool ro)
{
	unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NODEV | MS_SILENT;
	struct statfs sf;
	long r;

	if (!ro)
		flags |= MS_NOSUID | MS_NOEXEC;
	else if ((r = sys(SYS_statfs, (long)path, (long)&sf, 0, 0)) < 0)
		return r;
	else
		flags |= (sf.f_flags & SBX_ST_NOSUID ? MS_NOSUID : 0) |
		         (sf.f_flags & SBX_ST_NOEXEC ? MS_NOEXEC : 0) |
		         (sf.f_flags & SBX_ST_NOSYMFOLLOW ? SBX_MS_NOSYMFOLLOW : 0);
	return sys5(SYS_mount, 0, (long)path, 0, (long)flags, 0);
}

/* The way down to bind b inside the cover just made at its top (made
 * searchable, mode 0111, and nothing more: the cover lists only to root),
 * and b, the copy of its tree taken as fd, moved there: from at, the
 * cover's root, by b's path beneath top's (AT_FDCWD: by b's whole path). */
CHILD static int bind_back(const struct cover *top, const struct cover *b, long fd, long at,
                           const char **call)
{
	char way[PATH_MAX];
	const char *from = b->path;
	size_t n, start = 0;
	long r;

	if (at != AT_FDCWD)
		for (from += strlen(top->path); *from == '/'; from++)
			;
	else
		start = strlen(top->path) + 1;
	if ((n = strlen(from)) >= sizeof(way))
		return ENAMETOOLONG;
	memcpy(way, from, n + 1);
	*call = "mkdir";
	/* Into a seal, no way is made: that would be in the caller's files. */
	for (size_t i = top->ro ? n + 1 : start; i <= n; i++) {
		if (way[i] != '/' && way[i] != '\0')
			continue;
		way[i] = '\0';
		r = i < n || b->dir ? sys(SYS_mkdirat, at, (long)way, 0111, 0)
		                    : sys(SYS_mknodat, at, (long)way, S_IFREG, 0);
		if (r < 0 && r != -EEXIST)
			return (int)-r;
		way[i] = i < n ? '/' : '\0';
	}
	*call = "move_mount";
	r = sys5(SYS_move_mount, fd, (long)"", at, (long)way, SBX_MOVE_MOUNT_F_EMPTY_PATH);
	return r < 0 ? (int)-r : 0;
}

/* The mount of c's cover, made detached as m: an empty tmpfs of mode 000
 * for a directory (0111 where something is bound back, and read-only only
 * after that), a copy of /dev/null for a file, a copy of the path itself
 * (t, as the compile found it) for a seal; each read-only and nodev, a
 * cover nosuid and noexec too (a seal keeps what it was: mount_setattr(2)
 * clears nothing it is not asked to). */
CHILD static int cover_made(const struct cover *c, long t, bool binding, long *m,
                            const char **call)
{
	struct sbx_mount_attr a = { .attr_set = SBX_MOUNT_ATTR_RDONLY | SBX_MOUNT_ATTR_NODEV };
	long fs, r;

	if (!c->ro)
		a.attr_set |= SBX_MOUNT_ATTR_NOSUID | SBX_MOUNT_ATTR_NOEXEC;
	if (c->dir && !c->ro) {
		*call = "fsopen(tmpfs)";
		if ((fs = sys(SYS_fsopen, (long)"tmpfs", SBX_FSOPEN_CLOEXEC, 0, 0)) < 0)
			return (int)-fs;
		*call = "fsconfig";
		if ((r = sys5(SYS_fsconfig, fs, SBX_FSCONFIG_SET_STRING, (long)"source",
		              (long)"sbxspawn", 0)) >= 0 &&
		    (r = sys5(SYS_fsconfig, fs, SBX_FSCONFIG_SET_STRING, (long)"mode",
		              (long)(binding ? "0111" : "0"), 0)) >= 0 &&
		    (r = sys5(SYS_fsconfig, fs, SBX_FSCONFIG_CMD_CREATE, 0, 0, 0)) >= 0) {
			*call = "fsmount";
			r = sys(SYS_fsmount, fs, SBX_FSMOUNT_CLOEXEC,
			        (long)(binding ? a.attr_set & ~(uint64_t)SBX_MOUNT_ATTR_RDONLY
			                       : a.attr_set),
			        0);
		}
		(void)sys(SYS_close, fs, 0, 0, 0);
		return r < 0 ? (int)-r : (*m = r, 0);
	}
	*call = "open_tree";
	if ((r = c->ro ? sys5(SYS_open_tree, t, (long)"",
	                      SBX_OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH, 0, 0)
	               : sys5(SYS_open_tree, AT_FDCWD, (long)"/dev/null",
	                      SBX_OPEN_TREE_CLONE | O_CLOEXEC, 0, 0)) < 0)
		return (int)-r;
	*m = r;
	*call = "mount_setattr";
	r = sys5(SYS_mount_setattr, *m, (long)"", AT_EMPTY_PATH, (long)&a, sizeof(a));
	return r < 0 ? (int)-r : 0;
}

/* Covers c on the inode the compile found, by a descriptor of it (t, just
 * checked), never by its path: a rename by another process meanwhile
 * would put a cover made by path on whatever took the name, and leave the
 * denial uncovered under another.  The cover goes where the inode is, and
 * where the path no longer leads there the denial changed: ESTALE.  What
 * is bound back goes in from the cover's root.  -1, nothing mounted,
 * where the calls are refused here (a filter, a security module): the
 * caller's own doing, which no other process can bring about; a shortage
 * (EMFILE, ENFILE, ENOMEM), which another could, is returned as it is,
 * nothing mounted. */
CHILD static int cover_at(const struct cover *c, long t, const struct cover *binds,
                          const long *fds, size_t nbinds, const char **call)
{
	long m = -1, r;
	int err = cover_made(c, t, nbinds > 0, &m, call);
	uint64_t made, named;
	struct statx sx;

	if (!err) {
		*call = "move_mount";
		r = sys5(SYS_move_mount, m, (long)"", t, (long)"",
		         SBX_MOVE_MOUNT_F_EMPTY_PATH | SBX_MOVE_MOUNT_T_EMPTY_PATH);
		/* No mount on a name removed since the check. */
		err = r == -ENOENT ? ESTALE : r < 0 ? (int)-r : 0;
	}
	if (err && err != ESTALE && err != EMFILE && err != ENFILE && err != ENOMEM)
		err = -1;
	if (!err) {
		*call = "statx";
		if (mount_of(m, "", &made, &sx) < 0 || mount_of(AT_FDCWD, c->path, &named, &sx) < 0 ||
		    made != named)
			err = ESTALE;
	}
	for (size_t i = 0; !err && i < nbinds; i++)
		err = bind_back(c, &binds[i], fds[i], m, call);
	if (!err && nbinds && c->dir && !c->ro) {
		struct sbx_mount_attr a = { .attr_set = SBX_MOUNT_ATTR_RDONLY };

		/* Refused (a filter), by the path just checked to lead there. */
		*call = "mount_setattr";
		if (sys5(SYS_mount_setattr, m, (long)"", AT_EMPTY_PATH, (long)&a, sizeof(a)) < 0 &&
		    (r = seal(c->path, false)) < 0)
			err = (int)-r, *call = "mount(MS_REMOUNT)";
	}
	if (m >= 0)
		(void)sys(SYS_close, m, 0, 0, 0);
	return err;
}

/* Covers c by its path, where the calls of cover_at are refused here:
 * checked last, next to the mount that goes by the same path (another
 * process's rename between the two is not seen: sbxspawn-limits(7)). */
CHILD static int cover_by_path(const struct cover *c, const struct cover *binds,
                               const long *fds, size_t nbinds, const char **call)
{
	long r = 0;
	int err = still(c, -1, call);

	if (!err && c->ro) {
		*call = "mount(MS_BIND)";
		r = sys5(SYS_mount, (long)c->path, (long)c->path, 0, MS_BIND | MS_SILENT, 0);
	} else if (!err && c->dir) {
		*call = "mount(tmpfs)";
		r = sys5(SYS_mount, (long)"sbxspawn", (long)c->path, (long)"tmpfs",
		         (nbinds ? 0 : MS_RDONLY) | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_SILENT,
		         (long)(nbinds ? "mode=0111" : "mode=0"));
	} else if (!err) {
		*call = "mount(/dev/null)";
		r = sys5(SYS_mount, (long)"/dev/null", (long)c->path, 0, MS_BIND | MS_SILENT, 0);
	}
	if (!err && r < 0)
		err = (int)-r;
	for (size_t i = 0; !err && i < nbinds; i++)
		err = bind_back(c, &binds[i], fds[i], AT_FDCWD, call);
	/* Read-only: a directory's cover at once where nothing is bound into
	 * it (one call fewer), else now. */
	if (!err && (!c->dir || nbinds || c->ro) && (r = seal(c->path, c->ro)) < 0)
		err = (int)-r, *call = "mount(MS_REMOUNT)";
	return err;
}

/* Covers c, where it is still the inode the compile found, and binds back
 * each path beneath it (binds, nbinds of them: a copy of its tree taken
 * before the cover hides it, moved in after).  EMFILE and ENFILE as they
 * are, nothing mounted. */
CHILD static int cover_one(const struct cover *c, const struct cover *binds, size_t nbinds,
                           const char **call)
{
	long fds[SBX_BINDS_MAX], t = -1;
	size_t taken = 0;
	int err = 0;

	for (; !err && taken < nbinds && taken < SBX_BINDS_MAX; taken++) {
		*call = "open_tree";
		if ((fds[taken] = sys5(SYS_open_tree, AT_FDCWD, (long)binds[taken].path,
		                       SBX_OPEN_TREE_CLONE | O_CLOEXEC | SBX_AT_RECURSIVE |
		                               AT_SYMLINK_NOFOLLOW, 0, 0)) < 0)
			err = (int)-fds[taken--];
		else
			err = still(&binds[taken], fds[taken], call);
	}
	if (!err) {
		*call = "open";
		t = sys(SYS_openat, AT_FDCWD, (long)c->path, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
		err = t >= 0 ? still(c, t, call)
		      : t == -ENOENT || t == -ENOTDIR ? ESTALE : (int)-t;
	}
	if (!err)
		err = cover_at(c, t, binds, fds, nbinds, call);
	if (err == -1)
		err = cover_by_path(c, binds, fds, nbinds, call);
	if (t >= 0)
		(void)sys(SYS_close, t, 0, 0, 0);
	for (size_t i = 0; i < taken; i++)
		(void)sys(SYS_close, fds[i], 0, 0, 0);
	return err;
}

/* The descriptors a cover takes, where the table is full at its soft limit
 * (the file actions took the rest, or another process of the caller's
 * lowered it: prlimit(2)): the limit raised to the hard one, once, and put
 * back after the covers (*was: what it was; was->max 0: not raised).  Not
 * in the caller's own process (sbx_execve), whose other threads share the
 * limit and would start what they start with it raised: refused there.
 * No cover is ever made by its path for want of a descriptor: that is a
 * window another process could open. */
CHILD static bool more_room(struct sbx_rlimit64 *was)
{
	struct sbx_rlimit64 now;

	if (was->max || sys(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)was) < 0 ||
	    was->cur >= was->max)
		return false;
	now = (struct sbx_rlimit64){ was->max, was->max };
	return sys(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)&now, 0) == 0;
}

CHILD int sbx__hide_mount(const struct hiding *h, bool user, bool own, const char **call)
{
	struct sbx_rlimit64 room = { 0, 0 };
	long r = 0;
	int err = 0;

	if (user && (err = sbx__caps_effective(true, call)))
		return err;
	/* Seals first, highest first: the covers beneath them go on top.
	 * Then files: their covers are binds of /dev/null, which a denial of
	 * /dev would cover. */
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < h->ncovers && !err; i++) {
			size_t b = 0, n = 0;

			/* The binds are sorted: those beneath covers[i] are
			 * together. */
			while (b < h->nbinds && !covers_path(h->covers[i].path, h->binds[b].path))
				b++;
			while (b + n < h->nbinds && covers_path(h->covers[i].path, h->binds[b + n].path))
				n++;
			if (pass != (h->covers[i].ro ? 0 : 1 + h->covers[i].dir))
				continue;
			err = cover_one(&h->covers[i], h->binds + b, n, call);
			if ((err == EMFILE || err == ENFILE) && !own && more_room(&room))
				err = cover_one(&h->covers[i], h->binds + b, n, call);
		}
	/* After the covers, highest first, each whole (MS_REC): a pin carries
	 * copies of the covers beneath it (no pin: those beneath come later),
	 * and what still names the directory under it (the working directory,
	 * a descriptor a file action opened) meets the covers made there
	 * before. */
	for (size_t i = 0; i < h->npins && !err; i++) {
		*call = "mount(MS_BIND)";
		if ((r = sys5(SYS_mount, (long)h->pins[i], (long)h->pins[i], 0,
		              MS_BIND | MS_REC | MS_SILENT, 0)) < 0)
			err = (int)-r;
	}
	if (room.max)
		(void)sys(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)&room, 0);
	return err;
}

CHILD int sbx__hide_cover(const struct hiding *h, bool user, const int *ours, size_t nours,
                          const sbx_file_actions_t *fa, bool every, const char **call)
{
	int err = h->kept ? (user ? sbx__caps_effective(true, call) : 0)
	                  : sbx__hide_mount(h, user, every, call);

	if (err)
		return err;
	return sbx__hide_held(h, ours, nours, fa, every, call);
}
