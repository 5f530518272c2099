/* SPDX-License-Identifier: MIT */
/*
 * Places: the configured paths as their filesystems know them, a device and
 * a path from that filesystem's root, kept for the filesystems that more
 * than one view shows (mounted twice, bind-mounted, a layer of an overlay).
 * What the scope allows on an inode there is decided by the places around
 * it, whatever name the compile reached it by; and where a restricted place
 * is shown again under a name no expanded directory judged, a warning says
 * so.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/internal.h"
#include "lib/compiler.h"

/* ---- order -------------------------------------------------------------- */

static int dev_cmp(unsigned amaj, unsigned amin, unsigned bmaj, unsigned bmin)
{
	if (amaj != bmaj)
		return amaj < bmaj ? -1 : 1;
	return (amin > bmin) - (amin < bmin);
}

static int place_cmp(const void *a, const void *b)
{
	const struct place *x = a, *y = b;
	int c = dev_cmp(x->dev_major, x->dev_minor, y->dev_major, y->dev_minor);

	return c ? c : sbx__path_order(x->rel, y->rel, SIZE_MAX);
}

/* The first place on (maj, min) at or after rel (len bytes of it) in path
 * order; with `after', the first strictly after it (places beneath rel
 * follow rel at once). */
static size_t lower_bound(const struct mounts *m, unsigned maj, unsigned min, const char *rel,
                          size_t len, bool after)
{
	size_t lo = 0, hi = m->nplaces;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct place *p = &m->places[mid];
		int c = dev_cmp(p->dev_major, p->dev_minor, maj, min);

		if (c == 0)
			c = -sbx__path_order(rel, p->rel, len);
		if (c < 0 || (c == 0 && after))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool is_at(const struct place *p, unsigned maj, unsigned min, const char *rel, size_t len)
{
	return p->dev_major == maj && p->dev_minor == min && sbx__path_order(rel, p->rel, len) == 0;
}

/* ---- building ----------------------------------------------------------- */

/* Devices more than one view shows: each mount's own filesystem counts
 * once per mount, each layer of a stacking mount once more. */
struct devcount {
	unsigned maj, min, views;
};

static int count_views(const struct mounts *m, struct devcount **out, size_t *n)
{
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < m->n; i++)
		for (unsigned k = 0; k <= m->v[i].nlayers; k++) {
			const struct view *v = k ? &m->v[i].layers[k - 1] : &m->v[i].own;
			size_t j = 0;
			struct devcount *grown;

			while (j < *n && dev_cmp((*out)[j].maj, (*out)[j].min, v->dev_major, v->dev_minor))
				j++;
			if (j == *n) {
				if (!(grown = sbx__grow(*out, &cap, *n + 1, sizeof(**out))))
					return ENOMEM;
				*out = grown;
				(*out)[(*n)++] = (struct devcount){ v->dev_major, v->dev_minor, 0 };
			}
			(*out)[j].views++;
		}
	return 0;
}

static bool seen_twice(const struct devcount *d, size_t n, unsigned maj, unsigned min)
{
	for (size_t i = 0; i < n; i++)
		if (d[i].maj == maj && d[i].min == min)
			return d[i].views > 1;
	return false;
}

struct placing {
	struct mounts *m;
	const struct rights *r;
	const struct devcount *devs;
	size_t ndevs, cap;
	char path[PATH_MAX];
};

/* Places the configured paths at and below node n (whose path is in
 * pl->path), seen through mount mt unless one is mounted there. */
static int place_nodes(struct placing *pl, const struct node *n, const struct mount *mt)
{
	struct mounts *m = pl->m;
	size_t len = strlen(pl->path);
	const struct mount *here = sbx__mount_at(m, pl->path);
	int err = 0;

	if (here)
		mt = here;
	if (n->path && mt && seen_twice(pl->devs, pl->ndevs, mt->own.dev_major, mt->own.dev_minor)) {
		struct place *grown = sbx__grow(m->places, &pl->cap, m->nplaces + 1, sizeof(*grown));
		const char *rel;

		if (!grown)
			return ENOMEM;
		/* Stored before the name can fail: realloc may have freed the
		 * old array, and the capacity already counts the new one. */
		m->places = grown;
		if (!(rel = sbx__mounts_rel(m, mt, n->path)))
			return ENOMEM;
		m->places[m->nplaces++] = (struct place){
			.dev_major = mt->own.dev_major, .dev_minor = mt->own.dev_minor, .rel = rel,
			.path = n->path, .mount = mt->id, .mode = n->mode,
			.rights = sbx__mode_rights(pl->r, n->mode) };
	}
	for (uint32_t i = 0; i < n->nkids && !err; i++) {
		if (sbx__path_push(pl->path, n->kids[i].name, n->kids[i].len))
			continue;
		err = place_nodes(pl, &n->kids[i], mt);
		pl->path[len] = '\0';
	}
	return err;
}

