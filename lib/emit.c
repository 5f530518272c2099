/*
 * Emitting the grants: each node of the tree is opened, each expanded
 * directory listed, and every entry that does not lead to a configured
 * path gets the rights the scope gives it, unless it is a second name of
 * something restricted; a grant that cannot be added is dropped.
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
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "internal.h"
#include "lib/compiler.h"

/* Filesystems whose directory entries carry the inode number stat(2) gives,
 * on the directory's device: there d_ino identifies an entry without a stat.
 * Mount points are the exception, handled apart. */
static bool trusts_d_ino(int dirfd)
{
	struct statfs sf;

	if (fstatfs(dirfd, &sf))
		return false;
	switch ((unsigned long)sf.f_type) {
	case 0xEF53UL:     /* ext2/3/4 */
	case 0x58465342UL: /* xfs */
	case 0x9123683EUL: /* btrfs */
	case 0x01021994UL: /* tmpfs */
		return true;
	default:
		return false;
	}
}

void sbx__drop(struct compiler *cc, const char *name, int err, enum drop_reason why)
{
	struct sbx_ruleset *rs = cc->out;
	char full[PATH_MAX + NAME_MAX + 2], **grown;

	snprintf(full, sizeof(full), "%s%s%s", cc->path,
	         *cc->path && strcmp(cc->path, "/") && *name ? "/" : "",
	         name);
	if (!(grown = sbx__grow(rs->dropped, &cc->dropped_cap, rs->ndropped + 1,
	                        sizeof(*rs->dropped)))) {
		cc->err = ENOMEM;
		return;
	}
	rs->dropped = grown;
	if (!(rs->dropped[rs->ndropped] = strdup(full))) {
		cc->err = ENOMEM;
		return;
	}
	rs->ndropped++;
	if (why == DROP_UNLISTED)
		sbx__event(cc->scope, SBX_EVENT_DROPPED, err, full, NULL,
		           "the entries of %s stay unreachable: it could not be listed (%s)", full,
		           strerror(err));
	else if (why == DROP_UNPLACED)
		sbx__event(cc->scope, SBX_EVENT_DROPPED, err, full, NULL,
		           "%s and what is below it stay unreachable: the mount table does not say "
		           "where it is", full);
	else if (why == DROP_LINKED)
		sbx__event(cc->scope, SBX_EVENT_DROPPED, err, full, NULL,
		           "%s stays unreachable: it has other names (hard links) that a denial may "
		           "cover, so it is not granted", full);
	else
		sbx__event(cc->scope, SBX_EVENT_DROPPED, err, full, NULL,
		           "%s stays unreachable: its grant could not be added (%s)", full,
		           strerror(err));
}

/* Adds a rule on fd, trimmed to what its kind of file may carry. */
static void grant(struct compiler *cc, int fd, bool is_dir, uint64_t access, const char *name)
{
	int r;

	if (!is_dir)
		access &= cc->rights.file;
	if (!access)
		return;
	r = sbx__ruleset_add(cc->out->fd, fd, access);
	if (r) {
		sbx__drop(cc, name, -r, DROP_FAILED);
		return;
	}
	cc->out->rules++;
	if (cc->scope->trace) {
		char full[PATH_MAX + NAME_MAX + 2];

		snprintf(full, sizeof(full), "%s%s%s", cc->path,
		         strcmp(cc->path, "/") && *name ? "/" : "", name);
		cc->scope->trace(full, access, is_dir, cc->scope->trace_arg);
	}
}

struct entry {
	size_t name; /* offset into the names buffer */
	ino_t ino;
	unsigned char type;
};

struct listing {
	struct entry *v;
	size_t n, cap;
	char *names;
	size_t len, room;
};

static void listing_free(struct listing *l)
{
	free(l->v);
	free(l->names);
}

/* Reads a whole directory before any entry is opened. */
static int list_dir(int dirfd, struct listing *l)
{
	char buf[32768];
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long got;

	if (fd < 0)
		return errno;
	while ((got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < got;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			size_t len = strlen(d->d_name) + 1;
			struct entry *v;
			char *names;

			off += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			if (!(v = sbx__grow(l->v, &l->cap, l->n + 1, sizeof(*l->v))))
				goto nomem;
			l->v = v;
			if (!(names = sbx__grow(l->names, &l->room, l->len + len, 1)))
				goto nomem;
			l->names = names;
			memcpy(l->names + l->len, d->d_name, len);
			l->v[l->n++] = (struct entry){ .name = l->len, .ino = d->d_ino, .type = d->d_type };
			l->len += len;
		}
	}
	got = got < 0 ? errno : 0;
	close(fd);
	return (int)got;
nomem:
	close(fd);
	return ENOMEM;
}

