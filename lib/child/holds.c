/* SPDX-License-Identifier: MIT */
/*
 * What a child holds from before its mount namespace (cover.c makes the
 * namespace and its covers): a cover exists only in the child's namespace,
 * and a lookup from something opened in the caller's never meets it.  So
 * the child looks at the descriptors it inherits before its file actions
 * (a start with the denials expanded then does nothing twice), and at its
 * working directory and what the file actions made after its covers.
 * Raw system calls only.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/confine.h"

/* The way from directory `from' to `to' (both absolute, canonical),
 * through ".." where it must go up: a lookup from a directory opened in the
 * caller's namespace climbs there too, and never meets a cover. */
CHILD static bool way(const char *from, const char *to, char *out, size_t size)
{
	size_t a = strlen(from), len = 0, ups = 0, n;
	const char *rest;

	/* a: the length of from's deepest ancestor (itself included) that
	 * holds to; 1 for the root. */
	while (a > 1 && !(!strncmp(from, to, a) && (to[a] == '/' || to[a] == '\0'))) {
		while (a > 1 && from[a - 1] != '/')
			a--;
		a = a > 1 ? a - 1 : 1;
	}
	rest = from + a;
	ups = a == 1 && *rest ? 1 : 0;
	for (; *rest; rest++)
		ups += *rest == '/';
	for (size_t i = 0; i < ups; i++) {
		if (len + 3 >= size)
			return false;
		memcpy(out + len, "../", 3);
		len += 3;
	}
	for (to += a; *to == '/'; to++)
		;
	if (!*to && !len)
		to = ".";
	if ((n = strlen(to)) + len + 1 > size)
		return false;
	memcpy(out + len, to, n + 1);
	return true;
}

/* Whether path lies in a path bound back into a cover (or is one). */
CHILD static bool bound(const struct hiding *h, const char *path)
{
	return in_binds(h->binds, h->nbinds, path);
}

/* Whether path lies in a sealed read-only path (or is one). */
CHILD static bool sealed(const struct hiding *h, const char *path)
{
	for (size_t i = 0; i < h->ncovers; i++)
		if (h->covers[i].ro && covers_path(h->covers[i].path, path))
			return true;
	return false;
}

/* Whether the lookup of rel from fd arrives at c's inode, past its cover:
 * the inode a cover hides, or a sealed one on a mount that writes (one
 * that never crossed a seal: the seal, and each copy the pins above it
 * made, are read-only; statfs(2) by its path, through /proc for a
 * descriptor, takes no descriptor). */
CHILD static bool arrives(const struct cover *c, long fd, const char *rel)
{
	char via[PATH_MAX + 40];
	struct statx at;
	struct statfs sf;
	size_t n = 0, len = strlen(rel);

	if (statx_of(fd, rel, AT_SYMLINK_NOFOLLOW, &at) < 0 || !is_cover(c, &at))
		return false;
	if (!c->ro)
		return true;
	if (fd != AT_FDCWD) {
		memcpy(via, "/proc/self/fd/", 14);
		n = 14 + put_uint(via + 14, (unsigned long)fd);
		via[n++] = '/';
	}
	if (n + len >= sizeof(via))
		return true;
	memcpy(via + n, rel, len + 1);
	return sys(SYS_statfs, (long)via, (long)&sf, 0, 0) < 0 || !(sf.f_flags & SBX_ST_RDONLY);
}

/* Whether what is open as fd (AT_FDCWD: the working directory), at path,
 * reaches a hidden denial past its cover, or a sealed path past its seal:
 * it lies in one, or (a directory) a lookup from it arrives there.  What
 * lies in a path bound back in is granted, but a directory opened before
 * the covers climbs through ".." to what they hide: only a directory
 * entered again through the binds or the seal (entered) does not. */
