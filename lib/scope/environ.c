/* SPDX-License-Identifier: MIT */
/* The environment convention: a scope from PREFIX_DENY, PREFIX_ALLOW,
 * PREFIX_READONLY, PREFIX_TMPDIR and the switches, so that every program
 * that confines its commands answers to the same variables, and a user
 * who learned them once knows them everywhere (sbx_scopeattr_readenv(3)
 * is where they are documented). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/internal.h"
#include "lib/switches.h"

extern char **environ;

/* The suffixes, each joined to the prefix with '_'. */
static const struct {
	const char *suffix;
	int list;   /* SBX_DENY, ...: a list of paths */
	int flag;   /* SBX_SCOPE_*: a switch */
	bool quiet; /* the switch that narrows the events */
} vars[] = {
	{ "DENY", SBX_DENY, 0, false },
	{ "ALLOW", SBX_ALLOW, 0, false },
	{ "READONLY", SBX_READONLY, 0, false },
	{ "TMPDIR", 0, 0, false },
#define SWITCH(name, flag) { name, 0, flag, false },
	SBX__SWITCHES(SWITCH)
#undef SWITCH
	{ "QUIET", 0, 0, true },
	{ "UNSETENV", 0, 0, false },
};
#define NVARS (sizeof(vars) / sizeof(vars[0]))

/* Longer prefixes are no one's: a name stays within what shells take. */
#define PREFIX_MAX 200

static bool prefix_valid(const char *prefix)
{
	return prefix && *prefix && strlen(prefix) <= PREFIX_MAX && !strchr(prefix, '=');
}

/* PREFIX_SUFFIX's value in envp, or NULL.  The first one, as getenv(3)
 * takes it. */
static const char *lookup(char *const envp[], const char *prefix, const char *suffix)
{
	size_t plen = strlen(prefix), slen = strlen(suffix);

	for (; envp && *envp; envp++) {
		const char *e = *envp;

		if (!strncmp(e, prefix, plen) && e[plen] == '_' && !strncmp(e + plen + 1, suffix, slen) &&
		    e[plen + 1 + slen] == '=')
			return e + plen + 2 + slen;
	}
	return NULL;
}

/* A switch is on when set to anything but "" or "0": `VAR= tool` turns it
 * off, as an empty list configures nothing. */
static bool on(const char *value)
{
	return value && *value && strcmp(value, "0");
}

/* The SBX_EVENT_ENV of a variable that could not be applied. */
static void say(const struct sbx_scope *s, const char *prefix, const char *suffix, int err,
                const char *item, size_t len)
{
	char name[PREFIX_MAX + 16], shown[256];

	snprintf(name, sizeof(name), "%s_%s", prefix, suffix);
	snprintf(shown, sizeof(shown), "%.*s", len > 200 ? 200 : (int)len, item);
	sbx__event(s, SBX_EVENT_ENV, err, name, shown, "%s: %s%s: %s; nothing of %s_* was applied",
	           name, shown, len > 200 ? "..." : "", strerror(err), prefix);
}

/* The lists and the temporary directory, all or nothing: 0, or the error
 * (said) with the scope's rules as they were. */
static int read_paths(sbx_scopeattr_t *scope, const char *prefix, char *const envp[],
                      bool *configured)
{
	struct sbx_scope *s = scope->__scope;
	size_t before = s->nrules;
	int err = 0;

	for (size_t i = 0; i < NVARS && !err; i++) {
		const char *value = lookup(envp, prefix, vars[i].suffix), *bad = NULL;
		size_t len = 0;

		if (!value || !*value || (!vars[i].list && strcmp(vars[i].suffix, "TMPDIR")))
			continue;
		if (vars[i].list) {
			err = sbx__scope_addlist(scope, vars[i].list, value, &bad, &len);
		} else {
			err = sbx__scope_settmpdir(scope, value);
			bad = value;
			len = strlen(value);
			*configured |= !err;
		}
		if (err)
			say(s, prefix, vars[i].suffix, err, bad ? bad : value,
			    bad ? len : strlen(value));
	}
	/* settmpdir comes last of what can fail, so only lists are taken back. */
	if (err)
		sbx__scope_truncate(s, before);
	else
		*configured |= s->nrules > before;
	return err;
}

/* PREFIX_UNSETENV: names and patterns left out of the child's environment,
 * ':'-separated (sbx_scopeattr_addenv's SBX_ENV_UNSET each), all or
 * nothing; read before the paths, which are read only where it held. */
static int read_unsets(sbx_scopeattr_t *scope, const char *prefix, char *const envp[],
                       bool *configured)
{
	struct sbx_scope *s = scope->__scope;
	const char *value = lookup(envp, prefix, "UNSETENV"), *bad = NULL;
	size_t len = 0, before = s->nenv_unset;
	int err;

	if (!value || !*value)
		return 0;
	if ((err = sbx__scope_unsetlist(s, value, &bad, &len))) {
		say(s, prefix, "UNSETENV", err, bad ? bad : value, bad ? len : strlen(value));
		return err;
	}
	*configured |= s->nenv_unset > before;
	return 0;
}

