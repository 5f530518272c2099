/*
 * Frozen directories.  A directory the compile expanded (an ancestor of a
 * restricted path) is listed and its entries granted one by one: nothing
 * can be created or removed directly in it.  Where that directory is the
 * child's TMPDIR (or /tmp) or its working directory, programs fail with a
 * bare "Permission denied" that points nowhere near the scope: one event
 * says which directory, why, and what to do.
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

static void say(const struct sbx_scope *scope, const struct sbx_ruleset *rs, const char *path,
                const char *what, const char *remedy)
{
	for (size_t i = 0; i < rs->ndirs; i++) {
		const struct sbx_dir *d = &rs->dirs[i];

		if (d->expanded && d->because && !strcmp(d->path, path))
			sbx__event(scope, SBX_EVENT_FROZEN, 0, path, d->because,
			           "%s (%s) is frozen: the scope lists it to restrict %s, so the command "
			           "can neither create nor remove anything directly in it; %s",
			           path, what, d->because, remedy);
	}
}

void sbx__announce_frozen(const struct sbx_scope *scope, struct sbx_ruleset *rs,
                          char *const envp[], const sbx_file_actions_t *fa)
{
	const char *tmp = env_of(envp, "TMPDIR");
	char path[PATH_MAX];

	if (!rs->ndirs || atomic_exchange(&rs->announced, true))
		return;
	if (sbx__resolve(tmp && *tmp ? tmp : "/tmp", path) == 0)
		say(scope, rs, path, tmp && *tmp ? "TMPDIR" : "the temporary directory, TMPDIR unset",
		    "give it a TMPDIR of its own that the scope grants (sbxrun --tmpdir DIR)");
	if (child_cwd(fa, path))
		say(scope, rs, path, "the working directory",
		    "run it in a directory beside the restricted path, or restrict a path deeper down");
}
