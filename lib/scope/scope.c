/* SPDX-License-Identifier: MIT */
/* sbx_scopeattr_t, the public scope calls: the caller's description of what a child
 * may reach, each path resolved when it is added (resolve.c); a change
 * discards what was compiled of it (ruleset.c). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/internal.h"

/* The highest Landlock ABI this library knows. */
#define ABI_MAX 9

SBX_EXPORT int sbx_scopeattr_init(sbx_scopeattr_t *scope)
{
	SBX_KEEP_ERRNO;

	memset(scope, 0, sizeof(*scope));
	scope->__scope = calloc(1, sizeof(*scope->__scope));
	if (!scope->__scope)
		return ENOMEM;
	scope->__scope->events = SBX_EVENTS_ALL;
	return 0;
}

static void free_rule(struct sbx_scope_rule *r)
{
	free(r->path);
	free(r->written);
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
		free_rule(&s->rules[i]);
	}
	for (size_t i = 0; i < sizeof(s->labels) / sizeof(s->labels[0]); i++)
		free(s->labels[i]);
	free(s->rules);
	free(s->ports);
	sbx__scope_env_free(s);
	sbx__scope_sockets_free(s);
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

void sbx__scope_truncate(struct sbx_scope *s, size_t from)
{
	while (s->nrules > from) {
		s->nrules--;
		free_rule(&s->rules[s->nrules]);
	}
}

int sbx__scope_addlist(sbx_scopeattr_t *scope, int mode, const char *list, const char **bad,
                       size_t *badlen)
{
	static const enum sbx_mode modes[] = { [SBX_DENY] = SBX_MODE_DENY,
		                               [SBX_ALLOW] = SBX_MODE_ALLOW,
		                               [SBX_READONLY] = SBX_MODE_READONLY };
	struct sbx_scope *s = scope->__scope;
	size_t before;
	int err = 0;

	if (!s || !list || mode < SBX_DENY || mode > SBX_READONLY)
		return EINVAL;
	before = s->nrules;
	for (const char *item = list, *end; *item && !err; item = *end ? end + 1 : end) {
		char path[PATH_MAX];
		size_t len;

		end = strchr(item, ':');
		if (!end)
			end = item + strlen(item);
		if (!(len = (size_t)(end - item)))
			continue;
		if (len >= sizeof(path)) {
			err = ENAMETOOLONG;
		} else {
			memcpy(path, item, len);
			path[len] = '\0';
			err = add(scope, modes[mode], path);
		}
		if (err) {
			*bad = item;
			*badlen = len;
		}
	}
	if (err)
		sbx__scope_truncate(s, before);
	return err;
}

/* What the events call what was given under what: the caller's label,
 * else the library's words (never its constants). */
static const char *label_of(const struct sbx_scope *s, int what)
{
	static const char *const words[] = { [SBX_DENY] = "the deny list",
		                             [SBX_ALLOW] = "the re-admission list",
		                             [SBX_READONLY] = "the read-only list",
		                             [SBX_TMPDIR] = "the temporary directory" };

	return s->labels[what] ? s->labels[what] : words[what];
}

/* An item given under what could not be added (len bytes of item, cut at
 * 200): one event, in the caller's words. */
static void say_item(const struct sbx_scope *s, int what, const char *item, size_t len, int err,
                     const char *then)
{
	char shown[256];

	snprintf(shown, sizeof(shown), "%.*s", len > 200 ? 200 : (int)len, item);
	sbx__event(s, SBX_EVENT_LIST, err, shown, label_of(s, what), "%s: %s%s: %s; %s",
	           label_of(s, what), shown, len > 200 ? "..." : "", strerror(err), then);
}

SBX_EXPORT int sbx_scopeattr_addlist(sbx_scopeattr_t *restrict scope, int mode,
                                     const char *restrict list)
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	const char *bad = NULL;
	size_t len = 0;
	int err = sbx__scope_addlist(scope, mode, list, &bad, &len);

	if (bad)
		say_item(scope->__scope, mode, bad, len, err, "nothing of the list was added");
	return err;
}

SBX_EXPORT int sbx_scopeattr_setlabel(sbx_scopeattr_t *restrict scope, int what,
                                      const char *restrict label)
{
	SBX_KEEP_ERRNO;
	struct sbx_scope *s = scope->__scope;
	char *copy = NULL;

	if (!s || what < SBX_DENY || what > SBX_TMPDIR || (label && strlen(label) > 100))
		return EINVAL;
	if (label && !(copy = strdup(label)))
		return ENOMEM;
	free(s->labels[what]);
	s->labels[what] = copy;
	return 0;
}

SBX_EXPORT int sbx_scopeattr_settmpdir(sbx_scopeattr_t *restrict scope, const char *restrict dir)
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	int err = sbx__scope_settmpdir(scope, dir);

	if (err && err != EINVAL && err != ENOMEM)
		say_item(scope->__scope, SBX_TMPDIR, dir, strlen(dir), err,
		         "the temporary directory is as it was");
	return err;
}

