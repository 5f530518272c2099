/* SPDX-License-Identifier: MIT */
/* The compiler's stages, as the files of lib/ that hold them see each
 * other; nothing here leaves the library.  The route: the scope's resolved
 * paths become the tree (tree.c), the tree is placed among the mounts
 * (mounts.c), and the grants are emitted (emit.c) into the ruleset, whose
 * listings (listing.c) let a later spawn reuse it. */
#ifndef SBX_COMPILER_H
#define SBX_COMPILER_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <time.h>

#include "compat/statx.h"
#include "lib/internal.h"

/* ---- tree.c: the tree of configured paths --------------------------------- */

/* NODE_OWN_RULE: a rule of its own even where the rules above give as
 * much (a named mqueue mount: mq_open(3) reaches its root through the
 * kernel's own mount, which no rule above it covers). */
enum { NODE_EXPANDED = 1, NODE_OWN_RULE = 2 };

struct node {
	const char *name;  /* len bytes of a configured path: not terminated */
	const char *path;  /* the configured path, where one ends here; else NULL */
	struct node *kids; /* nkids of them, sorted by name */
	uint64_t want;     /* the rights asked for here */
	uint64_t common;   /* the rights common to the whole subtree */
	uint32_t nkids;
	uint16_t len;
	int8_t mode;       /* enum sbx_mode, or -1 where nothing is configured */
	uint8_t flags;     /* NODE_*: what the emitter did here */
};

struct rights {
	uint64_t dir;  /* everything but making device nodes */
	uint64_t file; /* what a rule on a non-directory may carry */
	uint64_t read;
};

struct tree {
	struct node root;
	void *chunks;      /* where the nodes live */
	bool restricts;    /* some path is denied or read-only */
	/* Paths of the scope left out (said when the tree was built): those
	 * that lead into a denial through a symlink, and the denials that
	 * would stop every program. */
	const struct sbx_scope_rule **ignored;
	size_t nignored;
};

struct hider;

/* Builds the tree of the scope's paths and of the implicit ones (nimplicit
 * rules the scope does not name: kernelfs.c), leaving out (with an event)
 * the denials that would stop every program and the re-admissions that
 * lead into a denial through a symlink, and (silently) the denials the
 * hider takes to cover; fills want and common. */
int sbx__tree_build(const struct sbx_scope *scope, const struct sbx_scope_rule *implicit,
                    size_t nimplicit, const struct rights *r, struct hider *h, struct tree *t);
void sbx__tree_free(struct tree *t);
/* The child of n named by len bytes of name, or NULL. */
const struct node *sbx__tree_kid(const struct node *n, const char *name, size_t len);
/* The node at an absolute path, or NULL. */
const struct node *sbx__tree_find(const struct tree *t, const char *path);
/* A denied or read-only configured path beneath node n, or NULL. */
const char *sbx__tree_restricted_beneath(const struct node *n);
/* The mode that governs path: that of its nearest configured ancestor. */
int sbx__tree_mode_at(const struct tree *t, const char *path);
uint64_t sbx__mode_rights(const struct rights *r, int mode);
/* runtime.c: why denying rule i of scope would stop every program (it is
 * /, or holds the C runtime, and nothing re-admits that), or NULL; a path
 * left out (left[j]) re-admits nothing. */
const char *sbx__deny_harms(const struct sbx_scope *scope, size_t i, const bool *left);

/* Whether a symlink on the way to the C runtime lies in denial, but in none
 * of binds: hidden, it would take the runtime away. */
bool sbx__runtime_through(const char *denial, const struct cover *binds, size_t nbinds);

/* ---- hide.c: the denials covered in the child instead of expanded -------- */

struct mounts;

struct hider {
	const struct sbx_scope *scope;
	struct sbx_ruleset *out;   /* its covers and pins */
	struct mounts *mounts;
	bool on;                   /* the compile hides what it can */
	const char *why;
	size_t cap, pins_cap, binds_cap;
	size_t aliases;            /* covers of second names (not denials) */
	int err;                   /* ENOMEM; EINVAL: SBX_SCOPE_HIDE, and one cannot be */
};

/* Whether rule r, a denial the tree would apply, is hidden: then it is
 * among out's covers, and the tree leaves it out.  left: the scope's rules
 * the tree leaves out (by index; NULL for none).  An implicit rule (one the
 * scope does not name: kernelfs.c) expanded is said nowhere. */
bool sbx__hide_take(struct hider *h, const struct sbx_scope_rule *r, const bool *left,
                    bool implicit);
