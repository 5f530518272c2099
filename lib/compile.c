/*
 * The compiler: a scope of denials, re-admissions and read-only paths into
 * a Landlock ruleset.
 *
 * Landlock only grants, and the rights of every rule on a path's ancestors
 * add up.  So a node of the scope's tree that has restricted paths below it
 * gets only the rights common to its whole subtree, and is "expanded": it is
 * listed, and each entry that does not lead to a configured path gets the
 * node's own rights on a rule of its own.  With only denials this is the
 * design's walk: the ancestors of a denial get nothing, their other entries
 * get everything.
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "internal.h"

/* ---- resolving the caller's paths ------------------------------------ */

/* Appends "/name" (len bytes of it) to the absolute path in buf. */
static int path_push(char *buf, const char *name, size_t len)
{
	size_t n = strlen(buf);

	if (n + 1 + len >= PATH_MAX)
		return ENAMETOOLONG;
	if (n > 1)
		buf[n++] = '/';
	memcpy(buf + n, name, len);
	buf[n + len] = '\0';
	return 0;
}

static void path_pop(char *buf)
{
	char *slash = strrchr(buf, '/');

	if (slash == buf)
		buf[1] = '\0';
	else if (slash)
		*slash = '\0';
}

/* Makes path absolute against the current directory and resolves every
 * symlink in the part that exists; the rest ("a denied path that does not
 * exist yet") is normalised as written.  out holds PATH_MAX bytes.  *plain
 * (if given) says whether path was absolute and no symlink was followed:
 * then it resolves the same for as long as the directories on its way are
 * unchanged. */
static int resolve_plain(const char *path, char *out, bool *plain)
{
	char todo[2 * PATH_MAX], link[PATH_MAX];
	int links = 0;

	if (plain)
		*plain = path[0] == '/';
	if (path[0] == '/') {
		strcpy(out, "/");
	} else if (!getcwd(out, PATH_MAX)) {
		return errno;
	}
	if (strlen(path) >= PATH_MAX)
		return ENAMETOOLONG;
	strcpy(todo, path);

	for (char *p = todo; *p;) {
		char *end = strchrnul(p, '/');
		size_t len = (size_t)(end - p);
		struct stat st;
		ssize_t n;
		int err;

		if (len == 0 || (len == 1 && p[0] == '.')) {
			p = *end ? end + 1 : end;
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			/* out is already resolved, so this is its physical parent.
			 * What it passed through is not on the resolved path, and
			 * not stamped: the path must be resolved again to reuse. */
			if (plain)
				*plain = false;
			path_pop(out);
			p = *end ? end + 1 : end;
			continue;
		}
		if ((err = path_push(out, p, len)))
			return err;
		p = *end ? end + 1 : end;
		if (lstat(out, &st)) {
			if (errno == ENOENT || errno == ENOTDIR)
				continue; /* the rest is normalised as written */
			return errno;
		}
		if (!S_ISLNK(st.st_mode))
			continue;
		if (plain)
			*plain = false;
		if (++links > 40)
			return ELOOP;
		n = readlink(out, link, sizeof(link) - 1);
		if (n < 0)
			return errno;
		link[n] = '\0';
		path_pop(out);
		if (link[0] == '/')
			strcpy(out, "/");
		/* The link's target comes before what is left to walk. */
		if ((size_t)n + 1 + strlen(p) + 1 > sizeof(todo))
			return ENAMETOOLONG;
		memmove(todo + n + 1, p, strlen(p) + 1);
		memcpy(todo, link, (size_t)n);
		todo[n] = '/';
		p = todo;
	}
	return 0;
}

static int resolve(const char *path, char *out)
{
	return resolve_plain(path, out, NULL);
}

/* Whether a is b or one of b's ancestors (both resolved, absolute). */
static bool covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (strcmp(a, "/") == 0)
		return true;
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

/* ---- the C runtime, which a denial must not take away ---------------- */

static char runtime_paths[2][PATH_MAX];
static pthread_once_t runtime_once = PTHREAD_ONCE_INIT;

static void runtime_probe(void)
{
	Dl_info info;
	unsigned long base = getauxval(AT_BASE);

	if (dladdr((void *)&getpid, &info) && info.dli_fname && info.dli_fname[0] == '/' &&
	    !realpath(info.dli_fname, runtime_paths[0]))
		runtime_paths[0][0] = '\0';
	if (base && dladdr((void *)base, &info) && info.dli_fname && info.dli_fname[0] == '/' &&
	    !realpath(info.dli_fname, runtime_paths[1]))
		runtime_paths[1][0] = '\0';
}

/* ---- the tree of configured paths ------------------------------------ */

struct node {
	char *name;
	int mode;           /* enum sbx_mode, or -1 where nothing is configured */
	uint64_t want;      /* the rights asked for here */
	uint64_t common;    /* the rights common to the whole subtree */
	struct node **kids; /* sorted by name once the tree is built */
	size_t nkids, cap;
};

