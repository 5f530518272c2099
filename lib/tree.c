/*
 * The tree of configured paths: one node per path component, the mode
 * configured there, the rights asked for and those common to the subtree;
 * and the guard that leaves out a denial of / or of the C runtime.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "internal.h"
#include "lib/compiler.h"

static char runtime_paths[2][PATH_MAX];
static pthread_once_t runtime_once = PTHREAD_ONCE_INIT;

static void runtime_probe(void)
{
	Dl_info info;
	unsigned long base = getauxval(AT_BASE);

	if (dladdr((void *)&getpid, &info) && info.dli_fname && info.dli_fname[0] == '/' &&
	    !realpath(info.dli_fname, runtime_paths[0]))
		runtime_paths[0][0] = '\0';
	if (base && dladdr((void *)base, &info) && info.dli_fname && info.dli_fname[0] == '/' &&
	    !realpath(info.dli_fname, runtime_paths[1]))
		runtime_paths[1][0] = '\0';
}

struct node *sbx__node_new(const char *name, size_t len)
{
	struct node *n = calloc(1, sizeof(*n));

	if (n && !(n->name = strndup(name, len))) {
		free(n);
		return NULL;
	}
	if (n)
		n->mode = -1;
	return n;
}

void sbx__tree_free(struct node *n)
{
	for (size_t i = 0; n && i < n->nkids; i++)
		sbx__tree_free(n->kids[i]);
	if (n) {
		free(n->kids);
		free(n->name);
		free(n);
	}
}

static struct node *node_child(struct node *n, const char *name, size_t len)
{
	struct node **grown;

	for (size_t i = 0; i < n->nkids; i++)
		if (strlen(n->kids[i]->name) == len && memcmp(n->kids[i]->name, name, len) == 0)
			return n->kids[i];
	if (!(grown = sbx__grow(n->kids, &n->cap, n->nkids + 1, sizeof(*n->kids))))
		return NULL;
	n->kids = grown;
	return (n->kids[n->nkids] = sbx__node_new(name, len)) ? n->kids[n->nkids++] : NULL;
}

/* Puts path in the tree.  At one path the widest mode wins: a re-admission
 * of a denied path is what re-admitting is for. */
static int tree_add(struct node *root, const char *path, enum sbx_mode mode)
{
	struct node *n = root;

	for (const char *p = path + 1; *p;) {
		const char *end = strchrnul(p, '/');

		if (!(n = node_child(n, p, (size_t)(end - p))))
			return ENOMEM;
		p = *end ? end + 1 : end;
	}
	if ((int)mode > n->mode)
		n->mode = (int)mode;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct node *const *)a)->name, (*(struct node *const *)b)->name);
}

uint64_t sbx__mode_rights(const struct rights *r, int mode)
{
	return mode == SBX_MODE_ALLOW ? r->dir : mode == SBX_MODE_READONLY ? r->read : 0;
}

/* Fills want (top down) and common (bottom up), sorts the children. */
void sbx__tree_settle(struct node *n, uint64_t inherited, const struct rights *r)
{
	n->want = n->mode >= 0 ? sbx__mode_rights(r, n->mode) : inherited;
	n->common = n->want;
	for (size_t i = 0; i < n->nkids; i++) {
		sbx__tree_settle(n->kids[i], n->want, r);
		n->common &= n->kids[i]->common;
	}
	if (n->nkids)
		qsort(n->kids, n->nkids, sizeof(*n->kids), by_name);
}

struct node *sbx__tree_find(const struct node *n, const char *name)
{
	struct node key = { .name = (char *)name }, *kp = &key, **hit;

	if (!n->nkids)
		return NULL;
	hit = bsearch(&kp, n->kids, n->nkids, sizeof(*n->kids), by_name);
	return hit ? *hit : NULL;
}

/* The mode that governs path: that of its nearest configured ancestor. */
int sbx__tree_mode_at(const struct node *root, const char *path)
{
	const struct node *n = root;
	int mode = root->mode >= 0 ? root->mode : SBX_MODE_ALLOW;

	for (const char *p = path + 1; *p && n;) {
		const char *end = strchrnul(p, '/');
		size_t len = (size_t)(end - p);
		const struct node *next = NULL;

		for (size_t i = 0; i < n->nkids; i++)
			if (strlen(n->kids[i]->name) == len && !memcmp(n->kids[i]->name, p, len))
				next = n->kids[i];
		if ((n = next) && n->mode >= 0)
			mode = n->mode;
		p = *end ? end + 1 : end;
	}
	return mode;
}

/* Whether path's directory is a node of the tree (listed, if anything). */
bool sbx__tree_has_parent(const struct node *root, const char *path)
{
	const struct node *n = root;
	const char *p = path + 1, *end;

	while ((end = strchr(p, '/'))) {
		const struct node *next = NULL;
		size_t len = (size_t)(end - p);

		for (size_t i = 0; n && i < n->nkids; i++)
			if (strlen(n->kids[i]->name) == len && !memcmp(n->kids[i]->name, p, len))
				next = n->kids[i];
		if (!(n = next))
			return false;
		p = end + 1;
	}
	return n && n->nkids;
}

/* Resolves every configured path, leaves out the denials that would stop
 * every program, and builds the tree. */
int sbx__tree_build(const struct sbx_scope *scope, struct node *root, char (*resolved)[PATH_MAX],
                      struct sbx_ruleset *out)
{
	int err;

	pthread_once(&runtime_once, runtime_probe);
	if (!(out->resolved = calloc(scope->nrules + 1, sizeof(char *))))
		return ENOMEM;
	if (!(out->plain = calloc(scope->nrules + 1, sizeof(bool))))
		return ENOMEM;
	for (size_t i = 0; i < scope->nrules; i++) {
		if ((err = sbx__resolve(scope->rules[i].path, resolved[i], &out->plain[i])))
			return err;
		if (!(out->resolved[i] = strdup(resolved[i])))
			return ENOMEM;
		out->nresolved++;
	}
	for (size_t i = 0; i < scope->nrules; i++) {
		const char *why = NULL;

		if (scope->rules[i].mode != SBX_MODE_DENY) {
			if ((err = tree_add(root, resolved[i], scope->rules[i].mode)))
				return err;
			continue;
		}
		if (strcmp(resolved[i], "/") == 0)
			why = "denying / would stop every program";
		for (int r = 0; r < 2 && !why; r++)
			if (runtime_paths[r][0] && sbx__path_covers(resolved[i], runtime_paths[r])) {
				/* Unless something below re-admits the runtime. */
				bool readmitted = false;

				for (size_t j = 0; j < scope->nrules; j++)
					if (scope->rules[j].mode != SBX_MODE_DENY &&
					    sbx__path_covers(resolved[j], runtime_paths[r]) &&
					    sbx__path_covers(resolved[i], resolved[j]))
						readmitted = true;
				if (!readmitted)
					why = "it holds the C runtime every program needs";
			}
		if (why) {
			sbx__event(scope, SBX_EVENT_IGNORED_DENY, 0, resolved[i], NULL,
			           "not denying %s: %s", resolved[i], why);
			continue;
		}
		if ((err = tree_add(root, resolved[i], SBX_MODE_DENY)))
			return err;
	}
	return 0;
}
