/* SPDX-License-Identifier: MIT */
/* What confines a process (confine.c), the denials its namespace covers
 * (cover.c), and the primitives of code that runs between clone and exec:
 * shared by the spawn engine's child (child.c) and sbx_execve (exec.c). */
#ifndef SBX_CONFINE_H
#define SBX_CONFINE_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "compat/statx.h"
#include "lib/internal.h"

/* What runs in the child between clone and exec, in a section of its own:
 * tests/child-calls.sh reads what that section calls, whichever object it
 * lies in, and holds it to lock-free, allocation-free calls.  Its exits run
 * on the child's own stack, which an address sanitizer (when the library
 * is built with one) cannot tell from an overflow. */
#if defined(__SANITIZE_ADDRESS__)
#define CHILD __attribute__((section(".text.sbx_child"), no_sanitize_address))
#else
#define CHILD __attribute__((section(".text.sbx_child")))
#endif

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* A raw system call: the result, or -errno. */
CHILD static inline long sys(long nr, long a, long b, long c, long d)
{
	long r = syscall(nr, a, b, c, d);

	return r == -1 ? -errno : r;
}

CHILD static inline long sys5(long nr, long a, long b, long c, long d, long e)
{
	long r = syscall(nr, a, b, c, d, e);

	return r == -1 ? -errno : r;
}

/* statx(2) of path from dirfd, its type, inode and birth, never waiting on a
 * network filesystem's server. */
CHILD static inline long statx_of(long dirfd, const char *path, int flags, struct statx *sx)
{
	return sys5(SYS_statx, dirfd, (long)path, flags | AT_STATX_DONT_SYNC,
	            STATX_TYPE | STATX_INO | STATX_BTIME, (long)sx);
}

/* n in decimal at buf, unterminated: its length. */
CHILD static inline size_t put_uint(char *buf, unsigned long n)
{
	char digits[24];
	size_t len = 0, i = 0;

	do
		digits[i++] = (char)('0' + n % 10);
	while ((n /= 10) && i < sizeof(digits));
	while (i)
		buf[len++] = digits[--i];
	return len;
}

/* The denials a child hides (hide.c chooses them, cover.c covers them):
 * each covered, where it is still the inode the compile found, by an
 * empty read-only mount in a mount namespace of the child's own; and the
 * directories above them that are no mount point yet made one (pins), so
 * that none can be renamed, highest first; what the scope re-admits
 * beneath a cover bound back into it (binds, sorted). */
/* Whether a is b or one of its ancestors (both absolute, canonical). */
CHILD static inline bool covers_path(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (n == 1)
		return true;
	return !strncmp(a, b, n) && (b[n] == '/' || b[n] == '\0');
}

/* Whether sx is the inode c was found as (its device and number). */
CHILD static inline bool is_cover(const struct cover *c, const struct statx *sx)
{
	return sx->stx_ino == c->ino && sx->stx_dev_major == c->dev_major &&
	       sx->stx_dev_minor == c->dev_minor;
}

/* Whether a and b are one inode. */
CHILD static inline bool same_inode(const struct statx *a, const struct statx *b)
{
	return a->stx_ino == b->stx_ino && a->stx_dev_major == b->stx_dev_major &&
	       a->stx_dev_minor == b->stx_dev_minor;
}

/* Whether path lies in one of the n paths of binds (or is one). */
CHILD static inline bool in_binds(const struct cover *binds, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (covers_path(binds[i].path, path))
			return true;
	return false;
}

/* Whether a descriptor whose link reads link (len bytes, no path) holds
 * others the command can take out, opened before its namespace: an
 * io_uring's registered files (IORING_OP_FIXED_FD_INSTALL), a fanotify
 * group's events.  A pipe or a socket is not taken for one (a socket's
 * queue is documented: sbx_posix_spawn(3)). */
CHILD static inline bool carries_fds(const char *link, size_t len)
{
	static const char ring[] = "anon_inode:[io_uring]", group[] = "anon_inode:[fanotify]";

	return (len == sizeof(ring) - 1 && !strncmp(link, ring, len)) ||
	       (len == sizeof(group) - 1 && !strncmp(link, group, len));
}

