/* SPDX-License-Identifier: MIT */
/*
 * Expanding a directory: listed (watched from before, for a reuse), then
 * every entry that does not lead to a configured path judged (judge.c) and
 * granted the rights its node's subtree does not have in common; entries
 * that are directories proved in runs rather than one by one.  What it
 * could not grant is dropped (drops.c), or refused as a whole where the
 * Landlock domain the caller runs in forbids the listing.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "lib/internal.h"
#include "lib/compiler.h"

/* Records what judging an entry gave, and drops what could not be granted. */
static void record(struct compiler *cc, const struct visit *v, struct entry *e, const char *name,
                   enum verdict verdict, int err)
{
	const char *same;

	e->kind = verdict == V_GRANTED ? ENTRY_GRANTED : ENTRY_OTHER;
	switch (verdict) {
	case V_GRANTED:
	case V_OTHER:
	case V_RECOMPILE:
		break;
	case V_GONE:
		cc->transient = true;
		sbx__drop(cc, name, err, DROP_FAILED);
		cc->transient = false;
		break;
	case V_FAILED:
		if (!sbx__fatal(cc, err))
			sbx__drop(cc, name, err, DROP_FAILED);
		break;
	case V_LINKED:
		same = sbx__links_configured(cc, makedev(v->sx.stx_dev_major, v->sx.stx_dev_minor), e->ino);
		if (same) {
			char alias[PATH_MAX + NAME_MAX + 2];

			snprintf(alias, sizeof(alias), "%s/%s", strcmp(cc->path, "/") ? cc->path : "", name);
			sbx__drop_alias(cc, same, alias);
		} else if (!cc->err) {
			sbx__drop(cc, name, EMLINK, DROP_LINKED);
		}
		break;
	case V_CHANGED:
		cc->transient = true;
		sbx__drop(cc, name, ESTALE, DROP_CHANGED);
		cc->transient = false;
		break;
	case V_UNPLACED:
		sbx__drop(cc, name, EXDEV, DROP_LAYERS);
		break;
	}
}

/* What a program needs of the files it runs. */
#define RUN_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE)

/* Whether a directory that could not be listed (EACCES) may be listed as
 * far as its permissions go: then what forbids it is a security module,
 * the Landlock domain this process itself runs in. */
static bool enclosed(int dirfd)
{
	return syscall(SYS_faccessat2, dirfd, "", R_OK | X_OK, AT_EMPTY_PATH) == 0;
}

/* A scope compiled inside a Landlock domain that expanded (and so froze)
 * a directory this scope must expand too: without its names there is no
 * ruleset that denies what this scope denies and lets the child run.
 * Refused, at compile time, saying why and what to do. */
static void refuse_enclosed(struct compiler *cc)
{
	struct sbx_ruleset *out = cc->out;

	if (asprintf(&out->refused_text,
	             "%s (make the enclosing scope listable, with SBX_SCOPE_LISTABLE)",
	             cc->path) < 0) {
		out->refused_text = NULL;
		cc->err = ENOMEM;
		return;
	}
	out->refusal = (struct refusal){ SBX_REFUSED_LISTING, "open(O_DIRECTORY)", out->refused_text };
	out->error = EACCES;
	cc->refused = true;
}

/* Lists the directory, watched from before (what leaves it after the
 * listing is what a reuse needs to know, notify.c): 0, or the errno. */
static int list_watched(struct compiler *cc, struct visit *v)
{
	int err;

	if ((err = sbx__notify_open(cc->out)))
		return err;
	if ((v->wd = sbx__notify_watch(cc->out, v->fd, v->fs_type)) == -ENOMEM)
		return ENOMEM;
	sbx__notify_drain(cc->out, true);
	sbx__notify_restart(cc->out, v->wd);
	while ((err = sbx__listing_read(v->fd, &v->l)) && sbx__closer_spare(&cc->closer, err))
		sbx__listing_free(&v->l);
	if (!err) {
		sbx__notify_drain(cc->out, true);
		sbx__notify_doubt(cc->out, v->wd);
	}
	return err;
}

/* ---- directories proved in a run ---------------------------------------- */