CHILD static bool held_reaches(const struct hiding *h, long fd, const char *path, bool dir,
                               bool entered)
{
	char rel[PATH_MAX];

	bool in_bind = bound(h, path);

	for (size_t i = 0; i < h->ncovers; i++) {
		const struct cover *c = &h->covers[i];

		if (covers_path(c->path, path) &&
		    (in_bind || !c->ro ? !in_bind || (dir && !entered) : !(dir && entered)))
			return true;
		/* No way to name (too long): it is not known not to reach. */
		if (dir && !way(path, c->path, rel, sizeof(rel)))
			return true;
		if (dir && arrives(c, fd, rel))
			return true;
	}
	return false;
}

CHILD static bool is_ours(const int *ours, size_t nours, long fd)
{
	for (size_t i = 0; i < nours; i++)
		if (ours[i] == fd)
			return true;
	return false;
}

/* A path as the kernel shows one: " (deleted)" taken off its end (the
 * inode is still there to reach), "(unreachable)" off its start.  Whether
 * " (deleted)" was taken off: then the path is a name the file had, or
 * one a file in a denial has (named so), not known to be the file. */
CHILD static bool strip_path(char *p, long len)
{
	static const char deleted[] = " (deleted)", unreachable[] = "(unreachable)";
	size_t dl = sizeof(deleted) - 1, ul = sizeof(unreachable) - 1;
	bool cut = false;

	p[len] = '\0';
	if ((size_t)len > dl && !strcmp(p + len - dl, deleted))
		p[len - dl] = '\0', cut = true;
	if (!strncmp(p, unreachable, ul))
		memmove(p, p + ul, strlen(p + ul) + 1);
	return cut;
}

/* Descriptor fd, open past exec, as the parent sees it (sx; NULL: not
 * known): listed in seen, whose list stays whole while there is room and
 * the numbers come in rising order. */
CHILD static void see(struct seen *seen, long fd, const struct statx *sx)
{
	struct seen_fd *e = &seen->v[seen->n];

	if (!sx || seen->n == SBX_SEEN_MAX || (seen->n && e[-1].fd >= fd)) {
		seen->whole = false;
		return;
	}
	*e = (struct seen_fd){ .fd = (int)fd, .dev_major = sx->stx_dev_major,
	                       .dev_minor = sx->stx_dev_minor, .ino = sx->stx_ino,
	                       .born = (sx->stx_mask & STATX_BTIME) != 0,
	                       .born_sec = sx->stx_btime.tv_sec, .born_nsec = sx->stx_btime.tv_nsec };
	seen->n++;
}

/* Whether sx is the file e was: the same inode, born at the same time
 * where its filesystem keeps that (an inode's number, freed, may be given
 * again). */
CHILD static bool same(const struct seen_fd *e, const struct statx *sx)
{
	return sx->stx_ino == e->ino && sx->stx_dev_major == e->dev_major &&
	       sx->stx_dev_minor == e->dev_minor && ((sx->stx_mask & STATX_BTIME) != 0) == e->born &&
	       (!e->born || (sx->stx_btime.tv_sec == e->born_sec &&
	                     sx->stx_btime.tv_nsec == e->born_nsec));
}

/* What is open as fd, taken as one file: its link read by its name in
 * the open /proc/self/fd (dir; a third of the cost of the whole path), or
 * where no descriptor was left for that, by the whole path (dir -1); its
 * inode in *sx where known (*known).  A directory (every_dir) reaches,
 * wherever it lies: a lookup from it walks the caller's mounts, where
 * there is no cover.  A link that cannot be read whole (a name longer
 * than PATH_MAX) reaches: it is not known not to. */
CHILD static bool judged(const struct hiding *h, long dir, long fd, bool every_dir,
                         struct statx *sx, bool *known)
{
	char link[32], path[PATH_MAX + 16];
	long len, at = dir, skip = 14;
	bool is_dir;

