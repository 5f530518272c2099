/* SPDX-License-Identifier: MIT */
/*
 * A namespace kept with a ruleset.  A child that makes a mount namespace of
 * its own pays for it twice: the copy of every mount and the covers at its
 * start, and at the command's end the kernel's unmaking of them all, which
 * waits for a grace period (most of a hidden spawn's cost).  So a ruleset
 * that serves a second spawn has one namespace made, by a keeper: a child
 * sharing the parent's memory and descriptor table, which makes the
 * namespace as a spawn's child would (cover.c), finds the mount at each
 * path of its covers, binds and pins, opens the namespace, its user
 * namespace and its root, and exits.  Later children enter it
 * (sbx__hide_join), and find each of those mounts where it was made before
 * they run anything: one that is not is a namespace not to be kept (the
 * spawn starts again and makes its own).
 *
 * What the parent checks before a kept ruleset serves again (the
 * denials' inodes, the mount table: hidekept.c, ruleset.c) covers what a
 * kept namespace would miss: a mount the caller makes or removes since
 * makes the ruleset stale, and a new compile keeps a new namespace.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/child.h"
#include "lib/confine.h"

#define KEEPER_STACK (64 * 1024)

enum { NS_NONE, NS_KEPT, NS_NEVER };

struct keeping {
	const struct hiding *h;
	struct keptns *k;
	int err;
	const char *call;
};

/* The keeper: the namespace as a spawn's child makes it, then what it
 * found, in memory and descriptors it shares with the parent. */
CHILD static int keeper(void *arg)
{
	struct keeping *p = arg;
	struct keptns *k = p->k;
	bool user = false;
	long r = 0;

	p->err = sbx__hide_enter(&user, &p->call);
	if (!p->err)
		p->err = sbx__hide_mount(p->h, user, false, &p->call);
	for (size_t i = 0; !p->err && i < p->h->ncovers + p->h->nbinds + p->h->npins; i++) {
		const char *path = i < p->h->ncovers ? p->h->covers[i].path
		                   : i < p->h->ncovers + p->h->nbinds
		                           ? p->h->binds[i - p->h->ncovers].path
		                           : p->h->pins[i - p->h->ncovers - p->h->nbinds];
		struct statx sx;

		p->call = "statx";
		if ((r = mount_of(AT_FDCWD, path, &k->ids[i], &sx)) < 0)
			p->err = (int)-r;
	}
	p->call = "open";
	if (!p->err && (r = sys(SYS_openat, AT_FDCWD, (long)"/proc/self/ns/mnt",
	                        O_RDONLY | O_CLOEXEC, 0)) >= 0)
		k->mnt = (int)r;
	if (!p->err && r >= 0 && user &&
	    (r = sys(SYS_openat, AT_FDCWD, (long)"/proc/self/ns/user", O_RDONLY | O_CLOEXEC, 0)) >= 0)
		k->user = (int)r;
	if (!p->err && r >= 0 &&
	    (r = sys(SYS_openat, AT_FDCWD, (long)"/", O_PATH | O_DIRECTORY | O_CLOEXEC, 0)) >= 0)
		k->root = (int)r;
	if (!p->err && r < 0)
		p->err = (int)-r;
	sys(SYS_exit, 0, 0, 0, 0);
	return 0;
}

/* Its descriptors: those kept (fds.c) closed there, the others here. */
static void unmake(struct keptns *k, unsigned kept)
{
	int *fd[] = { &k->mnt, &k->user, &k->root };
	atomic_bool *lost[] = { &k->mnt_lost, &k->user_lost, &k->root_lost };

	for (int i = 0; i < 3; i++)
		if (*fd[i] >= 0 && (kept & (1U << i)))
			sbx__fds_close(*fd[i], lost[i]);
		else if (*fd[i] >= 0)
			close(*fd[i]);
	free(k);
}

/* The keeper run: 0 with the namespace's descriptors kept (fds.c), or the
 * errno with *kept saying which were. */
