/* SPDX-License-Identifier: MIT */
/*
 * Frozen directories.  A directory the compile expanded (an ancestor of a
 * restricted path) is listed and its entries granted one by one: nothing
 * can be created or removed directly in it.  Where that directory is the
 * child's TMPDIR (or /tmp) or its working directory, programs fail with a
 * bare "Permission denied" that points nowhere near the scope: one event
 * says which directory, why, and what to do.  So does a TMPDIR or working
 * directory that lies in a read-only or denied path (read-only /, say).
 */
#include "config.h"

#include <limits.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "lib/compiler.h"

/* The value of name in envp, or NULL. */
static const char *env_of(char *const envp[], const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; envp && envp[i]; i++)
		if (!strncmp(envp[i], name, len) && envp[i][len] == '=')
			return envp[i] + len + 1;
	return NULL;
}

/* Where the child will work: the last chdir action's path, else here
 * (an fchdir action's directory is not known by name: nothing said). */
static bool child_cwd(const sbx_file_actions_t *fa, char *out)
{
	const char *dir = NULL;

	for (int i = 0; fa && i < fa->__used; i++) {
		if (fa->__actions[i].kind == SBX_FA_CHDIR)
			dir = fa->__actions[i].path;
		else if (fa->__actions[i].kind == SBX_FA_FCHDIR)
			return false;
	}
	return dir ? sbx__resolve(dir, out) == 0 : getcwd(out, PATH_MAX) != NULL;
}

/* Whether the compile froze path; said when emit is set. */
static bool frozen(const struct sbx_scope *scope, const struct sbx_ruleset *rs, const char *path,
                   const char *what, const char *remedy, bool emit)
{
	for (size_t i = 0; i < rs->ndirs; i++) {
		const struct sbx_dir *d = &rs->dirs[i];

		if (!d->expanded || !d->because || strcmp(d->path, path))
			continue;
		if (emit)
			sbx__event(scope, SBX_EVENT_FROZEN, 0, path, d->because,
			           "%s (%s) is frozen: the scope lists it to restrict %s, so the command "
			           "can neither create nor remove anything directly in it; %s",
			           path, what, d->because, remedy);
		return true;
	}
	return false;
}

/* The rule that decides what the scope gives path (the deepest that covers
 * it, the wider mode at one path), or NULL. */
static const struct sbx_scope_rule *rule_at(const struct sbx_scope *scope, const char *path)
{
	const struct sbx_scope_rule *best = NULL;

	for (size_t i = 0; i < scope->nrules; i++) {
		const struct sbx_scope_rule *r = &scope->rules[i];

		if (!sbx__path_covers(r->path, path))
			continue;
		if (!best || strlen(r->path) > strlen(best->path) ||
		    (!strcmp(r->path, best->path) && r->mode > best->mode))
			best = r;
	}
	return best;
}

/* Whether the scope makes a directory the command writes in read-only,
 * or denies it; said when emit is set. */
static bool restricted(const struct sbx_scope *scope, const char *path, const char *what,
                       const char *remedy, bool emit)
{
	const struct sbx_scope_rule *r = rule_at(scope, path);

	if (!r || r->mode == SBX_MODE_ALLOW)
		return false;
	if (emit)
		sbx__event(scope, SBX_EVENT_FROZEN, 0, path, r->path,
		           "%s (%s) is %s: it lies in %s, so the command can %s there; %s", path, what,
		           r->mode == SBX_MODE_READONLY ? "read-only" : "denied", r->path,
		           r->mode == SBX_MODE_READONLY ? "create nothing" : "reach nothing", remedy);
	return true;
}

/* Each directory is said once per scope, at the first spawn where it is
 * frozen (not at every spawn, nor where it is not). */
enum { SAID_TMPDIR = 1, SAID_CWD = 2 };

static bool first(const struct sbx_scope *scope, unsigned which)
{
	atomic_uint *said = &((struct sbx_scope *)scope)->frozen_said;

	return !(atomic_fetch_or(said, which) & which);
}

static void announce(const struct sbx_scope *scope, const struct sbx_ruleset *rs, const char *path,
                     unsigned which, const char *what, const char *frozen_remedy,
                     const char *restricted_remedy)
{
	if (!(atomic_load(&scope->frozen_said) & which) &&
	    (frozen(scope, rs, path, what, frozen_remedy, false) ||
	     restricted(scope, path, what, restricted_remedy, false)) &&
	    first(scope, which)) {
		frozen(scope, rs, path, what, frozen_remedy, true);
		restricted(scope, path, what, restricted_remedy, true);
	}
}

/* Whether anything can be frozen, read-only or denied at all: else
 * nothing is resolved (a scope that restricts nothing, sbxrun's without
 * options among them, pays nothing here). */
static bool restricts(const struct sbx_scope *scope, const struct sbx_ruleset *rs)
{
	for (size_t i = 0; i < scope->nrules; i++)
		if (scope->rules[i].mode != SBX_MODE_ALLOW)
			return true;
	for (size_t i = 0; i < rs->ndirs; i++)
		if (rs->dirs[i].expanded && rs->dirs[i].because)
			return true;
	return false;
}

void sbx__announce_frozen(const struct sbx_scope *scope, struct sbx_ruleset *rs,
                          char *const envp[], const sbx_file_actions_t *fa)
{
	const char *tmp = env_of(envp, "TMPDIR");
	const char *tmp_what = tmp && *tmp ? "TMPDIR" : "the temporary directory, TMPDIR unset";
	const char *tmp_remedy = "give it a TMPDIR of its own that the scope grants "
	                         "(sbx_scopeattr_settmpdir(3))";
	char path[PATH_MAX];

	if (!sbx__wants(scope, SBX_EVENT_FROZEN) ||
	    atomic_load(&scope->frozen_said) == (SAID_TMPDIR | SAID_CWD) || !restricts(scope, rs))
		return;
	if (sbx__resolve(tmp && *tmp ? tmp : "/tmp", path) == 0)
		announce(scope, rs, path, SAID_TMPDIR, tmp_what, tmp_remedy, tmp_remedy);
	if (child_cwd(fa, path))
		announce(scope, rs, path, SAID_CWD, "the working directory",
		         "run it in a directory beside the restricted path, or restrict a path deeper down",
		         "run it in a directory the scope grants, if it writes where it runs");
}
