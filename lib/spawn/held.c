/* SPDX-License-Identifier: MIT */
/*
 * What a child holds from before its mount namespace, checked in the parent
 * before a spawn that hides denials (hide.c): a cover exists only in the
 * child's namespace, and a lookup from something opened in the caller's
 * never meets it.  So a spawn expands its denials instead where the child
 * would hold
 *
 * - a directory it inherits (a descriptor left open past exec: not
 *   close-on-exec, or made so by a dup2 action), wherever it lies:
 *   openat(2) from a directory of HOME reaches HOME/.ssh/key uncovered, and
 *   one of a sibling, through "..";
 * - any other descriptor it inherits, or one a file action opens (in the
 *   child's own namespace, where the covers are made after it), that lies
 *   in a hidden denial (a reopen through /proc/self/fd reaches it whole),
 *   and an io_uring or fanotify group it inherits (what they hold, or
 *   hand out, was opened before the namespace);
 * - a working directory in one, or one taken from an inherited directory
 *   (fchdir), wherever it lies.
 *
 * The file actions are followed in order, as the child runs them: closes
 * and closefrom take descriptors away, dup2 copies what its source is, an
 * open or chdir names a path from the working directory at that point.
 *
 * The caller's whole table is looked at here only where asked (inherited):
 * by sbx_execve, and for the remedy of a frozen line (sbx__held_any,
 * frozen.c).  A spawn's parent looks at its table just before the clone,
 * every signal blocked (child/clone.c, child/holds.c), and its child makes
 * its own table what was seen, or looks itself: where one reaches, there
 * is no child, and the spawn starts again with the denials expanded.  Each
 * descriptor costs one fcntl(2), and a readlink(2) for those left open
 * past exec.  The child checks what its file actions made again after its
 * covers, and its working directory, and refuses where something changed
 * meanwhile.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/hiding.h"
#include "lib/confine.h"

/* Whether path lies in a hidden denial (or is one), past its cover, or in
 * a sealed path but for the working directory (entered again there): not
 * in what is bound back into it, where a file is granted, and so is a
 * directory the child enters again through the binds (granted: the
 * working directory), but not one opened before the covers, whose ".."
 * climbs to what they hide; nor a path shown " (deleted)" (cut), which a
 * file of the denial may be named as. */
static bool inside(const struct sbx_ruleset *rs, const char *path, bool entered, bool cut)
{
	struct stat st;
	bool in_bind = path[0] == '/' && sbx__hide_bound(rs, path);

	for (size_t i = 0; path[0] == '/' && i < rs->ncovers; i++) {
		if (!sbx__path_covers(rs->covers[i].path, path))
			continue;
		/* Sealed, not bound: held, it writes past the seal; entered
		 * again (the working directory), it is read-only. */
		if (rs->covers[i].ro && !in_bind) {
			if (cut || !entered)
				return true;
		} else if (cut || !in_bind || (!entered && (stat(path, &st) || S_ISDIR(st.st_mode)))) {
			return true;
		}
	}
	return false;
}

static bool is_dir(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The caller's descriptor fd's path (its link in /proc), " (deleted)" cut
 * (then *cut, where cut is not NULL); read by its name in the open
 * /proc/self/fd where there is one (proc, else -1: a third of the cost of
 * the whole path). */
static bool path_of(int proc, int fd, char *out, bool *cut)
{
	char link[32];
	ssize_t n;
	size_t dl = strlen(" (deleted)");

	snprintf(link, sizeof(link), proc < 0 ? "/proc/self/fd/%d" : "%d", fd);
	if ((n = readlinkat(proc < 0 ? AT_FDCWD : proc, link, out, PATH_MAX - 1)) <= 0)
		return false;
	out[n] = '\0';
	if ((size_t)n > dl && !strcmp(out + n - dl, " (deleted)")) {
		out[n - dl] = '\0';
		if (cut)
			*cut = true;
	}
	return true;
}

/* Whether the working directory is the directory its name path names. */
static bool named(const char *path)
{
	struct stat here, there;

	return !stat(".", &here) && !stat(path, &there) && here.st_dev == there.st_dev &&
	       here.st_ino == there.st_ino;
}

/* A descriptor as the file actions leave it. */
struct slot {
	int fd;
	bool open;     /* else closed by an action */
	bool cloexec;  /* closed at exec */
	bool caller;   /* the caller's (else opened by an action) */
	bool dir;      /* the caller's, and a directory */
	bool inside;   /* in a hidden denial */
	bool cut;      /* its path shown " (deleted)": not granted by a bind */
	char *path;    /* where it lies, if it has a path */
};

struct walk {
	const struct sbx_ruleset *rs;
	struct slot *v;
	size_t n, cap;
	int closed_from; /* closefrom's: the caller's from here on are gone */
	char cwd[PATH_MAX];
	bool cwd_caller; /* taken from a caller's descriptor */
	int err;
};

static struct slot *find(struct walk *w, int fd)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->v[i].fd == fd)
			return &w->v[i];
	return NULL;
}

