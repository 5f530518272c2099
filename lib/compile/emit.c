/* SPDX-License-Identifier: MIT */
/*
 * Emitting the grants: the walk of the tree from the root directory down.
 * Each node's directory is opened without following links and granted what
 * its whole subtree has in common; a directory with something restricted
 * beneath it is expanded (listed, and each entry that does not lead to a
 * configured path judged: expand.c); then each child node in turn.  What
 * the walk read is kept with the ruleset (struct sbx_dir) for reuse.  Short
 * of descriptors, the walk lets go of what it can and opens it again.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "lib/internal.h"
#include "lib/compiler.h"

/* Where the directory is: without the mount table nothing is granted on
 * it, for whether it shows something restricted would be unknown. */
static bool place_dir(struct compiler *cc, struct visit *v)
{
	struct statfs sf;

	v->fs_type = fstatfs(v->fd, &sf) ? 0 : (long)sf.f_type;
	if (!cc->tree.restricts)
		return true;
	v->mt = sbx__mount_by_id(&cc->mounts, v->sx.stx_mnt_id);
	if (!v->mt || !sbx__path_covers(v->mt->point, cc->path)) {
		sbx__drop(cc, "", ENOENT, DROP_UNPLACED);
		return false;
	}
	if (!(v->rel = sbx__mounts_rel(&cc->mounts, v->mt, cc->path))) {
		cc->err = ENOMEM;
		return false;
	}
	/* Places are kept by the device the mount table names, which is not
	 * always the one statx(2) says (btrfs: a device of each subvolume). */
	v->foreign = sbx__mounts_foreign(&cc->mounts, v->mt->own.dev_major, v->mt->own.dev_minor,
	                                 v->mt->id);
	return true;
}

/* The rights of the directory's own rule: what its subtree has in common
 * and the rules above do not give, as far as the places allow. */
static uint64_t own_rights(struct compiler *cc, const struct visit *v, uint64_t have)
{
	uint64_t own = v->n->common & ~(v->n->flags & NODE_OWN_RULE ? 0 : have), allowed = own;
	const struct place *why = NULL;

	if (v->foreign)
		allowed = sbx__place_clamp(&cc->mounts, v->mt->own.dev_major, v->mt->own.dev_minor,
		                           v->rel, own, &why);
	if (allowed != own && why)
		sbx__event(cc->scope, SBX_EVENT_ALIAS, 0, why->path, cc->path,
		           "%s shows a part of %s (a second name: a bind mount, an overlay or a filesystem image); it is "
		           "granted only what that allows", cc->path, why->path);
	return allowed;
}

/* The identity of child node `name' as the directory's listing gave it:
 * the opened node must be that entry (or the root of a mount on it). */
static bool same_node(const struct visit *v, const char *name, const struct statx *sx)
{
	const struct entry *e = sbx__listing_find(&v->l, name);

	if (!v->expanded)
		return true; /* no listing: the open is the only look at it */
	if (!e)
		return false; /* it appeared after the listing */
	return sx->stx_mnt_id != v->sx.stx_mnt_id || !sbx__fs_trusts_ino(v->fs_type) ||
	       sx->stx_ino == e->ino;
}

static void emit_dir(struct compiler *cc, const struct node *n, int fd, const struct statx *sx,
                     uint64_t have);

/* One child node of the directory: a directory is emitted in turn, a file
 * granted what its node asks; its identity is kept with the directory. */