/* A directory being expanded, and what bears on its entries. */
struct expansion {
	const struct node *n;
	int dirfd;
	dev_t dev;
	const struct fs_place *dirp; /* where it is; NULL with no places */
	uint64_t rights;             /* what its entries get */
	bool d_ino_ok;
	const struct mount **here;   /* the mounts on its entries */
	size_t nhere;
	const struct fs_place **near; /* the places that can bear on them */
	size_t nnear;
};

static bool expansion_init(struct compiler *cc, struct expansion *x)
{
	x->d_ino_ok = trusts_d_ino(x->dirfd);
	x->here = malloc((cc->nmounts + 1) * sizeof(*x->here));
	x->near = malloc((cc->nplaces + 1) * sizeof(*x->near));
	if (!x->here || !x->near) {
		cc->err = ENOMEM;
		return false;
	}
	x->nhere = sbx__mounts_here(cc, x->here);
	x->nnear = x->dirp ? sbx__places_near(cc, x->dirp, x->near) : 0;
	return true;
}

/* What the scope allows on the entry open as fd: where it really is (the
 * root of another mount, or a name in the directory's own filesystem)
 * decides.  *why: the configured place that withholds a right. */
static uint64_t entry_allowed(struct compiler *cc, const struct expansion *x, int fd,
                              const char *name, const struct mount *mnt,
                              const struct fs_place **why)
{
	const struct fs_place *d = x->dirp;
	const struct mount *root_of = NULL;
	char rel[3 * PATH_MAX];

	if (!d)
		return x->rights;
	if (mnt && (root_of = sbx__mount_of(cc, fd, "")) && root_of->id == d->home->id)
		root_of = NULL;
	if (root_of)
		snprintf(rel, sizeof(rel), "%s", root_of->root);
	else
		snprintf(rel, sizeof(rel), "%s/%s", strcmp(d->rel, "/") ? d->rel : "", name);
	return sbx__place_clamp(x->near, x->nnear, root_of ? root_of->dev_major : d->dev_major,
	                        root_of ? root_of->dev_minor : d->dev_minor, rel, x->rights, why);
}

/* Grants the entry open as fd what it may have, or says why not. */
static void judge_entry(struct compiler *cc, const struct expansion *x, int fd, const char *name,
                        unsigned char type, const struct stat *st, uint64_t allowed,
                        const struct fs_place *why)
{
	char alias[PATH_MAX + NAME_MAX + 2];
	const struct ident *same;

	snprintf(alias, sizeof(alias), "%s/%s", strcmp(cc->path, "/") ? cc->path : "", name);
	if ((same = sbx__ident_find(cc, st->st_dev, st->st_ino))) {
		sbx__event(cc->scope, SBX_EVENT_ALIAS, 0, same->path, alias,
		           "%s is also %s (a bind mount or a hard link); that name is not granted",
		           same->path, alias);
	} else if (allowed != x->rights && type != DT_LNK) {
		/* A second name of a part of a denied or read-only path. */
		sbx__event(cc->scope, SBX_EVENT_ALIAS, 0, why ? why->path : NULL, alias,
		           "%s shows a part of %s (a bind mount); %s", alias,
		           why ? why->path : "a restricted path",
		           allowed ? "it is granted only what that allows" : "it is not granted");
		if (allowed)
			grant(cc, fd, type == DT_DIR, allowed, name);
	} else if (type != DT_DIR && type != DT_LNK && st->st_nlink > 1) {
		sbx__drop(cc, name, EMLINK, DROP_LINKED);
	} else if (type != DT_LNK) {
		grant(cc, fd, type == DT_DIR, x->rights, name);
		if (type != DT_DIR)
			sbx__stamp_file(cc, name, st);
	}
}

/* One listed entry: opened without following it, and judged. */
static void expand_entry(struct compiler *cc, const struct expansion *x, const char *name,
                         const struct entry *e)
{
	unsigned char type = e->type;
	const struct mount *mnt;
	const struct fs_place *why = NULL;
	struct stat st = { .st_dev = x->dev, .st_ino = e->ino };
	uint64_t allowed;
	int fd;

	if (type == DT_LNK || sbx__tree_find(x->n, name))
		return;
	fd = openat(x->dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		sbx__drop(cc, name, errno, DROP_FAILED);
		return;
	}
	mnt = x->nhere ? sbx__mount_on(x->here, x->nhere,
	                               strcmp(cc->path, "/") ? strlen(cc->path) : 0, name)
	               : NULL;
	/* A directory's identity is its entry's, unless something is
	 * mounted there; anything else is looked at for its links. */
	if ((type != DT_DIR || !x->d_ino_ok || mnt) && fstat(fd, &st)) {
		sbx__drop(cc, name, errno, DROP_FAILED);
		close(fd);
		return;
	}
	if (type == DT_UNKNOWN)
		type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
	allowed = entry_allowed(cc, x, fd, name, mnt, &why);
	judge_entry(cc, x, fd, name, type, &st, allowed, why);
	close(fd);
}