static struct slot *set(struct walk *w, struct slot now, const char *path)
{
	struct slot *s = find(w, now.fd), *grown;

	if (!s) {
		if (!(grown = sbx__grow(w->v, &w->cap, w->n + 1, sizeof(*grown)))) {
			w->err = ENOMEM;
			return NULL;
		}
		w->v = grown;
		s = &w->v[w->n++];
		s->path = NULL;
	}
	free(s->path);
	*s = now;
	s->path = NULL;
	if (now.open && path && (path[0] == '/' || carries_fds(path, strlen(path)))) {
		s->inside = path[0] != '/' || inside(w->rs, path, false, now.cut);
		if (!(s->path = strdup(path)))
			w->err = ENOMEM;
	}
	return s;
}

/* The caller's descriptor fd as an action first names it. */
static struct slot *caller_fd(struct walk *w, int fd)
{
	struct slot *s = find(w, fd);
	char path[PATH_MAX];
	int flags;
	bool known, cut = false;

	if (s)
		return s;
	if (fd >= w->closed_from || (flags = fcntl(fd, F_GETFD)) < 0)
		return set(w, (struct slot){ .fd = fd, .caller = true }, NULL);
	known = path_of(-1, fd, path, &cut);
	return set(w, (struct slot){ .fd = fd, .open = true, .caller = true, .dir = is_dir(fd),
	                             .cloexec = (flags & FD_CLOEXEC) != 0, .cut = cut },
	           known ? path : NULL);
}

/* An action's path, from the working directory the child has then. */
static bool action_path(struct walk *w, const char *path, char *out)
{
	char joined[PATH_MAX];

	if (path[0] == '/')
		return sbx__resolve(path, out) == 0;
	if (snprintf(joined, sizeof(joined), "%s/%s", w->cwd, path) >= (int)sizeof(joined))
		return false;
	return sbx__resolve(joined, out) == 0;
}

static void step(struct walk *w, const struct sbx_file_action *a)
{
	char path[PATH_MAX];
	struct slot *s, copy;

	switch (a->kind) {
	case SBX_FA_OPEN:
		set(w, (struct slot){ .fd = a->fd, .open = true, .cloexec = (a->oflag & O_CLOEXEC) != 0 },
		    action_path(w, a->path, path) ? path : NULL);
		break;
	case SBX_FA_CLOSE:
		set(w, (struct slot){ .fd = a->fd }, NULL);
		break;
	case SBX_FA_DUP2:
		/* dup2 leaves its copy open past exec; dup2(fd, fd) clears
		 * the flag of fd itself. */
		if (!(s = caller_fd(w, a->srcfd)))
			break;
		copy = *s;
		copy.fd = a->fd;
		copy.cloexec = false;
		snprintf(path, sizeof(path), "%s", s->path ? s->path : "");
		set(w, copy, path);
		break;
	case SBX_FA_CHDIR:
		if (action_path(w, a->path, path)) {
			strcpy(w->cwd, path);
			w->cwd_caller = false;
		}
		break;
	case SBX_FA_FCHDIR:
		if ((s = caller_fd(w, a->fd)) && s->open) {
			snprintf(w->cwd, sizeof(w->cwd), "%s", s->path ? s->path : ".");
			w->cwd_caller = s->caller;
		}
		break;
	case SBX_FA_CLOSEFROM:
		for (size_t i = 0; i < w->n; i++)
			if (w->v[i].fd >= a->fd)
				w->v[i].open = false;
		if (a->fd < w->closed_from)
			w->closed_from = a->fd;
		break;
	case SBX_FA_TCSETPGRP:
		break;
	}
}

