/* SPDX-License-Identifier: MIT */
/*
 * Which denials a compile hides, and which it expands.  Landlock only
 * grants, so an expanded denial freezes every directory above it; a hidden
 * one is left out of the tree (nothing above it is listed or frozen) and
 * covered instead, in a mount namespace of the child's own (cover.c), under
 * the Landlock domain that keeps the cover in place.  A denial is hidden
 * where a cover takes all of it away:
 *
 * - it is there, a directory or a file of one name (a cover needs a name
 *   to sit on; a hard link is a name no cover reaches);
 * - nothing beneath it is read-only (a cover takes all), and what is
 *   re-admitted beneath it can be bound back into the cover (unbindable);
 * - no other view of the mount table shows what it holds (a bind mount, the
 *   same filesystem mounted again, an overlay's layer, an image file), nor
 *   of what is mounted beneath it: a second name no cover sits on;
 * - the child can have the namespace: not SBX_SCOPE_EXPAND, nor
 *   SBXSPAWN_EXPAND in the environment, nor a child of this process that
 *   found it refused (the parent starts it again with every denial
 *   expanded: hidehere.c).
 *
 * The rest is expanded, as every denial was before; SBX_SCOPE_HIDE makes
 * each of them a failed compile instead.  A read-only path is sealed the
 * same way where a read-only mount takes every write away (unsealable):
 * bound on itself read-only, nothing above it expanded.  Beneath a hidden
 * denial nothing needs a cover of its own; above it, every directory that
 * is no mount point yet is pinned (hidekept.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/statx.h"
#include "lib/internal.h"
#include "lib/hiding.h"
#include "lib/confine.h"
#include "lib/compiler.h"

/* ---- one denial --------------------------------------------------------- */

static bool overlaps(const struct view *v, unsigned maj, unsigned min, const char *rel)
{
	return v->dev_major == maj && v->dev_minor == min &&
	       (sbx__path_covers(v->rel, rel) || sbx__path_covers(rel, v->rel));
}

/* Whether a view of the table other than `own' of mount `mt' shows (maj,
 * min, rel) or a part of it. */
static bool shown_again(const struct mounts *m, const struct mount *mt, unsigned maj,
                        unsigned min, const char *rel)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct mount *x = &m->v[i];

		if (x != mt && overlaps(&x->own, maj, min, rel))
			return true;
		for (unsigned k = 0; k < x->nlayers; k++)
			if (overlaps(&x->layers[k], maj, min, rel))
				return true;
	}
	return false;
}

/* Why what path holds has a name no cover on path takes away, or NULL:
 * the filesystem it lies in, and each mounted beneath it, shown again by
 * another view; a mount whose layers cannot be placed (but the root's, a
 * container's, whose layers are the host's). */
static const char *second_name(struct hider *h, const char *path)
{
	struct mounts *m = h->mounts;
	const struct mount *mt = sbx__mount_of(m, path);
	const char *rel;

	if (!mt)
		return "its mount cannot be told";
	if (!(rel = sbx__mounts_rel(m, mt, path))) {
		h->err = ENOMEM;
		return "out of memory";
	}
	if (shown_again(m, mt, mt->own.dev_major, mt->own.dev_minor, rel))
		return "another mount shows what it holds (a bind mount, an overlay, an image)";
	for (size_t i = 0; i < m->n; i++) {
		const struct mount *x = &m->v[i];

		if (x->layers_unknown && strcmp(x->point, "/"))
			return "a mount's layers or image cannot be placed, and may lie in it";
		if (x != mt && sbx__path_covers(path, x->point) &&
		    shown_again(m, x, x->own.dev_major, x->own.dev_minor, x->own.rel))
			return "a filesystem mounted beneath it is mounted elsewhere too";
	}
	return NULL;
}

/* A file of the denial with another name is a second name no cover takes
 * away: looked for in the denial's own tree (not in the directories above
 * it, which hiding never lists, nor in what it re-admits, which is granted
 * whole under every name), up to LINKS_LOOKED entries; beyond, the denial
 * is hidden all the same (sbx_posix_spawn(3) says so). */
#define LINKS_LOOKED 1024