/* Whether alias, a second name of a denial that no expanded directory
 * judged, is covered in the child (then it is among the covers). */
bool sbx__hide_alias(struct hider *h, const char *alias);
/* The covers sorted, those beneath another dropped (but in what is bound
 * back into it), the pins above them. */
int sbx__hide_settle(struct hider *h);

/* ---- mounts.c: the mount table, and where paths are in their filesystem --- */

/* A directory whose contents a mount shows: the mount's own root, or a
 * layer of a stacking filesystem (overlay: lower and upper directories). */
struct view {
	unsigned dev_major, dev_minor;
	const char *rel;  /* from the root of that filesystem */
	const char *path; /* as the mount table names it (a layer), or NULL */
};

struct mount {
	uint64_t id;      /* as statx(2) gives it in stx_mnt_id */
	uint64_t parent;
	const char *point; /* where it is mounted */
	const char *type;  /* its filesystem's type */
	struct view own;   /* its root, in its own filesystem */
	struct view *layers; /* stacking filesystems: what they show again */
	unsigned nlayers;
	bool layers_unknown; /* a layer the table names but no path reaches */
	bool image;        /* of a loop device: its layers are the image files */
};

/* A configured path as its filesystem knows it. */
struct place {
	unsigned dev_major, dev_minor;
	const char *rel;      /* from the filesystem's root */
	const char *path;     /* the configured path */
	uint64_t mount;       /* the mount it is seen through */
	uint64_t rights;      /* what the scope grants there */
	uint64_t subtree;     /* what it and every place beneath it have in common */
	uint32_t end;         /* index past the places beneath it (sorted) */
	int mode;
};

struct mounts {
	struct mount *v;   /* sorted by id */
	size_t n;
	struct mount **points; /* the visible mount at each point, by point */
	size_t npoints;
	struct place *places;  /* configured paths on filesystems seen twice */
	size_t nplaces;
	char *text;        /* the table as read: the strings point into it */
	char **extra;      /* strings made here */
	size_t extra_len, extra_cap;
	struct view *layer_store;
	size_t nlayer_store;
	bool chrooted;     /* the root is not the namespace's: layers named by path unknown */
	bool root_unmounted; /* the root is no mount's own root (a chroot into a directory) */
	const char *root_why; /* why the table holds no mount at "/" (rootmount.c), or NULL */
	uint64_t root_id;  /* the mount the root is of (the table's id), or 0 */
};

/* Reads the mount table open as fd (the calling thread's, just opened:
 * mountread.c); sbx__places_build then places the tree's configured
 * paths in it. */
int sbx__mounts_read(struct mounts *m, int fd);
/* The mount holding the root, where the table leaves it out (a chroot):
 * added to m->v (before m is sorted), or left out where that would not be
 * sound; and m->chrooted (rootmount.c).  0, or ENOMEM. */
int sbx__mounts_root(struct mounts *m);
/* The image files behind the block device maj:min (a loop device's,
 * through a partition or a mapping), as sysfs names them, noted as mt's
 * layers (mt->image): 0, or ENOMEM (mounts.c). */
int sbx__mounts_note_images(struct mounts *m, size_t *cap, struct mount *mt, unsigned maj,
                            unsigned min, int depth);
void sbx__mounts_free(struct mounts *m);
int sbx__places_build(struct mounts *m, const struct tree *t, const struct rights *r);
const char *sbx__mounts_keep(struct mounts *m, const char *a, const char *b);
/* kernelfs.c: the rules the scope gets without naming them, for the kernel's
 * filesystems that act on processes mounted in the table (mqueue: denied),
 * but where the scope names the mount point; *out is malloc'd (NULL when
 * there are none), its paths the table's. */
int sbx__kernelfs_rules(const struct mounts *m, const struct sbx_scope *scope,
                        struct sbx_scope_rule **out, size_t *n);
/* Whether the scope names an mqueue mount point with a rule that is not a
 * denial: then mq_open(3) and mq_unlink(3) are the child's (seccomp.c
 * refuses them otherwise). */
bool sbx__kernelfs_mqueue_granted(const struct mounts *m, const struct sbx_scope *scope);
/* Marks the mqueue mounts the scope names NODE_OWN_RULE. */
void sbx__kernelfs_mark(const struct mounts *m, struct tree *t);
const char *sbx__mounts_rel(struct mounts *m, const struct mount *mt, const char *path);
const struct mount *sbx__mount_of(const struct mounts *m, const char *path);
const struct mount *sbx__mount_by_id(const struct mounts *m, uint64_t id);
/* The mount visible at exactly this path, or NULL. */
const struct mount *sbx__mount_at(const struct mounts *m, const char *path);
/* Whether grants on the filesystem of mount id need the places at all: a
 * configured path on it is seen through another mount too. */
