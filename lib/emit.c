/* SPDX-License-Identifier: MIT */
/*
 * Emitting the grants: the walk of the tree from the root directory down.
 * Each node's directory is opened without following links and granted what
 * its whole subtree has in common; a directory with something restricted
 * beneath it is expanded (listed, and each entry that does not lead to a
 * configured path judged, see judge.c); then each child node in turn.  What
 * the walk read is kept with the ruleset (struct sbx_dir) for reuse.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "internal.h"
#include "lib/compiler.h"

/* A failure that is the compile's, not one grant's. */
static bool fatal(struct compiler *cc, int err)
{
	if (err == ENOMEM || err == EMFILE || err == ENFILE) {
		cc->err = err;
		return true;
	}
	return false;
}

/* A directory being emitted. */
struct visit {
	const struct node *n;
	struct visit *up;       /* the directory above, on the way down */
	int fd;                 /* -1: let go while descriptors were short */
	bool lost;              /* let go, and not the same directory again */
	struct statx sx;
	long fs_type;
	const struct mount *mt; /* the mount it is seen through */
	const char *rel;        /* its path in its filesystem */
	bool foreign;
	bool expanded;
	bool unsettled;         /* entries it dropped, judged */
	int wd;                 /* its watch, if it was expanded */
	uint64_t rights;        /* what its entries get */
	struct listing l;       /* its entries, or its nodes */
};

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
	v->foreign = sbx__mounts_foreign(&cc->mounts, v->sx.stx_dev_major, v->sx.stx_dev_minor,
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
		allowed = sbx__place_clamp(&cc->mounts, v->sx.stx_dev_major, v->sx.stx_dev_minor,
		                           v->rel, own, &why);
	if (allowed != own && why)
		sbx__event(cc->scope, SBX_EVENT_ALIAS, 0, why->path, cc->path,
		           "%s shows a part of %s (a second name: a bind mount, an overlay or a filesystem image); it is "
		           "granted only what that allows", cc->path, why->path);
	return allowed;
}

/* ---- hard links to configured files ------------------------------------- */

/* The restricted configured paths that are files, by inode: looked for
 * only when an expanded directory holds a file with several names, to say
 * which configured path it is. */
struct ident {
	dev_t dev;
	ino_t ino;
	const char *path;
};

static int by_inode(const void *a, const void *b)
{
	const struct ident *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->dev > y->dev) - (x->dev < y->dev);
}