static _Thread_local size_t links_seen;
static _Thread_local bool link_found, walk_seal, walk_sockets;
static _Thread_local const struct cover *walk_binds;
static _Thread_local size_t walk_nbinds;

/* Where the C library cannot skip a subtree (FTW_ACTIONRETVAL is GNU's),
 * what is bound back is walked, and counts toward the entries looked at. */
#ifdef FTW_ACTIONRETVAL
#define WALK_FLAGS (FTW_PHYS | FTW_MOUNT | FTW_ACTIONRETVAL)
#define WALK_SKIP FTW_SKIP_SUBTREE
#define WALK_STOP FTW_STOP
#else
#define WALK_FLAGS (FTW_PHYS | FTW_MOUNT)
#define WALK_SKIP 0
#define WALK_STOP 1
#endif

static int linked(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	for (size_t i = 0; i < walk_nbinds; i++)
		if (sbx__path_covers(walk_binds[i].path, path))
			return ++links_seen > LINKS_LOOKED ? WALK_STOP : WALK_SKIP;
	/* A seal's walk looks for what a read-only mount leaves open to
	 * writes: a FIFO, a device, a socket where connecting is Landlock's
	 * to refuse (the scope names the sockets that may be: sockets.c). */
	if (type == FTW_F && (walk_seal ? !S_ISREG(st->st_mode) && !S_ISLNK(st->st_mode) &&
	                                          (!S_ISSOCK(st->st_mode) || walk_sockets)
	                                : S_ISREG(st->st_mode) && st->st_nlink > 1))
		return link_found = true, WALK_STOP;
	return ++links_seen > LINKS_LOOKED ? WALK_STOP : 0;
}

/* The walk of directory path (what is bound back skipped): 1 where it
 * found a file of another name (seal: a FIFO, a socket, a device), 0 where
 * none, -1 where it failed (out of memory: h->err), having looked at
 * nothing. */
static int walk(struct hider *h, const char *path, const struct cover *binds, size_t nbinds,
                bool seal)
{
	int walked;

	links_seen = 0;
	link_found = false;
	walk_seal = seal;
	walk_sockets = h->scope->nsockets != 0;
	walk_binds = binds;
	walk_nbinds = nbinds;
	walked = nftw(path, linked, 8, WALK_FLAGS);
	walk_nbinds = 0;
	if (link_found)
		return 1;
	if (walked < 0)
		h->err = errno == ENOMEM ? ENOMEM : 0;
	return walked < 0 ? -1 : 0;
}

/* Why a path that is not there is expanded: the one reason a cover could
 * lift by itself, once the path is made (absent_noted). */
static const char absent_why[] = "it does not exist (a cover needs a name to sit on; expanded, "
                                 "it cannot be created)";

/* Rule r, expanded for not being there alone (why), noted in the ruleset
 * where nothing above it shows its place under another name: made, it
 * would be hidden (or sealed), and the frozen line says so (frozen.c). */
static void absent_noted(struct hider *h, const struct sbx_scope_rule *r, const char *why)
{
	char above[PATH_MAX];
	struct stat st;
	size_t *grown, cap = h->out->nabsent;
	char *slash;

	if (why != absent_why || r < h->scope->rules || r >= h->scope->rules + h->scope->nrules)
		return;
	snprintf(above, sizeof(above), "%s", r->path);
	while ((slash = strrchr(above, '/')) && slash != above) {
		*slash = '\0';
		if (!lstat(above, &st))
			break;
	}
	if (!slash || slash == above)
		snprintf(above, sizeof(above), "/");
	if (second_name(h, above) || h->err)
		return;
	if (!(grown = sbx__grow(h->out->absent, &cap, h->out->nabsent + 1, sizeof(*grown)))) {
		h->err = ENOMEM;
		return;
	}
	h->out->absent = grown;
	h->out->absent[h->out->nabsent++] = (size_t)(r - h->scope->rules);
}

/* Whether path is bound back already. */
static bool bound_at(const struct sbx_ruleset *rs, const char *path)
{
	for (size_t i = 0; i < rs->nbinds; i++)
		if (!strcmp(rs->binds[i].path, path))
			return true;
	return false;
}

