/*
 * A compiled ruleset's life: reference-counted, released, reused by the
 * next spawn while a new compile would give the same, or kept as the
 * scope's snapshot.  The scope's cache of rulesets lives here and nowhere
 * else.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "lib/compiler.h"

void sbx__scope_put(struct sbx_ruleset *rs)
{
	if (rs && atomic_fetch_sub(&rs->refs, 1) == 1) {
		sbx__ruleset_release(rs);
		free(rs);
	}
}

/* The scope changed: nothing compiled from it before applies. */
void sbx__ruleset_forget(struct sbx_scope *s)
{
	struct sbx_ruleset *snapshot, *cache;

	pthread_mutex_lock(&s->lock);
	snapshot = s->snapshot;
	cache = s->cache;
	s->snapshot = s->cache = NULL;
	pthread_mutex_unlock(&s->lock);
	sbx__scope_put(snapshot);
	sbx__scope_put(cache);
}

static struct sbx_ruleset *take(struct sbx_scope *s, struct sbx_ruleset **slot)
{
	struct sbx_ruleset *rs;

	pthread_mutex_lock(&s->lock);
	if ((rs = *slot))
		atomic_fetch_add(&rs->refs, 1);
	pthread_mutex_unlock(&s->lock);
	return rs;
}

/* Compiles into a new reference-counted ruleset. */
static int compile_new(const struct sbx_scope *s, struct sbx_ruleset **out)
{
	struct sbx_ruleset *rs = malloc(sizeof(*rs));
	int err;

	if (!rs)
		return ENOMEM;
	if ((err = sbx__ruleset_compile(s, rs))) {
		free(rs);
		return err;
	}
	atomic_init(&rs->refs, 1);
	atomic_init(&rs->stale, false);
	*out = rs;
	return 0;
}

int sbx__scope_get(const struct sbx_scope *cs, struct sbx_ruleset **out)
{
	/* What is cached is not part of the scope's value: const to callers. */
	struct sbx_scope *s = (struct sbx_scope *)cs;
	struct sbx_ruleset *rs, *old;
	int err;

	if ((rs = take(s, &s->snapshot))) {
		*out = rs;
		return 0;
	}
	if ((rs = take(s, &s->cache))) {
		if (sbx__ruleset_current(s, rs)) {
			*out = rs;
			return 0;
		}
		atomic_store(&rs->stale, true);
		sbx__scope_put(rs);
	}
	if ((err = compile_new(s, &rs)))
		return err;
	if (rs->reusable && rs->confinement == SBX_OUTCOME_CONFINED) {
		atomic_fetch_add(&rs->refs, 1);
		pthread_mutex_lock(&s->lock);
		old = s->cache;
		s->cache = rs;
		pthread_mutex_unlock(&s->lock);
		sbx__scope_put(old);
	}
	*out = rs;
	return 0;
}

SBX_EXPORT int sbx_scopeattr_compile(sbx_scopeattr_t *scope)
{
	SBX_KEEP_ERRNO;
	struct sbx_scope *s = scope->__scope;
	struct sbx_ruleset *rs, *old;
	int err;

	if (!s)
		return EINVAL;
	if ((err = compile_new(s, &rs)))
		return err;
	pthread_mutex_lock(&s->lock);
	old = s->snapshot;
	s->snapshot = rs;
	pthread_mutex_unlock(&s->lock);
	sbx__scope_put(old);
	return 0;
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
		if (!sbx__stamp_current(&rs->stamps[i]))
			return false;
	for (size_t i = 0; i < rs->nfiles; i++)
		if (!sbx__file_stamp_current(rs, &rs->files[i]))
			return false;
	/* The paths resolve as they did (the cwd, the symlinks on the way).
	 * A plain one does: every directory on its way is stamped above. */
	for (size_t i = 0; i < scope->nrules; i++)
		if (!rs->plain[i] &&
		    (sbx__resolve(scope->rules[i].path, path, NULL) || strcmp(path, rs->resolved[i])))
			return false;
	return true;
}
