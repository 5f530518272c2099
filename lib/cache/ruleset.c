/* SPDX-License-Identifier: MIT */
/*
 * A compiled ruleset's life: reference-counted, released, reused by the
 * next spawn while a new compile would give the same (reuse.c checks), or
 * kept as the scope's snapshot.  The scope's cache of rulesets lives here
 * and nowhere else.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/hiding.h"
#include "lib/compiler.h"

SBX__WITH_FORK_HANDLERS;

/* Guards the snapshot and cache pointers of every scope: held for a swap
 * of pointers, never across a compile or a check. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
/* Every ruleset alive, so that a fork child can tell each one stale. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sbx_ruleset *live;

static void live_add(struct sbx_ruleset *rs)
{
	pthread_mutex_lock(&live_lock);
	rs->live_prev = NULL;
	rs->live_next = live;
	if (live)
		live->live_prev = rs;
	live = rs;
	pthread_mutex_unlock(&live_lock);
}

static void live_remove(struct sbx_ruleset *rs)
{
	pthread_mutex_lock(&live_lock);
	if (rs->live_prev)
		rs->live_prev->live_next = rs->live_next;
	else
		live = rs->live_next;
	if (rs->live_next)
		rs->live_next->live_prev = rs->live_prev;
	pthread_mutex_unlock(&live_lock);
}

/* A fork of the caller.  Before it, the lists are taken whole; in the
 * child, every ruleset of the parent is stale: its inotify queue and its
 * mount table's poll state are open files shared with the parent (a read
 * or a poll here would take the parent's evidence), and a reuse would add
 * rules to a ruleset the parent applies.  The child compiles anew.  A
 * check a thread of the parent had under way holds a check_lock and a
 * reference: the child never takes the one, and so never frees the
 * ruleset it guards. */
void sbx__ruleset_atfork(enum sbx_fork_phase phase)
{
	switch (phase) {
	case SBX_FORK_PREPARE:
		pthread_mutex_lock(&live_lock);
		pthread_mutex_lock(&cache_lock);
		break;
	case SBX_FORK_CHILD:
		for (struct sbx_ruleset *rs = live; rs; rs = rs->live_next)
			atomic_store(&rs->stale, true);
		/* fall through */
	case SBX_FORK_PARENT:
		pthread_mutex_unlock(&cache_lock);
		pthread_mutex_unlock(&live_lock);
		break;
	}
}

void sbx__scope_put(struct sbx_ruleset *rs)
{
	if (rs && atomic_fetch_sub(&rs->refs, 1) == 1) {
		live_remove(rs);
		sbx__ruleset_release(rs);
		pthread_mutex_destroy(&rs->check_lock);
		free(rs);
	}
}

/* The mount table the compile read, unchanged: poll() says a change once,
 * so the verdict is kept in rs->stale for every other user.  A caller in
 * another namespace since (unshare, setns) has another table. */
static bool mounts_unchanged(struct sbx_ruleset *rs)
{
	struct pollfd pfd = { .fd = rs->mounts_fd, .events = POLLPRI };
	struct stat st;

	/* The caller may have closed the descriptor and reused its number. */
	if (atomic_load(&rs->mounts_lost) || fstat(rs->mounts_fd, &st) ||
	    st.st_dev != rs->mounts_dev || st.st_ino != rs->mounts_ino ||
	    (rs->mounts_ns && sbx__mount_ns() != rs->mounts_ns))
		return false;
	return poll(&pfd, 1, 0) == 0 && !pfd.revents;
}

/* Whether a spawn may apply rs as a new compile would give it: under its
 * lock, one statx(2) per directory the compile visited. */
static bool current(const struct sbx_scope *scope, struct sbx_ruleset *rs)
{
	bool ok;

	if (atomic_load(&rs->stale))
		return false;
	if (rs->fd < 0)
		return true; /* no Landlock, or refused: nothing was read */
	pthread_mutex_lock(&rs->check_lock);
	ok = !atomic_load(&rs->stale) && !atomic_load(&rs->fd_lost) && sbx__is_ruleset(rs->fd) &&
	     mounts_unchanged(rs) && sbx__hide_current(rs);
	rs->notify_checked = false;
	for (size_t i = 0; ok && i < rs->ndirs; i++)
		ok = sbx__dir_current(rs, &rs->dirs[i], scope) == 0;
	if (!ok)
		atomic_store(&rs->stale, true);
	pthread_mutex_unlock(&rs->check_lock);
	return ok;
}

/* ---- the scope's cache -------------------------------------------------- */

/* The scope changed: nothing compiled from it before applies. */
void sbx__ruleset_forget(struct sbx_scope *s)
{
	struct sbx_ruleset *snapshot, *cache;

	pthread_mutex_lock(&cache_lock);
	snapshot = s->snapshot;
	cache = s->cache;
	s->snapshot = s->cache = NULL;
	pthread_mutex_unlock(&cache_lock);
	sbx__scope_put(snapshot);
	sbx__scope_put(cache);
	atomic_store(&s->frozen_said, 0); /* another scope: say it anew */
	atomic_store(&s->paths_said_by, 0);
}

static struct sbx_ruleset *take(struct sbx_scope *s, struct sbx_ruleset **slot)
{
	struct sbx_ruleset *rs;

	pthread_mutex_lock(&cache_lock);
	if ((rs = *slot))
		atomic_fetch_add(&rs->refs, 1);
	pthread_mutex_unlock(&cache_lock);
	return rs;
}

/* Puts rs (one more reference to it) in the slot, in place of old if that
 * is still there: a scope changed meanwhile keeps what it has. */
static void keep(struct sbx_scope *s, struct sbx_ruleset **slot, struct sbx_ruleset *old,
                 struct sbx_ruleset *rs)
{
	struct sbx_ruleset *out = rs;

