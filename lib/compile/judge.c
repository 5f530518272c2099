/* SPDX-License-Identifier: MIT */
/*
 * Judging one entry of an expanded directory: opened without following it,
 * proved to be the entry that was listed, placed where it really is, and
 * granted what the scope allows there.  A compile judges every entry it
 * lists; a spawn that reuses a compile judges the entries that appeared
 * since.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/compiler.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* ---- descriptors, closed in runs ---------------------------------------- */

/* An entry is opened only to name it in a rule: its descriptor is closed
 * with the next ones, a close_range(2) per run of consecutive numbers
 * among them, which costs less than the statx(2) that proves what the
 * entry is.  Few are pending at once, so that a compile needs few
 * descriptors; numbers held elsewhere (a directory on the way) only split
 * the runs. */

static int by_number(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

void sbx__closer_flush(struct closer *c)
{
	qsort(c->fd, c->n, sizeof(*c->fd), by_number);
	for (size_t i = 0, end; i < c->n; i = end) {
		for (end = i + 1; end < c->n && c->fd[end] == c->fd[end - 1] + 1; end++)
			;
		if (end - i == 1 || syscall(SYS_close_range, c->fd[i], c->fd[end - 1], 0))
			for (size_t k = i; k < end; k++)
				close(c->fd[k]);
	}
	c->n = 0;
}

void sbx__closer_add(struct closer *c, int fd)
{
	if (c->n == sizeof(c->fd) / sizeof(c->fd[0]))
		sbx__closer_flush(c);
	c->fd[c->n++] = fd;
}

bool sbx__closer_spare(struct closer *c, int err)
{
	if (err != EMFILE && err != ENFILE)
		return false;
	if (c->n) {
		sbx__closer_flush(c);
		return true;
	}
	return c->spare && c->spare(c->arg);
}

/* openat(O_PATH) of a name, letting go of what can be if descriptors ran
 * out.  The descriptor, or -errno. */
int sbx__open_entry(struct closer *c, int dirfd, const char *name)
{
	int fd;

	while ((fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0 &&
	       sbx__closer_spare(c, errno))
		;
	return fd < 0 ? -errno : fd;
}

int sbx__statx_fd(int fd, struct statx *sx)
{
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
	          STATX_TYPE | STATX_INO | STATX_NLINK | STATX_MTIME | STATX_CTIME | STATX_MNT_ID, sx))
		return errno;
	return sx->stx_mask & STATX_MNT_ID ? 0 : ENOSYS;
}

/* ---- granting ----------------------------------------------------------- */

/* Adds a rule on fd, trimmed to what its kind of file may carry: 0, or the
 * errno of the kernel's refusal. */
int sbx__grant(const struct judge *j, int fd, bool is_dir, uint64_t access, const char *name)
{
	int r;

	if (!is_dir)
		access &= j->file_rights;
	if (!access)
		return 0;
	if ((r = sbx__ruleset_add(j->rs->fd, fd, access)))
		return -r;
	atomic_fetch_add(&j->rs->rules, 1);
	if (j->scope->trace) {
		char full[PATH_MAX + NAME_MAX + 2];
		struct stat st = { 0 };

		snprintf(full, sizeof(full), "%s%s%s", j->dir, strcmp(j->dir, "/") && *name ? "/" : "",
		         name);
		fstat(fd, &st);
		j->scope->trace(full, access, is_dir, st.st_dev, st.st_ino, j->scope->trace_arg);
	}
	return 0;
}

/* ---- proofs ------------------------------------------------------------- */

/* A grant holds on its inode, whatever names it has: when its granted name
 * is unlinked, the inode may have another, beneath a denial (a link made
 * there first).  Only a handle to the inode, taken now, can tell later:
 * open_by_handle_at(2) fails with ESTALE once the inode is gone, and
 * opens it, its link count said, while it is not.  Opening a file's handle
 * needs CAP_DAC_READ_SEARCH: without it, none is taken, and an unlinked
 * grant means a new compile (reuse.c). */

/* Whether this caller may open handles of files: asked once per ruleset,
 * with a handle of no file, which is refused (EPERM) before it is looked
 * at where the caller may not, and else is not found. */
static bool handles_open(struct sbx_ruleset *rs)
{
	struct proof p = { 0 };
	int fd;

	if (!rs->handles) {
		PROOF_FH(&p)->handle_bytes = 8;
		PROOF_FH(&p)->handle_type = 1; /* FILEID_INO32_GEN: inode 0 */
		fd = open_by_handle_at(AT_FDCWD, PROOF_FH(&p), O_PATH | O_CLOEXEC);
		rs->handles = fd < 0 && errno == EPERM ? -1 : 1;
		if (fd >= 0)
			close(fd);
	}
	return rs->handles > 0;
}

/* What will prove the granted inode open as fd nameless: a directory needs
 * nothing; a file, its handle, if on the directory's mount, on a
 * filesystem whose watches a reuse trusts (elsewhere it compiles). */