bool sbx__mounts_foreign(const struct mounts *m, unsigned maj, unsigned min, uint64_t id);
/* What the scope allows on an inode at (dev, rel), whatever its name: the
 * nearest configured place at or above it, less what one beneath it
 * withholds.  *why: the place that decided, if it withheld anything. */
uint64_t sbx__place_clamp(const struct mounts *m, unsigned maj, unsigned min, const char *rel,
                          uint64_t rights, const struct place **why);
/* Warns where a restricted path is also reachable, with wider rights, under
 * a name no expanded directory judged: another mount, an overlay; where the
 * hider can, a denied one is covered there in the child instead. */
void sbx__mounts_warn_aliases(const struct mounts *m, const struct tree *t,
                              const struct sbx_scope *scope, struct hider *h);

/* ---- listing.c: a directory's entries, as read and as kept ---------------- */

enum entry_kind { ENTRY_OTHER, ENTRY_GRANTED, ENTRY_NODE };

struct entry {
	ino_t ino;
	uint32_t name;     /* offset in the names */
	uint32_t proof;    /* of a grant: PROOF_NONE, PROOF_DIR, or 1 + the offset
	                    * of its file handle in the proofs */
	unsigned char type; /* DT_* */
	unsigned char kind; /* enum entry_kind, once judged */
};

struct listing {
	struct entry *v;
	size_t n, cap;
	char *names;
	size_t len, room;
	unsigned char *proofs; /* file handles, each its length, type and bytes */
	size_t plen, proom;
};

/* What will tell whether a granted inode has a name left once its granted
 * name is unlinked (reuse.c): a directory has none (it was removed); a
 * file, where its handle no longer opens, or opens a file with no link. */
enum { PROOF_NONE = 0, PROOF_DIR = UINT32_MAX };
struct proof {
	bool dir;
	/* A struct file_handle, handle_bytes 0 for none. */
	unsigned char fh[sizeof(struct file_handle) + MAX_HANDLE_SZ]
		__attribute__((aligned(__alignof__(struct file_handle))));
};
#define PROOF_FH(p) ((struct file_handle *)(void *)(p)->fh)

/* Reads every entry of the directory open as dirfd, sorted by name.
 * 0, or the errno (EMFILE included). */
int sbx__listing_read(int dirfd, struct listing *l);
/* The same, from a descriptor already open for reading, at its start. */
int sbx__listing_read_open(int fd, struct listing *l);
void sbx__listing_free(struct listing *l);
static inline const char *sbx__entry_name(const struct listing *l, const struct entry *e)
{
	return l->names + e->name;
}
const struct entry *sbx__listing_find(const struct listing *l, const char *name);
/* Appends an entry (its name copied); sbx__listing_sort() sorts again. */
int sbx__listing_add(struct listing *l, const char *name, ino_t ino, unsigned char type,
                     enum entry_kind kind);
void sbx__listing_sort(struct listing *l);
/* Keeps the proof of entry e of l (its grant's): 0, or ENOMEM (where
 * there is none to keep, an unlink of its name proves nothing). */
int sbx__listing_prove(struct listing *l, struct entry *e, const struct proof *p);
/* The file handle kept for e, or NULL. */
const struct file_handle *sbx__listing_handle(const struct listing *l, const struct entry *e,
                                              struct proof *buf);
/* Appends entry e of listing from, its name and proof copied. */
int sbx__listing_carry(struct listing *to, const struct listing *from, const struct entry *e);

struct ident;

/* ---- judge.c: one entry of an expanded directory ------------------------- */

/* Descriptors whose close is pending; and where descriptors run short
 * (EMFILE, ENFILE), what else can be let go: spare(arg) lets go of one
 * thing and says whether it did.  Room for a run's descriptors (expand.c)
 * and as many judged alone beside them, whose numbers interleave with the
 * run's: flushed together, they close in one close_range(2). */
struct closer {
	int fd[64];
	size_t n;
	bool (*spare)(void *arg);
	void *arg;
};

void sbx__closer_add(struct closer *c, int fd);
void sbx__closer_flush(struct closer *c);
/* After an EMFILE or ENFILE: true when a descriptor was let go (try
 * again), false when there is nothing left to let go. */
