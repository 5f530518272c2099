/* SPDX-License-Identifier: MIT */
/*
 * Frozen directories.  A directory the compile expanded (an ancestor of a
 * restricted path) is listed and its entries granted one by one: nothing
 * can be created or removed directly in it.  Where that directory is the
 * child's TMPDIR (or /tmp), its working directory or its home directory,
 * programs fail with a bare "Permission denied" that points nowhere near
 * the scope (a new file, an atomic save, git config --global): one short
 * event says which directory, why, and what helps.  So does a TMPDIR or
 * working directory that lies in a read-only or denied path (read-only /,
 * say).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/compiler.h"
#include "lib/hiding.h"

/* The value of name in envp, or NULL. */
static const char *env_of(char *const envp[], const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; envp && envp[i]; i++)
		if (!strncmp(envp[i], name, len) && envp[i][len] == '=')
			return envp[i] + len + 1;
	return NULL;
}

/* A path of the notice's, resolved: realpath(3), a readlink(2) for each
 * component (one for /tmp), where sbx__resolve opens the path and reads
 * its link in /proc (five calls, each spawn): the same canonical name for
 * a path that exists, and one that does not is nothing to say. */
static bool resolved(const char *path, char *out)
{
	return realpath(path, out) != NULL;
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
	return dir ? resolved(dir, out) : getcwd(out, PATH_MAX) != NULL;
}

/* The directory the compile froze at path (the restricted path beneath it
 * that made it expand it), or NULL. */
static const char *frozen_by(const struct sbx_ruleset *rs, const char *path)
{
	for (size_t i = 0; i < rs->ndirs; i++) {
		const struct sbx_dir *d = &rs->dirs[i];

		if (d->expanded && d->because && !strcmp(d->path, path))
			return d->because;
	}
	return NULL;
}

static bool unapplied(const struct sbx_ruleset *rs, size_t i)
{
	for (size_t k = 0; k < rs->nunapplied; k++)
		if (rs->unapplied[k] == i)
			return true;
	return false;
}

/* The rule that decides what the scope gives path (the deepest applied
 * one that covers it, the wider mode at one path), or NULL.  A denial the
 * compile did not apply (of /, of the C runtime) restricts nothing. */
static const struct sbx_scope_rule *rule_at(const struct sbx_scope *scope,
                                            const struct sbx_ruleset *rs, const char *path)
{
	const struct sbx_scope_rule *best = NULL;

	for (size_t i = 0; i < scope->nrules; i++) {
		const struct sbx_scope_rule *r = &scope->rules[i];

		if (!sbx__path_covers(r->path, path) || unapplied(rs, i))
			continue;
		if (!best || strlen(r->path) > strlen(best->path) ||
		    (!strcmp(r->path, best->path) && r->mode > best->mode))
			best = r;
	}
	return best;
}

/* The directories where users are hit, each said once per scope (not at
 * every spawn, nor where it is not frozen); one line for a directory that
 * is two of them. */
enum { SAID_TMPDIR = 1, SAID_CWD = 2, SAID_HOME = 4 };

struct role {
	unsigned bit;
	const char *name;
	char path[PATH_MAX];
	bool known;
};

/* The words for the roles of path among r[0..n-1], and their bits. */
static unsigned roles_of(const struct role *r, size_t n, const char *path, char *words, size_t cap)
{
	unsigned bits = 0;
	size_t len = 0;

	words[0] = '\0';
	for (size_t i = 0; i < n; i++)
		if (r[i].known && !strcmp(r[i].path, path)) {
			bits |= r[i].bit;
			len += (size_t)snprintf(words + len, len < cap ? cap - len : 0, "%s%s",
			                        len ? ", " : "", r[i].name);
		}
	return bits;
}

/* Whether path is hidden or sealed by one of rs's covers. */
static bool covered(const struct sbx_ruleset *rs, const char *path)
{
	for (size_t i = 0; i < rs->ncovers; i++)
		if (!strcmp(rs->covers[i].path, path))
			return true;
	return false;
}