/* An entry that is a directory needs proving that it is the one listed
 * (no file has its inode, so no link count matters).  In a directory whose
 * times move with every change of an entry, and last moved well before the
 * compile began (stamps.c), the proof can be had for a run of them at
 * once: each is opened, then the directory is looked at again.  Times
 * unchanged since before the listing, nothing was added, removed or
 * renamed in it meanwhile, so every name opened is the inode listed; the
 * mount table unchanged since it was read, none of them has had something
 * mounted on it either.  One statx(2) and one poll(2) for the run, not a
 * statx(2) each.  Times that moved, or a table that did, and the run is
 * judged one by one, as is the rest of the directory. */
struct run {
	int fd[32];
	size_t entry[32];
	size_t n;
	bool off;       /* judged one by one */
};

static bool run_allowed(struct compiler *cc, const struct visit *v, const struct judge *j)
{
	return cc->out->mounts_fd >= 0 && !cc->mounts_moved && !v->foreign && j->trust_ino &&
	       sbx__fs_notifies(v->fs_type) && !sbx__stamp_racy(&v->sx, v->fs_type, &cc->started);
}

/* Whether this entry can join a run: a directory, on no mount point. */
static bool run_fits(struct compiler *cc, const struct entry *e, const char *name)
{
	char at[PATH_MAX + NAME_MAX + 2];

	if (e->type != DT_DIR)
		return false;
	snprintf(at, sizeof(at), "%s/%s", strcmp(cc->path, "/") ? cc->path : "", name);
	return !sbx__mount_at(&cc->mounts, at);
}

/* The mount table as read: a change poll(2) says once, so it is said on
 * to a reuse by the ruleset's not being kept. */
static bool mounts_still(struct compiler *cc)
{
	struct pollfd pfd = { .fd = cc->out->mounts_fd, .events = POLLPRI };

	/* Let go of while descriptors ran short (spare()): nothing to ask,
	 * and poll(2) would call a closed table unchanged. */
	if (pfd.fd >= 0 && poll(&pfd, 1, 0) == 0)
		return true;
	cc->mounts_moved = true;
	cc->out->reusable = false;
	return false;
}

static bool dir_still(const struct visit *v)
{
	struct statx now;

	return sbx__statx_fd(v->fd, &now) == 0 && now.stx_ino == v->sx.stx_ino &&
	       now.stx_mtime.tv_sec == v->sx.stx_mtime.tv_sec &&
	       now.stx_mtime.tv_nsec == v->sx.stx_mtime.tv_nsec &&
	       now.stx_ctime.tv_sec == v->sx.stx_ctime.tv_sec &&
	       now.stx_ctime.tv_nsec == v->sx.stx_ctime.tv_nsec;
}

static void judge_one(struct compiler *cc, struct visit *v, const struct judge *j, size_t i);

/* Proves the run, and grants it; or judges it one by one. */
static void run_settle(struct compiler *cc, struct visit *v, const struct judge *j, struct run *r)
{
	bool proved;

	if (!r->n)
		return;
	proved = dir_still(v) && mounts_still(cc);
	for (size_t k = 0; k < r->n; k++) {
		struct entry *e = &v->l.v[r->entry[k]];
		const char *name = sbx__entry_name(&v->l, e);
		int err;

		if (!proved) {
			close(r->fd[k]);
			judge_one(cc, v, j, r->entry[k]);
			continue;
		}
		err = sbx__grant(j, r->fd[k], true, j->rights, name);
		sbx__closer_add(j->closer, r->fd[k]);
		record(cc, v, e, name, err ? V_FAILED : V_GRANTED, err);
		if (!err && !cc->out->once)
			(void)sbx__listing_prove(&v->l, e, &(struct proof){ .dir = true });
	}
	r->off = !proved;
	r->n = 0;
}

