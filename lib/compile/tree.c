/* SPDX-License-Identifier: MIT */
/*
 * The tree of configured paths: one node per path component, the mode
 * configured there, the rights asked for and those common to the subtree
 * (a denial of / or of the C runtime left out: runtime.c).
 *
 * Built in time linear in the number of paths (after one sort): the paths
 * are taken in an order where every path comes right after its ancestors,
 * so each new node is a child of a node on the path just built, and each
 * node's children are complete, and sorted, when the walk leaves it.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/compiler.h"
#include "lib/hiding.h"

/* ---- building ----------------------------------------------------------- */

static int by_path(const void *a, const void *b)
{
	const struct sbx_scope_rule *x = *(const struct sbx_scope_rule *const *)a;
	const struct sbx_scope_rule *y = *(const struct sbx_scope_rule *const *)b;

	return sbx__path_order(x->path, y->path, SIZE_MAX);
}

/* Nodes live in chunks freed together. */
struct chunk {
	struct chunk *next;
	size_t used, size;
	struct node v[];
};

static struct node *chunk_alloc(struct tree *t, size_t n)
{
	struct chunk *c = t->chunks;

	if (!c || c->size - c->used < n) {
		size_t size = n > 1024 ? n : 1024;

		if (!(c = malloc(sizeof(*c) + size * sizeof(struct node))))
			return NULL;
		*c = (struct chunk){ .next = t->chunks, .size = size };
		t->chunks = c;
	}
	c->used += n;
	return c->v + c->used - n;
}

/* The path being built, one level per component: the nodes made at each
 * level so far, the last of which is the current one. */
struct level {
	struct node *v;
	size_t n, cap;
};

struct builder {
	struct tree *t;
	struct level *levels;
	size_t depth, cap; /* levels 1..depth hold children; 0 is the root */
};

/* Closes the deepest level: its nodes become the children of the current
 * node one level up, in the tree's own memory. */
static int close_level(struct builder *b)
{
	struct level *l = &b->levels[b->depth];
	struct node *parent = b->depth == 1 ? &b->t->root : &b->levels[b->depth - 1].v[b->levels[b->depth - 1].n - 1];
	struct node *kids = chunk_alloc(b->t, l->n);

	if (!kids)
		return ENOMEM;
	memcpy(kids, l->v, l->n * sizeof(*kids));
	parent->kids = kids;
	parent->nkids = (uint32_t)l->n;
	l->n = 0;
	b->depth--;
	return 0;
}

/* Appends a node named by len bytes to level `at', which is the current
 * level or the one below it. */
static struct node *append(struct builder *b, size_t at, const char *name, size_t len)
{
	struct level *l, *grown;
	struct node *v;

	if (at >= b->cap) {
		size_t old = b->cap;

		if (!(grown = sbx__grow(b->levels, &b->cap, at + 1, sizeof(*b->levels))))
			return NULL;
		b->levels = grown;
		memset(b->levels + old, 0, (b->cap - old) * sizeof(*b->levels));
	}
	b->depth = at;
	l = &b->levels[at];
	if (!(v = sbx__grow(l->v, &l->cap, l->n + 1, sizeof(*l->v))))
		return NULL;
	l->v = v;
	l->v[l->n] = (struct node){ .name = name, .len = (uint16_t)len, .mode = -1 };
	return &l->v[l->n++];
}

static bool same_name(const struct node *n, const char *name, size_t len)
{
	return n->len == len && memcmp(n->name, name, len) == 0;
}

/* Puts one path in the tree, after the paths that sort before it.  At one
 * path the widest mode wins: a re-admission of a denied path is what
 * re-admitting is for. */
static int add_path(struct builder *b, const char *path, enum sbx_mode mode)
{
	struct node *n = &b->t->root;
	size_t depth = 0;
	int err;

	for (const char *p = path + 1; *p;) {
		const char *end = strchrnul(p, '/');
		size_t len = (size_t)(end - p);
		struct level *l = depth < b->depth ? &b->levels[depth + 1] : NULL;

		if (l && l->n && same_name(&l->v[l->n - 1], p, len)) {
			n = &l->v[l->n - 1];
		} else {
			/* A new sibling at this level: what was below the last
			 * one is complete. */
			while (b->depth > depth + 1)
				if ((err = close_level(b)))
					return err;
			if (!(n = append(b, depth + 1, p, len)))
				return ENOMEM;
		}
		depth++;
		p = *end ? end + 1 : end;
	}
	if ((int)mode > n->mode) {
		n->mode = (int8_t)mode;
		n->path = path;
	}
	return 0;
}

