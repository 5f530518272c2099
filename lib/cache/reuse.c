/* SPDX-License-Identifier: MIT */
/*
 * Reuse: whether a kept ruleset is still what a new compile would give, at
 * the cost of one statx(2) per directory the compile visited (not per
 * grant).  A directory whose stamp moved is listed again: entries that
 * appeared are judged and granted into the same ruleset descriptor (later
 * children get them), unless the ruleset is a snapshot; an entry that held
 * a grant and vanished or changed identity, or a node of the tree that
 * came or went, means a new compile, for a renamed inode keeps its rule
 * wherever it goes: unless the kernel said the grant was unlinked
 * (notify.c).
 *
 * A file's link count is checked only where its granted name went.  A
 * compile refuses a file with several links in an expanded directory
 * because it cannot tell whether a denial covers another of its names; a
 * link made after the compile to a file it granted is a second name of an
 * inode the child could already read and write by its granted name, so it
 * exposes nothing while that name stays: the data is the inode's, and no
 * name brings anything new to it.  Once the granted name is unlinked, the
 * inode may live on beneath a denial alone (a move in two steps: a link
 * there, then the unlink), so the kernel's word that the name was
 * unlinked is enough only where the inode has no name left: its handle,
 * taken when it was granted (judge.c), no longer opens, or opens a file
 * with no link.  A link made to a denied file lands in some directory: in
 * an expanded one it is a new entry, judged (and refused, having two
 * links) when that directory is listed again; in a granted one it is the
 * limit sbxspawn-limits(7) states for hard links made before a spawn.  So a hit
 * costs one statx per visited directory, whatever the number of files
 * granted, and an unlinked grant one open_by_handle_at(2) more.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/compiler.h"

#define STATX_STAMP (STATX_TYPE | STATX_INO | STATX_MTIME | STATX_CTIME | STATX_MNT_ID)

static bool same_dir(const struct sbx_dir *d, const struct statx *sx)
{
	return (sx->stx_mask & STATX_MNT_ID) && S_ISDIR(sx->stx_mode) && sx->stx_ino == d->ino &&
	       makedev(sx->stx_dev_major, sx->stx_dev_minor) == d->dev && sx->stx_mnt_id == d->mnt;
}

static bool same_times(const struct sbx_dir *d, const struct statx *sx)
{
	return sx->stx_mtime.tv_sec == d->mtime.tv_sec && sx->stx_mtime.tv_nsec == d->mtime.tv_nsec &&
	       sx->stx_ctime.tv_sec == d->ctime.tv_sec && sx->stx_ctime.tv_nsec == d->ctime.tv_nsec;
}

/* A directory that was not expanded: only the tree's nodes in it count,
 * each still what it was (or still absent). */
static int recheck_nodes(const struct sbx_dir *d)
{
	for (size_t i = 0; i < d->kept.n; i++) {
		const struct entry *e = &d->kept.v[i];
		char path[PATH_MAX + NAME_MAX + 2];
		struct statx sx;
		bool there;

		snprintf(path, sizeof(path), "%s/%s", strcmp(d->path, "/") ? d->path : "",
		         sbx__entry_name(&d->kept, e));
		there = statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_INO, &sx) == 0;
		if (there != (e->ino != 0) || (there && sx.stx_ino != e->ino))
			return ESTALE;
	}
	return 0;
}

struct relist {
	struct judge j;
	struct closer closer;
	const struct sbx_ruleset *rs;
	const struct sbx_dir *d;
	bool snapshot;
	int dirfd;
	struct listing next; /* what is kept from now on */
};

/* An entry that was not there, or not what it was, when the directory was
 * last read. */
static int addition(struct relist *r, const char *name, const struct entry *e)
{
	enum verdict v = V_OTHER;
	struct proof proof;
	int err = 0;

	if (!r->snapshot) {
		if (r->d->foreign)
			return ESTALE; /* its entries need the places */
		v = sbx__judge(&r->j, r->dirfd, name, e, &err, &proof);
	}
	if (v == V_GONE)
		return 0;
	if (v != V_GRANTED && v != V_OTHER)
		return ESTALE; /* a compile says what went wrong, and drops it */
	if ((err = sbx__listing_add(&r->next, name, e->ino, e->type,
	                            v == V_GRANTED ? ENTRY_GRANTED : ENTRY_OTHER)))
		return err;
	if (v == V_GRANTED)
		return sbx__listing_prove(&r->next, &r->next.v[r->next.n - 1], &proof);
	return 0;
}

