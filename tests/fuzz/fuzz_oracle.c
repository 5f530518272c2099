/* SPDX-License-Identifier: MIT */
/*
 * The compiler fuzzer's oracle (fuzz_compile.c runs the compile): for
 * every file and directory of the tree, the rights its ancestors' grants
 * add up to never exceed what the scope asks for it (safety), and where
 * no configured path lies below it, it gets everything the scope asks for
 * it (liveness).  Directories with a configured path below them are
 * expanded: they get only the rights common to their subtree.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "tests/fuzz/fuzz.h"

/* ---- the oracle ------------------------------------------------------ */

bool covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (!strcmp(a, "/"))
		return true;
	return !strncmp(a, b, n) && (b[n] == '\0' || b[n] == '/');
}

static uint64_t mode_rights(const struct model *m, int mode)
{
	return mode == SBX_MODE_ALLOW ? m->dir : mode == SBX_MODE_READONLY ? m->read : 0;
}

/* A re-admission or read-only path whose resolution went through a
 * symlink, into a denial, where the paths written as they are (denials,
 * and the others with no symlink on their way) give its target less: the
 * compiler leaves it out. */
static bool left_out(const struct sbx_scope *scope, size_t i)
{
	const struct sbx_scope_rule *r = &scope->rules[i];
	size_t best = 0;
	int mode = SBX_MODE_ALLOW;
	bool denied = false;

	if (r->mode == SBX_MODE_DENY || !r->written)
		return false;
	for (size_t j = 0; j < scope->nrules; j++) {
		const struct sbx_scope_rule *o = &scope->rules[j];
		size_t len = strlen(o->path);

		if ((o->mode != SBX_MODE_DENY && o->written) || !covers(o->path, r->path))
			continue;
		denied |= o->mode == SBX_MODE_DENY;
		if (len > best || (len == best && (int)o->mode > mode)) {
			best = len;
			mode = (int)o->mode;
		}
	}
	return denied && (int)r->mode > mode;
}

static bool ignored(const struct model *m, size_t i)
{
	/* The compiler refuses to deny /, and to re-admit through a symlink
	 * what a denial holds. */
	return (m->scope->rules[i].mode == SBX_MODE_DENY && !strcmp(m->scope->rules[i].path, "/")) ||
	       left_out(m->scope, i);
}

/* Whether path is where a path left out led: dropped, and said so. */
bool led_to(const struct sbx_scope *scope, const char *path)
{
	for (size_t i = 0; i < scope->nrules; i++)
		if (left_out(scope, i) && !strcmp(scope->rules[i].path, path))
			return true;
	return false;
}

/* The mode of path's nearest configured path, the widest where one path
 * is configured twice. */
int desired_mode(const struct model *m, const char *path)
{
	size_t best = 0;
	int mode = SBX_MODE_ALLOW;

	for (size_t i = 0; i < m->scope->nrules; i++) {
		const char *r = m->scope->rules[i].path;
		size_t len = strlen(r);

		if (ignored(m, i) || !covers(r, path))
			continue;
		if (len > best || (len == best && (int)m->scope->rules[i].mode > mode)) {
			best = len;
			mode = (int)m->scope->rules[i].mode;
		}
	}
	return mode;
}

/* What the scope asks for path. */
static uint64_t desired(const struct model *m, const char *path)
{
	return mode_rights(m, desired_mode(m, path));
}

static bool expanded(const struct model *m, const char *path)
{
	for (size_t i = 0; i < m->scope->nrules; i++)
		if (!ignored(m, i) && covers(path, m->scope->rules[i].path) &&
		    strcmp(path, m->scope->rules[i].path))
			return true;
	return false;
}

/* Whether path lies in a path bound back into a cover (hide.c): the cover
 * takes nothing of it away. */
bool bound(const struct sbx_ruleset *rs, const char *path)
{
	for (size_t i = 0; rs && i < rs->nbinds; i++)
		if (covers(rs->binds[i].path, path))
			return true;
	return false;
}

/* What the grants give path, where no cover takes it away: a hidden
 * denial's cover, in the child's own mount namespace, leaves nothing of
 * what it covers; a read-only path's seal, a read-only mount, leaves what
 * reads (hide.c). */
static uint64_t effective(const struct model *m, const char *path)
{
	uint64_t access = 0;
	bool sealed = false;

	for (size_t i = 0; m->rs && i < m->rs->ncovers; i++)
		if (covers(m->rs->covers[i].path, path) && !bound(m->rs, path)) {
			if (!m->rs->covers[i].ro)
				return 0;
			sealed = true;
		}
	for (size_t i = 0; i < m->g->n; i++)
		if (covers(m->g->v[i].path, path))
			access |= m->g->v[i].access;
	return sealed ? access & m->read : access;
}

static void check_path(const struct model *m, const char *path, bool is_dir)
{
	uint64_t kind = is_dir ? ~0ULL : m->file;
	uint64_t want = desired(m, path) & kind, have = effective(m, path) & kind;

	if (have & ~want) {
		fprintf(stderr, "UNSAFE: %s gets %#llx, the scope asks for %#llx\n", path,
		        (unsigned long long)have, (unsigned long long)want);
		abort();
	}
	if (!expanded(m, path) && (want & ~have)) {
		fprintf(stderr, "LOST: %s gets %#llx, the scope asks for %#llx\n", path,
		        (unsigned long long)have, (unsigned long long)want);
		abort();
	}
}

void walk(const struct model *m, const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char sub[PATH_MAX];

	if (lstat(path, &st) || S_ISLNK(st.st_mode))
		return; /* symlinks get no grant: their targets are checked as themselves */
	check_path(m, path, S_ISDIR(st.st_mode));
	if (!S_ISDIR(st.st_mode) || !(d = opendir(path)))
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		walk(m, sub);
	}
	closedir(d);
}

/* Where a configured path exists in full, its resolution (made when it
 * was added) is realpath's. */
void check_resolution(const struct sbx_scope *scope, char (*given)[PATH_MAX])
{
	char real[PATH_MAX];

	for (size_t i = 0; i < scope->nrules; i++)
		if (realpath(given[i], real) && strcmp(real, scope->rules[i].path)) {
			fprintf(stderr, "RESOLVE: %s is %s, the scope says %s\n", given[i], real,
			        scope->rules[i].path);
			abort();
		}
}