	*known = statx_of(fd, "", AT_EMPTY_PATH, sx) >= 0;
	is_dir = *known && S_ISDIR(sx->stx_mode);
	if (is_dir && every_dir)
		return true;
	memcpy(link, "/proc/self/fd/", 14);
	link[14 + put_uint(link + 14, (unsigned long)fd)] = '\0';
	if (dir < 0)
		at = AT_FDCWD, skip = 0;
	len = sys(SYS_readlinkat, at, (long)(link + skip), (long)path, PATH_MAX);
	if (len == -ENAMETOOLONG || len >= PATH_MAX)
		return true;
	if (len > 0 && path[0] != '/')
		return carries_fds(path, (size_t)len);
	if (len <= 0)
		return false;
	/* Not granted by a path bound back: a file of the denial named as
	 * one, " (deleted)" after it, would pass for it. */
	if (strip_path(path, len) && bound(h, path))
		return true;
	return held_reaches(h, fd, path, is_dir, false);
}

/* An O_PATH descriptor of what is open as fd, through its link in the
 * open /proc/self/fd (dir), or by the whole path (dir -1). */
CHILD static long path_of_fd(long dir, long fd)
{
	char link[32];
	long at = dir, skip = 14;

	memcpy(link, "/proc/self/fd/", 14);
	link[14 + put_uint(link + 14, (unsigned long)fd)] = '\0';
	if (dir < 0)
		at = AT_FDCWD, skip = 0;
	return sys(SYS_openat, at, (long)(link + skip), O_PATH | O_CLOEXEC, 0);
}

/* Descriptor fd, if it stays open past exec: whether it reaches (judged).
 * The parent (seen) shares its table with the caller's threads, which may
 * put another file at fd between any two of its calls (a dup2): it judges
 * one O_PATH descriptor of what is there (opened through /proc/self/fd),
 * whole, and lists that file's inode for the child to find again.  Not a
 * dup: closing one would drop the caller's POSIX record locks on the file
 * and call a filesystem's flush; an O_PATH descriptor's close does
 * neither.  None (no number free): the child looks. */
CHILD static bool fd_reaches(const struct hiding *h, long dir, long fd, bool every_dir,
                             struct seen *seen)
{
	struct statx sx;
	bool known, reaches;
	long own;

	if (sys(SYS_fcntl, fd, F_GETFD, 0, 0) != 0)
		return false; /* close-on-exec, or not open */
	if (!seen)
		return judged(h, dir, fd, every_dir, &sx, &known);
	if ((own = path_of_fd(dir, fd)) < 0) {
		seen->whole = false;
		return false;
	}
	reaches = judged(h, dir, own, every_dir, &sx, &known);
	(void)sys(SYS_close, own, 0, 0, 0);
	if (!reaches)
		see(seen, fd, known ? &sx : NULL);
	return reaches;
}

/* Whether the file actions take descriptor fd's place: close it, or make
 * another with its number (what a dup2 or an open leaves there is theirs,
 * looked at after them). */
CHILD static bool replaced(const sbx_file_actions_t *fa, long fd)
{
	for (int i = 0; fa && i < fa->__used; i++) {
		const struct sbx_file_action *a = &fa->__actions[i];

		if (a->kind == SBX_FA_CLOSEFROM ? fd >= a->fd
		                                : (a->kind == SBX_FA_CLOSE || a->kind == SBX_FA_OPEN ||
		                                   a->kind == SBX_FA_DUP2) && a->fd == fd)
			return true;
	}
	return false;
}

/* Which descriptors a check looks at: every one; those inherited that the
 * file actions leave in place; those the file actions made. */
enum held { HELD_EVERY, HELD_INHERITED, HELD_MADE };

/* Whether descriptor fd is one the check of kind which looks at. */
CHILD static bool looked_at(const sbx_file_actions_t *fa, enum held which, const int *ours,
                            size_t nours, long fd)
{
	return !is_ours(ours, nours, fd) && (which != HELD_INHERITED || !replaced(fa, fd));
}

/* The descriptors the file actions made that stay open past exec (but
 * ours): the first that reaches a hidden denial in *fd, EXDEV. */