/* Whether the restricted path that froze a directory is expanded for not
 * being there alone: made, it would be hidden (sealed), and nothing above
 * it would freeze.  The compile says which (rs->absent: its other
 * reasons, the scope's paths beneath it, a second name of the place it
 * would be made in, all found wanting, hide.c); where this spawn is not
 * to hide (a refusal since), or what the child holds from before its
 * namespace would expand it (a directory it inherits, wherever it lies:
 * held.c, the caller's table read once per scope), not. */
static bool absent_but_hideable(const struct sbx_scope *scope, const struct sbx_ruleset *rs,
                                const sbx_file_actions_t *fa, const char *path,
                                const char *because)
{
	char why[PATH_MAX + 64];
	struct stat st;
	bool noted = false;

	for (size_t i = 0; i < rs->nabsent && !noted; i++)
		noted = rs->absent[i] < scope->nrules && !strcmp(scope->rules[rs->absent[i]].path, because);
	/* Nothing else restricted beneath the directory, but what would go
	 * with the cover made: else it stays frozen all the same. */
	for (size_t i = 0; noted && i < scope->nrules; i++) {
		const struct sbx_scope_rule *r = &scope->rules[i];

		noted = r->mode == SBX_MODE_ALLOW || unapplied(rs, i) ||
		        !sbx__path_covers(path, r->path) || sbx__path_covers(because, r->path) ||
		        covered(rs, r->path);
	}
	return noted && lstat(because, &st) && errno == ENOENT &&
	       !sbx__hide_unavailable(scope, why, sizeof(why)) &&
	       sbx__held_any(rs, fa, why, sizeof(why)) == 0;
}

/* Honest remedies only.  A frozen directory gets no new entry whatever is
 * re-admitted beneath it, and denying the files instead of their directory
 * freezes it all the same (every ancestor of a restricted path is
 * expanded).  What helps: a directory of its own for temporary files; the
 * restricted path kept elsewhere; the command run in a directory the
 * scope grants, or with a home directory of its own; a restricted path
 * that is not there made, where it would be hidden then. */
static void say_frozen(const struct sbx_scope *scope, const struct sbx_ruleset *rs,
                       const sbx_file_actions_t *fa, const char *path, const char *roles,
                       unsigned bits, const char *because)
{
	const struct sbx_scope_rule *r = rule_at(scope, rs, because);
	bool ro = r && r->mode == SBX_MODE_READONLY;
	char remedy[PATH_MAX + 160];

	if (bits & SAID_TMPDIR)
		snprintf(remedy, sizeof(remedy), "give the command a TMPDIR the scope grants "
		                                 "(sbx_scopeattr_settmpdir(3))");
	else if (absent_but_hideable(scope, rs, fa, path, because))
		snprintf(remedy, sizeof(remedy), "%s is not there: made (empty, the directory or file it "
		         "will be), it is %s instead and nothing above it freezes; or leave it out", because,
		         ro ? "sealed" : "hidden");
	else
		snprintf(remedy, sizeof(remedy), "keep what it %s elsewhere%s%s", ro ? "protects" : "denies",
		         bits & SAID_CWD ? ", or run the command elsewhere" : "",
		         !(bits & SAID_HOME) ? "" : bits & SAID_CWD ? " with another HOME"
		                                                    : ", or give the command another HOME");
	sbx__event(scope, SBX_EVENT_FROZEN, 0, path, because,
	           "%s (%s) is frozen by the %s %s: nothing can be created or removed in it, whatever "
	           "is re-admitted%s; %s",
	           path, roles, ro ? "read-only path" : "denial", because,
	           scope->flags & SBX_SCOPE_LISTABLE ? "" : ", nor listed (SBX_SCOPE_LISTABLE)", remedy);
}