static struct node *node_new(const char *name, size_t len)
{
	struct node *n = calloc(1, sizeof(*n));

	if (n && !(n->name = strndup(name, len))) {
		free(n);
		return NULL;
	}
	if (n)
		n->mode = -1;
	return n;
}

static void node_free(struct node *n)
{
	for (size_t i = 0; n && i < n->nkids; i++)
		node_free(n->kids[i]);
	if (n) {
		free(n->kids);
		free(n->name);
		free(n);
	}
}

static struct node *node_child(struct node *n, const char *name, size_t len)
{
	struct node **grown;

	for (size_t i = 0; i < n->nkids; i++)
		if (strlen(n->kids[i]->name) == len && memcmp(n->kids[i]->name, name, len) == 0)
			return n->kids[i];
	if (!(grown = sbx__grow(n->kids, &n->cap, n->nkids + 1, sizeof(*n->kids))))
		return NULL;
	n->kids = grown;
	return (n->kids[n->nkids] = node_new(name, len)) ? n->kids[n->nkids++] : NULL;
}

/* Puts path in the tree.  At one path the widest mode wins: a re-admission
 * of a denied path is what re-admitting is for. */
static int tree_add(struct node *root, const char *path, enum sbx_mode mode)
{
	struct node *n = root;

	for (const char *p = path + 1; *p;) {
		const char *end = strchrnul(p, '/');

		if (!(n = node_child(n, p, (size_t)(end - p))))
			return ENOMEM;
		p = *end ? end + 1 : end;
	}
	if ((int)mode > n->mode)
		n->mode = (int)mode;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct node *const *)a)->name, (*(struct node *const *)b)->name);
}

struct rights {
	uint64_t dir;  /* everything but making device nodes */
	uint64_t file; /* what a rule on a non-directory may carry */
	uint64_t read;
};

static uint64_t mode_rights(const struct rights *r, int mode)
{
	return mode == SBX_MODE_ALLOW ? r->dir : mode == SBX_MODE_READONLY ? r->read : 0;
}

/* Fills want (top down) and common (bottom up), sorts the children. */
static void tree_settle(struct node *n, uint64_t inherited, const struct rights *r)
{
	n->want = n->mode >= 0 ? mode_rights(r, n->mode) : inherited;
	n->common = n->want;
	for (size_t i = 0; i < n->nkids; i++) {
		tree_settle(n->kids[i], n->want, r);
		n->common &= n->kids[i]->common;
	}
	if (n->nkids)
		qsort(n->kids, n->nkids, sizeof(*n->kids), by_name);
}

static struct node *tree_find(const struct node *n, const char *name)
{
	struct node key = { .name = (char *)name }, *kp = &key, **hit;

	if (!n->nkids)
		return NULL;
	hit = bsearch(&kp, n->kids, n->nkids, sizeof(*n->kids), by_name);
	return hit ? *hit : NULL;
}

/* ---- the mount table ------------------------------------------------- */

struct mount {
	unsigned long id; /* as statx(2) gives it in stx_mnt_id */
	unsigned dev_major, dev_minor;
	char *root;  /* the mounted directory, from its filesystem's root */
	char *point; /* where it is mounted */
};

/* The mount table as read, the strings of every struct mount in it. */
struct mount_table {
	struct mount *v;
	size_t n;
	char *text;
};

/* mountinfo escapes blanks, tabs, newlines and backslashes as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* Cuts the next blank-separated field out of *p, in place. */
static char *field(char **p)
{
	char *start = *p, *end = strchr(start, ' ');

	if (!end)
		return NULL;
	*end = '\0';
	*p = end + 1;
	return start;
}