SBX_EXPORT int sbx_scopeattr_readenv(sbx_scopeattr_t *restrict scope, const char *restrict prefix,
                                     char *const envp[], int *restrict configured)
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	struct sbx_scope *s = scope->__scope;
	bool any = false;
	int flags = 0, err;
	size_t unsets;

	if (!s || !prefix_valid(prefix))
		return EINVAL;
	if (!envp)
		envp = environ;
	/* One way of denying, or the other: both is no way at all. */
	if (on(lookup(envp, prefix, "HIDE")) && on(lookup(envp, prefix, "EXPAND"))) {
		say(s, prefix, "HIDE", EINVAL, "set beside _EXPAND, which asks the opposite", 43);
		return EINVAL;
	}
	/* The unsets first: where the paths then fail, they are taken back. */
	unsets = s->nenv_unset;
	if ((err = read_unsets(scope, prefix, envp, &any)))
		return err;
	if ((err = read_paths(scope, prefix, envp, &any))) {
		sbx__scope_unset_truncate(s, unsets);
		return err;
	}
	for (size_t i = 0; i < NVARS; i++) {
		const char *value = lookup(envp, prefix, vars[i].suffix);

		if (vars[i].flag && on(value))
			flags |= vars[i].flag;
		/* A control asks something of a child: a scope is made. */
		if (vars[i].flag == SBX_SCOPE_NO_NETWORK && on(value))
			any = true;
		if (vars[i].quiet && on(value))
			s->events &= SBX_EVENTS_QUIET;
	}
	/* A way from the environment takes the place of the scope's own. */
	if (flags & (SBX_SCOPE_HIDE | SBX_SCOPE_EXPAND))
		flags |= s->flags & ~(SBX_SCOPE_HIDE | SBX_SCOPE_EXPAND);
	else
		flags |= s->flags;
	if (flags != s->flags) {
		sbx__ruleset_forget(s);
		s->flags = flags;
	}
	/* What the library says of this scope names the variables, which
	 * are what its user sets (the first prefix that made it, kept). */
	if (any && !s->env_prefix[0])
		snprintf(s->env_prefix, sizeof(s->env_prefix), "%s", prefix);
	if (configured)
		*configured = any;
	return 0;
}

SBX_EXPORT int sbx_env_unset(const char *prefix)
{
	SBX_KEEP_ERRNO;
	char name[PREFIX_MAX + 16];

	if (!prefix_valid(prefix))
		return EINVAL;
	for (size_t i = 0; i < NVARS; i++) {
		snprintf(name, sizeof(name), "%s_%s", prefix, vars[i].suffix);
		if (unsetenv(name))
			return errno;
	}
	return 0;
}

SBX_EXPORT int sbx_scopeattr_fromenv(sbx_scopeattr_t *restrict scope, const char *restrict prefix,
                                     int *restrict configured)
{
	SBX_KEEP_ERRNO;
	/* Every kind but a list item's and the variables' own: a check
	 * compile says nothing a spawn's compile will say again, and why no
	 * command could run is said in one line, in the variables' words. */
	const unsigned quiet = ~(SBX_EVENT_BIT(SBX_EVENT_LIST) | SBX_EVENT_BIT(SBX_EVENT_ENV));
	const unsigned why_kinds = SBX_EVENT_BIT(SBX_EVENT_REFUSED) | SBX_EVENT_BIT(SBX_EVENT_FAILED);
	char why[4096] = "";
	int any = 0, err;
	unsigned was;

	if (!scope || !configured)
		return EINVAL;
	/* Whatever fails, a destroy of scope is safe. */
	*configured = 0;
	*scope = (sbx_scopeattr_t){ 0 };
	if (!prefix_valid(prefix))
		return EINVAL;
	if ((err = sbx_scopeattr_init(scope)))
		return err;
	err = sbx_scopeattr_readenv(scope, prefix, NULL, &any);
	/* Early, and keeping nothing: a compile, as a spawn's would be (the
	 * way it would take, hidden or expanded, nested or not), let go at
	 * once (a snapshot kept would be applied to every spawn, what
	 * vanished meanwhile left out). */
	if (!err && any) {
		was = sbx__events_mute(quiet);
		sbx__events_keep(why_kinds, why, sizeof(why));
		err = sbx_scopeattr_compile(scope);
		sbx__events_keep(0, NULL, 0);
		sbx__events_mute(was);
		sbx__ruleset_forget(scope->__scope);
		if (err)
			sbx__event(scope->__scope, SBX_EVENT_ENV, err, prefix, NULL,
			           "%s_*: no command could run under the scope they make: %s", prefix,
			           why[0] ? why : sbx_strerror(err));
	}
	/* A command started under the scope, another run of the program, is
	 * inside it already: it is not to read the variables again. */
	if (!err)
		err = sbx_env_unset(prefix);
	if (err) {
		sbx_scopeattr_destroy(scope);
		return err;
	}
	*configured = any;
	return 0;
}