CHILD static int check_made(const struct hiding *h, const sbx_file_actions_t *fa, const int *ours,
                            size_t nours, long *fd)
{
	long dir;
	int err = 0, made = 0;

	for (int i = 0; fa && i < fa->__used; i++)
		made += fa->__actions[i].kind == SBX_FA_OPEN || fa->__actions[i].kind == SBX_FA_DUP2;
	if (!made)
		return 0;
	dir = sys(SYS_openat, AT_FDCWD, (long)"/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

	for (int i = 0; fa && i < fa->__used && !err; i++) {
		const struct sbx_file_action *a = &fa->__actions[i];

		if ((a->kind == SBX_FA_OPEN || a->kind == SBX_FA_DUP2) &&
		    !is_ours(ours, nours, a->fd) &&
		    fd_reaches(h, dir < 0 ? -1 : dir, a->fd, false, NULL)) {
			*fd = a->fd;
			err = EXDEV;
		}
	}
	if (dir >= 0)
		(void)sys(SYS_close, dir, 0, 0, 0);
	return err;
}

/* The descriptors left open past exec that check which looks at, as
 * /proc/self/fd lists them; where no descriptor is left to list them with,
 * each number below the limit.  The first that reaches a hidden denial in
 * *fd, EXDEV. */
CHILD static int check_fds(const struct hiding *h, const sbx_file_actions_t *fa, enum held which,
                           const int *ours, size_t nours, struct seen *seen, long *fd)
{
	char buf[1024];
	long dir, n;
	struct rlimit rl;

	if (which == HELD_MADE)
		return check_made(h, fa, ours, nours, fd);
	dir = sys(SYS_openat, AT_FDCWD, (long)"/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (dir == -EMFILE || dir == -ENFILE) {
		if (seen) {
			seen->whole = false; /* the child looks: it has a descriptor more */
			return 0;
		}
		if (sys(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&rl) < 0)
			return (int)-dir;
		for (*fd = 0; *fd < (long)rl.rlim_cur && *fd < 65536; ++*fd)
			if (looked_at(fa, which, ours, nours, *fd) &&
			    fd_reaches(h, -1, *fd, which != HELD_MADE, NULL))
				return EXDEV;
		return 0;
	}
	if (dir < 0)
		return (int)-dir;
	while ((n = sys(SYS_getdents64, dir, (long)buf, sizeof(buf), 0)) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(void *)(buf + off);
			const char *p = d->d_name;

			off += d->d_reclen;
			if (*p < '0' || *p > '9')
				continue;
			for (*fd = 0; *p >= '0' && *p <= '9'; p++)
				*fd = *fd * 10 + (*p - '0');
			if (*fd != dir && looked_at(fa, which, ours, nours, *fd) &&
			    fd_reaches(h, dir, *fd, true, seen)) {
				(void)sys(SYS_close, dir, 0, 0, 0);
				return EXDEV;
			}
		}
	}
	(void)sys(SYS_close, dir, 0, 0, 0);
	return n < 0 ? (int)-n : 0;
}

CHILD int sbx__hide_look(const struct hiding *h, const sbx_file_actions_t *fa, const int *ours,
                         size_t nours, struct seen *seen, long *fd)
{
	int err;

	seen->whole = true;
	seen->n = 0;
	if ((err = check_fds(h, fa, HELD_INHERITED, ours, nours, seen, fd)) && err != EXDEV)
		seen->whole = false;
	return err == EXDEV ? err : 0;
}

/* Whether the child's table is the one its parent saw (seen), made so: each
 * descriptor listed still the file it was (or closed since), and every
 * other number made close-on-exec.  Between the parent's look and the
 * clone, another thread of the caller's, or the completion of an io_uring
 * request (at the return of any system call of the parent's, the look's
 * own too), may have put a descriptor in the table: closed at exec, it
 * goes as one put there a moment later, after the clone, would have gone. */