/* The caller's descriptors left open past exec that are directories, or
 * lie in a hidden denial: read from /proc/self/fd with raw getdents64. */
static void caller_fds(struct walk *w)
{
	char buf[4096], path[PATH_MAX];
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	if (dir < 0)
		return; /* no /proc: the child finds nothing either, and says so */
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n && !w->err;) {
			struct dirent64 *d = (struct dirent64 *)(void *)(buf + off);
			int fd = atoi(d->d_name);
			bool dir_fd, cut;

			off += d->d_reclen;
			if (d->d_name[0] < '0' || d->d_name[0] > '9' || fd == dir || fcntl(fd, F_GETFD) != 0)
				continue;
			dir_fd = is_dir(fd);
			cut = false;
			if (!path_of(dir, fd, path, &cut))
				path[0] = '\0';
			if (dir_fd || inside(w->rs, path, false, cut) ||
			    carries_fds(path, strlen(path)))
				set(w, (struct slot){ .fd = fd, .open = true, .caller = true, .dir = dir_fd,
				                      .cut = cut }, path);
		}
	}
	close(dir);
}

/* What the child would hold past its covers, said in what. */
static bool reaches(struct walk *w, char *what, size_t size)
{
	for (size_t i = 0; i < w->n; i++) {
		const struct slot *s = &w->v[i];

		if (!s->open || s->cloexec)
			continue;
		if (s->inside || (s->caller && s->dir)) {
			snprintf(what, size, "%s %d (%s)", s->dir ? "the directory descriptor" : "descriptor",
			         s->fd, s->path ? s->path : "no name");
			return true;
		}
	}
	if (inside(w->rs, w->cwd, true, false) || w->cwd_caller) {
		snprintf(what, size, "the working directory (%s)", w->cwd);
		return true;
	}
	return false;
}

void sbx__held_say(int fd, char *what, size_t size)
{
	char path[PATH_MAX];
	bool dir = is_dir(fd);

	snprintf(what, size, "%s %d (%s)", dir ? "the directory descriptor" : "descriptor", fd,
	         path_of(-1, fd, path, NULL) ? path : "no name");
}

/* sbx__held_reaches, where rs may hide nothing yet (sbx__held_any). */
static int held(const struct sbx_ruleset *rs, const sbx_file_actions_t *fa, bool inherited,
                char *what, size_t size)
{
	struct walk w = { .rs = rs, .closed_from = INT_MAX };
	int r;

	/* No name: nothing it lies in; one too long to read: not known not to
	 * (the child would refuse it). */
	if (!getcwd(w.cwd, sizeof(w.cwd))) {
		int e = errno;

		/* Removed, or not under the root: not known not to reach. */
		w.cwd_caller = e == ENAMETOOLONG || e == ERANGE || e == ENOENT;
		strcpy(w.cwd, e == ENOENT ? "removed, or not under the root"
		              : w.cwd_caller ? "a name longer than PATH_MAX" : ".");
	} else if (!named(w.cwd)) {
		/* A mount made over it since: what it holds, no compile saw. */
		w.cwd_caller = true;
	}
	if (inherited)
		caller_fds(&w);
	for (int i = 0; fa && i < fa->__used && !w.err; i++)
		step(&w, &fa->__actions[i]);
	/* Out of memory: no answer, and no child. */
	r = w.err ? -w.err : reaches(&w, what, size);
	for (size_t i = 0; i < w.n; i++)
		free(w.v[i].path);
	free(w.v);
	return r;
}

int sbx__held_reaches(const struct sbx_ruleset *rs, const sbx_file_actions_t *fa, bool inherited,
                      char *what, size_t size)
{
	return rs->ncovers ? held(rs, fa, inherited, what, size) : 0;
}

int sbx__held_any(const struct sbx_ruleset *rs, const sbx_file_actions_t *fa, char *what,
                  size_t size)
{
	return held(rs, fa, true, what, size);
}