/* Devices a program writes to as it writes to nothing, which stay writable
 * under a read-only path (a configure script under `--readonly /' sends its
 * output to /dev/null): granted unless a path names them or a denial covers
 * them. */
static const struct sbx_scope_rule harmless[] = {
	{ SBX_MODE_ALLOW, (char *)"/dev/null", NULL, false },
	{ SBX_MODE_ALLOW, (char *)"/dev/zero", NULL, false },
	{ SBX_MODE_ALLOW, (char *)"/dev/full", NULL, false },
	{ SBX_MODE_ALLOW, (char *)"/dev/tty", NULL, false },
	{ SBX_MODE_ALLOW, (char *)"/dev/random", NULL, false },
	{ SBX_MODE_ALLOW, (char *)"/dev/urandom", NULL, false },
};

/* The mode the scope's own rules give path: its nearest configured
 * ancestor's (the widest, of one path given twice); -1 where it is named. */
static int governing_mode(const struct sbx_scope *scope, const char *path, const bool *left)
{
	size_t best = 0;
	int mode = SBX_MODE_ALLOW;

	for (size_t i = 0; i < scope->nrules; i++) {
		const char *r = scope->rules[i].path;
		size_t len = strlen(r);

		if (left[i])
			continue;
		if (!strcmp(r, path))
			return -1;
		if (sbx__path_covers(r, path) && (len > best || (len == best && (int)scope->rules[i].mode > mode))) {
			best = len;
			mode = (int)scope->rules[i].mode;
		}
	}
	return mode;
}

/* ---- paths that lead into a denial through a symlink -------------------- */

/* The denial that rule i, a re-admission or read-only path whose
 * resolution went through a symlink, would widen, or NULL.  Its target
 * lies beneath a denial, and the paths of the scope written as they are
 * (denials, and re-admissions and read-only paths with no symlink on their
 * way) give it less: the nearest of them at or above it decides, the wider
 * mode at one path, as in the tree.  A symlink into a denial is what a
 * confined child can plant where it may write, for the next scope built
 * anew from the same paths (a second sbxrun) to re-admit what is denied;
 * where the target is re-admitted as written, with as much, it adds
 * nothing, and stays. */
static const char *link_widens(const struct sbx_scope *scope, size_t i)
{
	const struct sbx_scope_rule *r = &scope->rules[i];
	const char *denial = NULL;
	size_t best = 0, deepest = 0;
	int mode = SBX_MODE_ALLOW;

	if (r->mode == SBX_MODE_DENY || !r->written)
		return NULL;
	for (size_t j = 0; j < scope->nrules; j++) {
		const struct sbx_scope_rule *o = &scope->rules[j];
		size_t len = strlen(o->path);

		if ((o->mode != SBX_MODE_DENY && o->written) || !sbx__path_covers(o->path, r->path))
			continue;
		if (o->mode == SBX_MODE_DENY && len > deepest) {
			deepest = len;
			denial = o->path;
		}
		if (len > best || (len == best && (int)o->mode > mode)) {
			best = len;
			mode = (int)o->mode;
		}
	}
	return denial && (int)r->mode > mode ? denial : NULL;
}

/* Whether path lies in a hidden denial (not a sealed path), past what is
 * bound back into its cover. */
static bool under_cover(const struct sbx_ruleset *rs, const char *path)
{
	for (size_t i = 0; i < rs->ncovers; i++)
		if (!rs->covers[i].ro && sbx__path_covers(rs->covers[i].path, path))
			return !sbx__hide_bound(rs, path);
	return false;
}

/* Leaves out (left[i], and in t->ignored) each path that would widen a
 * denial through a symlink, with an event naming it as written and where
 * it led; under SBX_SCOPE_STRICT the compile fails instead. */