CHILD static bool as_seen(const struct seen *seen)
{
	unsigned from = 0;
	struct statx sx;
	long r;

	if (!seen->whole)
		return false;
	for (unsigned i = 0; i < seen->n; i++)
		if ((r = statx_of(seen->v[i].fd, "", AT_EMPTY_PATH, &sx)) != -EBADF &&
		    (r < 0 || !same(&seen->v[i], &sx)))
			return false;
	/* No close_range with CLOSE_RANGE_CLOEXEC (before Linux 5.11, an
	 * emulator, a filter): the child looks itself. */
	for (unsigned i = 0; i < seen->n; from = (unsigned)seen->v[i++].fd + 1)
		if ((unsigned)seen->v[i].fd > from &&
		    sys(SYS_close_range, from, seen->v[i].fd - 1, CLOSE_RANGE_CLOEXEC, 0) < 0)
			return false;
	return sys(SYS_close_range, from, ~0U, CLOSE_RANGE_CLOEXEC, 0) >= 0;
}

CHILD int sbx__hide_inherited(const struct hiding *h, const sbx_file_actions_t *fa,
                              const int *ours, size_t nours, const struct seen *seen, long *fd)
{
	if (seen && as_seen(seen))
		return 0;
	return check_fds(h, fa, HELD_INHERITED, ours, nours, NULL, fd);
}

/* The working directory, at cwd in a path bound back into a cover, entered
 * again by that path: through the binds, where ".." climbs into the cover,
 * not past it.  The same directory, or EXDEV. */
CHILD static long enter(const char *cwd, const char **call)
{
	struct statx was, now;

	*call = "chdir";
	if (statx_of(AT_FDCWD, ".", 0, &was) < 0 || sys(SYS_chdir, (long)cwd, 0, 0, 0) < 0 ||
	    statx_of(AT_FDCWD, ".", 0, &now) < 0 || !same_inode(&was, &now))
		return EXDEV;
	return 0;
}

/* Whether the working directory is the directory its name cwd names. */
CHILD static bool named(const char *cwd)
{
	struct statx here, there;

	return statx_of(AT_FDCWD, ".", 0, &here) >= 0 && statx_of(AT_FDCWD, cwd, 0, &there) >= 0 &&
	       same_inode(&here, &there);
}

/* Whether a file action moves the working directory. */
CHILD static bool moves_cwd(const sbx_file_actions_t *fa)
{
	for (int i = 0; fa && i < fa->__used; i++)
		if (fa->__actions[i].kind == SBX_FA_CHDIR || fa->__actions[i].kind == SBX_FA_FCHDIR)
			return true;
	return false;
}

CHILD int sbx__hide_held(const struct hiding *h, const int *ours, size_t nours,
                         const sbx_file_actions_t *fa, bool every, const char **call)
{
	char cwd[PATH_MAX + 16];
	long r, fd;

	/* A kept namespace's child entered its working directory by its
	 * name there (sbx__hide_join): where no file action moved it since,
	 * a lookup from it is one by that name. */
	if (h->kept && !moves_cwd(fa))
		goto fds;
	/* A working directory whose name is too long to read is not known
	 * not to lie in a denial. */
	*call = "getcwd";
	if ((r = sys(SYS_getcwd, (long)cwd, PATH_MAX, 0, 0)) == -ENAMETOOLONG || r == -ERANGE)
		return EXDEV;
	/* Nor is one removed (no name: its ".." may climb into a denial
	 * beneath its cover), nor one its name no longer names (a mount made
	 * over it, a directory the compile never saw). */
	if (r == -ENOENT)
		return EXDEV;
	if (r > 0 && (strip_path(cwd, r - 1), cwd[0] == '/')) {
		bool in_bind = bound(h, cwd) || sealed(h, cwd);

		/* In a bind or a seal, entered again by its name (which proves
		 * the name); elsewhere, the directory its name names. */
		if (in_bind ? enter(cwd, call) != 0 : !named(cwd))
			return EXDEV;
		if (held_reaches(h, AT_FDCWD, cwd, true, in_bind))
			return EXDEV;
	}
fds:
	*call = "/proc/self/fd";
	return check_fds(h, fa, every ? HELD_EVERY : HELD_MADE, ours, nours, NULL, &fd);
}