	atomic_fetch_add(&rs->refs, 1);
	pthread_mutex_lock(&cache_lock);
	if (*slot == old) {
		out = old;
		*slot = rs;
	}
	pthread_mutex_unlock(&cache_lock);
	sbx__scope_put(out);
}

/* Compiles into a new reference-counted ruleset.  A scope's first compile
 * at a spawn watches nothing: most such scopes are made for that one spawn
 * (a watch costs a system call per directory, and its release waits for
 * the kernel to retire it).  Kept all the same, it is reused while it is
 * current, and what it cannot tell (a granted name gone from a busy
 * directory) makes a new compile, which watches, as every later compile
 * of the scope does, and a snapshot (sbx_scopeattr_compile: reuse is what
 * the caller asked for). */
static int compile_new(struct sbx_scope *s, bool snapshot, bool once, bool expand,
                       struct sbx_ruleset **out)
{
	struct sbx_ruleset *rs = malloc(sizeof(*rs));
	int how = (once ? SBX_COMPILE_ONCE : 0) | (snapshot ? SBX_COMPILE_SNAPSHOT : 0) |
	          (expand ? SBX_COMPILE_EXPAND : 0), err;

	/* What a compile says of the scope's paths (a denial left out, a
	 * hard link) is said once per scope and process: a scope that keeps
	 * no compile (one that restricts nothing keeps no mount table to
	 * check it by, and an mqueue mount changes it) would say it at every
	 * spawn; a fork child, which compiles anew, says it again. */
	unsigned was = sbx__events_mute(0);
	bool say = !(was & SBX__SAID_OF_PATHS) && atomic_load(&s->paths_said_by) != (int)getpid();

	sbx__events_mute(say ? was : was | SBX__SAID_OF_PATHS);
	if (!rs) {
		sbx__events_mute(was);
		return ENOMEM;
	}
	if (!once && !atomic_exchange(&s->compiled, true) && !snapshot)
		how |= SBX_COMPILE_UNWATCHED;
	err = sbx__ruleset_compile(s, how, rs);
	sbx__events_mute(was);
	if (err) {
		free(rs);
		return err;
	}
	if (say)
		atomic_store(&s->paths_said_by, (int)getpid());
	rs->snapshot = snapshot;
	atomic_init(&rs->refs, 1);
	atomic_init(&rs->stale, false);
	pthread_mutex_init(&rs->check_lock, NULL);
	live_add(rs);
	*out = rs;
	return 0;
}

/* Whether a compile can be checked again later, and is worth it: a
 * narrowed one only where what it dropped vanished or changed while it
 * ran (a busy directory): a reuse lists that directory again and grants
 * what it holds now; what else it dropped, the next compile may grant. */
static bool keepable(const struct sbx_ruleset *rs)
{
	return rs->reusable && (rs->confinement == SBX_OUTCOME_CONFINED ||
	                        (rs->confinement == SBX_OUTCOME_NARROWED && !rs->lasting_drops));
}

/* With `expand', a compile that hides no denial, for the one spawn whose
 * child would hold something that reaches a hidden one (held.c): made for
 * it, and not kept. */
int sbx__scope_get(const struct sbx_scope *cs, bool once, bool expand, struct sbx_ruleset **out)
{
	/* What is cached is not part of the scope's value: const to callers. */
	struct sbx_scope *s = (struct sbx_scope *)cs;
	struct sbx_ruleset *held = NULL, *rs = NULL;
	bool snapshot = false;
	int err;

	if (expand)
		return compile_new(s, false, true, true, out);
	if ((held = take(s, &s->snapshot)) || (held = take(s, &s->cache))) {
		snapshot = held->snapshot;
		if (current(s, held)) {
			*out = held;
			return 0;
		}
	}
	err = compile_new(s, snapshot, once, false, &rs);
	/* A compile with no room to keep its descriptors (compile.c) serves
	 * this spawn alone, even as a snapshot. */
	if (!err && !rs->once && (snapshot || keepable(rs)))
		keep(s, snapshot ? &s->snapshot : &s->cache, held, rs);
	sbx__scope_put(held);
	*out = rs;
	return err;
}

SBX_EXPORT int sbx_scopeattr_compile(sbx_scopeattr_t *scope)
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	struct sbx_scope *s = scope->__scope;
	struct sbx_ruleset *rs, *old, *cache;
	int err;

	if (!s)
		return EINVAL;
	if ((err = compile_new(s, true, false, false, &rs)))
		return err;
	/* Every spawn with it would be refused: said now, where a caller that
	 * compiles at its start can stop with the reason. */
	if (rs->confinement == SBX_OUTCOME_REFUSED) {
		sbx__event(s, SBX_EVENT_REFUSED, rs->error, NULL, NULL,
		           "the scope is refused, and every spawn with it would be: %s (%s: %s)",
		           rs->refusal.what ? rs->refusal.what : SBX_REFUSED_LANDLOCK,
		           rs->refusal.call ? rs->refusal.call : "landlock",
		           rs->refusal.why ? rs->refusal.why : strerror(rs->error));
		err = SBX_EREFUSED;
	}
	/* No room for its descriptors out of the caller's way (compile.c):
	 * nothing is kept, and spawns compile the scope as they would
	 * without a snapshot. */
	if (rs->once) {
		sbx__scope_put(rs);
		rs = NULL;
	}
	pthread_mutex_lock(&cache_lock);
	old = s->snapshot;
	cache = s->cache;
	s->snapshot = rs;
	s->cache = NULL; /* the snapshot is what spawns apply now */
	pthread_mutex_unlock(&cache_lock);
	sbx__scope_put(old);
	sbx__scope_put(cache);
	return err;
}