static int leave_out_links(const struct sbx_scope *scope, struct tree *t, bool *left)
{
	for (size_t i = 0; i < scope->nrules; i++) {
		const struct sbx_scope_rule *r = &scope->rules[i];
		const char *denial = link_widens(scope, i);

		if (!denial)
			continue;
		sbx__event(scope, SBX_EVENT_IGNORED_LINK, 0, r->written, r->path,
		           "not re-admitting %s%s: it leads through a symlink to %s, inside the denial "
		           "%s, where a path reached through a symlink re-admits nothing (name the "
		           "target itself to re-admit it)%s", r->written,
		           r->mode == SBX_MODE_READONLY ? " read-only" : "", r->path, denial,
		           scope->flags & SBX_SCOPE_STRICT ? "; SBX_SCOPE_STRICT: nothing runs" : "");
		if (scope->flags & SBX_SCOPE_STRICT)
			return EINVAL;
		left[i] = true;
		t->ignored[t->nignored++] = r;
	}
	return 0;
}

/* The scope's rules, less the paths that would lead into a denial through
 * a symlink and the denials that would stop every program (each said;
 * under SBX_SCOPE_STRICT the compile fails), with the harmless devices a
 * read-only path would take away, in path order. */
static int take_rules(const struct sbx_scope *scope, const struct sbx_scope_rule *implicit,
                      size_t nimplicit, struct hider *h, struct tree *t,
                      const struct sbx_scope_rule ***out, size_t *n)
{
	size_t room = scope->nrules + nimplicit + sizeof(harmless) / sizeof(harmless[0]) + 1;
	const struct sbx_scope_rule **v = malloc(room * sizeof(*v));
	bool *left = calloc(scope->nrules + 1, sizeof(*left)), readonly = false;
	int err = ENOMEM;

	if (!v || !left || !(t->ignored = malloc((scope->nrules + 1) * sizeof(*t->ignored))) ||
	    (err = leave_out_links(scope, t, left)))
		goto fail;
	*n = 0;
	for (size_t i = 0; i < scope->nrules; i++) {
		const char *why = scope->rules[i].mode == SBX_MODE_DENY ? sbx__deny_harms(scope, i, left)
		                                                       : NULL;

		if (left[i])
			continue;
		/* Sealed: bound on itself read-only in the child. */
		if (scope->rules[i].mode == SBX_MODE_READONLY && h &&
		    sbx__hide_take(h, &scope->rules[i], left, false))
			continue;
		if (h && (err = h->err))
			goto fail;
		readonly |= scope->rules[i].mode == SBX_MODE_READONLY;
		if (!why && scope->rules[i].mode == SBX_MODE_DENY && h) {
			/* Hidden: covered in the child, nothing of it here. */
			if (sbx__hide_take(h, &scope->rules[i], left, false))
				continue;
			if ((err = h->err))
				goto fail;
			h->out->nexpanded++;
		}
		if (!why) {
			v[(*n)++] = &scope->rules[i];
			continue;
		}
		sbx__event(scope, SBX_EVENT_IGNORED_DENY, 0, scope->rules[i].path, NULL,
		           "not denying %s: %s%s", scope->rules[i].path, why,
		           scope->flags & SBX_SCOPE_STRICT ? "; SBX_SCOPE_STRICT: nothing runs" : "");
		if (scope->flags & SBX_SCOPE_STRICT) {
			err = EINVAL;
			goto fail;
		}
		t->ignored[t->nignored++] = &scope->rules[i];
	}
	/* A denial beneath a hidden one goes with its cover (a cover of its
	 * own is dropped at the settling, hidekept.c): one expanded there, not
	 * being there, would freeze what lies above the hidden one. */
	for (size_t k = 0; h && k < *n;) {
		if (v[k] >= scope->rules && v[k] < scope->rules + scope->nrules &&
		    v[k]->mode == SBX_MODE_DENY && under_cover(h->out, v[k]->path)) {
			v[k] = v[--*n];
			h->out->nexpanded--;
		} else {
			k++;
		}
	}
	for (size_t i = 0; i < nimplicit; i++) {
		if (implicit[i].mode == SBX_MODE_DENY && h && sbx__hide_take(h, &implicit[i], left, true))
			continue;
		if (h && (err = h->err))
			goto fail;
		v[(*n)++] = &implicit[i];
	}
	for (size_t i = 0; readonly && i < sizeof(harmless) / sizeof(harmless[0]); i++)
		if (governing_mode(scope, harmless[i].path, left) == SBX_MODE_READONLY)
			v[(*n)++] = &harmless[i];
	if (*n)
		qsort(v, *n, sizeof(*v), by_path);
	free(left);
	*out = v;
	return 0;
fail:
	free(v);
	free(left);
	return err;
}