/* Whether the inode of granted entry k, its name unlinked, has no name
 * left: a directory removed has none; a file, where its handle no longer
 * opens (the inode is gone), or opens a file with no link (open only).
 * Else, or with no handle, it may have a name beneath a denial now. */
static bool nameless(const struct relist *r, const struct entry *k)
{
	const struct file_handle *fh;
	struct proof buf;
	struct stat st;
	bool none;
	int fd;

	if (k->proof == PROOF_DIR)
		return true;
	if (!(fh = sbx__listing_handle(&r->d->kept, k, &buf)))
		return false;
	if ((fd = open_by_handle_at(r->dirfd, (struct file_handle *)fh, O_PATH | O_CLOEXEC)) < 0)
		return errno == ESTALE;
	none = fstat(fd, &st) == 0 && st.st_nlink == 0;
	close(fd);
	return none;
}

/* Whether a kept entry that is no longer what it was may simply go: a
 * granted inode only where the kernel said it was unlinked and it has no
 * name left (else it may be beneath a denial now), a node of the tree
 * never. */
static bool may_go(const struct relist *r, const struct entry *k)
{
	if (k->kind == ENTRY_NODE)
		return false;
	return k->kind != ENTRY_GRANTED ||
	       (sbx__notify_gone(r->rs, r->d->wd, sbx__entry_name(&r->d->kept, k)) == NOTIFY_UNLINKED &&
	        nameless(r, k));
}

/* One name, as kept (k) and as listed now (e); either may be NULL. */
static int compare(struct relist *r, const struct listing *now, const struct entry *k,
                   const struct entry *e)
{
	bool same = k && e && k->ino == e->ino;

	if (k && !same && k->kind != ENTRY_OTHER && !may_go(r, k) &&
	    (k->kind == ENTRY_GRANTED || k->ino || e))
		return ESTALE; /* a grant, or a node, vanished, came or changed */
	if (k && (same || (!e && k->kind == ENTRY_NODE)))
		return sbx__listing_carry(&r->next, &r->d->kept, k);
	return e ? addition(r, sbx__entry_name(now, e), e) : 0;
}

/* Both listings, sorted by name, side by side. */
static int merge(struct relist *r, const struct listing *now)
{
	const struct listing *kept = &r->d->kept;
	size_t i = 0, k = 0;
	int err = 0;

	while (!err && (i < kept->n || k < now->n)) {
		int c = i == kept->n ? 1
		        : k == now->n ? -1
		                      : strcmp(sbx__entry_name(kept, &kept->v[i]), sbx__entry_name(now, &now->v[k]));

		err = compare(r, now, c <= 0 ? &kept->v[i] : NULL, c >= 0 ? &now->v[k] : NULL);
		i += c <= 0;
		k += c >= 0;
	}
	return err;
}

/* The names the kernel reported, looked at again one by one, and the
 * rest of the listing kept as it was: the kernel reported every change. */
