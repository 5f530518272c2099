/*
 * Second names: the inodes of the tree's own paths, which no entry of an
 * expanded directory may be granted under another name, and the warning
 * where a restricted path is also reachable through another mount.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compat/landlock.h"
#include "internal.h"
#include "lib/compiler.h"

static int by_inode(const void *a, const void *b)
{
	const struct ident *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

static int collect(struct compiler *cc, const struct node *n, char *path, size_t cap)
{
	size_t len = strlen(path);
	struct stat st;

	if (lstat(path, &st) == 0) {
		struct ident *grown = sbx__grow(cc->idents, &cc->idents_cap, cc->nidents + 1,
		                                sizeof(*cc->idents));

		if (!grown)
			return ENOMEM;
		cc->idents = grown;
		cc->idents[cc->nidents] = (struct ident){ .dev = st.st_dev, .ino = st.st_ino,
		                                          .path = strdup(path) };
		if (!cc->idents[cc->nidents++].path)
			return ENOMEM;
	} else {
		return 0; /* nothing below a missing path exists either */
	}
	for (size_t i = 0; i < n->nkids; i++) {
		int err;

		if (sbx__path_push(path, n->kids[i]->name, strlen(n->kids[i]->name)))
			continue;
		err = collect(cc, n->kids[i], path, cap);
		path[len] = '\0';
		if (err)
			return err;
	}
	return 0;
}

/* Records the inode of every path of the tree that exists, sorted for
 * sbx__ident_find(). */
int sbx__idents_collect(struct compiler *cc, const struct node *root)
{
	char path[PATH_MAX] = "/";
	int err = collect(cc, root, path, sizeof(path));

	if (!err && cc->nidents)
		qsort(cc->idents, cc->nidents, sizeof(*cc->idents), by_inode);
	return err;
}

const struct ident *sbx__ident_find(const struct compiler *cc, dev_t dev, ino_t ino)
{
	struct ident key = { .dev = dev, .ino = ino };

	return cc->nidents ? bsearch(&key, cc->idents, cc->nidents, sizeof(key), by_inode) : NULL;
}

/* Warns where a restricted path is also reachable, with wider rights, under
 * a second name: another mount of the same filesystem. */
void sbx__aliases_warn(struct compiler *cc, const struct node *root, const struct fs_place *p)
{
	char alias[3 * PATH_MAX], real[3 * PATH_MAX];
	const char *path = p->path, *rel = p->rel;
	int mode = p->mode;
	struct stat a, b;

	for (size_t i = 0; i < cc->nmounts; i++) {
		const struct mount *m = &cc->mounts[i];

		if (m == p->home || m->dev_major != p->dev_major || m->dev_minor != p->dev_minor)
			continue;
		if (sbx__path_covers(m->root, rel)) {
			/* The mount shows the restricted path itself. */
			snprintf(alias, sizeof(alias), "%s%s", strcmp(m->point, "/") ? m->point : "",
			         sbx__path_after(m->root, rel));
			snprintf(real, sizeof(real), "%s", path);
		} else if (sbx__path_covers(rel, m->root)) {
			/* The mount shows a part of it. */
			snprintf(alias, sizeof(alias), "%s", m->point);
			snprintf(real, sizeof(real), "%s%s", strcmp(path, "/") ? path : "",
			         sbx__path_after(rel, m->root));
		} else {
			continue;
		}
		if (!alias[0])
			strcpy(alias, "/");
		/* A name in a directory the compile lists was judged there. */
		if (sbx__tree_mode_at(root, alias) <= mode || sbx__tree_has_parent(root, alias) || stat(alias, &a) ||
		    stat(real, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
			continue;
		sbx__event(cc->scope, SBX_EVENT_ALIAS, 0, real, alias,
		           "%s is also reachable as %s (a bind mount); the scope does not cover that name",
		           real, alias);
	}
}