bool sbx__closer_spare(struct closer *c, int err);
int sbx__open_entry(struct closer *c, int dirfd, const char *name);
int sbx__statx_fd(int fd, struct statx *sx);

/* A directory whose entries are being judged. */
struct judge {
	struct sbx_ruleset *rs;
	const struct sbx_scope *scope;
	const struct mounts *mounts; /* NULL when reusing: no places at hand */
	struct closer *closer;
	const char *dir;       /* its path */
	const char *rel;       /* its path in its filesystem */
	dev_t dev;
	uint64_t mnt;          /* the mount it is seen through */
	uint64_t rights;       /* what its entries get */
	uint64_t file_rights;  /* what a rule on a non-directory may carry */
	bool trust_ino;        /* its filesystem's entries carry their inode numbers */
	bool foreign;          /* places on its filesystem come through other mounts */
};

enum verdict {
	V_GRANTED,   /* granted */
	V_OTHER,     /* nothing to grant: a symlink, or the scope allows nothing there */
	V_GONE,      /* vanished between listing and opening */
	V_FAILED,    /* could not be opened or granted: the errno says why */
	V_LINKED,    /* a file with other names, which a denial may cover */
	V_CHANGED,   /* not what was listed: renamed or mounted meanwhile */
	V_UNPLACED,  /* a mount whose layers the table names but cannot place */
	V_RECOMPILE  /* needs the places, which only a compile has */
};

/* *proof: for V_GRANTED, what later proves the inode nameless (may be
 * NULL, for no proof). */
enum verdict sbx__judge(const struct judge *j, int dirfd, const char *name,
                        const struct entry *e, int *err, struct proof *proof);
int sbx__grant(const struct judge *j, int fd, bool is_dir, uint64_t access, const char *name);

/* ---- emit.c: the walk ----------------------------------------------------- */

/* One grant could not be added: the path stays unreachable. */
enum drop_reason {
	DROP_FAILED, DROP_UNLISTED, DROP_LINKED, DROP_UNPLACED, DROP_CHANGED, DROP_ENCLOSED,
	DROP_LAYERS, DROP_SOCKET
};

struct compiler {
	const struct sbx_scope *scope;
	struct sbx_ruleset *out;
	struct hider hider;
	struct tree tree;
	struct mounts mounts;
	struct rights rights;
	struct timespec started;
	size_t dropped_cap;
	struct closer closer;
	struct ident *idents; /* see links.c */
	size_t nidents;
	bool idents_read;
	struct visit *here;  /* the directory being worked on (emit.c) */
	char path[PATH_MAX]; /* its path */
	bool transient;      /* the drop being made is of an entry of a listed
	                      * directory that vanished or changed meanwhile */
	bool mounts_moved;   /* the mount table changed while the compile ran */
	int err;             /* the compile as a whole failed */
	bool refused;        /* out says why */
	bool probe;          /* a child's namespace tried first (SBX_COMPILE_PROBE, a
	                      * snapshot): a spawn's child finds it out itself */
	/* Entries that vanished between listing and opening, said in one
	 * line by the default logger. */
	size_t vanished;
	bool vanished_elsewhere;
	char vanished_dir[PATH_MAX];
	char vanished_names[256];
	/* Entries left out for their other names (hard links), and other
	 * names of a denied file, each said in one line too: denying one
	 * program of a directory of links would say a line for each. */
	size_t linked, aliases;
	bool linked_elsewhere, aliases_mixed;
	char linked_dir[PATH_MAX];
	char linked_names[256], alias_of[PATH_MAX], alias_first[PATH_MAX], alias_names[256];
};

/* A failure that is the compile's, not one grant's: kept in cc->err. */
static inline bool sbx__fatal(struct compiler *cc, int err)
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

/* Emits every grant of the tree into the ruleset. */
int sbx__emit(struct compiler *cc);
/* sockets.c: whether the scope names unix sockets and the ABI mediates
 * connecting to them (every other grant withholds the right); the grants
 * on them, each one that cannot be added dropped. */
bool sbx__sockets_withheld(const struct sbx_scope *scope, int abi);
void sbx__sockets_add(struct compiler *cc);
/* expand.c: lists the directory of v and judges every entry that is not a
 * node; `have' is what the rules on it and above give its entries
 * already, `rights' what they get. */
void sbx__expand(struct compiler *cc, struct visit *v, uint64_t have, uint64_t rights);
/* links.c: the configured path that is the file (dev, ino), or NULL. */
const char *sbx__links_configured(struct compiler *cc, dev_t dev, ino_t ino);
void sbx__drop(struct compiler *cc, const char *name, int err, enum drop_reason why);
/* Keeps path, where a path of the scope the tree left out led (said
 * there), among what was dropped. */