static void emit_kid(struct compiler *cc, struct visit *v, const struct node *kid, uint64_t have)
{
	char name[NAME_MAX + 1];
	size_t base = strlen(cc->path);
	struct statx sx;
	int fd, err;

	if (!((kid->common | kid->want) & ~have) && !kid->nkids && !(kid->flags & NODE_OWN_RULE))
		return; /* nothing to add beneath it */
	if (kid->len > NAME_MAX) {
		sbx__drop(cc, "", ENAMETOOLONG, DROP_FAILED);
		return;
	}
	memcpy(name, kid->name, kid->len);
	name[kid->len] = '\0';
	if (v->lost) {
		/* Let go of, and not found again: what is beneath it is not
		 * granted (narrower, never blind). */
		sbx__drop(cc, name, ESTALE, DROP_CHANGED);
		return;
	}
	if ((fd = sbx__open_entry(&cc->closer, v->fd, name)) < 0) {
		/* A configured path that does not exist is simply not there:
		 * nothing to grant, and its parent lacks the rights to create
		 * it.  Kept as absent: its coming is a change. */
		if (fd == -ENOENT || fd == -ENOTDIR)
			err = v->expanded ? 0 : sbx__listing_add(&v->l, name, 0, 0, ENTRY_NODE);
		else
			err = sbx__fatal(cc, -fd) ? 0 : (sbx__drop(cc, name, -fd, DROP_FAILED), 0);
		if (err)
			cc->err = err;
		return;
	}
	if ((err = sbx__statx_fd(fd, &sx)) || !same_node(v, name, &sx)) {
		if (!sbx__fatal(cc, err))
			sbx__drop(cc, name, err ? err : ESTALE, err ? DROP_FAILED : DROP_CHANGED);
	} else if (!v->expanded && (err = sbx__listing_add(&v->l, name, sx.stx_ino, 0, ENTRY_NODE))) {
		cc->err = err;
	} else if (S_ISDIR(sx.stx_mode)) {
		if (sbx__path_push(cc->path, name, kid->len) == 0) {
			emit_dir(cc, kid, fd, &sx, have); /* it closes fd */
			cc->path[base] = '\0';
			return;
		}
		sbx__drop(cc, name, ENAMETOOLONG, DROP_FAILED);
	} else if (S_ISLNK(sx.stx_mode)) {
		/* Resolved when it was added, and a symlink now: what it
		 * named then is not here. */
		if (kid->mode != SBX_MODE_DENY)
			sbx__drop(cc, name, ELOOP, DROP_CHANGED);
	} else {
		struct judge j = { .rs = cc->out, .scope = cc->scope, .dir = cc->path,
		                   .file_rights = cc->rights.file };

		if ((err = sbx__grant(&j, fd, false, kid->common & ~have, name)))
			sbx__drop(cc, name, err, DROP_FAILED);
	}
	close(fd);
}

/* Keeps what the walk read of the directory, for reuse. */
static void keep(struct compiler *cc, struct visit *v)
{
	struct sbx_ruleset *rs = cc->out;
	struct sbx_dir *grown, *d;
	const char *because;

	if (!v->expanded && !v->l.n)
		return;
	/* Nodes that were absent, in a listing: their coming is a change. */
	for (uint32_t i = 0; v->expanded && i < v->n->nkids; i++) {
		char name[NAME_MAX + 1];
		const struct node *kid = &v->n->kids[i];

		if (kid->len > NAME_MAX)
			continue;
		memcpy(name, kid->name, kid->len);
		name[kid->len] = '\0';
		if (!sbx__listing_find(&v->l, name) &&
		    (cc->err = sbx__listing_add(&v->l, name, 0, 0, ENTRY_NODE)))
			return;
	}
	sbx__listing_sort(&v->l);
	if (!(grown = sbx__grow(rs->dirs, &rs->dirs_cap, rs->ndirs + 1, sizeof(*rs->dirs)))) {
		cc->err = ENOMEM;
		return;
	}
	rs->dirs = grown;
	d = &rs->dirs[rs->ndirs];
	*d = (struct sbx_dir){ .dev = makedev(v->sx.stx_dev_major, v->sx.stx_dev_minor),
	                       .ino = v->sx.stx_ino, .mnt = v->sx.stx_mnt_id,
	                       .mtime = { v->sx.stx_mtime.tv_sec, v->sx.stx_mtime.tv_nsec },
	                       .ctime = { v->sx.stx_ctime.tv_sec, v->sx.stx_ctime.tv_nsec },
	                       .rights = v->rights, .expanded = v->expanded, .foreign = v->foreign,
	                       .trust_ino = sbx__fs_trusts_ino(v->fs_type), .fs_type = v->fs_type,
	                       .racy = sbx__stamp_racy(&v->sx, v->fs_type, &cc->started),
	                       .unsettled = v->unsettled, .wd = v->wd };
	/* Not counted until it is whole: a release frees only what is. */
	if (!(d->path = strdup(cc->path)) ||
	    (v->expanded && (because = sbx__tree_restricted_beneath(v->n)) &&
	     !(d->because = strdup(because)))) {
		free(d->path);
		cc->err = ENOMEM;
		return;
	}
	d->kept = v->l;
	v->l = (struct listing){ 0 };
	rs->ndirs++;
	rs->nunsettled += d->unsettled;
}

