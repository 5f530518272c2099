/* SPDX-License-Identifier: MIT */
/*
 * Which path of the scope refused a command: an exec that Landlock
 * refuses is EACCES, and one beneath a hidden denial ENOENT, and nothing
 * more.  A program beneath a denial (and no re-admission nearer to it)
 * cannot run; the scope's own rules say which, without a compile: sbxrun
 * asks after its exec failed, when it is confined already and a compile
 * would see less than the caller did.  The program is found before the
 * exec, as the exec will look for it.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat/compat.h"
#include "lib/internal.h"
#include "tools/refusing.h"

/* command as execvp(3) finds it: a name with a slash as it is, else the
 * first executable file of that name on PATH. */
static bool locate(const char *command, char *out, size_t cap)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(command, '/'))
		return (size_t)snprintf(out, cap, "%s", command) < cap;
	if (!path)
		path = "/bin:/usr/bin";
	for (p = path;; p = end + 1) {
		end = strchrnul(p, ':');
		if ((size_t)snprintf(out, cap, "%.*s%s%s", (int)(end - p), p, end > p ? "/" : "",
		                     command) < cap &&
		    access(out, F_OK) == 0)
			return true;
		if (!*end)
			return false;
	}
}

bool refusing_locate(const sbx_scopeattr_t *scope, const char *command, char *program, size_t cap)
{
	const struct sbx_scope *s = scope ? scope->__scope : NULL;
	char located[PATH_MAX], real[PATH_MAX];
	size_t i;

	/* No denial, nothing to name: no search before every exec. */
	for (i = 0; s && i < s->nrules && s->rules[i].mode != SBX_MODE_DENY; i++)
		;
	return s && i < s->nrules && locate(command, located, sizeof(located)) &&
	       sbx__resolve(located, real) == 0 &&
	       (size_t)snprintf(program, cap, "%s", real) < cap;
}

const char *refusing_denial(const sbx_scopeattr_t *scope, const char *program)
{
	const struct sbx_scope *s = scope ? scope->__scope : NULL;
	const struct sbx_scope_rule *nearest = NULL;

	for (size_t i = 0; s && i < s->nrules; i++) {
		const struct sbx_scope_rule *r = &s->rules[i];

		/* At one path the widest mode wins, as in the tree the
		 * compile builds: a re-admission of the denied path itself. */
		if (sbx__path_covers(r->path, program) &&
		    (!nearest || strlen(r->path) > strlen(nearest->path) ||
		     (!strcmp(r->path, nearest->path) && r->mode > nearest->mode)))
			nearest = r;
	}
	return nearest && nearest->mode == SBX_MODE_DENY ? nearest->path : NULL;
}