/* Opens entry i into the run: false if it cannot join (judged alone). */
static bool run_add(struct compiler *cc, struct visit *v, const struct judge *j, struct run *r,
                    size_t i)
{
	const char *name = sbx__entry_name(&v->l, &v->l.v[i]);
	int fd;

	if (r->n == sizeof(r->fd) / sizeof(r->fd[0]))
		run_settle(cc, v, j, r);
	if (r->off)
		return false;
	/* Short of descriptors, the run is settled first: it holds some. */
	while ((fd = openat(v->fd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC)) < 0 &&
	       (errno == EMFILE || errno == ENFILE) && r->n)
		run_settle(cc, v, j, r);
	if (fd < 0 || r->off) {
		if (fd >= 0)
			close(fd);
		return false; /* gone, no longer a directory, or short: alone */
	}
	r->fd[r->n] = fd;
	r->entry[r->n++] = i;
	return true;
}

/* The run settled before the descriptors judged alone beside it, whose
 * numbers interleave with its own, would fill the closer: flushed
 * together, they close in one close_range(2), not one close(2) each. */
static void make_room(struct compiler *cc, struct visit *v, const struct judge *j, struct run *r)
{
	size_t room = sizeof(j->closer->fd) / sizeof(j->closer->fd[0]);

	if (r->n && j->closer->n + r->n + 1 >= room)
		run_settle(cc, v, j, r);
}

static void judge_one(struct compiler *cc, struct visit *v, const struct judge *j, size_t i)
{
	struct entry *e = &v->l.v[i];
	const char *name = sbx__entry_name(&v->l, e);
	struct proof proof;
	bool reuse = !cc->out->once; /* what proves it later, taken only for a reuse */
	int err;
	enum verdict verdict = sbx__judge(j, v->fd, name, e, &err, reuse ? &proof : NULL);

	record(cc, v, e, name, verdict, err);
	if (verdict == V_GRANTED && reuse && sbx__listing_prove(&v->l, e, &proof))
		cc->err = ENOMEM;
}

void sbx__expand(struct compiler *cc, struct visit *v, uint64_t have, uint64_t rights)
{
	struct judge j = { .rs = cc->out, .scope = cc->scope, .mounts = &cc->mounts,
	                   .closer = &cc->closer, .dir = cc->path, .rel = v->rel,
	                   .dev = makedev(v->sx.stx_dev_major, v->sx.stx_dev_minor),
	                   .mnt = v->sx.stx_mnt_id, .rights = rights, .file_rights = cc->rights.file,
	                   .trust_ino = sbx__fs_trusts_ino(v->fs_type), .foreign = v->foreign };
	size_t dropped;
	struct run run = { .n = 0 };
	int err = list_watched(cc, v);

	if (err == EACCES && enclosed(v->fd)) {
		/* Its entries keep what its rule gives: enough to run (a
		 * read-only path below) is narrower; not enough is a refusal. */
		if ((have & RUN_RIGHTS) == RUN_RIGHTS)
			sbx__drop(cc, "", err, DROP_ENCLOSED);
		else
			refuse_enclosed(cc);
	} else if (err) {
		if (!sbx__fatal(cc, err))
			sbx__drop(cc, "", err, DROP_UNLISTED);
	}
	if (err) {
		sbx__listing_free(&v->l);
		return;
	}
	v->expanded = true;
	v->rights = rights;
	/* Listed, not yet opened: what a caller's debug logger sees here is
	 * exactly the window in which an entry can vanish or be renamed. */
	sbx__event(cc->scope, SBX_EVENT_EXPAND, 0, cc->path, NULL, "expanding %s (%zu entries)",
	           cc->path, v->l.n);
	dropped = cc->out->ndropped;
	run.off = !run_allowed(cc, v, &j);
	for (size_t i = 0; i < v->l.n && !cc->err; i++) {
		struct entry *e = &v->l.v[i];
		const char *name = sbx__entry_name(&v->l, e);

		if (sbx__tree_kid(v->n, name, strlen(name))) {
			e->kind = ENTRY_NODE;
			continue;
		}
		make_room(cc, v, &j, &run);
		if (run.off || !run_fits(cc, e, name) || !run_add(cc, v, &j, &run, i))
			judge_one(cc, v, &j, i);
	}
	if (cc->err)
		while (run.n)
			close(run.fd[--run.n]);
	run_settle(cc, v, &j, &run);
	v->unsettled = cc->out->ndropped != dropped;
}
