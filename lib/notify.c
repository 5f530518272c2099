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
 *   the listing is that inode's: an unlink, and the name is simply gone;
 *   a rename away, or nothing reported (yet), and a new compile decides;
 * - events reported while a listing was made are not evidence (they may
 *   be of an inode before the one listed), nor is anything after the queue
 *   overflowed, or from a descriptor that may not be ours.
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

#include "internal.h"
#include "lib/compiler.h"

/* Names a log holds at most: past that, it says nothing. */
#define LOG_MAX 4096

/* The events of one watch since the listing that set its boundary: the
 * first removal of each name. */
struct notify_log {
	struct removal {
		char *name;
		int how; /* NOTIFY_UNLINKED or NOTIFY_MOVED */
	} *v;
	size_t n, cap;
	bool full;
};

int sbx__notify_open(struct sbx_ruleset *rs)
{
	int fd, err = 0;

	if (rs->notify_fd >= 0 || rs->notify_failed)
		return 0;
	sbx__fds_begin();
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0 || (err = sbx__fds_keep(fd, false, &rs->notify_lost))) {
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
	wd = inotify_add_watch(rs->notify_fd, magic, IN_DELETE | IN_MOVED_FROM | IN_ONLYDIR);
	if (wd <= 0)
		return -1;
	if ((size_t)wd >= rs->nlogs) {
		size_t cap = rs->nlogs;
		struct notify_log *grown = sbx__grow(rs->logs, &cap, (size_t)wd + 1, sizeof(*grown));

		if (!grown)
			return -1;
		memset(grown + rs->nlogs, 0, (cap - rs->nlogs) * sizeof(*grown));
		rs->logs = grown;
		rs->nlogs = cap;
	}
	return wd;
}

static void log_clear(struct notify_log *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	l->n = 0;
	l->full = false;
}

/* The first removal of name is what counts: a later one is of another
 * inode that took the name meanwhile. */
static void log_add(struct notify_log *l, const char *name, int how)
{
	struct removal *grown;
	char *copy;

	if (l->full)
		return;
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return;
	if (l->n == LOG_MAX || !(grown = sbx__grow(l->v, &l->cap, l->n + 1, sizeof(*grown))) ||
	    !(copy = strdup(name))) {
		l->full = true; /* it says nothing now: no evidence, a compile */
		return;
	}
	l->v = grown;
	l->v[l->n++] = (struct removal){ copy, how };
}

/* Whether the descriptor is still the inotify instance that watches the
 * first directory (a caller may close our number and open its own). */
static bool ours(const struct sbx_ruleset *rs)
{
	char path[64], line[512];
	const struct sbx_dir *first = NULL;
	bool found = false;
	FILE *f;

	for (size_t i = 0; i < rs->ndirs && !first; i++)
		if (rs->dirs[i].wd > 0)
			first = &rs->dirs[i];
	if (!first || atomic_load(&rs->notify_lost))
		return false;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", rs->notify_fd);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned wd, sdev;
		unsigned long ino;

		found = sscanf(line, "inotify wd:%x ino:%lx sdev:%x", &wd, &ino, &sdev) == 3 &&
		        (int)wd == first->wd && ino == first->ino &&
		        sdev == (major(first->dev) << 20 | minor(first->dev));
	}
	fclose(f);
	return found;
}

void sbx__notify_drain(struct sbx_ruleset *rs, bool compiling)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t got;

	if (rs->notify_fd < 0 || rs->notify_void)
		return;
	/* The compile made it moments ago; a reuse asks the kernel. */
	if (!compiling && !ours(rs)) {
		rs->notify_void = true;
		return;
	}
	while ((got = read(rs->notify_fd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < got;) {
			const struct inotify_event *ev = (const struct inotify_event *)(buf + off);

			off += (ssize_t)(sizeof(*ev) + ev->len);
			if (ev->mask & IN_Q_OVERFLOW) {
				rs->notify_void = true;
				return;
			}
			if (ev->wd <= 0 || (size_t)ev->wd >= rs->nlogs)
				continue;
			if (ev->mask & IN_IGNORED)
				rs->logs[ev->wd].full = true; /* no longer watched */
			else if (ev->len && (ev->mask & (IN_DELETE | IN_MOVED_FROM)))
				log_add(&rs->logs[ev->wd], ev->name,
				        ev->mask & IN_DELETE ? NOTIFY_UNLINKED : NOTIFY_MOVED);
		}
	if (got < 0 && errno != EAGAIN)
		rs->notify_void = true;
}

void sbx__notify_boundary(struct sbx_ruleset *rs, int wd)
{
	if (wd > 0 && (size_t)wd < rs->nlogs)
		log_clear(&rs->logs[wd]);
}

int sbx__notify_gone(const struct sbx_ruleset *rs, int wd, const char *name)
{
	const struct notify_log *l;

	if (rs->notify_void || wd <= 0 || (size_t)wd >= rs->nlogs || (l = &rs->logs[wd])->full)
		return NOTIFY_UNKNOWN;
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return l->v[i].how;
	return NOTIFY_UNKNOWN;
}

void sbx__notify_release(struct sbx_ruleset *rs)
{
	for (size_t i = 0; i < rs->nlogs; i++) {
		log_clear(&rs->logs[i]);
		free(rs->logs[i].v);
	}
	free(rs->logs);
	rs->logs = NULL;
	rs->nlogs = 0;
	sbx__fds_close(rs->notify_fd, &rs->notify_lost);
	rs->notify_fd = -1;
}