/* At most this many re-admitted paths are bound back into the covers of
 * one ruleset: the child holds a descriptor of each while it covers. */
#define SBX_BINDS_MAX 16

struct hiding {
	const struct cover *covers; /* NULL: the child makes no namespace */
	size_t ncovers;
	const char *const *pins;
	size_t npins;
	const struct cover *binds;
	size_t nbinds;
	const struct keptns *kept; /* made before: the child enters it; NULL */
};

/* A namespace with the covers, binds and pins made, kept with its ruleset
 * (hidens.c): a spawn's child enters it instead of making its own, which
 * would cost the making and, at the command's end, the unmaking.  The
 * namespace, its user namespace (-1 where the caller is root), the
 * caller's root there, and the mount found at each path of the covers,
 * binds and pins, in that order. */
struct keptns {
	int mnt, user, root;
	uint64_t root_ino, root_mnt; /* the caller's root it was made under */
	unsigned root_major, root_minor;
	struct keptns *older; /* kept before, not to be entered again */
	atomic_bool mnt_lost, user_lost, root_lost;
	uint64_t ids[];
};
#define SBX_STATX_MNT_ID_UNIQUE 0x4000U

/* The namespace kept with rs for a spawn's child to enter (hidens.c),
 * made at its second spawn (0, or ENOMEM); NULL: the child makes its own.  Unkept: not
 * to be entered again (a child could not enter it, or found it changed);
 * released: every one kept closed, at the ruleset's end. */
int sbx__hide_kept(struct sbx_ruleset *rs, const struct keptns **kept);
void sbx__hide_unkeep(struct sbx_ruleset *rs, bool released);

/* The mount at path from fd (AT_FDCWD; path "": fd's own file), the unique
 * id where the kernel has one (Linux 6.8), and its inode in *sx. */
CHILD static inline long mount_of(long fd, const char *path, uint64_t *id, struct statx *sx)
{
	long r = sys5(SYS_statx, fd, (long)path,
	              (*path ? AT_SYMLINK_NOFOLLOW : AT_EMPTY_PATH) | AT_STATX_DONT_SYNC,
	              STATX_INO | STATX_MNT_ID | SBX_STATX_MNT_ID_UNIQUE, (long)sx);

	*id = sx->stx_mnt_id;
	return r;
}

/* Whether the calling process's root is the one k was made under. */
CHILD static inline bool kept_root(const struct keptns *k)
{
	struct statx sx;
	uint64_t id;

	return mount_of(AT_FDCWD, "/", &id, &sx) == 0 && id == k->root_mnt && sx.stx_ino == k->root_ino &&
	       sx.stx_dev_major == k->root_major && sx.stx_dev_minor == k->root_minor;
}

/* What confines a process, in the order it is applied (confine.c): the
 * control group, the resource limits, no new privileges, the ids, the capabilities, the
 * Landlock domain, the seccomp filter.  Everything is optional; nothing at all leaves the process as it
 * is. */
struct confinement {
	int cgroup_fd;                    /* the cgroup v2 directory to join first; -1: none */
	const struct sbx_rlimit64 *rlimits; /* the scope's, by resource */
	unsigned rlimits_set;             /* which of them to set, first of all */
	int ruleset_fd;                   /* -1: none */
	unsigned restrict_flags;          /* landlock_restrict_self()'s */
	const struct sock_fprog *filter;  /* NULL: none */
	struct hiding hiding;             /* covers: NULL for none */
	bool set_ids;
	uid_t uid;
	gid_t gid;
	bool drop_caps;
	pid_t die_with;                   /* SIGKILL when it ends: the parent, by pid; 0: none */
};

/* Before the file actions: the namespace, a user namespace too (mapping
 * the caller's own ids) where the child lacks CAP_SYS_ADMIN, every mount
 * in it made private.  0, or the errno with *call naming the step: then
 * the child is as it was but for its namespaces, and nothing is hidden. */
int sbx__hide_enter(bool *user, const char **call);
/* The child's effective capabilities made its permitted ones (on), or
 * emptied: a user namespace's serve the mounts, never the caller's file
 * actions (namespace.c). */
