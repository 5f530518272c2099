/* sbx_scopeattr_t: the caller's description of what a child may reach. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The highest Landlock ABI this library knows. */
#define ABI_MAX 9

SBX_EXPORT int sbx_scopeattr_init(sbx_scopeattr_t *scope)
{
	SBX_KEEP_ERRNO;

	memset(scope, 0, sizeof(*scope));
	scope->__scope = calloc(1, sizeof(*scope->__scope));
	return scope->__scope ? 0 : ENOMEM;
}

static void drop_snapshot(struct sbx_scope *s)
{
	if (s->snapshot) {
		sbx__ruleset_release(s->snapshot);
		free(s->snapshot);
		s->snapshot = NULL;
	}
}

SBX_EXPORT int sbx_scopeattr_destroy(sbx_scopeattr_t *scope)
{
	SBX_KEEP_ERRNO;
	struct sbx_scope *s = scope->__scope;

	if (!s)
		return EINVAL;
	drop_snapshot(s);
	for (size_t i = 0; i < s->nrules; i++)
		free(s->rules[i].path);
	free(s->rules);
	free(s);
	memset(scope, 0, sizeof(*scope));
	return 0;
}

static int add(sbx_scopeattr_t *scope, enum sbx_mode mode, const char *path)
{
	SBX_KEEP_ERRNO;
	struct sbx_scope *s = scope->__scope;
	char *copy;

	if (!s || !path)
		return EINVAL;
	if (!*path)
		return ENOENT; /* as open(2) says of an empty name */
	if (s->nrules == s->cap) {
		size_t n = s->cap ? 2 * s->cap : 8;
		struct sbx_scope_rule *grown = realloc(s->rules, n * sizeof(*grown));

		if (!grown)
			return ENOMEM;
		s->rules = grown;
		s->cap = n;
	}
	if (!(copy = strdup(path)))
		return ENOMEM;
	drop_snapshot(s);
	s->rules[s->nrules++] = (struct sbx_scope_rule){ .mode = mode, .path = copy };
	return 0;
}

SBX_EXPORT int sbx_scopeattr_adddeny(sbx_scopeattr_t *restrict scope, const char *restrict path)
{
	return add(scope, SBX_MODE_DENY, path);
}

SBX_EXPORT int sbx_scopeattr_addallow(sbx_scopeattr_t *restrict scope, const char *restrict path)
{
	return add(scope, SBX_MODE_ALLOW, path);
}

SBX_EXPORT int sbx_scopeattr_addreadonly(sbx_scopeattr_t *restrict scope, const char *restrict path)
{
	return add(scope, SBX_MODE_READONLY, path);
}

SBX_EXPORT int sbx_scopeattr_setflags(sbx_scopeattr_t *scope, int flags)
{
	if (!scope->__scope || (flags & ~SBX_SCOPE_REQUIRE))
		return EINVAL;
	if (scope->__scope->flags != flags)
		drop_snapshot(scope->__scope);
	scope->__scope->flags = flags;
	return 0;
}

SBX_EXPORT int sbx_scopeattr_getflags(const sbx_scopeattr_t *restrict scope, int *restrict flags)
{
	if (!scope->__scope)
		return EINVAL;
	*flags = scope->__scope->flags;
	return 0;
}

SBX_EXPORT int sbx_scopeattr_setabi(sbx_scopeattr_t *scope, int abi)
{
	if (!scope->__scope || abi < 0 || abi > ABI_MAX)
		return EINVAL;
	if (scope->__scope->abi_cap != abi)
		drop_snapshot(scope->__scope);
	scope->__scope->abi_cap = abi;
	return 0;
}

SBX_EXPORT int sbx_scopeattr_getabi(const sbx_scopeattr_t *restrict scope, int *restrict abi)
{
	if (!scope->__scope)
		return EINVAL;
	*abi = scope->__scope->abi_cap;
	return 0;
}

SBX_EXPORT int sbx_scopeattr_setlogger(sbx_scopeattr_t *scope, sbx_logger_t logger, void *arg)
{
	if (!scope->__scope)
		return EINVAL;
	scope->__scope->logger = logger;
	scope->__scope->logger_arg = arg;
	return 0;
}

SBX_EXPORT int sbx_scopeattr_compile(sbx_scopeattr_t *scope)
{
	SBX_KEEP_ERRNO;
	struct sbx_scope *s = scope->__scope;
	struct sbx_ruleset *rs;
	int err;

	if (!s)
		return EINVAL;
	if (!(rs = malloc(sizeof(*rs))))
		return ENOMEM;
	err = sbx__ruleset_compile(s, rs);
	if (err) {
		free(rs);
		return err;
	}
	drop_snapshot(s);
	s->snapshot = rs;
	return 0;
}