/* Whether open_tree(2) and move_mount(2) answer here, asked once: an
 * emulator (qemu-user 7) or a filter may know neither, and the child would
 * fail its covers, after its file actions.  A caller other than root is
 * refused move_mount (EPERM) before anything is looked at: its child, root
 * in a user namespace of its own, is not. */
static bool binds_here(void)
{
	static atomic_int known; /* 0 not asked, 1 yes, -1 no */
	int k = atomic_load(&known);

#if defined(SYS_open_tree) && defined(SYS_move_mount)
	if (!k) {
		long fd = syscall(SYS_open_tree, AT_FDCWD, "/", O_CLOEXEC);
		long r = syscall(SYS_move_mount, -1, "", -1, "", 0);

		k = fd >= 0 && r < 0 && errno != ENOSYS && (errno != EPERM || geteuid()) ? 1 : -1;
		if (fd >= 0)
			close((int)fd);
		atomic_store(&known, k);
	}
#endif
	return k > 0;
}

/* Why rule o, a re-admission beneath denial r, cannot be bound back into
 * r's cover, or NULL with *b filled: it must be there, a directory or a
 * file, and hold no other rule of the scope (it is granted whole). */
static const char *unbindable(struct hider *h, const struct sbx_scope_rule *o, const bool *left,
                              struct cover *b)
{
	const struct sbx_scope *scope = h->scope;
	struct statx sx;

	if (o->mode != SBX_MODE_ALLOW)
		return "a path beneath it is read-only";
	if (!binds_here())
		return "a path beneath it is re-admitted, and open_tree(2) or move_mount(2) is not "
		       "here to bind it back (an emulator, a filter)";
	for (size_t i = 0; i < scope->nrules; i++)
		if (&scope->rules[i] != o && !(left && left[i]) &&
		    sbx__path_covers(o->path, scope->rules[i].path))
			return "a path re-admitted beneath it holds another path of the scope";
	if (statx(AT_FDCWD, o->path, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
	          STATX_TYPE | STATX_INO, &sx) ||
	    (!S_ISDIR(sx.stx_mode) && !S_ISREG(sx.stx_mode)))
		return "a path re-admitted beneath it is no directory or file there to bind";
	*b = (struct cover){ .path = o->path, .dev_major = sx.stx_dev_major,
	                     .dev_minor = sx.stx_dev_minor, .ino = sx.stx_ino,
	                     .dir = S_ISDIR(sx.stx_mode) };
	return NULL;
}

/* Why rule r (a denial) cannot be hidden, or NULL with *c filled, and
 * what beneath it is re-admitted in binds (*nbinds of them). */
static const char *unhidable(struct hider *h, const struct sbx_scope_rule *r, const bool *left,
                             struct cover *c, struct cover *binds, size_t *nbinds)
{
	const struct sbx_scope *scope = h->scope;
	struct statx sx;
	struct stat null;
	const char *why;
	int walked;

	*nbinds = 0;
	for (size_t i = 0; i < scope->nrules; i++) {
		const struct sbx_scope_rule *o = &scope->rules[i];

		if (o->mode == SBX_MODE_DENY || (left && left[i]) || !sbx__path_covers(r->path, o->path))
			continue;
		if (!strcmp(o->path, r->path))
			return "it is re-admitted too";
		if ((why = unbindable(h, o, left, &binds[*nbinds])))
			return why;
		/* Bound already, for a denial above this one. */
		if (bound_at(h->out, o->path))
			continue;
		if (h->out->nbinds + ++*nbinds > SBX_BINDS_MAX)
			return "more than 16 paths beneath the hidden denials are re-admitted";
	}
	if (sbx__path_covers(r->path, "/proc/self"))
		return "the child reads /proc to check what it holds";
	if (*nbinds && sbx__runtime_through(r->path, binds, *nbinds))
		return "a symlink in it leads to the C runtime it re-admits";
	if (statx(AT_FDCWD, r->path, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
	          STATX_TYPE | STATX_INO | STATX_NLINK, &sx))
		return errno == ENOENT || errno == ENOTDIR ? absent_why : "it cannot be looked at";
	if (!S_ISDIR(sx.stx_mode) && !S_ISREG(sx.stx_mode))
		return "it is neither a directory nor a regular file";
	if (S_ISREG(sx.stx_mode) && sx.stx_nlink != 1)
		return "the file has other names (hard links)";
	if (S_ISREG(sx.stx_mode) && (stat("/dev/null", &null) || !S_ISCHR(null.st_mode)))
		return "a file is covered by /dev/null, which is not here";
	if (S_ISDIR(sx.stx_mode) && (walked = walk(h, r->path, binds, *nbinds, false)))
		return walked > 0 ? "a file in it has another name (a hard link)"
		                  : "its files could not all be looked at";
	if ((h->why = second_name(h, r->path)))
		return h->why;
	*c = (struct cover){ .path = r->path, .dev_major = sx.stx_dev_major,
	                     .dev_minor = sx.stx_dev_minor, .ino = sx.stx_ino,
	                     .dir = S_ISDIR(sx.stx_mode) };
	return NULL;
}

