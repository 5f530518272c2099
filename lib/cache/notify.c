/* SPDX-License-Identifier: MIT */
/*
 * Notifications: the kernel's word on what left a listed directory.  A
 * grant on an entry of an expanded directory holds on its inode wherever
 * the inode goes: when a granted name vanishes, a reuse cannot tell an
 * inode unlinked (harmless) from one renamed beneath a denial, and must
 * compile again.  In a busy directory that is every spawn.  So each
 * expanded directory is watched (inotify) from before it is listed, for
 * the names unlinked and renamed away there; what the watch reports after
 * a listing is the evidence a later listing is judged with:
 *
 * - of a granted name gone, the first removal the kernel reported after
 *   the listing is that inode's: an unlink, and the name is simply gone
 *   (the inode, too, unless it has a name left elsewhere: reuse.c asks
 *   its handle); a rename away, or nothing reported (yet), and a new
 *   compile decides;
 * - events reported while a listing was made are not evidence (they may
 *   be of an inode before the one listed, or after it): such a name is
 *   "in doubt", looked at again, but a granted one gone means a compile;
 *   nor is anything after the queue overflowed, or from a descriptor that
 *   may not be ours;
 * - the names reported are the only ones that changed: a reuse whose
 *   directory's times moved looks at those names alone, not the whole
 *   listing (reuse.c).
 *
 * A listing (or a look at the names) is made between two reads of the
 * queue: what the first read holds for that directory was before it, and
 * is dropped; what the second holds was while it was made, and is in
 * doubt; what comes after is evidence.
 *
 * Watches follow inodes, not paths, and report changes made through any
 * mount of the directory.  They are trusted only on the filesystems whose
 * times are (stamps.c): there every change goes through this kernel.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/compiler.h"

/* Names a log holds at most: past that, it says nothing. */
#define LOG_MAX 4096

/* What the watch of one directory reported since its last listing. */
struct notify_log {
	struct report {
		char *name;
		int how;    /* the name's first removal: NOTIFY_UNLINKED, _MOVED, or
		             * NOTIFY_UNKNOWN (it only came, so far) */
		bool doubt; /* reported while a listing was made */
	} *v;
	size_t n, cap;
	bool full; /* it says nothing: past LOG_MAX, or no longer watched */
};

#define WATCHED (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | \
	         IN_MOVE_SELF | IN_ONLYDIR)

int sbx__notify_open(struct sbx_ruleset *rs)
{
	int fd, err = 0;

	if (rs->notify_fd >= 0 || rs->notify_failed || rs->unwatched)
		return 0; /* for one exec, or a scope's first compile (ruleset.c) */
	sbx__fds_begin();
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0 || (err = sbx__fds_keep(&fd, false, &rs->notify_lost))) {
		if (fd >= 0)
			close(fd);
		rs->notify_failed = true; /* reuse judges as it would without */
	} else {
		rs->notify_fd = fd;
	}
	sbx__fds_end();
	return err == ENOMEM ? ENOMEM : 0;
}

int sbx__notify_watch(struct sbx_ruleset *rs, int dirfd, long fs_type)
{
	char magic[64];
	int wd;

	if (rs->notify_fd < 0 || !sbx__fs_notifies(fs_type))
		return -1;
	/* Through the descriptor: the very directory that will be listed. */
	snprintf(magic, sizeof(magic), "/proc/thread-self/fd/%d", dirfd);
	if ((wd = inotify_add_watch(rs->notify_fd, magic, WATCHED)) <= 0)
		return -1;
	if ((size_t)wd >= rs->nlogs) {
		size_t cap = rs->nlogs;
		struct notify_log *grown = sbx__grow(rs->logs, &cap, (size_t)wd + 1, sizeof(*grown));

		if (!grown) {
			inotify_rm_watch(rs->notify_fd, wd);
			return -ENOMEM;
		}
		memset(grown + rs->nlogs, 0, (cap - rs->nlogs) * sizeof(*grown));
		rs->logs = grown;
		rs->nlogs = cap;
	}
	return wd;
}

static struct notify_log *log_of(const struct sbx_ruleset *rs, int wd)
{
	return wd > 0 && (size_t)wd < rs->nlogs ? &rs->logs[wd] : NULL;
}

