/* SPDX-License-Identifier: MIT */
/*
 * The covers a compile chose (hide.c), settled: sorted, those a denial's
 * cover takes away dropped, the directories above them pinned (made mount
 * points in the child, so that no rename carries a denial or a seal to a
 * name the next spawn does not restrict); checked before a kept ruleset
 * serves again; released with it; and what a spawn says of them.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat/statx.h"
#include "lib/internal.h"
#include "lib/hiding.h"
#include "lib/confine.h"
#include "lib/compiler.h"

/* ---- the covers, settled ------------------------------------------------ */

static int by_path(const void *a, const void *b)
{
	return sbx__path_order(((const struct cover *)a)->path, ((const struct cover *)b)->path,
	                       SIZE_MAX);
}

/* Highest first: a pin's bind carries the covers beneath it, and no pin
 * made before (a pin beneath one would be copied by it again, and so on
 * down: twice the mounts for each level). */
static int highest_first(const void *a, const void *b)
{
	return sbx__path_order(*(char *const *)a, *(char *const *)b, SIZE_MAX);
}

/* Whether path is pinned already, or sealed (a mount point in the child). */
static bool pinned(const struct sbx_ruleset *out, const char *path)
{
	for (size_t i = 0; i < out->npins; i++)
		if (!strcmp(out->pins[i], path))
			return true;
	for (size_t i = 0; i < out->ncovers; i++)
		if (out->covers[i].ro && !strcmp(out->covers[i].path, path))
			return true;
	return false;
}

/* The directories above cover c that need a pin: not /, nor a mount point
 * already (which no rename moves). */
static int pin_above(struct hider *h, const char *path)
{
	struct sbx_ruleset *out = h->out;
	char up[PATH_MAX], **grown;

	snprintf(up, sizeof(up), "%s", path);
	for (sbx__path_pop(up); strcmp(up, "/"); sbx__path_pop(up)) {
		if (sbx__mount_at(h->mounts, up) || pinned(out, up))
			continue;
		if (!(grown = sbx__grow(out->pins, &h->pins_cap, out->npins + 1, sizeof(*grown))))
			return ENOMEM;
		out->pins = grown;
		if (!(out->pins[out->npins] = strdup(up)))
			return ENOMEM;
		out->npins++;
	}
	return 0;
}

int sbx__hide_settle(struct hider *h)
{
	struct sbx_ruleset *out = h->out;
	size_t kept = 0;
	int err = 0;

	out->nhidden = 0;
	for (size_t i = 0; i < out->ncovers; i++)
		out->nhidden += !out->covers[i].ro;
	if (out->ncovers)
		qsort(out->covers, out->ncovers, sizeof(*out->covers), by_path);
	if (out->nbinds)
		qsort(out->binds, out->nbinds, sizeof(*out->binds), by_path);
	/* Beneath a denial's cover, nothing needs one of its own, but in what
	 * is bound back into it; beneath a seal, every cover does. */
	for (size_t i = 0; i < out->ncovers; i++) {
		bool under = false;

		for (size_t j = kept; j-- > 0 && !under;)
			under = !out->covers[j].ro &&
			        sbx__path_covers(out->covers[j].path, out->covers[i].path);
		if (under && !sbx__hide_bound(out, out->covers[i].path)) {
			free((char *)out->covers[i].path);
			continue;
		}
		out->covers[kept++] = out->covers[i];
	}
	out->ncovers = kept;
	for (size_t i = 0; i < out->ncovers && !err; i++)
		err = pin_above(h, out->covers[i].path);
	if (out->npins)
		qsort(out->pins, out->npins, sizeof(*out->pins), highest_first);
	return err;
}

void sbx__hide_release(struct sbx_ruleset *rs)
{
	sbx__hide_unkeep(rs, true);
	for (size_t i = 0; i < rs->ncovers; i++)
		free((char *)rs->covers[i].path);
	for (size_t i = 0; i < rs->nbinds; i++)
		free((char *)rs->binds[i].path);
	for (size_t i = 0; i < rs->npins; i++)
		free(rs->pins[i]);
	free(rs->binds);
	rs->binds = NULL;
	rs->nbinds = 0;
	free(rs->covers);
	free(rs->pins);
	rs->covers = NULL;
	rs->pins = NULL;
	rs->ncovers = rs->npins = 0;
}

bool sbx__hide_current(const struct sbx_ruleset *rs)
{
	char why[160];

	/* A child found no namespace since: every denial is expanded now. */
	if (rs->ncovers && sbx__hide_unavailable(NULL, why, sizeof(why)))
		return false;
	for (size_t i = 0; i < rs->ncovers + rs->nbinds; i++) {
		const struct cover *c = i < rs->ncovers ? &rs->covers[i] : &rs->binds[i - rs->ncovers];
		struct statx sx;

		if (statx(AT_FDCWD, c->path, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
		          STATX_TYPE | STATX_INO | STATX_NLINK, &sx) ||
		    !is_cover(c, &sx) || S_ISDIR(sx.stx_mode) != c->dir ||
		    (!c->dir && !c->ro && sx.stx_nlink != 1))
			return false;
	}
	return true;
}

void sbx__hide_event(const struct sbx_scope *scope, const struct sbx_ruleset *rs, const char *what)
{
	const char *first = rs && rs->ncovers ? rs->covers[0].path : NULL;

	if (scope->flags & SBX_SCOPE_HIDE)
		sbx__event(scope, SBX_EVENT_HIDING, 0, first, NULL,
		           "the denials cannot be hidden from this child: %s; SBX_SCOPE_HIDE: nothing runs",
		           what);
	else
		sbx__event_quiet(scope, SBX_EVENT_HIDING, 0, first, NULL,
		                 "the denials are expanded for this child, the directories above them "
		                 "frozen: %s", what);
}