/* Grants the directory, expands it if it must be, and emits its kids. */
static void visit_dir(struct compiler *cc, struct visit *v, uint64_t have)
{
	const struct node *n = v->n;
	uint64_t own;
	int err;

	if (!place_dir(cc, v))
		return;
	own = own_rights(cc, v, have);
	/* Listable, an expanded directory keeps the right to be listed, which
	 * holds beneath it too: the names of a denial show, never what they
	 * hold. */
	if ((cc->scope->flags & SBX_SCOPE_LISTABLE) && (n->want & ~(have | n->common)))
		own |= LANDLOCK_ACCESS_FS_READ_DIR;
	if ((err = sbx__grant(&(struct judge){ .rs = cc->out, .scope = cc->scope, .dir = cc->path,
	                                       .file_rights = cc->rights.file },
	                      v->fd, true, own, "")))
		sbx__drop(cc, "", err, DROP_FAILED);
	have |= n->common;
	if (n->want & ~have) {
		((struct node *)n)->flags |= NODE_EXPANDED;
		sbx__expand(cc, v, have, n->want & ~have);
	}
	for (uint32_t i = 0; i < n->nkids && !cc->err && !cc->refused; i++)
		emit_kid(cc, v, &n->kids[i], have);
	if (!cc->err && !cc->refused)
		keep(cc, v);
	sbx__listing_free(&v->l);
}

/* ---- short of descriptors ---------------------------------------------- */

/* Lets go of one descriptor the walk can do without, when descriptors ran
 * short: the mount table's watch, then the inotify queue (nothing of this
 * compile is kept for reuse then), then the directory highest up the way
 * down (opened again from below when the walk comes back to it).  So a
 * compile needs three free descriptors, whatever the depth: the ruleset,
 * the directory it works on, and the entry it opens. */
static bool spare(void *arg)
{
	struct compiler *cc = arg;
	struct sbx_ruleset *out = cc->out;
	struct visit *top = NULL;

	if (out->mounts_fd >= 0) {
		if (out->once)
			close(out->mounts_fd); /* never kept */
		else
			sbx__fds_close(out->mounts_fd, &out->mounts_lost);
		out->mounts_fd = -1;
		out->reusable = false;
		return true;
	}
	if (out->notify_fd >= 0) {
		sbx__fds_close(out->notify_fd, &out->notify_lost);
		out->notify_fd = -1;
		out->notify_failed = true;
		out->reusable = false;
		return true;
	}
	for (struct visit *v = cc->here ? cc->here->up : NULL; v; v = v->up)
		if (v->fd >= 0)
			top = v;
	if (!top)
		return false;
	close(top->fd);
	top->fd = -1;
	out->reusable = false;
	return true;
}

/* The directory above v, let go of, opened again through "..": the same
 * one (the mount it is seen through too), or it is lost. */
static void reopen_up(struct compiler *cc, struct visit *v)
{
	struct visit *up = v->up;
	struct statx sx;
	int fd;

	while ((fd = openat(v->fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 &&
	       sbx__closer_spare(&cc->closer, errno))
		;
	if (fd < 0) {
		if (!sbx__fatal(cc, errno))
			up->lost = true;
		return;
	}
	if (sbx__statx_fd(fd, &sx) || sx.stx_ino != up->sx.stx_ino ||
	    sx.stx_dev_major != up->sx.stx_dev_major || sx.stx_dev_minor != up->sx.stx_dev_minor ||
	    sx.stx_mnt_id != up->sx.stx_mnt_id) {
		close(fd);
		up->lost = true;
		return;
	}
	up->fd = fd;
}

/* Emits the directory node n, open as fd (which it closes). */
static void emit_dir(struct compiler *cc, const struct node *n, int fd, const struct statx *sx,
                     uint64_t have)
{
	struct visit v = { .n = n, .up = cc->here, .fd = fd, .sx = *sx, .wd = -1 };

	cc->here = &v;
	visit_dir(cc, &v, have);
	if (v.up && v.up->fd < 0 && !v.up->lost && !cc->err)
		reopen_up(cc, &v);
	close(v.fd);
	cc->here = v.up;
}


int sbx__emit(struct compiler *cc)
{
	struct statx sx;
	int fd, err;

	cc->closer.spare = spare;
	cc->closer.arg = cc;
	while ((fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 && sbx__closer_spare(&cc->closer, errno))
		;
	if (fd < 0)
		return errno;
	if ((err = sbx__statx_fd(fd, &sx))) {
		close(fd);
		return err;
	}
	strcpy(cc->path, "/");
	emit_dir(cc, &cc->tree.root, fd, &sx, 0);
	sbx__closer_flush(&cc->closer);
	return cc->err;
}
