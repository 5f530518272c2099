/* sbx_scopeattr_t, the public scope calls: the caller's description of what a child
 * may reach, each path resolved when it is added (resolve.c); a change
 * discards what was compiled of it (ruleset.c). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
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
	if (!scope->__scope)
		return ENOMEM;
	return 0;
}

SBX_EXPORT int sbx_scopeattr_destroy(sbx_scopeattr_t *scope)
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	struct sbx_scope *s = scope->__scope;

	if (!s)
		return EINVAL;
	sbx__ruleset_forget(s);
	for (size_t i = 0; i < s->nrules; i++) {
		free(s->rules[i].path);
		free(s->rules[i].written);
	}
	free(s->rules);
	free(s->ports);
	free(s);
	memset(scope, 0, sizeof(*scope));
	return 0;
}

static int add(sbx_scopeattr_t *scope, enum sbx_mode mode, const char *path)
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	struct sbx_scope *s = scope->__scope;
	struct sbx_scope_rule *grown;
	char resolved[PATH_MAX], written[PATH_MAX], *copy, *as_written = NULL;
	int err;

	if (!s || !path)
		return EINVAL;
	if (!*path)
		return ENOENT; /* as open(2) says of an empty name */
	/* Resolved now, once: what a confined child later does to a symlink
	 * on the way cannot move what this scope names. */
	if ((err = sbx__resolve(path, resolved)))
		return err;
	/* A symlink on the way to a re-admission or a read-only path: how it
	 * was written is kept, for a symlink a confined child planted in a
	 * place it may write must not lead a later scope into a denial (the
	 * compile decides, tree.c).  Where it cannot be written out (no
	 * working directory, too long), it counts as through a symlink. */
	if (mode != SBX_MODE_DENY) {
		bool unwritten = sbx__path_written(path, written) != 0;

		if ((unwritten || strcmp(written, resolved)) &&
		    !(as_written = strdup(unwritten ? path : written)))
			return ENOMEM;
	}
	if (!(grown = sbx__grow(s->rules, &s->cap, s->nrules + 1, sizeof(*s->rules))) ||
	    !(copy = strdup(resolved))) {
		if (grown)
			s->rules = grown;
		free(as_written);
		return ENOMEM;
	}
	s->rules = grown;
	sbx__ruleset_forget(s);
	s->rules[s->nrules++] = (struct sbx_scope_rule){ .mode = mode, .path = copy,
	                                                 .written = as_written };
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

#define KNOWN_FLAGS (SBX_SCOPE_REQUIRE | SBX_SCOPE_STRICT | SBX_SCOPE_NO_TCP_BIND |           \
		     SBX_SCOPE_NO_TCP_CONNECT | SBX_SCOPE_NO_ABSTRACT_UNIX | SBX_SCOPE_NO_SIGNAL | \
		     SBX_SCOPE_NO_UNIX_CONNECT | SBX_SCOPE_NO_IO_URING | SBX_SCOPE_DROP_CAPS |     \
		     SBX_SCOPE_LISTABLE)

SBX_EXPORT int sbx_scopeattr_setflags(sbx_scopeattr_t *scope, int flags)
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	if (!scope->__scope || (flags & ~KNOWN_FLAGS))
		return EINVAL;
	if (scope->__scope->flags != flags)
		sbx__ruleset_forget(scope->__scope);
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

SBX_EXPORT int sbx_scopeattr_allowtcp(sbx_scopeattr_t *scope, int access, unsigned port)
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	struct sbx_scope *s = scope->__scope;
	struct sbx_port *grown;

	if (!s || !access || (access & ~(SBX_TCP_BIND | SBX_TCP_CONNECT)) || port > 65535)
		return EINVAL;
	if (!(grown = sbx__grow(s->ports, &s->ports_cap, s->nports + 1, sizeof(*s->ports))))
		return ENOMEM;
	s->ports = grown;
	sbx__ruleset_forget(s);
	s->ports[s->nports++] = (struct sbx_port){ .access = access, .port = port };
	if (access & SBX_TCP_BIND)
		s->flags |= SBX_SCOPE_NO_TCP_BIND;
	if (access & SBX_TCP_CONNECT)
		s->flags |= SBX_SCOPE_NO_TCP_CONNECT;
	return 0;
}

SBX_EXPORT int sbx_scopeattr_setids(sbx_scopeattr_t *scope, uid_t uid, gid_t gid)
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	struct sbx_scope *s = scope->__scope;

	if (!s || (uid != (uid_t)-1 && gid == (gid_t)-1))
		return EINVAL;
	if (s->ids != (uid != (uid_t)-1) || s->uid != uid || s->gid != gid)
		sbx__ruleset_forget(s);
	s->ids = uid != (uid_t)-1;
	s->uid = uid;
	s->gid = gid;
	return 0;
}

SBX_EXPORT int sbx_scopeattr_getids(const sbx_scopeattr_t *restrict scope, uid_t *restrict uid,
                                    gid_t *restrict gid)
{
	const struct sbx_scope *s = scope->__scope;

	if (!s)
		return EINVAL;
	*uid = s->ids ? s->uid : (uid_t)-1;
	*gid = s->ids ? s->gid : (gid_t)-1;
	return 0;
}

SBX_EXPORT int sbx_scopeattr_setabi(sbx_scopeattr_t *scope, int abi)
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	if (!scope->__scope || abi < 0 || abi > ABI_MAX)
		return EINVAL;
	if (scope->__scope->abi_cap != abi)
		sbx__ruleset_forget(scope->__scope);
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