void sbx__drop_left_out(struct compiler *cc, const char *path);
/* The default logger's one line for the entries that vanished, and one
 * for those left out for their hard links. */
void sbx__drop_summary(struct compiler *cc);
/* A denied file's other name (a hard link) in the directory being
 * compiled: an event for loggers, counted for the one line. */
void sbx__drop_alias(struct compiler *cc, const char *same, const char *alias);

/* A directory a compile visited, kept so that a later spawn can tell
 * whether compiling again would give the same: what it was, and its
 * entries (all of them, if it was expanded; else the tree's nodes in it). */
struct sbx_dir {
	char *path;
	char *because;    /* a restricted path beneath it, if it was expanded */
	dev_t dev;
	ino_t ino;
	uint64_t mnt;
	struct timespec mtime, ctime;
	uint64_t rights;  /* what its entries get, if it was expanded */
	bool expanded;
	bool racy;        /* its times prove nothing: list it again at every reuse */
	bool foreign;     /* its entries needed the places */
	bool trust_ino;
	bool unsettled;   /* entries vanished or changed while it was judged, and
	                   * it has not been listed again since */
	int wd;           /* its watch (notify.c), or -1 */
	long fs_type;
	struct listing kept;
};

/* Whether directory d is still as the compile of rs read it (0), having
 * granted what appeared in it meanwhile; else ESTALE.  Under rs's lock. */
int sbx__dir_current(struct sbx_ruleset *rs, struct sbx_dir *d, const struct sbx_scope *scope);

/* Whether the stamp sx of a directory on a filesystem of type fs_type,
 * taken after `since', proves that it did not change before a later equal
 * stamp. */
bool sbx__stamp_racy(const struct statx *sx, long fs_type, const struct timespec *since);
bool sbx__fs_trusts_ino(long fs_type);
/* Whether every change of its directories goes through this kernel, so
 * that a watch on one reports it. */
bool sbx__fs_notifies(long fs_type);

/* ---- notify.c: what left a listed directory -------------------------------- */

enum { NOTIFY_UNKNOWN, NOTIFY_UNLINKED, NOTIFY_MOVED };

/* The ruleset's inotify descriptor, made once (0; ENOMEM only where it
 * could not be kept: a failure to make one is no error, only no evidence). */
int sbx__notify_open(struct sbx_ruleset *rs);
/* A watch on the directory open as dirfd, before it is listed: its
 * descriptor, or -1 (no evidence for it), or -ENOMEM. */
int sbx__notify_watch(struct sbx_ruleset *rs, int dirfd, long fs_type);
/* Reads what the kernel reported into the logs of the watches; trusted:
 * the descriptor is known to be ours (made by this compile, or checked
 * by a drain just before).  false where the logs say nothing now. */
bool sbx__notify_drain(struct sbx_ruleset *rs, bool trusted);
/* Before a listing of watch wd's directory, drained: its log starts
 * again, for what it held was before the listing. */
void sbx__notify_restart(struct sbx_ruleset *rs, int wd);
/* After the listing, drained again: what was reported meanwhile is in
 * doubt. */
void sbx__notify_doubt(struct sbx_ruleset *rs, int wd);
/* Whether watch wd's log says all that changed in its directory. */
bool sbx__notify_usable(const struct sbx_ruleset *rs, int wd);
/* The names reported since the listing. */
size_t sbx__notify_count(const struct sbx_ruleset *rs, int wd);
const char *sbx__notify_name(const struct sbx_ruleset *rs, int wd, size_t i);
/* How name first left watch wd's directory since its listing (doubt, or
 * no word: NOTIFY_UNKNOWN). */
int sbx__notify_gone(const struct sbx_ruleset *rs, int wd, const char *name);
void sbx__notify_release(struct sbx_ruleset *rs);

/* ---- controls.c ----------------------------------------------------------- */

/* Decides which controls this kernel enforces (out->abi 0: no Landlock) and
 * builds the seccomp filter: 0, -1 when the scope is refused (out says
 * why), or an error number. */
int sbx__controls_settle(const struct sbx_scope *scope, struct sbx_ruleset *out);
uint64_t sbx__controls_scoped(int enforced);
void sbx__controls_add_ports(struct compiler *cc, const struct sbx_scope *scope);

#endif /* SBX_COMPILER_H */