/* Each place's end (the index past its subtree) and the rights common to
 * the subtree (kept in rights' stead: a subtree is judged as a whole). */
static void settle_places(struct mounts *m)
{
	for (size_t i = m->nplaces; i-- > 0;) {
		struct place *p = &m->places[i];
		size_t j = i + 1;
		uint64_t all = p->rights;

		while (j < m->nplaces && p->dev_major == m->places[j].dev_major &&
		       p->dev_minor == m->places[j].dev_minor && sbx__path_covers(p->rel, m->places[j].rel) &&
		       strcmp(p->rel, m->places[j].rel)) {
			all &= m->places[j].subtree;
			j = m->places[j].end;
		}
		p->end = (uint32_t)j;
		p->subtree = all;
	}
}

static uint64_t above(const struct mounts *m, unsigned maj, unsigned min, const char *rel,
                      const struct place **nearest);

/* A filesystem mounted beneath a restricted path is restricted whole, as
 * that path is: its root a place of its own, for another view of it (a
 * bind mount of it elsewhere, an image on it loop-mounted elsewhere) is a
 * second name like any other.  A mount point the tree names was placed
 * with its node.  Such a place only restricts: what it shows again may
 * lie in a place the scope names (a bind mount of a denied directory
 * beneath a read-only one), whose rights it never widens; the named
 * places are sorted and settled by now, and asked before any is added. */
static int place_mounts_beneath(struct placing *pl, const struct tree *t)
{
	struct mounts *m = pl->m;
	struct place *more = NULL, *grown;
	size_t nmore = 0, cap = 0;

	for (size_t i = 0; i < m->npoints; i++) {
		const struct mount *mt = m->points[i];
		const struct place *nearest;
		int mode = sbx__tree_mode_at(t, mt->point);
		bool placed = false;

		if (mode == SBX_MODE_ALLOW || !strcmp(mt->point, "/") ||
		    !seen_twice(pl->devs, pl->ndevs, mt->own.dev_major, mt->own.dev_minor))
			continue;
		for (size_t k = 0; k < m->nplaces && !placed; k++)
			placed = m->places[k].mount == mt->id && !strcmp(m->places[k].rel, mt->own.rel);
		if (placed)
			continue;
		if (!(grown = sbx__grow(more, &cap, nmore + 1, sizeof(*more)))) {
			free(more);
			return ENOMEM;
		}
		more = grown;
		more[nmore++] = (struct place){
			.dev_major = mt->own.dev_major, .dev_minor = mt->own.dev_minor,
			.rel = mt->own.rel, .path = mt->point, .mount = mt->id, .mode = mode,
			.rights = sbx__mode_rights(pl->r, mode) &
			          above(m, mt->own.dev_major, mt->own.dev_minor, mt->own.rel, &nearest) };
	}
	/* Nor do they widen each other: a filesystem mounted beneath a
	 * denial and again beneath a read-only path is what the denial says
	 * wherever it is shown (one place above another: the nearer would
	 * speak alone; at the same path: the wider would). */
	for (size_t i = 0; i < nmore; i++)
		for (size_t k = 0; k < nmore; k++)
			if (k != i && more[k].dev_major == more[i].dev_major &&
			    more[k].dev_minor == more[i].dev_minor && sbx__path_covers(more[k].rel, more[i].rel))
				more[i].rights &= sbx__mode_rights(pl->r, more[k].mode);
	if (nmore && !(grown = sbx__grow(m->places, &pl->cap, m->nplaces + nmore, sizeof(*grown)))) {
		free(more);
		return ENOMEM;
	}
	if (nmore) {
		m->places = grown;
		memcpy(m->places + m->nplaces, more, nmore * sizeof(*more));
		m->nplaces += nmore;
	}
	free(more);
	return 0;
}

static void sort_places(struct mounts *m)
{
	if (m->nplaces)
		qsort(m->places, m->nplaces, sizeof(*m->places), place_cmp);
	settle_places(m);
}

int sbx__places_build(struct mounts *m, const struct tree *t, const struct rights *r)
{
	struct placing pl = { .m = m, .r = r, .path = "/" };
	struct devcount *devs;
	int err = count_views(m, &devs, &pl.ndevs);

	pl.devs = devs;
	if (!err)
		err = place_nodes(&pl, &t->root, sbx__mount_at(m, "/"));
	if (!err) {
		sort_places(m);
		err = place_mounts_beneath(&pl, t);
	}
	free(devs);
	if (err)
		return err;
	sort_places(m);
	return 0;
}