int sbx__caps_effective(bool on, const char **call);
/* The same, where h->kept is: that namespace entered (its user namespace
 * first, where it has one), the root and the working directory the child
 * had made again in it, and each mount of h found where it was made.
 * ESTALE: one is not; ENOENT: no path leads to the working directory, or
 * it leads to another. */
int sbx__hide_join(const struct hiding *h, bool *user, const char **call);
/* The covers, binds and pins made in the namespace just entered (the
 * first part of sbx__hide_cover; the keeper of a namespace, hidens.c).
 * own: in the caller's own process (sbx_execve), whose resource limits
 * its other threads share: none is raised for want of a descriptor. */
int sbx__hide_mount(const struct hiding *h, bool user, bool own, const char **call);
/* What a spawn's parent saw its child would inherit (holds.c): each
 * descriptor left open past exec that it looked at, by its inode, in
 * rising order; whole: every one such is here (else the child looks at
 * its own table). */
#define SBX_SEEN_MAX 32
struct seen {
	bool whole;
	unsigned n;
	struct seen_fd {
		int fd;
		unsigned dev_major, dev_minor;
		uint64_t ino;
		bool born;          /* the filesystem keeps a birth time: */
		int64_t born_sec;   /* this one */
		uint32_t born_nsec;
	} v[SBX_SEEN_MAX];
};

/* In the parent, just before its clone: whether a descriptor the child
 * would inherit and keep open past exec (but ours, and those the file
 * actions close or put another in the place of) reaches a hidden denial
 * past its cover: EXDEV, with *fd; else 0, and what it saw in *seen. */
int sbx__hide_look(const struct hiding *h, const sbx_file_actions_t *fa, const int *ours,
                   size_t nours, struct seen *seen, long *fd);
/* The same, in the child, before the file actions, in the namespace:
 * where its table is the one the parent saw (seen), each other number is
 * made close-on-exec and nothing more is looked at; else the child looks
 * at its own table.  Nothing is done yet that a start with every denial
 * expanded would do twice. */
int sbx__hide_inherited(const struct hiding *h, const sbx_file_actions_t *fa, const int *ours,
                        size_t nours, const struct seen *seen, long *fd);
/* After the file actions: the covers and pins, then the check that what
 * the child holds from before crosses a cover on its way to each denial:
 * its working directory, and every descriptor it keeps open but ours
 * (every: the caller's own process, sbx_execve, which is also never given
 * a higher limit of descriptors for its covers), or those the file actions
 * made (the inherited ones were looked at before them).  ESTALE: a denial is not what the compile found; EXDEV:
 * something held reaches a denial past its cover. */
int sbx__hide_cover(const struct hiding *h, bool user, const int *ours, size_t nours,
                    const sbx_file_actions_t *fa, bool every, const char **call);
/* Its check (holds.c), once the covers are made: the working directory,
 * and the descriptors every or the file actions made, as above. */
int sbx__hide_held(const struct hiding *h, const int *ours, size_t nours,
                   const sbx_file_actions_t *fa, bool every, const char **call);

/* Joins the cgroup v2 directory dirfd (confine.c): 0, or the errno with
 * *call naming the step. */
int sbx__join_cgroup(int dirfd, const char **call);
/* What the scope and its compiled ruleset ask of a process (confine.c):
 * its covers too, but for a ruleset that is refused. */
struct confinement sbx__confinement(const struct sbx_scope *scope, const struct sbx_ruleset *rs);
/* SIGKILL to the calling thread when the thread of parent that made it
 * ends (PR_SET_PDEATHSIG): 0, or the errno (ESRCH: parent has ended
 * already) with *call naming the step. */
int sbx__die_with(pid_t parent, const char **call);
/* Applies cf to the calling thread (confine.c), with raw system calls only (it runs in
 * the spawn engine's child, and in sbx_execve's caller): 0, or the errno
 * with *call naming the step that failed. */
int sbx__confine(const struct confinement *cf, const char **call);

#endif /* SBX_CONFINE_H */