static void log_add(struct notify_log *l, const char *name, int how)
{
	struct report *grown;
	char *copy;

	if (l->full)
		return;
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name)) {
			/* The first removal is the listed inode's; later ones are
			 * of others that took the name. */
			if (l->v[i].how == NOTIFY_UNKNOWN)
				l->v[i].how = how;
			return;
		}
	/* The grown array is stored before the copy can fail: realloc may
	 * have freed the old one, and the capacity already counts the new.
	 * A name not recorded leaves the log saying nothing (a reuse lists
	 * the directory again). */
	if (l->n == LOG_MAX || !(grown = sbx__grow(l->v, &l->cap, l->n + 1, sizeof(*grown)))) {
		l->full = true;
		return;
	}
	l->v = grown;
	if (!(copy = strdup(name))) {
		l->full = true;
		return;
	}
	l->v[l->n++] = (struct report){ copy, how, false };
}

/* Whether the descriptor is still the inotify instance that watches the
 * first directory (a caller may close our number and open its own): the
 * kernel's account of its watches, in fdinfo. */
static bool ours(const struct sbx_ruleset *rs)
{
	char path[64], buf[4096], want[96];
	const struct sbx_dir *first = NULL;
	ssize_t n;
	int fd;

	for (size_t i = 0; i < rs->ndirs && !first; i++)
		if (rs->dirs[i].wd > 0)
			first = &rs->dirs[i];
	if (!first || atomic_load(&rs->notify_lost))
		return false;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", rs->notify_fd);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	snprintf(want, sizeof(want), "inotify wd:%x ino:%lx sdev:%x ", (unsigned)first->wd,
	         (unsigned long)first->ino, major(first->dev) << 20 | minor(first->dev));
	return strstr(buf, want) != NULL;
}

bool sbx__notify_drain(struct sbx_ruleset *rs, bool trusted)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t got;

	if (rs->notify_fd < 0 || rs->notify_void)
		return false;
	/* A compile made it moments ago; a reuse asks the kernel, once per
	 * check of the ruleset (ruleset.c clears notify_checked). */
	if (!trusted && !rs->notify_checked) {
		if (!ours(rs)) {
			rs->notify_void = true;
			return false;
		}
		rs->notify_checked = true;
	}
	while ((got = read(rs->notify_fd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < got;) {
			const struct inotify_event *ev = (const struct inotify_event *)(buf + off);
			struct notify_log *l = log_of(rs, ev->wd);

			off += (ssize_t)(sizeof(*ev) + ev->len);
			if (ev->mask & IN_Q_OVERFLOW) {
				rs->notify_void = true;
				return false;
			}
			if (!l)
				continue;
			if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT))
				l->full = true; /* the directory itself went */
			else if (ev->len)
				log_add(l, ev->name, ev->mask & IN_DELETE       ? NOTIFY_UNLINKED
				                     : ev->mask & IN_MOVED_FROM ? NOTIFY_MOVED
				                                                : NOTIFY_UNKNOWN);
		}
	if (got < 0 && errno != EAGAIN) {
		rs->notify_void = true;
		return false;
	}
	return true;
}

void sbx__notify_restart(struct sbx_ruleset *rs, int wd)
{
	struct notify_log *l = log_of(rs, wd);

	if (!l || l->full)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	l->n = 0;
}

void sbx__notify_doubt(struct sbx_ruleset *rs, int wd)
{
	struct notify_log *l = log_of(rs, wd);

	for (size_t i = 0; l && i < l->n; i++)
		l->v[i].doubt = true;
}

bool sbx__notify_usable(const struct sbx_ruleset *rs, int wd)
{
	const struct notify_log *l = log_of(rs, wd);

	return l && !l->full && !rs->notify_void && rs->notify_fd >= 0;
}

size_t sbx__notify_count(const struct sbx_ruleset *rs, int wd)
{
	const struct notify_log *l = log_of(rs, wd);

	return l ? l->n : 0;
}

const char *sbx__notify_name(const struct sbx_ruleset *rs, int wd, size_t i)
{
	return rs->logs[wd].v[i].name;
}

int sbx__notify_gone(const struct sbx_ruleset *rs, int wd, const char *name)
{
	const struct notify_log *l = log_of(rs, wd);

	if (!sbx__notify_usable(rs, wd))
		return NOTIFY_UNKNOWN;
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return l->v[i].doubt ? NOTIFY_UNKNOWN : l->v[i].how;
	return NOTIFY_UNKNOWN;
}

void sbx__notify_release(struct sbx_ruleset *rs)
{
	for (size_t i = 0; i < rs->nlogs; i++) {
		for (size_t k = 0; k < rs->logs[i].n; k++)
			free(rs->logs[i].v[k].name);
		free(rs->logs[i].v);
	}
	free(rs->logs);
	rs->logs = NULL;
	rs->nlogs = 0;
	sbx__fds_close(rs->notify_fd, &rs->notify_lost);
	rs->notify_fd = -1;
}