/* Why rule r (read-only) cannot be sealed, or NULL with *c filled, and
 * what beneath it is re-admitted in binds (*nbinds of them).  A seal binds
 * the path on itself, read-only and nodev, in the child's namespace: no
 * write reaches it there, and nothing above it is expanded.  It must be
 * there, a directory or a file, lie in no denial (there it is granted only
 * as the scope says), hold no mount (a bind of it alone would leave that
 * one writable), no FIFO or device among the first LINKS_LOOKED entries,
 * nor a socket where the scope restricts connecting (a read-only mount
 * leaves each open to writes; beyond them, a device opens nowhere: nodev), no other read-only path, nothing
 * re-admitted but what can be bound back and lies in no denial of it; and
 * be shown by no other view of the mount table. */
static const char *unsealable(struct hider *h, const struct sbx_scope_rule *r, const bool *left,
                              struct cover *c, struct cover *binds, size_t *nbinds)
{
	const struct sbx_scope *scope = h->scope;
	struct statx sx;
	const char *why;
	int walked;

	*nbinds = 0;
	for (size_t i = 0; i < scope->nrules; i++) {
		const struct sbx_scope_rule *o = &scope->rules[i];

		if (o == r || (left && left[i]))
			continue;
		if (!strcmp(o->path, r->path))
			return "another rule names it too";
		if (sbx__path_covers(o->path, r->path) && o->mode != SBX_MODE_ALLOW)
			return "it lies in a denial or another read-only path";
		if (!sbx__path_covers(r->path, o->path) || o->mode == SBX_MODE_DENY)
			continue;
		if (o->mode == SBX_MODE_READONLY)
			return "another read-only path lies beneath it";
		for (size_t d = 0; d < scope->nrules; d++)
			if (scope->rules[d].mode == SBX_MODE_DENY && !(left && left[d]) &&
			    sbx__path_covers(r->path, scope->rules[d].path) &&
			    sbx__path_covers(scope->rules[d].path, o->path))
				return "a path re-admitted beneath it lies in a denial";
		if ((why = unbindable(h, o, left, &binds[*nbinds])))
			return why;
		/* Not bound already, for a seal or denial above this one. */
		if (!bound_at(h->out, o->path) && h->out->nbinds + ++*nbinds > SBX_BINDS_MAX)
			return "more than 16 paths beneath the hidden denials and sealed paths are "
			       "re-admitted";
	}
	for (size_t i = 0; i < h->mounts->n; i++)
		if (strcmp(h->mounts->v[i].point, r->path) &&
		    sbx__path_covers(r->path, h->mounts->v[i].point))
			return "a filesystem is mounted beneath it";
	if (statx(AT_FDCWD, r->path, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
	          STATX_TYPE | STATX_INO, &sx))
		return errno == ENOENT || errno == ENOTDIR ? absent_why : "it cannot be looked at";
	if (!S_ISDIR(sx.stx_mode) && !S_ISREG(sx.stx_mode))
		return "it is neither a directory nor a regular file";
	if (S_ISDIR(sx.stx_mode) && (walked = walk(h, r->path, binds, *nbinds, true)))
		return walked > 0 ? "it holds a FIFO, a device or a socket, which a read-only mount "
		                    "leaves open to writes"
		                  : "its files could not all be looked at";
	if ((h->why = second_name(h, r->path)))
		return h->why;
	*c = (struct cover){ .path = r->path, .dev_major = sx.stx_dev_major,
	                     .dev_minor = sx.stx_dev_minor, .ino = sx.stx_ino,
	                     .dir = S_ISDIR(sx.stx_mode), .ro = true };
	return NULL;
}