/* ---- judging ------------------------------------------------------------ */

bool sbx__mounts_foreign(const struct mounts *m, unsigned maj, unsigned min, uint64_t id)
{
	size_t i = lower_bound(m, maj, min, "", 0, false);

	for (; i < m->nplaces && !dev_cmp(m->places[i].dev_major, m->places[i].dev_minor, maj, min); i++)
		if (m->places[i].mount != id)
			return true;
	return false;
}

/* The rights of the nearest place at or above rel: the longest prefix of
 * rel that is a place (one path placed twice: the widest).  ~0: none. */
static uint64_t above(const struct mounts *m, unsigned maj, unsigned min, const char *rel,
                      const struct place **nearest)
{
	for (size_t len = strlen(rel);; len--) {
		if (len == 0 || rel[len] == '\0' || rel[len] == '/') {
			size_t plen = len ? len : 1, i = lower_bound(m, maj, min, rel, plen, false);
			uint64_t rights = 0;

			*nearest = i < m->nplaces && is_at(&m->places[i], maj, min, rel, plen) ? &m->places[i] : NULL;
			for (; i < m->nplaces && is_at(&m->places[i], maj, min, rel, plen); i++)
				rights |= m->places[i].rights;
			if (*nearest)
				return rights;
		}
		if (len == 0)
			return ~0ULL;
	}
}

uint64_t sbx__place_clamp(const struct mounts *m, unsigned maj, unsigned min, const char *rel,
                          uint64_t rights, const struct place **why)
{
	const struct place *nearest, *under = NULL;
	uint64_t top = above(m, maj, min, rel, &nearest), below = ~0ULL;
	size_t i = lower_bound(m, maj, min, rel, SIZE_MAX, true);

	/* Beneath it: a grant holds on everything beneath its inode. */
	while (i < m->nplaces && !dev_cmp(m->places[i].dev_major, m->places[i].dev_minor, maj, min) &&
	       sbx__path_covers(rel, m->places[i].rel)) {
		if ((rights & ~m->places[i].subtree) && !under)
			under = &m->places[i];
		below &= m->places[i].subtree;
		i = m->places[i].end;
	}
	if (why)
		*why = (rights & ~top) ? nearest : under;
	return rights & top & below;
}

/* ---- second names nothing judged ---------------------------------------- */

struct alias_check {
	const struct mounts *m;
	const struct tree *t;
	const struct sbx_scope *scope;
	struct hider *h; /* covers a second name in the child, where it can */
};

/* Whether the compile itself judged alias, a name under the mount point
 * `point': the scope restricts that name at least as much as the place, or
 * the compile met the mount itself, as a node of the tree or as an entry of
 * a directory it listed, and judged it by every view it has. */
static bool judged(const struct alias_check *ac, const char *alias, const char *point, int mode)
{
	const struct node *n = &ac->t->root;

	if (sbx__tree_mode_at(ac->t, alias) <= mode)
		return true;
	for (const char *p = point + 1; *p;) {
		const char *end = strchrnul(p, '/');
		const struct node *kid = sbx__tree_kid(n, p, (size_t)(end - p));

		if (!kid)
			return !*end && (n->flags & NODE_EXPANDED);
		n = kid;
		p = *end ? end + 1 : end;
	}
	return true;
}

/* One place shown again by view v, mounted at point. */
static void warn_one(const struct alias_check *ac, const struct place *p, const struct view *v,
                     const struct mount *mt, bool layer)
{
	const char *point = mt->point;
	char alias[2 * PATH_MAX], real[2 * PATH_MAX];
	struct stat a, b;

	if (sbx__path_covers(v->rel, p->rel)) {
		/* The view shows the place itself. */
		snprintf(alias, sizeof(alias), "%s%s", strcmp(point, "/") ? point : "",
		         sbx__path_after(v->rel, p->rel));
		snprintf(real, sizeof(real), "%s", p->path);
	} else {
		/* It shows a part of it. */
		snprintf(alias, sizeof(alias), "%s", point);
		snprintf(real, sizeof(real), "%s%s", strcmp(p->path, "/") ? p->path : "",
		         sbx__path_after(p->rel, v->rel));
	}
	if (!alias[0])
		strcpy(alias, "/");
	if (judged(ac, alias, point, p->mode) || stat(alias, &a) || stat(real, &b))
		return;
	/* A bind mount shows the very inode; an overlay, a copy of its own. */
	if (!layer && (a.st_dev != b.st_dev || a.st_ino != b.st_ino))
		return;
	/* Hidden in the child instead, as a denial would be. */
	if (p->mode == SBX_MODE_DENY && sbx__hide_alias(ac->h, alias))
		return;
	sbx__event(ac->scope, SBX_EVENT_ALIAS, 0, real, alias,
	           "%s is also reachable as %s (%s); the scope does not cover that name", real,
	           alias, !layer       ? "a bind mount"
	                  : mt->image ? "a filesystem image, loop-mounted"
	                              : "an overlay or a filesystem mounted from a directory");
}