/* Grants `rights' to every entry of the directory that is not on the way to
 * a configured path.  Symlinks are never followed, and get nothing: a rule
 * on a link grants nothing, its target has its own. */
static void expand(struct compiler *cc, const struct node *n, int dirfd, dev_t dev,
                   const struct fs_place *dirp, uint64_t rights)
{
	struct expansion x = { .n = n, .dirfd = dirfd, .dev = dev, .dirp = dirp, .rights = rights };
	struct listing l = { 0 };
	int err = list_dir(dirfd, &l);

	if (!expansion_init(cc, &x)) {
		/* cc->err is set */
	} else if (err == ENOMEM) {
		cc->err = ENOMEM;
	} else if (err) {
		sbx__drop(cc, "", err, DROP_UNLISTED);
	} else {
		/* Listed, not yet opened: what a caller's debug logger sees here
		 * is exactly the window in which an entry can vanish. */
		sbx__event(cc->scope, SBX_EVENT_EXPAND, 0, cc->path, NULL,
		           "expanding %s (%zu entries)", cc->path, l.n);
		for (size_t i = 0; i < l.n && !cc->err; i++)
			expand_entry(cc, &x, l.names + l.v[i].name, &l.v[i]);
	}
	free(x.here);
	free(x.near);
	listing_free(&l);
}

/* The rights of node n's own directory, open as dirfd: what its subtree
 * has in common and the rules above do not give, clamped to what the
 * scope allows where the directory really is.  false: it cannot be placed
 * (dropped) or memory ran out (cc->err). */
static bool own_rights(struct compiler *cc, const struct node *n, int dirfd, uint64_t have,
                       struct fs_place *place, uint64_t *own)
{
	const struct fs_place **near, *why = NULL;
	size_t nnear;

	*own = n->common & ~have;
	if (!cc->nplaces)
		return true;
	/* Nothing is granted on a directory the mount table cannot place:
	 * whether it shows something restricted is unknown. */
	if (!sbx__place_dir(cc, dirfd, place)) {
		sbx__drop(cc, "", ENOENT, DROP_UNPLACED);
		return false;
	}
	if (!(near = malloc((cc->nplaces + 1) * sizeof(*near)))) {
		cc->err = ENOMEM;
		return false;
	}
	nnear = sbx__places_near(cc, place, near);
	*own = sbx__place_clamp(near, nnear, place->dev_major, place->dev_minor, place->rel, *own,
	                        &why);
	free(near);
	if (*own != (n->common & ~have) && why)
		sbx__event(cc->scope, SBX_EVENT_ALIAS, 0, why->path, cc->path,
		           "%s shows a part of %s (a bind mount); it is granted only what that allows",
		           cc->path, why->path);
	return true;
}

/* A child node of the directory open as dirfd: a directory is emitted in
 * turn, a file granted what its node asks. */
static void emit_kid(struct compiler *cc, const struct node *kid, int dirfd, uint64_t have)
{
	size_t base = strlen(cc->path);
	struct stat st;
	int fd;

	if (!((kid->common | kid->want) & ~have) && !kid->nkids)
		return; /* nothing to add beneath it */
	fd = openat(dirfd, kid->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		/* A configured path that does not exist is simply not there:
		 * nothing to grant, and its parent lacks the rights to create
		 * it. */
		if (errno != ENOENT && errno != ENOTDIR)
			sbx__drop(cc, kid->name, errno, DROP_FAILED);
		return;
	}
	if (fstat(fd, &st)) {
		sbx__drop(cc, kid->name, errno, DROP_FAILED);
	} else if (S_ISDIR(st.st_mode)) {
		if (sbx__path_push(cc->path, kid->name, strlen(kid->name)) == 0) {
			sbx__emit(cc, kid, fd, &st, have);
			cc->path[base] = '\0';
		} else {
			sbx__drop(cc, kid->name, ENAMETOOLONG, DROP_FAILED);
		}
	} else if (!S_ISLNK(st.st_mode)) {
		/* A file: nothing can be beneath it. */
		grant(cc, fd, false, kid->common & ~have, kid->name);
	}
	close(fd);
}

/* Emits the rules for node n, whose directory is open as dirfd (and is
 * st); `have' is what the rules above it already grant beneath it. */
void sbx__emit(struct compiler *cc, const struct node *n, int dirfd, const struct stat *st_n,
               uint64_t have)
{
	struct fs_place place;
	uint64_t own;

	sbx__stamp_dir(cc, st_n);
	if (!own_rights(cc, n, dirfd, have, &place, &own))
		return;
	grant(cc, dirfd, true, own, "");
	have |= n->common;
	if (n->want & ~have)
		expand(cc, n, dirfd, st_n->st_dev, cc->nplaces ? &place : NULL, n->want & ~have);
	for (size_t i = 0; i < n->nkids && !cc->err; i++)
		emit_kid(cc, n->kids[i], dirfd, have);
}