/* c, its path copied, added to *v (*n of them, room for *cap). */
static int add_to(struct cover **v, size_t *n, size_t *cap, struct cover c)
{
	struct cover *grown;

	if (!(grown = sbx__grow(*v, cap, *n + 1, sizeof(*grown))))
		return ENOMEM;
	*v = grown;
	if (!(c.path = strdup(c.path)))
		return ENOMEM;
	(*v)[(*n)++] = c;
	return 0;
}

static int add_cover(struct hider *h, struct cover c)
{
	return add_to(&h->out->covers, &h->out->ncovers, &h->cap, c);
}

bool sbx__hide_take(struct hider *h, const struct sbx_scope_rule *r, const bool *left,
                    bool implicit)
{
	struct cover c, binds[SBX_BINDS_MAX + 1];
	const char *why;
	size_t nbinds;

	if (!h->on)
		return false;
	if (r->mode == SBX_MODE_READONLY &&
	    (why = unsealable(h, r, left, &c, binds, &nbinds))) {
		absent_noted(h, r, why);
		if (!h->err)
			sbx__event_quiet(h->scope, SBX_EVENT_HIDING, 0, r->path, NULL,
			                 "%s is read-only by Landlock's rules, the directories above it "
			                 "frozen: %s", r->path, why);
		return false;
	}
	if (r->mode != SBX_MODE_READONLY && (why = unhidable(h, r, left, &c, binds, &nbinds))) {
		if (implicit || h->err)
			return false;
		absent_noted(h, r, why);
		if (h->scope->flags & SBX_SCOPE_HIDE) {
			sbx__event(h->scope, SBX_EVENT_HIDING, 0, r->path, NULL,
			           "%s cannot be hidden: %s; SBX_SCOPE_HIDE: nothing runs", r->path, why);
			h->err = EINVAL;
		} else {
			sbx__event_quiet(h->scope, SBX_EVENT_HIDING, 0, r->path, NULL,
			                 "%s is expanded, the directories above it frozen: %s", r->path, why);
		}
		return false;
	}
	for (size_t i = 0; i < nbinds && !h->err; i++)
		h->err = add_to(&h->out->binds, &h->out->nbinds, &h->binds_cap, binds[i]);
	return !h->err && !(h->err = add_cover(h, c));
}

/* Whether the scope re-admits path: its deepest rule that holds it does
 * (a second name of a denial there is granted with it, as the scope says). */
static bool readmitted(const struct sbx_scope *scope, const char *path)
{
	const struct sbx_scope_rule *best = NULL;

	for (size_t i = 0; i < scope->nrules; i++) {
		const struct sbx_scope_rule *r = &scope->rules[i];

		if (sbx__path_covers(r->path, path) &&
		    (!best || strlen(r->path) > strlen(best->path) ||
		     (!strcmp(r->path, best->path) && r->mode > best->mode)))
			best = r;
	}
	return best && best->mode == SBX_MODE_ALLOW;
}

bool sbx__hide_alias(struct hider *h, const char *alias)
{
	struct statx sx;

	if (!h || !h->on || h->err || readmitted(h->scope, alias) ||
	    statx(AT_FDCWD, alias, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_INO,
	          &sx) ||
	    (!S_ISDIR(sx.stx_mode) && !S_ISREG(sx.stx_mode)))
		return false;
	h->err = add_cover(h, (struct cover){ .path = alias, .dev_major = sx.stx_dev_major,
	                                      .dev_minor = sx.stx_dev_minor, .ino = sx.stx_ino,
	                                      .dir = S_ISDIR(sx.stx_mode) });
	h->aliases++;
	return !h->err;
}

bool sbx__hide_bound(const struct sbx_ruleset *rs, const char *path)
{
	return in_binds(rs->binds, rs->nbinds, path);
}
