/* SPDX-License-Identifier: MIT */
/*
 * The descriptors the library keeps open between calls: a compiled
 * ruleset, and the mount table it watches.  Known here so that
 *
 * - no file action of a spawn sees one: the child closes those whose
 *   numbers an action could name before it runs any (a caller who thinks
 *   descriptor 3 free must find it free in the child);
 * - one whose number a caller closed and reused is never taken for ours:
 *   each is checked before it is used or closed, and a descriptor the
 *   library makes with a number it already holds tells that the old one
 *   was lost.
 *
 * A spawn lists them under the lock, and its child, whose descriptor table
 * is the parent's as it was at the clone, checks first thing that none was
 * made or closed since (the generation moved): if one was, it exits at
 * once and the spawn starts it again.  No lock is held across the clone: a
 * child that blocks in a file action (opening a FIFO) holds up nothing but
 * its own spawn.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "lib/internal.h"
#include "lib/confine.h"

SBX__WITH_FORK_HANDLERS;

struct kept {
	int fd;
	bool ruleset;      /* a Landlock ruleset: every one shares one inode */
	dev_t dev;
	ino_t ino;
	atomic_bool *lost; /* set when the number turns out to be someone else's */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Moves at each change of the kept set, twice: odd while one is under way. */
static atomic_uint generation;
static struct kept *kept;
static size_t nkept, kept_cap;

/* Whether fd is still the descriptor k says it is. */
static bool still(const struct kept *k)
{
	struct stat st;

	if (k->ruleset)
		return sbx__is_ruleset(k->fd);
	return fstat(k->fd, &st) == 0 && st.st_dev == k->dev && st.st_ino == k->ino;
}

void sbx__fds_begin(void)
{
	pthread_mutex_lock(&lock);
	atomic_fetch_add(&generation, 1);
}

void sbx__fds_end(void)
{
	atomic_fetch_add(&generation, 1);
	pthread_mutex_unlock(&lock);
}

/* Where kept descriptors go: the top of the numbers a caller allocates
 * from (open() takes the lowest free one, and after a spawn must return
 * what it would after posix_spawn, whatever holes the caller's table has),
 * the highest first, under its limit and within the first 1024 (one
 * descriptor a million up would grow the caller's table to match, which
 * every fork and clone of the caller then copies): the 64 numbers below
 * min(limit, 1024).  None where the limit is under 128. */
static int keep_top(void)
{
	struct rlimit rl;
	rlim_t top = 1024;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < top)
		top = rl.rlim_cur;
	return top >= 128 ? (int)top : 0;
}

static bool held(int fd)
{
	for (size_t i = 0; i < nkept; i++)
		if (kept[i].fd == fd)
			return true;
	return false;
}

/* *fd moved to the highest free number of the room; false, and *fd left
 * as it is, where the room is full (the caller's own, or ours). */
static bool move_up(int *fd)
{
	int top = keep_top(), high;

	for (int n = top - 1; top && n >= top - 64; n--) {
		if (n == *fd)
			return true;
		if (held(n) || (high = fcntl(*fd, F_DUPFD_CLOEXEC, n)) < 0)
			continue;
		if (high == n) {
			close(*fd);
			*fd = high;
			return true;
		}
		close(high); /* n is taken: the next free one lies above it */
	}
	return false;
}

int sbx__fds_keep(int *fdp, bool ruleset, atomic_bool *lost)
{
	struct kept *grown, k = { .ruleset = ruleset, .lost = lost };
	struct stat st;
	int fd;

	if (*fdp < 0)
		return 0;
	/* A descriptor kept low would take a number the caller's next open()
	 * returns after posix_spawn: nothing is kept there. */
	if (!move_up(fdp))
		return EMFILE;
	k.fd = fd = *fdp;
	if (!ruleset && fstat(fd, &st) == 0) {
		k.dev = st.st_dev;
		k.ino = st.st_ino;
	}
	/* The number was ours: whoever held it lost it to a close we did not
	 * make, and must neither use nor close it. */
	for (size_t i = 0; i < nkept; i++)
		if (kept[i].fd == fd) {
			atomic_store(kept[i].lost, true);
			kept[i] = kept[--nkept];
			break;
		}
	if (!(grown = sbx__grow(kept, &kept_cap, nkept + 1, sizeof(*kept))))
		return ENOMEM;
	kept = grown;
	kept[nkept++] = k;
	return 0;
}

/* The index of the kept entry for fd, or nkept; under the lock. */
static size_t find(int fd, const atomic_bool *lost)
{
	size_t i = 0;

	while (i < nkept && !(kept[i].fd == fd && kept[i].lost == lost))
		i++;
	return i;
}

void sbx__fds_close(int fd, atomic_bool *lost)
{
	size_t i;

	if (fd < 0)
		return;
	sbx__fds_begin();
	if ((i = find(fd, lost)) < nkept) {
		if (!atomic_load(lost) && still(&kept[i]))
			close(fd);
		kept[i] = kept[--nkept];
	}
	sbx__fds_end();
}

void sbx__fds_forget(int fd, atomic_bool *lost)
{
	size_t i = find(fd, lost);

	if (i < nkept)
		kept[i] = kept[--nkept];
}

int sbx__fds_hide(int floor, int **out, size_t *n, unsigned *gen)
{
	size_t room = 0;
	int err = 0;

	pthread_mutex_lock(&lock);
	*out = NULL;
	*n = 0;
	*gen = atomic_load(&generation);
	for (size_t i = 0; i < nkept; i++)
		room += kept[i].fd < floor;
	if (room && !(*out = malloc(room * sizeof(**out))))
		err = ENOMEM;
	for (size_t i = 0; room && !err && i < nkept; i++) {
		if (kept[i].fd >= floor || atomic_load(kept[i].lost))
			continue;
		if (still(&kept[i]))
			(*out)[(*n)++] = kept[i].fd;
		else
			atomic_store(kept[i].lost, true);
	}
	pthread_mutex_unlock(&lock);
	return err;
}

/* The kept set is whole at a fork (never half changed, the generation
 * even), and the child's table holds the same descriptors. */
void sbx__fds_atfork(enum sbx_fork_phase phase)
{
	if (phase == SBX_FORK_PREPARE)
		pthread_mutex_lock(&lock);
	else
		pthread_mutex_unlock(&lock);
}

CHILD bool sbx__fds_changed(unsigned gen)
{
	return atomic_load(&generation) != gen;
}
