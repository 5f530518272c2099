/* SPDX-License-Identifier: MIT */
/* The child's environment: the envp the caller passes, less what the scope
 * unsets (names, fnmatch(3) patterns, the named set of secrets), with what
 * it sets and its TMPDIR; or, cleared, only those.  Built in the parent as
 * a copy, before the clone: the caller's array is never touched. */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compat/compat.h"
#include "lib/internal.h"

/* The named set: what holds a credential by the words of its name, and the
 * agents' sockets.  A convenience, not a guarantee: a secret under another
 * name passes. */
static const char *const secret_words[] = { "TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY",
	                                    "CREDENTIAL", "AUTH" };
static const char *const secret_names[] = { "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO" };

static size_t name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq ? (size_t)(eq - entry) : strlen(entry);
}

/* Whether the name (its first len bytes) holds word, case aside. */
static bool holds(const char *name, size_t len, const char *word)
{
	size_t w = strlen(word);

	for (size_t i = 0; i + w <= len; i++)
		if (!strncasecmp(name + i, word, w))
			return true;
	return false;
}

static bool secret(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(secret_names) / sizeof(secret_names[0]); i++)
		if (strlen(secret_names[i]) == len && !strncmp(name, secret_names[i], len))
			return true;
	for (size_t i = 0; i < sizeof(secret_words) / sizeof(secret_words[0]); i++)
		if (holds(name, len, secret_words[i]))
			return true;
	return false;
}

static bool same_name(const char *a, const char *b, size_t len)
{
	return name_len(a) == len && !strncmp(a, b, len);
}

/* Whether the scope takes entry (NAME=VALUE) out of the child's copy:
 * unset, or set anew, or TMPDIR where the scope gives one.  The whole name
 * is matched, however long (where it cannot be copied, it is taken out). */
static bool taken_out(const struct sbx_scope *s, const char *entry, bool tmpdir)
{
	size_t len = name_len(entry);
	char buf[256], *name = buf;
	bool out = false;

	if (tmpdir && same_name(entry, "TMPDIR", 6))
		return true;
	for (size_t i = 0; i < s->nenv_set; i++)
		if (same_name(s->env_set[i], entry, len))
			return true;
	if (!s->nenv_unset)
		return false;
	if (len >= sizeof(buf) && !(name = malloc(len + 1)))
		return true;
	memcpy(name, entry, len);
	name[len] = '\0';
	for (size_t i = 0; i < s->nenv_unset && !out; i++) {
		const char *p = s->env_unset[i];

		out = !strcmp(p, SBX_ENV_SECRETS) ? secret(name, len) : !fnmatch(p, name, 0);
	}
	if (name != buf)
		free(name);
	return out;
}

int sbx__scope_env(const struct sbx_scope *scope, char *const envp[], char *const **env,
                   char ***copy)
{
	const struct sbx_scope_rule *tmp = NULL;
	size_t n = 0, k = 0;
	char **e;

	*copy = NULL;
	for (size_t i = 0; scope && i < scope->nrules; i++)
		if (scope->rules[i].tmpdir)
			tmp = &scope->rules[i];
	if (!tmp && (!scope || (!scope->nenv_unset && !scope->nenv_set && !scope->env_clear))) {
		*env = envp;
		return 0;
	}
	while (envp && envp[n])
		n++;
	/* The pointers, then TMPDIR's one string, in one block. */
	if (!(e = malloc((n + scope->nenv_set + 2) * sizeof(*e) + strlen("TMPDIR=") +
	                 (tmp ? strlen(tmp->path) : 0) + 1)))
		return ENOMEM;
	for (size_t i = 0; i < n && !scope->env_clear; i++)
		if (!taken_out(scope, envp[i], tmp != NULL))
			e[k++] = envp[i];
	/* The temporary directory's TMPDIR wins over one set: it is the one
	 * the scope grants. */
	for (size_t i = 0; i < scope->nenv_set; i++)
		if (!tmp || !same_name(scope->env_set[i], "TMPDIR", 6))
			e[k++] = scope->env_set[i];
	if (tmp) {
		e[k] = (char *)(e + n + scope->nenv_set + 2);
		strcpy(stpcpy(e[k++], "TMPDIR="), tmp->path);
	}
	e[k] = NULL;
	*copy = e;
	*env = e;
	return 0;
}

/* A copy of item appended to the array *v of *n strings: 0, or ENOMEM
 * with the array as it was. */
static int push(char ***v, size_t *n, const char *item)
{
	char *copy = strdup(item), **grown;

	if (!copy || !(grown = realloc(*v, (*n + 1) * sizeof(*grown)))) {
		free(copy);
		return ENOMEM;
	}
	*v = grown;
	(*v)[(*n)++] = copy;
	return 0;
}

/* SBX_ENV_SET: NAME=VALUE, replacing the scope's own NAME. */
static int add_set(struct sbx_scope *s, const char *entry)
{
	size_t len = name_len(entry);
	char *copy;

	/* A name, then '=' (name_len stops at the first). */
	if (!strchr(entry, '=') || !len)
		return EINVAL;
	for (size_t i = 0; i < s->nenv_set; i++)
		if (same_name(s->env_set[i], entry, len)) {
			if (!(copy = strdup(entry)))
				return ENOMEM;
			free(s->env_set[i]);
			s->env_set[i] = copy;
			return 0;
		}
	return push(&s->env_set, &s->nenv_set, entry);
}

static int add_unset(struct sbx_scope *s, const char *pattern)
{
	/* '@' names a set: SBX_ENV_SECRETS is the one there is. */
	if (!*pattern || strchr(pattern, '=') || (*pattern == '@' && strcmp(pattern, SBX_ENV_SECRETS)))
		return EINVAL;
	return push(&s->env_unset, &s->nenv_unset, pattern);
}

SBX_EXPORT int sbx_scopeattr_addenv(sbx_scopeattr_t *restrict scope, int how,
                                    const char *restrict arg)
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	struct sbx_scope *s = scope ? scope->__scope : NULL;

	if (!s || (how != SBX_ENV_CLEAR && !arg) || (how == SBX_ENV_CLEAR && arg))
		return EINVAL;
	switch (how) {
	case SBX_ENV_UNSET:
		return add_unset(s, arg);
	case SBX_ENV_SET:
		return add_set(s, arg);
	case SBX_ENV_CLEAR:
		s->env_clear = true;
		return 0;
	default:
		return EINVAL;
	}
}

int sbx__scope_unsetlist(struct sbx_scope *s, const char *list, const char **bad, size_t *len)
{
	size_t before = s->nenv_unset;
	int err = 0;

	for (const char *p = list, *end; *p && !err; p = *end ? end + 1 : end) {
		char item[256];

		end = strchrnul(p, ':');
		if (end == p)
			continue;
		*bad = p;
		*len = (size_t)(end - p);
		if (*len >= sizeof(item)) {
			err = ENAMETOOLONG;
		} else {
			memcpy(item, p, *len);
			item[*len] = '\0';
			err = add_unset(s, item);
		}
	}
	if (err)
		sbx__scope_unset_truncate(s, before);
	return err;
}

void sbx__scope_unset_truncate(struct sbx_scope *s, size_t from)
{
	while (s->nenv_unset > from)
		free(s->env_unset[--s->nenv_unset]);
}

void sbx__scope_env_free(struct sbx_scope *s)
{
	for (size_t i = 0; i < s->nenv_set; i++)
		free(s->env_set[i]);
	for (size_t i = 0; i < s->nenv_unset; i++)
		free(s->env_unset[i]);
	free(s->env_set);
	free(s->env_unset);
}
