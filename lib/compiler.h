/* The compiler's stages, as the files of lib/ that hold them see each
 * other; nothing here leaves the library. */
#ifndef SBX_COMPILER_H
#define SBX_COMPILER_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "internal.h"

struct node {
	char *name;
	int mode;           /* enum sbx_mode, or -1 where nothing is configured */
	uint64_t want;      /* the rights asked for here */
	uint64_t common;    /* the rights common to the whole subtree */
	struct node **kids; /* sorted by name once the tree is built */
	size_t nkids, cap;
};

struct rights {
	uint64_t dir;  /* everything but making device nodes */
	uint64_t file; /* what a rule on a non-directory may carry */
	uint64_t read;
};

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

/* Landlock rules hold on inodes.  An entry of an expanded directory that is
 * the very inode of a node of the tree (a bind mount of it, a hard link to
 * a denied file) must not be granted as a sibling: the grant would land on
 * the node itself and open what it denies. */
struct ident {
	dev_t dev;
	ino_t ino;
	char *path;
};

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

struct compiler {
	const struct sbx_scope *scope;
	struct sbx_ruleset *out;
	struct node *root;           /* the tree of configured paths */
	char (*resolved)[PATH_MAX];  /* the scope's paths, resolved, one per rule */
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

/* One grant could not be added: the path stays unreachable.  `listing':
 * it was a directory whose entries could not be listed, so none of them
 * got their grants. */
enum drop_reason { DROP_FAILED, DROP_UNLISTED, DROP_LINKED, DROP_UNPLACED };

/* ---- resolve.c --------------------------------------------------------- */

int sbx__path_push(char *buf, const char *name, size_t len);
void sbx__path_pop(char *buf);
int sbx__resolve(const char *path, char *out, bool *plain);
bool sbx__path_covers(const char *a, const char *b);
const char *sbx__path_after(const char *prefix, const char *path);

/* ---- tree.c ------------------------------------------------------------ */

struct node *sbx__node_new(const char *name, size_t len);
void sbx__tree_free(struct node *n);
uint64_t sbx__mode_rights(const struct rights *r, int mode);
void sbx__tree_settle(struct node *n, uint64_t inherited, const struct rights *r);
struct node *sbx__tree_find(const struct node *n, const char *name);
int sbx__tree_mode_at(const struct node *root, const char *path);
bool sbx__tree_has_parent(const struct node *root, const char *path);
int sbx__tree_build(const struct sbx_scope *scope, struct node *root, char (*resolved)[PATH_MAX],
                      struct sbx_ruleset *out);

/* ---- mounts.c ---------------------------------------------------------- */

int sbx__mounts_read(struct mount_table *t);
void sbx__mounts_free(struct mount_table *t);
size_t sbx__mounts_here(const struct compiler *cc, const struct mount **out);
const struct mount *sbx__mount_on(const struct mount *const *here, size_t n, size_t dlen,
                                    const char *name);
const struct mount *sbx__mount_of(const struct compiler *cc, int dirfd, const char *path);
bool sbx__place_path(const struct compiler *cc, const char *path, struct fs_place *out);
uint64_t sbx__place_clamp(const struct fs_place *const *places, size_t n, unsigned maj,
                         unsigned min, const char *rel, uint64_t rights,
                         const struct fs_place **why);
size_t sbx__places_near(const struct compiler *cc, const struct fs_place *d,
                              const struct fs_place **out);
bool sbx__place_dir(const struct compiler *cc, int dirfd, struct fs_place *out);

/* ---- aliases.c --------------------------------------------------------- */

int sbx__idents_collect(struct compiler *cc, const struct node *root);
const struct ident *sbx__ident_find(const struct compiler *cc, dev_t dev, ino_t ino);
void sbx__aliases_warn(struct compiler *cc, const struct node *root, const struct fs_place *p);

/* ---- stamps.c ---------------------------------------------------------- */

void sbx__stamp_dir(struct compiler *cc, const struct stat *st);
void sbx__stamp_file(struct compiler *cc, const char *name, const struct stat *st);
bool sbx__stamp_current(const struct sbx_stamp *sp);
bool sbx__file_stamp_current(const struct sbx_ruleset *rs, const struct sbx_file_stamp *f);

/* ---- emit.c ------------------------------------------------------------ */

void sbx__drop(struct compiler *cc, const char *name, int err, enum drop_reason why);
void sbx__emit(struct compiler *cc, const struct node *n, int dirfd, const struct stat *st_n,
                 uint64_t have);

/* ---- controls.c -------------------------------------------------------- */

bool sbx__controls_settle(const struct sbx_scope *scope, struct sbx_ruleset *out);
uint64_t sbx__controls_net(int enforced);
uint64_t sbx__controls_scoped(int enforced);
void sbx__controls_add_ports(struct compiler *cc, const struct sbx_scope *scope);
#endif /* SBX_COMPILER_H */