static int read_mounts(struct mount_table *t)
{
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	size_t len = 0, room = 8192, cap = 0;
	ssize_t got;

	if (fd < 0)
		return errno;
	/* Read whole: the kernel builds it line by line anyway. */
	for (;;) {
		char *grown = len + 1 >= room || !t->text ? realloc(t->text, room *= 2) : t->text;

		if (!grown) {
			close(fd);
			return ENOMEM;
		}
		t->text = grown;
		if ((got = read(fd, t->text + len, room - len - 1)) <= 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	if (got < 0)
		return errno;
	t->text[len] = '\0';
	for (char *line = t->text, *next; *line; line = next) {
		char *p = line, *id, *dev, *root, *point, *colon;
		struct mount *grown;

		next = strchrnul(line, '\n');
		if (*next)
			*next++ = '\0';
		/* id parent major:minor root point ... */
		if (!(id = field(&p)) || !field(&p) || !(dev = field(&p)) || !(root = field(&p)) ||
		    !(point = field(&p)) || !(colon = strchr(dev, ':')))
			continue;
		if (!(grown = sbx__grow(t->v, &cap, t->n + 1, sizeof(*t->v))))
			return ENOMEM;
		t->v = grown;
		unescape(root);
		unescape(point);
		t->v[t->n++] = (struct mount){ .id = strtoul(id, NULL, 10),
		                               .dev_major = (unsigned)strtoul(dev, NULL, 10),
		                               .dev_minor = (unsigned)strtoul(colon + 1, NULL, 10),
		                               .root = root, .point = point };
	}
	return 0;
}

static void free_mounts(struct mount_table *t)
{
	free(t->v);
	free(t->text);
}

struct ident;
struct fs_place;

struct compiler {
	const struct sbx_scope *scope;
	struct sbx_ruleset *out;
	struct rights rights;
	struct timespec started;
	struct mount *mounts; /* the mount table, read once */
	size_t nmounts;
	struct mount_table table;
	struct ident *idents; /* every tree node that exists, by inode */
	size_t nidents, idents_cap;
	struct fs_place *places; /* every configured path, in its filesystem */
	size_t nplaces;
	size_t dropped_cap;
	char path[PATH_MAX]; /* the directory being worked on */
	int err;             /* ENOMEM: the compile as a whole failed */
};

/* ---- second names of the tree's own directories ---------------------- */

/* Landlock rules hold on inodes.  An entry of an expanded directory that is
 * the very inode of a node of the tree (a bind mount of it, a hard link to
 * a denied file) must not be granted as a sibling: the grant would land on
 * the node itself and open what it denies. */
struct ident {
	dev_t dev;
	ino_t ino;
	char *path;
};

static int by_inode(const void *a, const void *b)
{
	const struct ident *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

static int collect_idents(struct compiler *cc, const struct node *n, char *path, size_t cap)
{
	size_t len = strlen(path);
	struct stat st;

	if (lstat(path, &st) == 0) {
		struct ident *grown = sbx__grow(cc->idents, &cc->idents_cap, cc->nidents + 1,
		                                sizeof(*cc->idents));

		if (!grown)
			return ENOMEM;
		cc->idents = grown;
		cc->idents[cc->nidents] = (struct ident){ .dev = st.st_dev, .ino = st.st_ino,
		                                          .path = strdup(path) };
		if (!cc->idents[cc->nidents++].path)
			return ENOMEM;
	} else {
		return 0; /* nothing below a missing path exists either */
	}
	for (size_t i = 0; i < n->nkids; i++) {
		int err;

		if (path_push(path, n->kids[i]->name, strlen(n->kids[i]->name)))
			continue;
		err = collect_idents(cc, n->kids[i], path, cap);
		path[len] = '\0';
		if (err)
			return err;
	}
	return 0;
}

static const struct ident *find_ident(const struct compiler *cc, dev_t dev, ino_t ino)
{
	struct ident key = { .dev = dev, .ino = ino };

	return cc->nidents ? bsearch(&key, cc->idents, cc->nidents, sizeof(key), by_inode) : NULL;
}

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

/* The mounts on entries of the directory being expanded, by the entry's
 * name (in out, room for every mount): usually none, so that the entries
 * are not each compared with the whole table. */
static size_t mounts_here(const struct compiler *cc, const struct mount **out)
{
	size_t dlen = strlen(cc->path), n = 0;

	for (size_t i = 0; i < cc->nmounts; i++) {
		const char *mp = cc->mounts[i].point;
		const char *base = strcmp(cc->path, "/") == 0 ? mp + 1 : mp + dlen + 1;

		if (strcmp(cc->path, "/") == 0 ? mp[0] == '/'
		                               : strncmp(mp, cc->path, dlen) == 0 && mp[dlen] == '/')
			if (*base && !strchr(base, '/'))
				out[n++] = &cc->mounts[i];
	}
	return n;
}

/* The mount on entry name (the last one made there, which is the one
 * seen), or NULL. */
static const struct mount *mount_on(const struct mount *const *here, size_t n, size_t dlen,
                                    const char *name)
{
	const struct mount *found = NULL;

	for (size_t i = 0; i < n; i++)
		if (strcmp(here[i]->point + dlen + 1, name) == 0)
			found = here[i];
	return found;
}

/* A restricted path as its filesystem knows it: the device and the path
 * from that filesystem's root, through the mount it is seen by. */
struct fs_place {
	unsigned dev_major, dev_minor;
	char rel[2 * PATH_MAX];
	const char *path;
	const struct mount *home; /* the mount it is seen through */
	int mode;                 /* the scope's mode there */
	uint64_t rights;          /* what the scope grants there */
};

static const char *suffix_after(const char *prefix, const char *path);
static int mode_at(const struct node *root, const char *path);

static const struct mount *mount_by_id(const struct compiler *cc, unsigned long id)
{
	for (size_t i = 0; i < cc->nmounts; i++)
		if (cc->mounts[i].id == id)
			return &cc->mounts[i];
	return NULL;
}

/* The mount an open file or a path is seen through: by its mount id, which
 * no order of the table or moving of mounts can confuse. */
static const struct mount *mount_of(const struct compiler *cc, int dirfd, const char *path)
{
	struct statx sx;

	if (statx(dirfd, path, AT_SYMLINK_NOFOLLOW | (*path ? 0 : AT_EMPTY_PATH), STATX_MNT_ID, &sx) ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return NULL;
	return mount_by_id(cc, (unsigned long)sx.stx_mnt_id);
}

/* Where path is in its filesystem.  A path that does not exist is placed
 * through its nearest existing ancestor. */
static bool place_of(const struct compiler *cc, const char *path, struct fs_place *out)
{
	char known[PATH_MAX];
	const struct mount *m = NULL;

	snprintf(known, sizeof(known), "%s", path);
	while (!(m = mount_of(cc, AT_FDCWD, known)) && strcmp(known, "/"))
		path_pop(known);
	if (!m || !covers(m->point, known))
		return false;
	out->home = m;
	out->dev_major = m->dev_major;
	out->dev_minor = m->dev_minor;
	snprintf(out->rel, sizeof(out->rel), "%s%s", strcmp(m->root, "/") ? m->root : "",
	         suffix_after(m->point, path));
	if (!out->rel[0])
		strcpy(out->rel, "/");
	out->path = path;
	return true;
}

/* What the scope allows on a grant to the inode at (dev, rel) of its
 * filesystem, whatever name it is reached by: the rights of the nearest
 * configured place above or at it, less any right a configured place
 * beneath it withholds (a grant holds on everything beneath its inode).
 * places: those that can matter, as relevant_places() picks them. */
static uint64_t fs_clamp(const struct fs_place *const *places, size_t n, unsigned maj,
                         unsigned min, const char *rel, uint64_t rights,
                         const struct fs_place **why)
{
	size_t best = 0;
	const struct fs_place *nearest = NULL, *under = NULL;
	uint64_t above = ~0ULL, below = ~0ULL;

	for (size_t i = 0; i < n; i++) {
		const struct fs_place *p = places[i];
		size_t len = strlen(p->rel);

		if (p->dev_major != maj || p->dev_minor != min)
			continue;
		if (covers(p->rel, rel)) {
			if (!nearest || len > best) {
				best = len;
				above = p->rights;
				nearest = p;
			} else if (len == best) {
				above |= p->rights; /* one path twice: the widest */
			}
		} else if (covers(rel, p->rel) && (rights & ~p->rights)) {
			below &= p->rights;
			under = p;
		}
	}
	if (why)
		*why = (rights & ~above) ? nearest : under;
	return rights & above & below;
}

/* The places that can bear on the directory d and its entries: on its
 * device, above it or beneath it. */
static size_t relevant_places(const struct compiler *cc, const struct fs_place *d,
                              const struct fs_place **out)
{
	size_t n = 0;

	for (size_t i = 0; i < cc->nplaces; i++) {
		const struct fs_place *p = &cc->places[i];

		if (p->dev_major == d->dev_major && p->dev_minor == d->dev_minor &&
		    (covers(p->rel, d->rel) || covers(d->rel, p->rel)))
			out[n++] = p;
	}
	return n;
}

/* Where the directory open as dirfd, reached as cc->path, is. */
static bool place_dir(const struct compiler *cc, int dirfd, struct fs_place *out)
{
	const struct mount *m = mount_of(cc, dirfd, "");

	if (!m || !covers(m->point, cc->path))
		return false;
	out->home = m;
	out->dev_major = m->dev_major;
	out->dev_minor = m->dev_minor;
	snprintf(out->rel, sizeof(out->rel), "%s%s", strcmp(m->root, "/") ? m->root : "",
	         suffix_after(m->point, cc->path));
	if (!out->rel[0])
		strcpy(out->rel, "/");
	out->path = NULL;
	return true;
}

/* ---- emitting the rules ---------------------------------------------- */


/* A directory changed this recently may change again within the same
 * timestamp tick, unseen: it is not a ground for reuse. */
#define RACY_NS (50 * 1000000LL)

static long long ns_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

/* Records what the directory in cc->path looked like when it was read. */
static void stamp(struct compiler *cc, const struct stat *st)
{
	struct sbx_ruleset *rs = cc->out;
	struct sbx_stamp *grown;

	if (ns_between(&st->st_mtim, &cc->started) < RACY_NS ||
	    ns_between(&st->st_ctim, &cc->started) < RACY_NS)
		rs->reusable = false;
	if (!(grown = sbx__grow(rs->stamps, &rs->stamps_cap, rs->nstamps + 1, sizeof(*rs->stamps)))) {
		cc->err = ENOMEM;
		return;
	}
	rs->stamps = grown;
	rs->stamps[rs->nstamps] = (struct sbx_stamp){ .dev = st->st_dev, .ino = st->st_ino,
	                                              .mtime = st->st_mtim, .ctime = st->st_ctim };
	if (!(rs->stamps[rs->nstamps].path = strdup(cc->path))) {
		cc->err = ENOMEM;
		return;
	}
	rs->nstamps++;
}

/* A file granted in an expanded directory (the one stamped last): a hard
 * link made to it later would make a new compile refuse it, so its link
 * count is part of what reuse checks (not its times: a file written to is
 * no different).  Kept compact: one of these per file of a large
 * directory. */
static void stamp_file(struct compiler *cc, const char *name, const struct stat *st)
{
	struct sbx_ruleset *rs = cc->out;
	size_t len = strlen(name) + 1;
	struct sbx_file_stamp *files;
	char *names;

	if (!(files = sbx__grow(rs->files, &rs->files_cap, rs->nfiles + 1, sizeof(*rs->files))) ||
	    !(names = sbx__grow(rs->names, &rs->names_cap, rs->names_len + len, 1))) {
		cc->err = ENOMEM;
		return;
	}
	rs->files = files;
	rs->names = names;
	memcpy(names + rs->names_len, name, len);
	files[rs->nfiles++] = (struct sbx_file_stamp){ .dir = (uint32_t)(rs->nstamps - 1),
	                                               .name = (uint32_t)rs->names_len,
	                                               .ino = st->st_ino, .nlink = st->st_nlink };
	rs->names_len += len;
}

static bool stamp_matches(const struct sbx_stamp *sp)
{
	struct stat st;

	return lstat(sp->path, &st) == 0 && st.st_dev == sp->dev && st.st_ino == sp->ino &&
	       st.st_mtim.tv_sec == sp->mtime.tv_sec && st.st_mtim.tv_nsec == sp->mtime.tv_nsec &&
	       st.st_ctim.tv_sec == sp->ctime.tv_sec && st.st_ctim.tv_nsec == sp->ctime.tv_nsec;
}

static bool file_stamp_matches(const struct sbx_ruleset *rs, const struct sbx_file_stamp *f)
{
	const struct sbx_stamp *dir = &rs->stamps[f->dir];
	char path[PATH_MAX + NAME_MAX + 2];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", strcmp(dir->path, "/") ? dir->path : "",
	         rs->names + f->name);
	return lstat(path, &st) == 0 && st.st_dev == dir->dev && st.st_ino == f->ino &&
	       st.st_nlink == f->nlink;
}

/* One grant could not be added: the path stays unreachable.  `listing':
 * it was a directory whose entries could not be listed, so none of them
 * got their grants. */
enum drop_reason { DROP_FAILED, DROP_UNLISTED, DROP_LINKED, DROP_UNPLACED };

static void drop(struct compiler *cc, const char *name, int err, enum drop_reason why)
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
static void emit(struct compiler *cc, const struct node *n, int dirfd, const struct stat *st_n,
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

/* ---- bind-mount aliases ---------------------------------------------- */

/* The mode that governs path: that of its nearest configured ancestor. */
static int mode_at(const struct node *root, const char *path)
{
	const struct node *n = root;
	int mode = root->mode >= 0 ? root->mode : SBX_MODE_ALLOW;

	for (const char *p = path + 1; *p && n;) {
		const char *end = strchrnul(p, '/');
		size_t len = (size_t)(end - p);
		const struct node *next = NULL;

		for (size_t i = 0; i < n->nkids; i++)
			if (strlen(n->kids[i]->name) == len && !memcmp(n->kids[i]->name, p, len))
				next = n->kids[i];
		if ((n = next) && n->mode >= 0)
			mode = n->mode;
		p = *end ? end + 1 : end;
	}
	return mode;
}

static const char *suffix_after(const char *prefix, const char *path)
{
	return strcmp(prefix, "/") == 0 ? path : path + strlen(prefix);
}

/* Whether path's directory is a node of the tree (listed, if anything). */
static bool parent_in_tree(const struct node *root, const char *path)
{
	const struct node *n = root;
	const char *p = path + 1, *end;

	while ((end = strchr(p, '/'))) {
		const struct node *next = NULL;
		size_t len = (size_t)(end - p);

		for (size_t i = 0; n && i < n->nkids; i++)
			if (strlen(n->kids[i]->name) == len && !memcmp(n->kids[i]->name, p, len))
				next = n->kids[i];
		if (!(n = next))
			return false;
		p = end + 1;
	}
	return n && n->nkids;
}

/* Warns where a restricted path is also reachable, with wider rights, under
 * a second name: another mount of the same filesystem. */
static void check_aliases(struct compiler *cc, const struct node *root, const struct fs_place *p)
{
	char alias[3 * PATH_MAX], real[3 * PATH_MAX];
	const char *path = p->path, *rel = p->rel;
	int mode = p->mode;
	struct stat a, b;

	for (size_t i = 0; i < cc->nmounts; i++) {
		const struct mount *m = &cc->mounts[i];

		if (m == p->home || m->dev_major != p->dev_major || m->dev_minor != p->dev_minor)
			continue;
		if (covers(m->root, rel)) {
			/* The mount shows the restricted path itself. */
			snprintf(alias, sizeof(alias), "%s%s", strcmp(m->point, "/") ? m->point : "",
			         suffix_after(m->root, rel));
			snprintf(real, sizeof(real), "%s", path);
		} else if (covers(rel, m->root)) {
			/* The mount shows a part of it. */
			snprintf(alias, sizeof(alias), "%s", m->point);
			snprintf(real, sizeof(real), "%s%s", strcmp(path, "/") ? path : "",
			         suffix_after(rel, m->root));
		} else {
			continue;
		}
		if (!alias[0])
			strcpy(alias, "/");
		/* A name in a directory the compile lists was judged there. */
		if (mode_at(root, alias) <= mode || parent_in_tree(root, alias) || stat(alias, &a) ||
		    stat(real, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
			continue;
		sbx__event(cc->scope, SBX_EVENT_ALIAS, 0, real, alias,
		           "%s is also reachable as %s (a bind mount); the scope does not cover that name",
		           real, alias);
	}
}

/* ---- controls beyond the filesystem -------------------------------- */

static const struct {
	int flag;
	int abi;          /* the first ABI that enforces it; 0: seccomp */
	const char *name; /* as the refusal line and the event say it */
} control_table[] = {
	{ SBX_SCOPE_NO_TCP_BIND, 4, "tcp_bind (needs Landlock ABI 4)" },
	{ SBX_SCOPE_NO_TCP_CONNECT, 4, "tcp_connect (needs Landlock ABI 4)" },
	{ SBX_SCOPE_NO_ABSTRACT_UNIX, 6, "abstract_unix (needs Landlock ABI 6)" },
	{ SBX_SCOPE_NO_SIGNAL, 6, "signal (needs Landlock ABI 6)" },
	{ SBX_SCOPE_NO_UNIX_CONNECT, 9, "unix_connect (needs Landlock ABI 9)" },
	{ SBX_SCOPE_NO_IO_URING, 0, "io_uring (needs x86_64 or aarch64)" },
};

/* Decides which requested controls this ABI enforces; each one it cannot
 * is a warning, or with SBX_SCOPE_STRICT a refusal (false). */
static bool settle_controls(const struct sbx_scope *scope, struct sbx_ruleset *out)
{
	for (size_t i = 0; i < sizeof(control_table) / sizeof(control_table[0]); i++) {
		int flag = control_table[i].flag, abi = control_table[i].abi;
		const char *name = control_table[i].name;

		if (!(scope->flags & flag))
			continue;
		if (abi ? out->abi >= abi : sbx__io_uring_filter() != NULL) {
			out->controls |= flag;
			continue;
		}
		if (scope->flags & SBX_SCOPE_STRICT) {
			out->confinement = SBX_OUTCOME_REFUSED;
			out->error = EOPNOTSUPP;
			out->refused_call = name;
			return false;
		}
		sbx__event(scope, SBX_EVENT_DOWNGRADED, ENOTSUP, name, NULL,
		           "not enforced: %s; the rest of the scope is (SBX_SCOPE_STRICT refuses instead)",
		           name);
	}
	return true;
}

static uint64_t net_rights(int enforced)
{
	return (enforced & SBX_SCOPE_NO_TCP_BIND ? LANDLOCK_ACCESS_NET_BIND_TCP : 0) |
	       (enforced & SBX_SCOPE_NO_TCP_CONNECT ? LANDLOCK_ACCESS_NET_CONNECT_TCP : 0);
}

static uint64_t scopes(int enforced)
{
	return (enforced & SBX_SCOPE_NO_ABSTRACT_UNIX ? LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET : 0) |
	       (enforced & SBX_SCOPE_NO_SIGNAL ? LANDLOCK_SCOPE_SIGNAL : 0);
}

/* The allowed ports, each a grant like any other: one that cannot be added
 * is dropped (that port stays denied). */
static void add_ports(struct compiler *cc, const struct sbx_scope *scope)
{
	uint64_t handled = net_rights(cc->out->controls);

	for (size_t i = 0; i < scope->nports; i++) {
		uint64_t access = ((scope->ports[i].access & SBX_TCP_BIND) ? LANDLOCK_ACCESS_NET_BIND_TCP : 0) |
		                  ((scope->ports[i].access & SBX_TCP_CONNECT) ? LANDLOCK_ACCESS_NET_CONNECT_TCP : 0);
		char name[32];
		int r;

		if (!(access &= handled))
			continue;
		r = sbx__ruleset_add_port(cc->out->fd, scope->ports[i].port, access);
		if (r == 0) {
			cc->out->rules++;
			continue;
		}
		snprintf(name, sizeof(name), "tcp port %u", scope->ports[i].port);
		strcpy(cc->path, "");
		drop(cc, name, -r, DROP_FAILED);
	}
}

/* ---- the whole compile ----------------------------------------------- */

static atomic_int said_unconfined;

static int no_landlock(const struct sbx_scope *scope, struct sbx_ruleset *out, int why)
{
	if (scope->flags & SBX_SCOPE_REQUIRE)
		return ENOTSUP;
	out->confinement = SBX_OUTCOME_UNCONFINED;
	if (!atomic_exchange(&said_unconfined, 1))
		sbx__event(scope, SBX_EVENT_UNCONFINED, why, NULL, NULL,
		           "this kernel has no Landlock (%s): commands run unconfined%s",
		           why == ENOSYS ? "not built in" : "disabled at boot; add lsm=...,landlock",
		           "; ask for SBX_SCOPE_REQUIRE to refuse instead");
	return 0;
}

/* Resolves every configured path, leaves out the denials that would stop
 * every program, and builds the tree. */
static int build_tree(const struct sbx_scope *scope, struct node *root, char (*resolved)[PATH_MAX],
                      struct sbx_ruleset *out)
{
	int err;

	pthread_once(&runtime_once, runtime_probe);
	if (!(out->resolved = calloc(scope->nrules + 1, sizeof(char *))))
		return ENOMEM;
	if (!(out->plain = calloc(scope->nrules + 1, sizeof(bool))))
		return ENOMEM;
	for (size_t i = 0; i < scope->nrules; i++) {
		if ((err = resolve_plain(scope->rules[i].path, resolved[i], &out->plain[i])))
			return err;
		if (!(out->resolved[i] = strdup(resolved[i])))
			return ENOMEM;
		out->nresolved++;
	}
	for (size_t i = 0; i < scope->nrules; i++) {
		const char *why = NULL;

		if (scope->rules[i].mode != SBX_MODE_DENY) {
			if ((err = tree_add(root, resolved[i], scope->rules[i].mode)))
				return err;
			continue;
		}
		if (strcmp(resolved[i], "/") == 0)
			why = "denying / would stop every program";
		for (int r = 0; r < 2 && !why; r++)
			if (runtime_paths[r][0] && covers(resolved[i], runtime_paths[r])) {
				/* Unless something below re-admits the runtime. */
				bool readmitted = false;

				for (size_t j = 0; j < scope->nrules; j++)
					if (scope->rules[j].mode != SBX_MODE_DENY &&
					    covers(resolved[j], runtime_paths[r]) &&
					    covers(resolved[i], resolved[j]))
						readmitted = true;
				if (!readmitted)
					why = "it holds the C runtime every program needs";
			}
		if (why) {
			sbx__event(scope, SBX_EVENT_IGNORED_DENY, 0, resolved[i], NULL,
			           "not denying %s: %s", resolved[i], why);
			continue;
		}
		if ((err = tree_add(root, resolved[i], SBX_MODE_DENY)))
			return err;
	}
	return 0;
}

int sbx__ruleset_compile(const struct sbx_scope *scope, struct sbx_ruleset *out)
{
	int kernel_abi = sbx__landlock_abi();
	struct compiler *cc = NULL;
	struct node *root = NULL;
	char (*resolved)[PATH_MAX] = NULL;
	struct stat st;
	int err = ENOMEM, rootfd;

	*out = (struct sbx_ruleset){ .fd = -1, .mounts_fd = -1, .reusable = true,
	                             .kernel_abi = kernel_abi > 0 ? kernel_abi : 0,
	                             .poll_lock = PTHREAD_MUTEX_INITIALIZER };
	if (kernel_abi == -ENOSYS || kernel_abi == -EOPNOTSUPP)
		return no_landlock(scope, out, -kernel_abi);
	if (kernel_abi < 0) {
		/* Present, as far as anyone can tell, and refusing. */
		out->confinement = SBX_OUTCOME_REFUSED;
		out->error = -kernel_abi;
		out->refused_call = "landlock_create_ruleset(VERSION)";
		return 0;
	}
	out->abi = scope->abi_cap && scope->abi_cap < kernel_abi ? scope->abi_cap : kernel_abi;

	if (!(cc = calloc(1, sizeof(*cc))) || !(root = node_new("", 0)) ||
	    !(resolved = calloc(scope->nrules + 1, sizeof(*resolved))))
		goto fail;
	cc->scope = scope;
	cc->out = out;
	clock_gettime(CLOCK_REALTIME, &cc->started);
	/* Opened before anything is read: a mount made from here on shows in
	 * poll() (the compile opens what is mounted now, a later compile
	 * might not). */
	out->mounts_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	cc->rights.dir = sbx__fs_rights_known(out->abi) &
	                 ~(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK);
	cc->rights.file = sbx__fs_rights_file(out->abi);
	cc->rights.read = sbx__fs_rights_read(out->abi);
	if ((err = build_tree(scope, root, resolved, out)))
		goto fail;
	tree_settle(root, cc->rights.dir, &cc->rights);
	if (root->nkids) {
		char path[PATH_MAX] = "/";

		/* Without the mount table no second name can be told apart:
		 * fail rather than grant blind. */
		if ((err = read_mounts(&cc->table)))
			goto fail;
		cc->mounts = cc->table.v;
		cc->nmounts = cc->table.n;

		if ((err = collect_idents(cc, root, path, sizeof(path))))
			goto fail;
		if (cc->nidents)
			qsort(cc->idents, cc->nidents, sizeof(*cc->idents), by_inode);
		if (!(cc->places = calloc(scope->nrules + 1, sizeof(*cc->places)))) {
			err = ENOMEM;
			goto fail;
		}
		for (size_t i = 0; i < scope->nrules; i++)
			if (place_of(cc, resolved[i], &cc->places[cc->nplaces])) {
				cc->places[cc->nplaces].mode = mode_at(root, resolved[i]);
				cc->places[cc->nplaces].rights =
					mode_rights(&cc->rights, cc->places[cc->nplaces].mode);
				cc->nplaces++;
			}
	}

	if (!settle_controls(scope, out)) {
		err = 0; /* refused, under SBX_SCOPE_STRICT: the child will say so */
		goto fail;
	}
	out->fd = sbx__ruleset_create(out->abi, net_rights(out->controls), scopes(out->controls));
	if (out->fd < 0) {
		/* Landlock is there and said no: the child will say so. */
		out->error = -out->fd;
		out->refused_call = "landlock_create_ruleset";
		out->fd = -1;
		out->confinement = SBX_OUTCOME_REFUSED;
		err = 0;
		goto fail;
	}
	add_ports(cc, scope);
	rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || fstat(rootfd, &st)) {
		err = errno;
		if (rootfd >= 0)
			close(rootfd);
		goto fail;
	}
	strcpy(cc->path, "/");
	emit(cc, root, rootfd, &st, 0);
	close(rootfd);
	if ((err = cc->err))
		goto fail;

	for (size_t i = 0; i < cc->nplaces; i++)
		if (cc->places[i].mode != SBX_MODE_ALLOW)
			check_aliases(cc, root, &cc->places[i]);
	out->confinement = out->ndropped ? SBX_OUTCOME_NARROWED : SBX_OUTCOME_CONFINED;
	out->reusable = out->reusable && !out->ndropped && out->mounts_fd >= 0;
	err = 0;
	goto done;
fail:
	if (err)
		sbx__ruleset_release(out);
done:
	node_free(root);
	free(resolved);
	if (cc) {
		for (size_t i = 0; i < cc->nidents; i++)
			free(cc->idents[i].path);
		free(cc->idents);
		free(cc->places);
		free_mounts(&cc->table);
	}
	free(cc);
	return err;
}

void sbx__ruleset_release(struct sbx_ruleset *rs)
{
	if (rs->fd >= 0)
		close(rs->fd);
	if (rs->mounts_fd >= 0)
		close(rs->mounts_fd);
	for (unsigned i = 0; i < rs->ndropped; i++)
		free(rs->dropped[i]);
	free(rs->dropped);
	for (size_t i = 0; i < rs->nresolved; i++)
		free(rs->resolved[i]);
	free(rs->resolved);
	free(rs->plain);
	for (size_t i = 0; i < rs->nstamps; i++)
		free(rs->stamps[i].path);
	free(rs->stamps);
	free(rs->files);
	free(rs->names);
	rs->files = NULL;
	rs->names = NULL;
	rs->nfiles = rs->files_cap = rs->names_len = rs->names_cap = 0;
	rs->fd = rs->mounts_fd = -1;
	rs->dropped = rs->resolved = NULL;
	rs->plain = NULL;
	rs->stamps = NULL;
	rs->ndropped = 0;
	rs->nresolved = rs->nstamps = rs->stamps_cap = 0;
}

bool sbx__ruleset_current(const struct sbx_scope *scope, struct sbx_ruleset *rs)
{
	struct pollfd pfd = { .fd = rs->mounts_fd, .events = POLLPRI };
	char path[PATH_MAX];

	if (atomic_load(&rs->stale) || rs->nresolved != scope->nrules)
		return false;
	/* The mount table changed since the compile: poll() says so once, to
	 * one caller, so the verdict is kept for every other user of rs; the
	 * lock makes the others wait for it. */
	pthread_mutex_lock(&rs->poll_lock);
	if (!atomic_load(&rs->stale) && (poll(&pfd, 1, 0) != 0 || pfd.revents))
		atomic_store(&rs->stale, true);
	pthread_mutex_unlock(&rs->poll_lock);
	if (atomic_load(&rs->stale))
		return false;
	for (size_t i = 0; i < rs->nstamps; i++)
		if (!stamp_matches(&rs->stamps[i]))
			return false;
	for (size_t i = 0; i < rs->nfiles; i++)
		if (!file_stamp_matches(rs, &rs->files[i]))
			return false;
	/* The paths resolve as they did (the cwd, the symlinks on the way).
	 * A plain one does: every directory on its way is stamped above. */
	for (size_t i = 0; i < scope->nrules; i++)
		if (!rs->plain[i] &&
		    (resolve(scope->rules[i].path, path) || strcmp(path, rs->resolved[i])))
			return false;
	return true;
}