static int make(const struct sbx_ruleset *rs, struct keptns *k, unsigned *kept)
{
	struct hiding h = { rs->covers, rs->ncovers, (const char *const *)rs->pins, rs->npins,
	                    rs->binds, rs->nbinds, NULL };
	struct keeping p = { .h = &h, .k = k };
	int *fd[] = { &k->mnt, &k->user, &k->root };
	atomic_bool *lost[] = { &k->mnt_lost, &k->user_lost, &k->root_lost };
	const char *call;
	sigset_t all, old;
	int err, status = 0;

	*kept = 0;
	/* No handler of the caller's runs while the lock is held (a spawn of
	 * its would wait for it); the table stays whole while the keeper
	 * opens in it (fds.c). */
	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &old, KERNEL_SIGSET_SIZE);
	sbx__fds_begin();
	err = sbx__ask_child(keeper, &p, CLONE_FILES, KEEPER_STACK, &status, &call);
	if (!err)
		err = p.err;
	/* A keeper that did not end by itself (killed) left nothing whole. */
	if (!err && (!WIFEXITED(status) || k->mnt < 0 || k->root < 0))
		err = ECHILD;
	for (int i = 0; !err && i < 3; i++)
		if (*fd[i] >= 0 && !(err = sbx__fds_keep(fd[i], false, lost[i])))
			*kept |= 1U << i;
	/* What is not kept is closed under the lock: no spawn's child copies
	 * it meanwhile where a file action would find it. */
	for (int i = 0; i < 3; i++)
		if (*fd[i] >= 0 && !(*kept & (1U << i))) {
			close(*fd[i]);
			*fd[i] = -1;
		}
	sbx__fds_end();
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, KERNEL_SIGSET_SIZE);
	return err;
}

/* A keeper run for rs (its state NS_NEVER should it fail: not tried
 * again), the namespace put before those kept before. */
static int keep(struct sbx_ruleset *rs)
{
	size_t n = rs->ncovers + rs->nbinds + rs->npins;
	struct keptns *k = calloc(1, sizeof(*k) + n * sizeof(k->ids[0]));
	struct statx sx;
	unsigned kept;

	if (!k)
		return ENOMEM;
	k->mnt = k->user = k->root = -1;
	rs->ns_state = NS_NEVER;
	/* The keeper writes what it found in our memory: not where a clone
	 * is a fork (an emulator). */
	if (!sbx__vm_clone_shares() || mount_of(AT_FDCWD, "/", &k->root_mnt, &sx) < 0) {
		free(k);
		return 0;
	}
	k->root_ino = sx.stx_ino;
	k->root_major = sx.stx_dev_major;
	k->root_minor = sx.stx_dev_minor;
	if (make(rs, k, &kept)) {
		unmake(k, kept);
		return 0;
	}
	k->older = rs->ns;
	rs->ns = k;
	rs->ns_state = NS_KEPT;
	return 0;
}

/* A namespace kept is never unmade while its ruleset lives: another
 * thread's child may be entering it.  One not to be used again is left
 * behind the current one (rs->ns: the newest; usable while NS_KEPT). */
int sbx__hide_kept(struct sbx_ruleset *rs, const struct keptns **out)
{
	int err = 0;

	*out = NULL;
	/* A ruleset made for one spawn (or a scope's first) keeps nothing;
	 * one current is of the caller's namespace (ruleset.c). */
	if (!rs->ncovers || rs->once || atomic_fetch_add(&rs->spawns, 1) == 0)
		return 0;
	pthread_mutex_lock(&rs->check_lock);
	/* A caller in a chroot since: the kept namespace's root is not its
	 * own, and a new keeper takes the new one (the old one stays, for a
	 * child of another thread may be entering it, until the ruleset
	 * ends). */
	if (rs->ns_state == NS_KEPT && !kept_root(rs->ns))
		rs->ns_state = NS_NONE;
	/* One of its numbers the caller closed (and may have reused): made
	 * again. */
	if (rs->ns_state == NS_KEPT &&
	    (atomic_load(&rs->ns->mnt_lost) || atomic_load(&rs->ns->user_lost) ||
	     atomic_load(&rs->ns->root_lost)))
		rs->ns_state = NS_NONE;
	if (rs->ns_state == NS_NONE)
		err = keep(rs);
	if (rs->ns_state == NS_KEPT)
		*out = rs->ns;
	pthread_mutex_unlock(&rs->check_lock);
	return err;
}

void sbx__hide_unkeep(struct sbx_ruleset *rs, bool released)
{
	struct keptns *k, *older;

	if (!released) {
		pthread_mutex_lock(&rs->check_lock);
		rs->ns_state = NS_NEVER;
		pthread_mutex_unlock(&rs->check_lock);
		return;
	}
	/* A namespace's last descriptor closed unmakes it (a grace period). */
	for (k = rs->ns; k; k = older) {
		older = k->older;
		unmake(k, 7);
	}
	rs->ns = NULL;
}