static int look_again(struct relist *r)
{
	struct sbx_ruleset *rs = (struct sbx_ruleset *)r->rs;
	const struct listing *kept = &r->d->kept;
	int wd = r->d->wd, err = 0;
	size_t n = sbx__notify_count(rs, wd);

	for (size_t i = 0; i < kept->n && !err; i++) {
		const char *name = sbx__entry_name(kept, &kept->v[i]);
		bool reported = false;

		for (size_t k = 0; k < n && !reported; k++)
			reported = !strcmp(sbx__notify_name(rs, wd, k), name);
		if (!reported)
			err = sbx__listing_carry(&r->next, kept, &kept->v[i]);
	}
	for (size_t k = 0; k < n && !err; k++) {
		const char *name = sbx__notify_name(rs, wd, k);
		const struct entry *was = sbx__listing_find(kept, name);
		struct statx sx;
		bool there = statx(r->dirfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		                   STATX_TYPE | STATX_INO, &sx) == 0;
		struct entry e = { .ino = there ? sx.stx_ino : 0,
		                   .type = (unsigned char)(there ? IFTODT(sx.stx_mode) : DT_UNKNOWN) };

		if (was && there && was->ino == e.ino)
			err = sbx__listing_carry(&r->next, kept, was);
		else if (was && was->kind != ENTRY_OTHER && !may_go(r, was))
			err = ESTALE;
		else if (there)
			err = addition(r, name, &e);
	}
	if (!err)
		sbx__listing_sort(&r->next);
	return err;
}

/* An expanded directory whose times moved: the names the kernel reported
 * looked at again, or, where its word is not whole, the directory listed
 * again.  Either between two reads of what it reported (notify.c). */
static int relist(struct sbx_ruleset *rs, struct sbx_dir *d, const struct sbx_scope *scope)
{
	struct relist r = { .rs = rs, .d = d, .snapshot = rs->snapshot };
	struct listing now = { 0 };
	bool told = sbx__notify_drain(rs, false) && sbx__notify_usable(rs, d->wd);
	struct statx sx;
	int err;

	r.dirfd = open(d->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (r.dirfd < 0)
		return ESTALE;
	err = statx(r.dirfd, "", AT_EMPTY_PATH, STATX_STAMP, &sx) || !same_dir(d, &sx) ? ESTALE
	      : told ? 0 : sbx__listing_read_open(r.dirfd, &now);
	if (!err) {
		sbx__event(scope, SBX_EVENT_EXPAND, 0, d->path, NULL, told
		           ? "expanding %s again (%zu names reported)" : "expanding %s again (%zu entries)",
		           d->path, told ? sbx__notify_count(rs, d->wd) : now.n);
		r.j = (struct judge){ .rs = rs, .scope = scope, .closer = &r.closer, .dir = d->path,
		                      .dev = d->dev, .mnt = d->mnt, .rights = d->rights,
		                      .file_rights = rs->file_rights, .trust_ino = d->trust_ino };
		err = told ? look_again(&r) : merge(&r, &now);
	}
	sbx__closer_flush(&r.closer);
	close(r.dirfd);
	sbx__listing_free(&now);
	if (!err) {
		sbx__listing_free(&d->kept);
		d->kept = r.next;
		sbx__notify_restart(rs, d->wd);
		sbx__notify_drain(rs, true);
		sbx__notify_doubt(rs, d->wd);
	} else {
		sbx__listing_free(&r.next);
	}
	return err ? ESTALE : 0;
}

int sbx__dir_current(struct sbx_ruleset *rs, struct sbx_dir *d, const struct sbx_scope *scope)
{
	struct timespec now;
	struct statx sx;
	int err;

	clock_gettime(CLOCK_REALTIME, &now);
	if (statx(AT_FDCWD, d->path, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_STAMP, &sx) ||
	    !same_dir(d, &sx))
		return ESTALE;
	if (!d->racy && same_times(d, &sx))
		return 0;
	/* Listed again, entries can prove what they are only where the
	 * filesystem gives their inode numbers. */
	if (d->expanded && !d->trust_ino)
		return ESTALE;
	if ((err = d->expanded ? relist(rs, d, scope) : recheck_nodes(d)))
		return err;
	/* What vanished or changed while it was judged is judged again now. */
	if (d->unsettled && !rs->snapshot) {
		d->unsettled = false;
		atomic_fetch_sub(&rs->nunsettled, 1);
	}
	/* Taken before the second look: what changes after it moves it. */
	d->mtime = (struct timespec){ sx.stx_mtime.tv_sec, sx.stx_mtime.tv_nsec };
	d->ctime = (struct timespec){ sx.stx_ctime.tv_sec, sx.stx_ctime.tv_nsec };
	d->racy = sbx__stamp_racy(&sx, d->fs_type, &now);
	return 0;
}