static int collect_idents(struct compiler *cc, const struct node *n, size_t *cap)
{
	struct stat st;
	struct ident *grown;
	int err = 0;

	if (n->path && (n->mode == SBX_MODE_DENY || n->mode == SBX_MODE_READONLY) &&
	    lstat(n->path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		if (!(grown = sbx__grow(cc->idents, cap, cc->nidents + 1, sizeof(*grown))))
			return ENOMEM;
		cc->idents = grown;
		cc->idents[cc->nidents++] = (struct ident){ st.st_dev, st.st_ino, n->path };
	}
	for (uint32_t i = 0; i < n->nkids && !err; i++)
		err = collect_idents(cc, &n->kids[i], cap);
	return err;
}

/* The configured path that is the file (dev, ino), or NULL. */
static const char *configured_file(struct compiler *cc, dev_t dev, ino_t ino)
{
	struct ident key = { .dev = dev, .ino = ino }, *hit;
	size_t cap = 0;

	if (!cc->idents_read) {
		cc->idents_read = true;
		if ((cc->err = collect_idents(cc, &cc->tree.root, &cap)))
			return NULL;
		if (cc->nidents)
			qsort(cc->idents, cc->nidents, sizeof(*cc->idents), by_inode);
	}
	hit = cc->nidents ? bsearch(&key, cc->idents, cc->nidents, sizeof(key), by_inode) : NULL;
	return hit ? hit->path : NULL;
}

/* ---- expanding ---------------------------------------------------------- */

/* Records what judging an entry gave, and drops what could not be granted. */
static void record(struct compiler *cc, const struct visit *v, struct entry *e, const char *name,
                   enum verdict verdict, int err)
{
	const char *same;

	e->kind = verdict == V_GRANTED ? ENTRY_GRANTED : ENTRY_OTHER;
	switch (verdict) {
	case V_GRANTED:
	case V_OTHER:
	case V_RECOMPILE:
		break;
	case V_GONE:
		cc->transient = true;
		sbx__drop(cc, name, err, DROP_FAILED);
		cc->transient = false;
		break;
	case V_FAILED:
		if (!fatal(cc, err))
			sbx__drop(cc, name, err, DROP_FAILED);
		break;
	case V_LINKED:
		same = configured_file(cc, makedev(v->sx.stx_dev_major, v->sx.stx_dev_minor), e->ino);
		if (same) {
			char alias[PATH_MAX + NAME_MAX + 2];

			snprintf(alias, sizeof(alias), "%s/%s", strcmp(cc->path, "/") ? cc->path : "", name);
			sbx__event(cc->scope, SBX_EVENT_ALIAS, 0, same, alias,
			           "%s is also %s (a hard link); that name is not granted", same, alias);
		} else if (!cc->err) {
			sbx__drop(cc, name, EMLINK, DROP_LINKED);
		}
		break;
	case V_CHANGED:
		cc->transient = true;
		sbx__drop(cc, name, ESTALE, DROP_CHANGED);
		cc->transient = false;
		break;
	case V_UNPLACED:
		sbx__drop(cc, name, EXDEV, DROP_LAYERS);
		break;
	}
}

/* What a program needs of the files it runs. */
#define RUN_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE)

/* Whether a directory that could not be listed (EACCES) may be listed as
 * far as its permissions go: then what forbids it is a security module,
 * the Landlock domain this process itself runs in. */
static bool enclosed(int dirfd)
{
	return syscall(SYS_faccessat2, dirfd, "", R_OK | X_OK, AT_EMPTY_PATH) == 0;
}

/* A scope compiled inside a Landlock domain that expanded (and so froze)
 * a directory this scope must expand too: without its names there is no
 * ruleset that denies what this scope denies and lets the child run.
 * Refused, at compile time, saying why and what to do. */
static void refuse_enclosed(struct compiler *cc)
{
	struct sbx_ruleset *out = cc->out;

	if (asprintf(&out->refused_text,
	             "%s (make the enclosing scope listable, with SBX_SCOPE_LISTABLE)",
	             cc->path) < 0) {
		out->refused_text = NULL;
		cc->err = ENOMEM;
		return;
	}
	out->refusal = (struct refusal){ SBX_REFUSED_LISTING, "open(O_DIRECTORY)", out->refused_text };
	out->error = EACCES;
	cc->refused = true;
}

/* Lists the directory, watched from before (what leaves it after the
 * listing is what a reuse needs to know, notify.c): 0, or the errno. */
static int list_watched(struct compiler *cc, struct visit *v)
{
	int err;

	if ((err = sbx__notify_open(cc->out)))
		return err;
	v->wd = sbx__notify_watch(cc->out, v->fd, v->fs_type);
	sbx__notify_drain(cc->out, true);
	sbx__notify_restart(cc->out, v->wd);
	while ((err = sbx__listing_read(v->fd, &v->l)) && sbx__closer_spare(&cc->closer, err))
		sbx__listing_free(&v->l);
	if (!err) {
		sbx__notify_drain(cc->out, true);
		sbx__notify_doubt(cc->out, v->wd);
	}
	return err;
}

/* ---- directories proved in a run ---------------------------------------- */

/* An entry that is a directory needs proving that it is the one listed
 * (no file has its inode, so no link count matters).  In a directory whose
 * times move with every change of an entry, and last moved well before the
 * compile began (stamps.c), the proof can be had for a run of them at
 * once: each is opened, then the directory is looked at again.  Times
 * unchanged since before the listing, nothing was added, removed or
 * renamed in it meanwhile, so every name opened is the inode listed; the
 * mount table unchanged since it was read, none of them has had something
 * mounted on it either.  One statx(2) and one poll(2) for the run, not a
 * statx(2) each.  Times that moved, or a table that did, and the run is
 * judged one by one, as is the rest of the directory. */
struct run {
	int fd[32];
	size_t entry[32];
	size_t n;
	bool off;       /* judged one by one */
};

static bool run_allowed(struct compiler *cc, const struct visit *v, const struct judge *j)
{
	return cc->out->mounts_fd >= 0 && !cc->mounts_moved && !v->foreign && j->trust_ino &&
	       sbx__fs_notifies(v->fs_type) && !sbx__stamp_racy(&v->sx, v->fs_type, &cc->started);
}

/* Whether this entry can join a run: a directory, on no mount point. */
static bool run_fits(struct compiler *cc, const struct entry *e, const char *name)
{
	char at[PATH_MAX + NAME_MAX + 2];

	if (e->type != DT_DIR)
		return false;
	snprintf(at, sizeof(at), "%s/%s", strcmp(cc->path, "/") ? cc->path : "", name);
	return !sbx__mount_at(&cc->mounts, at);
}

/* The mount table as read: a change poll(2) says once, so it is said on
 * to a reuse by the ruleset's not being kept. */
static bool mounts_still(struct compiler *cc)
{
	struct pollfd pfd = { .fd = cc->out->mounts_fd, .events = POLLPRI };

	/* Let go of while descriptors ran short (spare()): nothing to ask,
	 * and poll(2) would call a closed table unchanged. */
	if (pfd.fd >= 0 && poll(&pfd, 1, 0) == 0)
		return true;
	cc->mounts_moved = true;
	cc->out->reusable = false;
	return false;
}

static bool dir_still(const struct visit *v)
{
	struct statx now;

	return sbx__statx_fd(v->fd, &now) == 0 && now.stx_ino == v->sx.stx_ino &&
	       now.stx_mtime.tv_sec == v->sx.stx_mtime.tv_sec &&
	       now.stx_mtime.tv_nsec == v->sx.stx_mtime.tv_nsec &&
	       now.stx_ctime.tv_sec == v->sx.stx_ctime.tv_sec &&
	       now.stx_ctime.tv_nsec == v->sx.stx_ctime.tv_nsec;
}

static void judge_one(struct compiler *cc, struct visit *v, const struct judge *j, size_t i);

/* Proves the run, and grants it; or judges it one by one. */
static void run_settle(struct compiler *cc, struct visit *v, const struct judge *j, struct run *r)
{
	bool proved;

	if (!r->n)
		return;
	proved = dir_still(v) && mounts_still(cc);
	for (size_t k = 0; k < r->n; k++) {
		struct entry *e = &v->l.v[r->entry[k]];
		const char *name = sbx__entry_name(&v->l, e);
		int err;

		if (!proved) {
			close(r->fd[k]);
			judge_one(cc, v, j, r->entry[k]);
			continue;
		}
		err = sbx__grant(j, r->fd[k], true, j->rights, name);
		sbx__closer_add(j->closer, r->fd[k]);
		record(cc, v, e, name, err ? V_FAILED : V_GRANTED, err);
		if (!err && !cc->out->once)
			sbx__listing_prove(&v->l, e, &(struct proof){ .dir = true });
	}
	r->off = !proved;
	r->n = 0;
}

/* Opens entry i into the run: false if it cannot join (judged alone). */
static bool run_add(struct compiler *cc, struct visit *v, const struct judge *j, struct run *r,
                    size_t i)
{
	const char *name = sbx__entry_name(&v->l, &v->l.v[i]);
	int fd;

	if (r->n == sizeof(r->fd) / sizeof(r->fd[0]))
		run_settle(cc, v, j, r);
	if (r->off)
		return false;
	/* Short of descriptors, the run is settled first: it holds some. */
	while ((fd = openat(v->fd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC)) < 0 &&
	       (errno == EMFILE || errno == ENFILE) && r->n)
		run_settle(cc, v, j, r);
	if (fd < 0 || r->off) {
		if (fd >= 0)
			close(fd);
		return false; /* gone, no longer a directory, or short: alone */
	}
	r->fd[r->n] = fd;
	r->entry[r->n++] = i;
	return true;
}

static void judge_one(struct compiler *cc, struct visit *v, const struct judge *j, size_t i)
{
	struct entry *e = &v->l.v[i];
	const char *name = sbx__entry_name(&v->l, e);
	struct proof proof;
	bool reuse = !cc->out->once; /* what proves it later, taken only for a reuse */
	int err;
	enum verdict verdict = sbx__judge(j, v->fd, name, e, &err, reuse ? &proof : NULL);

	record(cc, v, e, name, verdict, err);
	if (verdict == V_GRANTED && reuse)
		sbx__listing_prove(&v->l, e, &proof);
}

/* Lists the directory and judges every entry that is not a node; `have' is
 * what the rules on it and above give its entries already. */
static void expand(struct compiler *cc, struct visit *v, uint64_t have, uint64_t rights)
{
	struct judge j = { .rs = cc->out, .scope = cc->scope, .mounts = &cc->mounts,
	                   .closer = &cc->closer, .dir = cc->path, .rel = v->rel,
	                   .dev = makedev(v->sx.stx_dev_major, v->sx.stx_dev_minor),
	                   .mnt = v->sx.stx_mnt_id, .rights = rights, .file_rights = cc->rights.file,
	                   .trust_ino = sbx__fs_trusts_ino(v->fs_type), .foreign = v->foreign };
	size_t dropped;
	struct run run = { .n = 0 };
	int err = list_watched(cc, v);

	if (err == EACCES && enclosed(v->fd)) {
		/* Its entries keep what its rule gives: enough to run (a
		 * read-only path below) is narrower; not enough is a refusal. */
		if ((have & RUN_RIGHTS) == RUN_RIGHTS)
			sbx__drop(cc, "", err, DROP_ENCLOSED);
		else
			refuse_enclosed(cc);
	} else if (err) {
		if (!fatal(cc, err))
			sbx__drop(cc, "", err, DROP_UNLISTED);
	}
	if (err) {
		sbx__listing_free(&v->l);
		return;
	}
	v->expanded = true;
	v->rights = rights;
	/* Listed, not yet opened: what a caller's debug logger sees here is
	 * exactly the window in which an entry can vanish or be renamed. */
	sbx__event(cc->scope, SBX_EVENT_EXPAND, 0, cc->path, NULL, "expanding %s (%zu entries)",
	           cc->path, v->l.n);
	dropped = cc->out->ndropped;
	run.off = !run_allowed(cc, v, &j);
	for (size_t i = 0; i < v->l.n && !cc->err; i++) {
		struct entry *e = &v->l.v[i];
		const char *name = sbx__entry_name(&v->l, e);

		if (sbx__tree_kid(v->n, name, strlen(name))) {
			e->kind = ENTRY_NODE;
			continue;
		}
		if (run.off || !run_fits(cc, e, name) || !run_add(cc, v, &j, &run, i))
			judge_one(cc, v, &j, i);
	}
	if (cc->err)
		while (run.n)
			close(run.fd[--run.n]);
	run_settle(cc, v, &j, &run);
	v->unsettled = cc->out->ndropped != dropped;
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
			err = fatal(cc, -fd) ? 0 : (sbx__drop(cc, name, -fd, DROP_FAILED), 0);
		if (err)
			cc->err = err;
		return;
	}
	if ((err = sbx__statx_fd(fd, &sx)) || !same_node(v, name, &sx)) {
		if (!fatal(cc, err))
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
		expand(cc, v, have, n->want & ~have);
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
		if (!fatal(cc, errno))
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