/* A temporary or working directory in a read-only or denied path. */
static void say_restricted(const struct sbx_scope *scope, const char *path, const char *roles,
                           unsigned bits, const struct sbx_scope_rule *r)
{
	bool ro = r->mode == SBX_MODE_READONLY;

	sbx__event(scope, SBX_EVENT_FROZEN, 0, path, r->path, "%s (%s) is %s, in %s: the command can %s "
	           "there; %s", path, roles, ro ? "read-only" : "denied", r->path,
	           ro ? "create nothing" : "reach nothing",
	           bits & SAID_TMPDIR ? "give it a TMPDIR the scope grants (sbx_scopeattr_settmpdir(3))"
	                              : "run it in a directory the scope grants, if it writes where it "
	                                "runs");
}

/* Says path, for its roles not said yet: frozen, or (but for the home
 * directory, which a scope may well make read-only) restricted. */
static void announce(const struct sbx_scope *scope, const struct sbx_ruleset *rs,
                     const sbx_file_actions_t *fa, const struct role *r, size_t n,
                     const char *path)
{
	atomic_uint *said = &((struct sbx_scope *)scope)->frozen_said;
	char roles[128];
	unsigned bits = roles_of(r, n, path, roles, sizeof(roles));
	const char *because = frozen_by(rs, path);
	const struct sbx_scope_rule *rule = because ? NULL : rule_at(scope, rs, path);

	if (!because && (!rule || rule->mode == SBX_MODE_ALLOW || bits == SAID_HOME))
		return;
	if (atomic_fetch_or(said, bits) & bits)
		return; /* said, for one of its roles at least */
	if (because)
		say_frozen(scope, rs, fa, path, roles, bits, because);
	else
		say_restricted(scope, path, roles, bits, rule);
}

/* Whether the compile froze a directory at all. */
static bool freezes(const struct sbx_ruleset *rs)
{
	for (size_t i = 0; i < rs->ndirs; i++)
		if (rs->dirs[i].expanded && rs->dirs[i].because)
			return true;
	return false;
}

/* Whether anything can be frozen, read-only or denied at all: else
 * nothing is resolved (a scope that restricts nothing, sbxrun's without
 * options among them, pays nothing here). */
static bool restricts(const struct sbx_scope *scope, const struct sbx_ruleset *rs)
{
	for (size_t i = 0; i < scope->nrules; i++)
		if (scope->rules[i].mode != SBX_MODE_ALLOW)
			return true;
	return freezes(rs);
}

void sbx__announce_frozen(const struct sbx_scope *scope, struct sbx_ruleset *rs,
                          char *const envp[], const sbx_file_actions_t *fa)
{
	const char *tmp = env_of(envp, "TMPDIR"), *home = env_of(envp, "HOME");
	struct role r[] = { { .bit = SAID_TMPDIR,
		              .name = tmp && *tmp ? "TMPDIR" : "the temporary directory" },
		            { .bit = SAID_CWD, .name = "the working directory" },
		            { .bit = SAID_HOME, .name = "HOME" } };
	size_t n = sizeof(r) / sizeof(r[0]);

	if (!sbx__wants(scope, SBX_EVENT_FROZEN) ||
	    atomic_load(&scope->frozen_said) == (SAID_TMPDIR | SAID_CWD | SAID_HOME) ||
	    !restricts(scope, rs))
		return;
	r[0].known = resolved(tmp && *tmp ? tmp : "/tmp", r[0].path);
	r[1].known = child_cwd(fa, r[1].path);
	/* A home directory is said where it is frozen, never where it is
	 * only restricted: where nothing is frozen (every denial hidden), it
	 * is not resolved at all. */
	r[2].known = home && *home == '/' && freezes(rs) && resolved(home, r[2].path);
	for (size_t i = 0; i < n; i++)
		if (r[i].known && !(atomic_load(&scope->frozen_said) & r[i].bit))
			announce(scope, rs, fa, r, n, r[i].path);
}
