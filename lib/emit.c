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

void drop(struct compiler *cc, const char *name, int err, enum drop_reason why)
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
		drop(cc, name, -r, DROP_FAILED);
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

/* Grants `rights' to every entry of the directory that is not on the way to
 * a configured path.  Symlinks are never followed, and get nothing: a rule
 * on a link grants nothing, its target has its own. */
static void expand(struct compiler *cc, const struct node *n, int dirfd, dev_t dev,
                   const struct fs_place *dirp, uint64_t rights)
{
	struct listing l = { 0 };
	int err = list_dir(dirfd, &l);
	bool d_ino_ok = trusts_d_ino(dirfd);
	const struct mount **here = malloc((cc->nmounts + 1) * sizeof(*here));
	const struct fs_place **near = malloc((cc->nplaces + 1) * sizeof(*near));
	size_t nhere, nnear;

	if (!here || !near) {
		cc->err = ENOMEM;
		free(here);
		free(near);
		listing_free(&l);
		return;
	}
	nhere = mounts_here(cc, here);
	nnear = dirp ? relevant_places(cc, dirp, near) : 0;

	if (err) {
		if (err == ENOMEM)
			cc->err = ENOMEM;
		else
			drop(cc, "", err, DROP_UNLISTED);
		free(here);
		free(near);
		listing_free(&l);
		return;
	}
	/* Listed, not yet opened: what a caller's debug logger sees here is
	 * exactly the window in which an entry can vanish. */
	sbx__event(cc->scope, SBX_EVENT_EXPAND, 0, cc->path, NULL, "expanding %s (%zu entries)",
	           cc->path, l.n);
	for (size_t i = 0; i < l.n && !cc->err; i++) {
		const char *name = l.names + l.v[i].name;
		unsigned char type = l.v[i].type;
		const struct ident *same;
		const struct mount *mnt, *root_of = NULL;
		const struct fs_place *why = NULL;
		char alias[PATH_MAX + NAME_MAX + 2], rel[3 * PATH_MAX];
		uint64_t allowed;
		struct stat st = { .st_dev = dev, .st_ino = l.v[i].ino };
		int fd;

		if (type == DT_LNK || tree_find(n, name))
			continue;
		fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			drop(cc, name, errno, DROP_FAILED);
			continue;
		}
		mnt = nhere ? mount_on(here, nhere, strcmp(cc->path, "/") ? strlen(cc->path) : 0, name)
		            : NULL;
		/* A directory's identity is its entry's, unless something is
		 * mounted there; anything else is looked at for its links. */
		if ((type != DT_DIR || !d_ino_ok || mnt) && fstat(fd, &st)) {
			drop(cc, name, errno, DROP_FAILED);
			close(fd);
			continue;
		}
		if (type == DT_UNKNOWN)
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
		snprintf(alias, sizeof(alias), "%s/%s", strcmp(cc->path, "/") ? cc->path : "", name);
		/* Where the entry really is: the root of another mount, or a
		 * name in this directory's own filesystem. */
		allowed = rights;
		if (dirp) {
			if (mnt && (root_of = mount_of(cc, fd, "")) && root_of->id == dirp->home->id)
				root_of = NULL;
			if (root_of)
				snprintf(rel, sizeof(rel), "%s", root_of->root);
			else
				snprintf(rel, sizeof(rel), "%s/%s", strcmp(dirp->rel, "/") ? dirp->rel : "",
				         name);
			allowed = fs_clamp(near, nnear, root_of ? root_of->dev_major : dirp->dev_major,
			                   root_of ? root_of->dev_minor : dirp->dev_minor, rel, rights,
			                   &why);
		}
		if ((same = find_ident(cc, st.st_dev, st.st_ino))) {
			sbx__event(cc->scope, SBX_EVENT_ALIAS, 0, same->path, alias,
			           "%s is also %s (a bind mount or a hard link); that name is not granted",
			           same->path, alias);
		} else if (allowed != rights && type != DT_LNK) {
			/* A second name of a part of a denied or read-only path. */
			sbx__event(cc->scope, SBX_EVENT_ALIAS, 0, why ? why->path : NULL, alias,
			           "%s shows a part of %s (a bind mount); %s", alias,
			           why ? why->path : "a restricted path",
			           allowed ? "it is granted only what that allows" : "it is not granted");
			if (allowed)
				grant(cc, fd, type == DT_DIR, allowed, name);
		} else if (type != DT_DIR && type != DT_LNK && st.st_nlink > 1) {
			drop(cc, name, EMLINK, DROP_LINKED);
		} else if (type != DT_LNK) {
			grant(cc, fd, type == DT_DIR, rights, name);
			if (type != DT_DIR)
				stamp_file(cc, name, &st);
		}
		close(fd);
	}
	free(here);
	free(near);
	listing_free(&l);
}

/* Emits the rules for node n, whose directory is open as dirfd (and is
 * st); `have' is what the rules above it already grant beneath it. */
void emit(struct compiler *cc, const struct node *n, int dirfd, const struct stat *st_n,
                 uint64_t have)
{
	size_t base = strlen(cc->path);
	struct fs_place place;
	const struct fs_place **near, *why = NULL;
	size_t nnear;
	uint64_t own;

	stamp(cc, st_n);
	own = n->common & ~have;
	if (cc->nplaces) {
		/* Nothing is granted on a directory the mount table cannot
		 * place: whether it shows something restricted is unknown. */
		if (!place_dir(cc, dirfd, &place)) {
			drop(cc, "", ENOENT, DROP_UNPLACED);
			return;
		}
		if (!(near = malloc((cc->nplaces + 1) * sizeof(*near)))) {
			cc->err = ENOMEM;
			return;
		}
		nnear = relevant_places(cc, &place, near);
		own = fs_clamp(near, nnear, place.dev_major, place.dev_minor, place.rel, own, &why);
		free(near);
	}
	if (own != (n->common & ~have) && why)
		sbx__event(cc->scope, SBX_EVENT_ALIAS, 0, why->path, cc->path,
		           "%s shows a part of %s (a bind mount); it is granted only what that allows",
		           cc->path, why->path);
	grant(cc, dirfd, true, own, "");
	have |= n->common;
	if (n->want & ~have)
		expand(cc, n, dirfd, st_n->st_dev, cc->nplaces ? &place : NULL, n->want & ~have);

	for (size_t i = 0; i < n->nkids && !cc->err; i++) {
		const struct node *kid = n->kids[i];
		struct stat st;
		int fd;

		if (!((kid->common | kid->want) & ~have) && !kid->nkids)
			continue; /* nothing to add beneath it */
		fd = openat(dirfd, kid->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			/* A configured path that does not exist is simply not
			 * there: nothing to grant, and its parent lacks the
			 * rights to create it. */
			if (errno != ENOENT && errno != ENOTDIR)
				drop(cc, kid->name, errno, DROP_FAILED);
			continue;
		}
		if (fstat(fd, &st)) {
			drop(cc, kid->name, errno, DROP_FAILED);
		} else if (S_ISDIR(st.st_mode)) {
			if (path_push(cc->path, kid->name, strlen(kid->name)) == 0) {
				emit(cc, kid, fd, &st, have);
				cc->path[base] = '\0';
			} else {
				drop(cc, kid->name, ENAMETOOLONG, DROP_FAILED);
			}
		} else if (!S_ISLNK(st.st_mode)) {
			/* A file: nothing can be beneath it. */
			grant(cc, fd, false, kid->common & ~have, kid->name);
		}
		close(fd);
	}
}