/* The restricted places view v (of mount mt) shows: those above its root
 * and those beneath it. */
static void warn_view(const struct alias_check *ac, const struct mount *mt, const struct view *v,
                      bool layer)
{
	const struct mounts *m = ac->m;
	size_t len = strlen(v->rel), i;

	/* Above its root, the nearest places alone say what the scope wants
	 * of what it shows (each farther one would name the same path again,
	 * and one re-admitted there wants nothing kept from it). */
	for (size_t l = len;; l--) {
		if (l == 0 || v->rel[l] == '\0' || v->rel[l] == '/') {
			size_t plen = l ? l : 1, first = lower_bound(m, v->dev_major, v->dev_minor, v->rel, plen, false);
			bool near = false, admitted = false;

			for (i = first; i < m->nplaces && is_at(&m->places[i], v->dev_major, v->dev_minor, v->rel, plen); i++)
				if (layer || m->places[i].mount != mt->id) {
					near = true;
					admitted |= m->places[i].mode == SBX_MODE_ALLOW;
				}
			for (i = first; near && !admitted && i < m->nplaces &&
			                is_at(&m->places[i], v->dev_major, v->dev_minor, v->rel, plen); i++)
				if (layer || m->places[i].mount != mt->id)
					warn_one(ac, &m->places[i], v, mt, layer);
			if (near)
				break;
		}
		if (l == 0)
			break;
	}
	for (i = lower_bound(m, v->dev_major, v->dev_minor, v->rel, SIZE_MAX, true);
	     i < m->nplaces && !dev_cmp(m->places[i].dev_major, m->places[i].dev_minor, v->dev_major, v->dev_minor) &&
	     sbx__path_covers(v->rel, m->places[i].rel); i++)
		if (m->places[i].mode != SBX_MODE_ALLOW && (layer || m->places[i].mount != mt->id))
			warn_one(ac, &m->places[i], v, mt, layer);
}

/* The mounts whose layers the table names but no path here places (a
 * relative path, a symlink): in a listed directory they are not granted
 * (judge.c); beneath a granted one, whether they show a restricted path
 * cannot be told, which one line says.  Not of the root: a container's,
 * seen from inside, names layers of the host's that nothing here reaches. */
static void warn_unplaced(const struct alias_check *ac)
{
	const struct mount *first = NULL;
	size_t n = 0;

	for (size_t i = 0; i < ac->m->npoints; i++) {
		const struct mount *mt = ac->m->points[i];

		if (!mt->layers_unknown || !strcmp(mt->point, "/") ||
		    judged(ac, mt->point, mt->point, SBX_MODE_DENY))
			continue;
		if (!n++)
			first = mt;
	}
	if (n)
		sbx__event(ac->scope, SBX_EVENT_ALIAS, 0, NULL, first->point,
		           "%s%s %s an overlay, a filesystem mounted from a directory or a loop-mounted "
		           "image, whose layers or image the system names by a relative path, through "
		           "a symlink, as deleted, on an overlay, from another root (a chroot's, or where "
		           "one cannot be ruled out), or behind a device no /sys here describes: "
		           "where one lies in a restricted "
		           "path, the scope does not cover it there", first->point,
		           n > 1 ? " and other mounts" : "", n > 1 ? "are each" : "is");
}

void sbx__mounts_warn_aliases(const struct mounts *m, const struct tree *t,
                              const struct sbx_scope *scope, struct hider *h)
{
	struct alias_check ac = { .m = m, .t = t, .scope = scope, .h = h };

	warn_unplaced(&ac);
	if (!m->nplaces)
		return;
	for (size_t i = 0; i < m->npoints; i++) {
		const struct mount *mt = m->points[i];

		warn_view(&ac, mt, &mt->own, false);
		for (unsigned k = 0; k < mt->nlayers; k++)
			warn_view(&ac, mt, &mt->layers[k], true);
	}
}