int sbx__scope_settmpdir(sbx_scopeattr_t *scope, const char *dir)
{
	struct sbx_scope *s = scope->__scope;
	struct stat st;
	size_t at;
	int err;

	if (!s)
		return EINVAL;
	if (dir && stat(dir, &st))
		return errno;
	if (dir && !S_ISDIR(st.st_mode))
		return ENOTDIR;
	if (dir) {
		/* The new one first: a failure leaves the old one in place. */
		if ((err = add(scope, SBX_MODE_ALLOW, dir)))
			return err;
		s->rules[s->nrules - 1].tmpdir = true;
	}
	/* The one it replaces (or that NULL removes) goes. */
	for (at = 0; at < s->nrules && !(s->rules[at].tmpdir && (!dir || at < s->nrules - 1)); at++)
		;
	if (at < s->nrules) {
		free_rule(&s->rules[at]);
		memmove(&s->rules[at], &s->rules[at + 1], (s->nrules - at - 1) * sizeof(*s->rules));
		s->nrules--;
		sbx__ruleset_forget(s);
	}
	return 0;
}

#define KNOWN_FLAGS (SBX_SCOPE_REQUIRE | SBX_SCOPE_STRICT | SBX_SCOPE_NO_TCP_BIND |           \
		     SBX_SCOPE_NO_TCP_CONNECT | SBX_SCOPE_NO_ABSTRACT_UNIX | SBX_SCOPE_NO_SIGNAL | \
		     SBX_SCOPE_NO_UNIX_CONNECT | SBX_SCOPE_NO_IO_URING | SBX_SCOPE_DROP_CAPS |     \
		     SBX_SCOPE_LISTABLE | SBX_SCOPE_SHARE_KEYRINGS | SBX_SCOPE_TUNE_PROCESSES |    \
		     SBX_SCOPE_LOG_DENIALS | SBX_SCOPE_HIDE | SBX_SCOPE_EXPAND |                  \
		     SBX_SCOPE_NO_NETWORK | SBX_SCOPE_DIE_WITH_PARENT)

SBX_EXPORT int sbx_scopeattr_setflags(sbx_scopeattr_t *scope, int flags)
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	if (!scope->__scope || (flags & ~KNOWN_FLAGS) ||
	    (flags & (SBX_SCOPE_HIDE | SBX_SCOPE_EXPAND)) == (SBX_SCOPE_HIDE | SBX_SCOPE_EXPAND))
		return EINVAL;
	if (scope->__scope->flags != flags)
		sbx__ruleset_forget(scope->__scope);
	scope->__scope->flags = flags;
	return 0;
}

/* Only these ask something of the child; the rest say how it is asked, or
 * keep what a NULL scope keeps too. */
#define CONTROL_FLAGS (KNOWN_FLAGS & ~(SBX_SCOPE_REQUIRE | SBX_SCOPE_STRICT | SBX_SCOPE_LISTABLE | \
                                       SBX_SCOPE_SHARE_KEYRINGS | SBX_SCOPE_TUNE_PROCESSES |   \
                                       SBX_SCOPE_LOG_DENIALS | SBX_SCOPE_HIDE |                \
                                       SBX_SCOPE_EXPAND | SBX_SCOPE_DIE_WITH_PARENT))

bool sbx__scope_empty(const struct sbx_scope *s)
{
	return !s->nrules && !(s->flags & CONTROL_FLAGS) && !s->nports && !s->ids && !s->rlimits_set && !s->cgroup &&
	       !s->nenv_unset && !s->nenv_set && !s->env_clear;
}

SBX_EXPORT int sbx_scopeattr_isempty(const sbx_scopeattr_t *restrict scope, int *restrict empty)
{
	const struct sbx_scope *s = scope->__scope;

	if (!s || !empty)
		return EINVAL;
	*empty = sbx__scope_empty(s);
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

/* A unix socket, or a directory of them, the child may connect to: where
 * the kernel mediates it, to no other (sockets.c). */
SBX_EXPORT int sbx_scopeattr_allowsocket(sbx_scopeattr_t *restrict scope, const char *restrict path)
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	struct sbx_scope *s = scope->__scope;
	char resolved[PATH_MAX], *copy, **grown;
	int err;

	if (!s || !path)
		return EINVAL;
	if (!*path)
		return ENOENT;
	if ((err = sbx__resolve(path, resolved)))
		return err;
	if (!(grown = sbx__grow(s->sockets, &s->sockets_cap, s->nsockets + 1, sizeof(*s->sockets))))
		return ENOMEM;
	s->sockets = grown;
	if (!(copy = strdup(resolved)))
		return ENOMEM;
	sbx__ruleset_forget(s);
	s->sockets[s->nsockets++] = copy;
	s->flags |= SBX_SCOPE_NO_UNIX_CONNECT;
	return 0;
}

void sbx__scope_sockets_free(struct sbx_scope *s)
{
	for (size_t i = 0; i < s->nsockets; i++)
		free(s->sockets[i]);
	free(s->sockets);
	s->sockets = NULL;
	s->nsockets = s->sockets_cap = 0;
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

SBX_EXPORT int sbx_scopeattr_setevents(sbx_scopeattr_t *scope, unsigned mask)
{
	if (!scope->__scope)
		return EINVAL;
	scope->__scope->events = mask;
	return 0;
}

SBX_EXPORT int sbx_scopeattr_getevents(const sbx_scopeattr_t *restrict scope, unsigned *restrict mask)
{
	if (!scope->__scope)
		return EINVAL;
	*mask = scope->__scope->events;
	return 0;
}