static void prove(const struct judge *j, int fd, const struct statx *sx, struct proof *p)
{
	int mnt;

	p->dir = S_ISDIR(sx->stx_mode);
	PROOF_FH(p)->handle_bytes = 0;
	if (p->dir || j->rs->unwatched || !j->trust_ino || sx->stx_mnt_id != j->mnt ||
	    !handles_open(j->rs))
		return; /* without watches, a handle would never be asked */
	PROOF_FH(p)->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", PROOF_FH(p), &mnt, AT_EMPTY_PATH))
		PROOF_FH(p)->handle_bytes = 0;
}

/* ---- judging ------------------------------------------------------------ */

/* What the scope allows on a mount's root: every view of it (its own
 * filesystem, the layers it shows again) clamped by the places. */
static uint64_t mount_allows(const struct judge *j, const struct mount *mt, uint64_t rights,
                             const struct place **why)
{
	uint64_t allowed = sbx__place_clamp(j->mounts, mt->own.dev_major, mt->own.dev_minor,
	                                    mt->own.rel, rights, why);

	for (unsigned k = 0; k < mt->nlayers; k++) {
		const struct place *w = NULL;
		uint64_t layer = sbx__place_clamp(j->mounts, mt->layers[k].dev_major,
		                                  mt->layers[k].dev_minor, mt->layers[k].rel, rights, &w);

		if (layer != rights && !*why)
			*why = w;
		allowed &= layer;
	}
	return allowed;
}

/* Where the entry open as fd really is, and what the scope allows there:
 * V_GRANTED with *allowed, or why not. */
static enum verdict place_entry(const struct judge *j, const char *name, const struct entry *e,
                                const struct statx *sx, uint64_t *allowed,
                                const struct place **why)
{
	*allowed = j->rights;
	if (sx->stx_mnt_id != j->mnt) {
		/* The root of another mount: the mount table must say it is
		 * mounted right here, or it came while the compile ran. */
		const struct mount *mt = j->mounts ? sbx__mount_by_id(j->mounts, sx->stx_mnt_id) : NULL;
		char at[PATH_MAX + NAME_MAX + 2];

		if (!j->mounts)
			return V_RECOMPILE;
		snprintf(at, sizeof(at), "%s/%s", strcmp(j->dir, "/") ? j->dir : "", name);
		if (!mt || strcmp(mt->point, at))
			return V_CHANGED;
		if (mt->layers_unknown)
			return V_UNPLACED; /* what it shows again may be restricted */
		*allowed = mount_allows(j, mt, j->rights, why);
		return V_GRANTED;
	}
	/* Proved to be what was listed, where entries say what they are. */
	if (j->trust_ino && (sx->stx_ino != e->ino || makedev(sx->stx_dev_major, sx->stx_dev_minor) != j->dev))
		return V_CHANGED;
	if (!S_ISDIR(sx->stx_mode) && sx->stx_nlink > 1)
		return V_LINKED;
	if (j->foreign) {
		/* The directory's mount, whose device (as the mount table
		 * names it, which statx(2) may not: btrfs) keeps the places. */
		const struct mount *mt = j->mounts ? sbx__mount_by_id(j->mounts, j->mnt) : NULL;
		char rel[2 * PATH_MAX];

		if (!mt)
			return V_RECOMPILE;
		snprintf(rel, sizeof(rel), "%s/%s", strcmp(j->rel, "/") ? j->rel : "", name);
		*allowed = sbx__place_clamp(j->mounts, mt->own.dev_major, mt->own.dev_minor, rel,
		                            j->rights, why);
	}
	return V_GRANTED;
}

static void say_clamped(const struct judge *j, const char *name, uint64_t allowed,
                        const struct place *why)
{
	char alias[PATH_MAX + NAME_MAX + 2];

	snprintf(alias, sizeof(alias), "%s/%s", strcmp(j->dir, "/") ? j->dir : "", name);
	sbx__event(j->scope, SBX_EVENT_ALIAS, 0, why ? why->path : NULL, alias,
	           "%s shows a part of %s (a second name: a bind mount, an overlay or a filesystem image); %s", alias,
	           why ? why->path : "a restricted path",
	           allowed ? "it is granted only what that allows" : "it is not granted");
}

enum verdict sbx__judge(const struct judge *j, int dirfd, const char *name,
                        const struct entry *e, int *err, struct proof *proof)
{
	const struct place *why = NULL;
	struct statx sx;
	enum verdict v;
	uint64_t allowed;
	int fd;

	*err = 0;
	if (e->type == DT_LNK)
		return V_OTHER; /* a rule on a link grants nothing: its target has its own */
	if ((fd = sbx__open_entry(j->closer, dirfd, name)) < 0) {
		*err = -fd;
		return *err == ENOENT ? V_GONE : V_FAILED;
	}
	if ((*err = sbx__statx_fd(fd, &sx))) {
		close(fd);
		return V_FAILED;
	}
	if (S_ISLNK(sx.stx_mode))
		v = V_OTHER;
	else if ((v = place_entry(j, name, e, &sx, &allowed, &why)) == V_GRANTED) {
		if (allowed != j->rights)
			say_clamped(j, name, allowed, why);
		if ((*err = sbx__grant(j, fd, S_ISDIR(sx.stx_mode), allowed, name)))
			v = V_FAILED;
		else if (!allowed)
			v = V_OTHER;
		else if (proof)
			prove(j, fd, &sx, proof);
	}
	sbx__closer_add(j->closer, fd);
	return v;
}
