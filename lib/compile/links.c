/* SPDX-License-Identifier: MIT */
/*
 * Hard links to configured files: an expanded directory refuses a file
 * with several names, for a denial may cover another of them.  Where one
 * of those names is a configured path, the refusal says which (an alias
 * event) rather than only that the file was dropped.  The configured
 * files are read once per compile, and only when such a file is met.
 */
#include "config.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "lib/internal.h"
#include "lib/compiler.h"

/* The restricted configured paths that are files, by inode: looked for
 * only when an expanded directory holds a file with several names, to say
 * which configured path it is. */
struct ident {
	dev_t dev;
	ino_t ino;
	const char *path;
};

static int by_inode(const void *a, const void *b)
{
	const struct ident *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->dev > y->dev) - (x->dev < y->dev);
}

static int collect_idents(struct compiler *cc, const struct node *n, size_t *cap)
{
	struct stat st;
	struct ident *grown;
	int err = 0;

	if (n->path && (n->mode == SBX_MODE_DENY || n->mode == SBX_MODE_READONLY) &&
	    lstat(n->path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		if (!(grown = sbx__grow(cc->idents, cap, cc->nidents + 1, sizeof(*grown))))
			return ENOMEM;
		cc->idents = grown;
		cc->idents[cc->nidents++] = (struct ident){ st.st_dev, st.st_ino, n->path };
	}
	for (uint32_t i = 0; i < n->nkids && !err; i++)
		err = collect_idents(cc, &n->kids[i], cap);
	return err;
}

const char *sbx__links_configured(struct compiler *cc, dev_t dev, ino_t ino)
{
	struct ident key = { .dev = dev, .ino = ino }, *hit;
	size_t cap = 0;

	if (!cc->idents_read) {
		cc->idents_read = true;
		if ((cc->err = collect_idents(cc, &cc->tree.root, &cap)))
			return NULL;
		if (cc->nidents)
			qsort(cc->idents, cc->nidents, sizeof(*cc->idents), by_inode);
	}
	hit = cc->nidents ? bsearch(&key, cc->idents, cc->nidents, sizeof(key), by_inode) : NULL;
	return hit ? hit->path : NULL;
}