uint64_t sbx__mode_rights(const struct rights *r, int mode)
{
	return mode == SBX_MODE_ALLOW ? r->dir : mode == SBX_MODE_READONLY ? r->read : 0;
}

/* Fills want (top down) and common (bottom up). */
static void settle(struct node *n, uint64_t inherited, const struct rights *r, bool *restricts)
{
	n->want = n->mode >= 0 ? sbx__mode_rights(r, n->mode) : inherited;
	n->common = n->want;
	if (n->mode == SBX_MODE_DENY || n->mode == SBX_MODE_READONLY)
		*restricts = true;
	for (uint32_t i = 0; i < n->nkids; i++) {
		settle(&n->kids[i], n->want, r, restricts);
		n->common &= n->kids[i].common;
	}
}

int sbx__tree_build(const struct sbx_scope *scope, const struct sbx_scope_rule *implicit,
                    size_t nimplicit, const struct rights *r, struct hider *h, struct tree *t)
{
	const struct sbx_scope_rule **rules = NULL;
	struct builder b = { .t = t };
	size_t n = 0;
	int err;

	*t = (struct tree){ .root = { .name = "", .mode = -1 } };
	if ((err = take_rules(scope, implicit, nimplicit, h, t, &rules, &n)))
		return err;
	for (size_t i = 0; i < n && !err; i++)
		err = add_path(&b, rules[i]->path, rules[i]->mode);
	while (!err && b.depth > 0)
		err = close_level(&b);
	for (size_t i = 0; i < b.cap; i++)
		free(b.levels[i].v);
	free(b.levels);
	free(rules);
	if (!err)
		settle(&t->root, r->dir, r, &t->restricts);
	return err;
}

void sbx__tree_free(struct tree *t)
{
	free(t->ignored);
	t->ignored = NULL;
	for (struct chunk *c = t->chunks, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	t->chunks = NULL;
}

/* ---- reading ------------------------------------------------------------ */

const struct node *sbx__tree_kid(const struct node *n, const char *name, size_t len)
{
	size_t lo = 0, hi = n->nkids;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct node *k = &n->kids[mid];
		int c = memcmp(k->name, name, k->len < len ? k->len : len);

		if (c == 0)
			c = (k->len > len) - (k->len < len);
		if (c == 0)
			return k;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Walks path down the tree; *mode (if given) is the mode of the nearest
 * configured node on the way. */
static const struct node *walk(const struct tree *t, const char *path, int *mode)
{
	const struct node *n = &t->root;

	if (mode)
		*mode = n->mode >= 0 ? n->mode : SBX_MODE_ALLOW;
	for (const char *p = path + 1; *p && n;) {
		const char *end = strchrnul(p, '/');

		if ((n = sbx__tree_kid(n, p, (size_t)(end - p))) && mode && n->mode >= 0)
			*mode = n->mode;
		p = *end ? end + 1 : end;
	}
	return n;
}

const struct node *sbx__tree_find(const struct tree *t, const char *path)
{
	return walk(t, path, NULL);
}

int sbx__tree_mode_at(const struct tree *t, const char *path)
{
	int mode;

	walk(t, path, &mode);
	return mode;
}

/* A restricted configured path beneath node n: why it was expanded. */
const char *sbx__tree_restricted_beneath(const struct node *n)
{
	for (uint32_t i = 0; i < n->nkids; i++) {
		const struct node *k = &n->kids[i];
		const char *p;

		if (k->path && (k->mode == SBX_MODE_DENY || k->mode == SBX_MODE_READONLY))
			return k->path;
		if ((p = sbx__tree_restricted_beneath(k)))
			return p;
	}
	return NULL;
}
