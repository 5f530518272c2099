/* SPDX-License-Identifier: MIT */
/*
 * The mount table of the calling thread, as read (mountread.c): its
 * strings (fields, escapes, strings kept with it), its index (by id, and
 * the visible mount at each point) and the lookups by point, id and path
 * that the steps after it use (layers.c, rootmount.c, places.c).
 *
 * Landlock rules hold on inodes, and one inode can have several names: a
 * filesystem mounted twice, a bind mount of a directory, an overlay that
 * shows its lower and upper directories again under its own mount.  The
 * table is what tells them: where a configured path is in its filesystem
 * is places.c's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/compiler.h"
#include "lib/layers.h"

/* ---- strings ------------------------------------------------------------ */

/* mountinfo escapes blanks, tabs, newlines, backslashes (and, in options,
 * commas) as \ooo. */
void sbx__mounts_unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* Cuts the next field out of *p at sep, in place. */
char *sbx__mounts_field(char **p, char sep)
{
	char *start = *p, *end;

	if (!start)
		return NULL;
	if ((end = strchr(start, sep))) {
		*end = '\0';
		*p = end + 1;
	} else {
		*p = NULL;
	}
	return start;
}

/* a and b joined, kept with the table. */
const char *sbx__mounts_keep(struct mounts *m, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 1);
	char **grown;

	if (!s || !(grown = sbx__grow(m->extra, &m->extra_cap, m->extra_len + 1, sizeof(char *)))) {
		free(s);
		return NULL;
	}
	m->extra = grown;
	memcpy(s, a, la);
	memcpy(s + la, b, lb + 1);
	m->extra[m->extra_len++] = s;
	return s;
}

/* path as seen through mount mt (path is at or below its point). */
const char *sbx__mounts_rel(struct mounts *m, const struct mount *mt, const char *path)
{
	const char *suffix = sbx__path_after(mt->point, path);

	if (!*suffix)
		return mt->own.rel;
	if (strcmp(mt->own.rel, "/") == 0)
		return suffix;
	return sbx__mounts_keep(m, mt->own.rel, suffix);
}

/* ---- the index -------------------------------------------------------- */

static int by_id(const void *a, const void *b)
{
	const struct mount *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int by_point(const void *a, const void *b)
{
	return strcmp((*(struct mount *const *)a)->point, (*(struct mount *const *)b)->point);
}

/* The mounts sorted by id, and the visible mount at each point: of several
 * stacked at one point, the one no other mount there sits on. */
int sbx__mounts_index(struct mounts *m)
{
	struct mount **all;

	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), by_id);
	all = malloc((m->n + 1) * sizeof(*all));

	if (!all || !(m->points = malloc((m->n + 1) * sizeof(*m->points)))) {
		free(all);
		return ENOMEM;
	}
	for (size_t i = 0; i < m->n; i++)
		all[i] = &m->v[i];
	if (m->n)
		qsort(all, m->n, sizeof(*all), by_point);
	for (size_t i = 0, end; i < m->n; i = end) {
		for (end = i + 1; end < m->n && !strcmp(all[end]->point, all[i]->point); end++)
			;
		for (size_t a = i; a < end; a++) {
			bool covered = false, root = !strcmp(all[a]->point, "/") && m->root_id;

			for (size_t b = i; b < end && !covered; b++)
				covered = all[b]->parent == all[a]->id;
			/* At "/", the root's own mount, whatever is stacked on it. */
			if (root ? all[a]->id == m->root_id : !covered) {
				m->points[m->npoints++] = all[a];
				break;
			}
		}
	}
	free(all);
	return 0;
}

const struct mount *sbx__mount_at(const struct mounts *m, const char *path)
{
	struct mount key = { .point = path }, *kp = &key, **hit;

	if (!m->npoints)
		return NULL;
	hit = bsearch(&kp, m->points, m->npoints, sizeof(*m->points), by_point);
	return hit ? *hit : NULL;
}

const struct mount *sbx__mount_by_id(const struct mounts *m, uint64_t id)
{
	struct mount key = { .id = id };

	return m->n ? bsearch(&key, m->v, m->n, sizeof(key), by_id) : NULL;
}

/* The mount a path is seen through: the visible mount at its longest
 * prefix that is a mount point. */
const struct mount *sbx__mount_of(const struct mounts *m, const char *path)
{
	char buf[PATH_MAX];
	const struct mount *mt;

	snprintf(buf, sizeof(buf), "%s", path);
	while (!(mt = sbx__mount_at(m, buf)) && strcmp(buf, "/"))
		sbx__path_pop(buf);
	return mt;
}

void sbx__mounts_free(struct mounts *m)
{
	for (size_t i = 0; i < m->extra_len; i++)
		free(m->extra[i]);
	free(m->extra);
	free(m->places);
	free(m->points);
	free(m->layer_store);
	free(m->v);
	free(m->text);
	*m = (struct mounts){ 0 };
}

ino_t sbx__mount_ns(void)
{
	struct stat st;

	if (!stat("/proc/thread-self/ns/mnt", &st) || !stat("/proc/self/ns/mnt", &st))
		return st.st_ino;
	return 0;
}
