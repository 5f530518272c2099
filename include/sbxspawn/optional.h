/* SPDX-License-Identifier: MIT */
/*
 * <sbxspawn/optional.h>: libsbxspawn where a program is built with it,
 * posix_spawn where it is not, under the same names.
 *
 * A program that must also build where the library is absent copies this
 * one file into its tree and includes it instead of <sbxspawn/sbxspawn.h>.
 * Its build defines HAVE_SBXSPAWN to 1 where it links the library (the
 * autotools way: AC_DEFINE it when PKG_CHECK_MODULES finds sbxspawn), and
 * the calls are the library's.  Otherwise they are defined here over the C
 * library alone, C99 or C++: the file actions are posix_spawn's, the spawn
 * is posix_spawn(3), sbx_system is system(3), sbx_strerror is strerror(3),
 * and a scope confines nothing.  The header is not found by looking for
 * <sbxspawn/sbxspawn.h>: a header present proves nothing of the link.
 *
 * Without the library a scope is kept, so that the program's code is the
 * same, and a spawn with one that asks something runs the command as the
 * library's portable build does: unconfined, after one line saying so,
 * unless SBX_SCOPE_REQUIRE (ENOTSUP), or another uid or dropped
 * capabilities were asked for (SBX_EREFUSED, nothing runs).
 * sbx_scopeattr_readenv reads the same variables, so that a user who set
 * TOOL_SBX_DENY for a program built without the library is told.  The
 * temporary directory is not put in the command's environment: nothing
 * is there to re-admit it from.  sbxspawn-optional(7) has the rest.
 */
#ifndef SBXSPAWN_OPTIONAL_H
#define SBXSPAWN_OPTIONAL_H

#if defined(HAVE_SBXSPAWN) && (HAVE_SBXSPAWN + 0)

#include <sbxspawn/sbxspawn.h>

/* Whether the calls confine: the library's. */
#define SBX_OPTIONAL_LIBRARY 1

#else /* the C library alone */

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SBX_OPTIONAL_LIBRARY 0

extern char **environ;

#define SBX_EREFUSED 2001
#define SBX_EXIT_REFUSED 125

#define SBX_SCOPE_REQUIRE 0x1
#define SBX_SCOPE_STRICT 0x2
#define SBX_SCOPE_NO_TCP_BIND 0x4
#define SBX_SCOPE_NO_TCP_CONNECT 0x8
#define SBX_SCOPE_NO_ABSTRACT_UNIX 0x10
#define SBX_SCOPE_NO_SIGNAL 0x20
#define SBX_SCOPE_NO_UNIX_CONNECT 0x40
#define SBX_SCOPE_NO_IO_URING 0x80
#define SBX_SCOPE_DROP_CAPS 0x100
#define SBX_SCOPE_LISTABLE 0x200
#define SBX_SCOPE_SHARE_KEYRINGS 0x400
#define SBX_SCOPE_TUNE_PROCESSES 0x800
#define SBX_SCOPE_LOG_DENIALS 0x1000
#define SBX_SCOPE_HIDE 0x2000
#define SBX_SCOPE_EXPAND 0x4000
#define SBX_SCOPE_NO_NETWORK 0x8000
#define SBX_SCOPE_DIE_WITH_PARENT 0x10000
#define SBX_TCP_BIND 0x1
#define SBX_TCP_CONNECT 0x2
#define SBX_DENY 1
#define SBX_ALLOW 2
#define SBX_READONLY 3
#define SBX_TMPDIR 4
#define SBX_ENV_UNSET 1
#define SBX_ENV_SET 2
#define SBX_ENV_CLEAR 3
#define SBX_ENV_SECRETS "@secrets"

enum sbx_event_kind {
	SBX_EVENT_DROPPED = 1, SBX_EVENT_UNCONFINED, SBX_EVENT_IGNORED_DENY, SBX_EVENT_ALIAS,
	SBX_EVENT_REFUSED, SBX_EVENT_EXPAND, SBX_EVENT_DOWNGRADED, SBX_EVENT_PRIVILEGED,
	SBX_EVENT_FROZEN, SBX_EVENT_FAILED, SBX_EVENT_VANISHED, SBX_EVENT_IGNORED_LINK,
	SBX_EVENT_LIST, SBX_EVENT_ENV, SBX_EVENT_HIDING
};
#define SBX_EVENT_BIT(kind) (1u << (kind))
#define SBX_EVENTS_ALL 0xffffffffu
#define SBX_EVENTS_QUIET (SBX_EVENT_BIT(SBX_EVENT_REFUSED) | SBX_EVENT_BIT(SBX_EVENT_FAILED) | \
                          SBX_EVENT_BIT(SBX_EVENT_LIST) | SBX_EVENT_BIT(SBX_EVENT_ENV))

typedef struct sbx_event {
	int kind, error;
	const char *path, *path2, *message;
} sbx_event_t;
typedef void (*sbx_logger_t)(const sbx_event_t *event, void *arg);

enum sbx_confinement {
	SBX_OUTCOME_NONE = 0, SBX_OUTCOME_CONFINED, SBX_OUTCOME_NARROWED, SBX_OUTCOME_UNCONFINED,
	SBX_OUTCOME_REFUSED
};
enum sbx_stage {
	SBX_STAGE_NONE = 0, SBX_STAGE_SETUP, SBX_STAGE_ATTR, SBX_STAGE_FILE_ACTION,
	SBX_STAGE_CONFINE, SBX_STAGE_EXEC
};
#define SBX_PRIVILEGE_ROOT 0x1
#define SBX_PRIVILEGE_CAPS 0x2

typedef struct sbx_outcome {
	int confinement, abi, kernel_abi;
	unsigned rules, dropped;
	const char *const *dropped_paths;
	int stage, action, error, controls, privilege;
	unsigned hidden, expanded;
} sbx_outcome_t;

/* ---- file actions: posix_spawn's own ---------------------------------- */

typedef posix_spawn_file_actions_t sbx_file_actions_t;

static inline int sbx_file_actions_init(sbx_file_actions_t *fa)
{
	return posix_spawn_file_actions_init(fa);
}
static inline int sbx_file_actions_destroy(sbx_file_actions_t *fa)
{
	return posix_spawn_file_actions_destroy(fa);
}
static inline int sbx_file_actions_addopen(sbx_file_actions_t *fa, int fd, const char *path,
                                           int oflag, mode_t mode)
{
	return posix_spawn_file_actions_addopen(fa, fd, path, oflag, mode);
}
static inline int sbx_file_actions_addclose(sbx_file_actions_t *fa, int fd)
{
	return posix_spawn_file_actions_addclose(fa, fd);
}
static inline int sbx_file_actions_adddup2(sbx_file_actions_t *fa, int fd, int newfd)
{
	return posix_spawn_file_actions_adddup2(fa, fd, newfd);
}

/* The _np actions where glibc declares them (2.29, 2.34, 2.35, under
 * _GNU_SOURCE); elsewhere ENOTSUP, as the portable build says. */
#if defined(__GLIBC__) && defined(__USE_GNU) && defined(__GLIBC_PREREQ)
#if __GLIBC_PREREQ(2, 29)
#define SBX_OPTIONAL_CHDIR 1
#endif
#if __GLIBC_PREREQ(2, 34)
#define SBX_OPTIONAL_CLOSEFROM 1
#endif
#if __GLIBC_PREREQ(2, 35)
#define SBX_OPTIONAL_TCSETPGRP 1
#endif
#endif

static inline int sbx_file_actions_addchdir(sbx_file_actions_t *fa, const char *path)
{
#ifdef SBX_OPTIONAL_CHDIR
	return posix_spawn_file_actions_addchdir_np(fa, path);
#else
	(void)fa, (void)path;
	return ENOTSUP;
#endif
}
static inline int sbx_file_actions_addfchdir(sbx_file_actions_t *fa, int fd)
{
#ifdef SBX_OPTIONAL_CHDIR
	return posix_spawn_file_actions_addfchdir_np(fa, fd);
#else
	(void)fa, (void)fd;
	return ENOTSUP;
#endif
}
static inline int sbx_file_actions_addclosefrom(sbx_file_actions_t *fa, int from)
{
#ifdef SBX_OPTIONAL_CLOSEFROM
	return posix_spawn_file_actions_addclosefrom_np(fa, from);
#else
	(void)fa, (void)from;
	return ENOTSUP;
#endif
}
static inline int sbx_file_actions_addtcsetpgrp(sbx_file_actions_t *fa, int tcfd)
{
#ifdef SBX_OPTIONAL_TCSETPGRP
	return posix_spawn_file_actions_addtcsetpgrp_np(fa, tcfd);
#else
	(void)fa, (void)tcfd;
	return ENOTSUP;
#endif
}

/* ---- words -------------------------------------------------------------- */

static inline const char *sbx_strerror(int err)
{
	if (err == SBX_EREFUSED)
		return "the scope's confinement is refused (Landlock refused the ruleset, or a control "
		       "could not be applied): nothing runs under it";
	/* What the fallback cannot do, which a program asked for (under
	 * SBX_SCOPE_REQUIRE, a confinement): its cause, named. */
	if (err == ENOTSUP)
		return "Operation not supported: this program was built without libsbxspawn (it "
		       "cannot confine a command, which SBX_SCOPE_REQUIRE asks for, nor change its "
		       "environment, nor add a file action its C library lacks)";
	return strerror(err);
}
static inline const char *sbx_outcome_name(int confinement)
{
	static const char *const names[] = { "none", "confined", "narrowed", "unconfined",
		                             "refused" };

	return confinement >= 0 && confinement <= SBX_OUTCOME_REFUSED ? names[confinement]
	                                                               : "unknown";
}
static inline const char *sbx_stage_name(int stage)
{
	static const char *const names[] = { "none",        "setup",       "attribute",
		                             "file action", "confinement", "exec" };

	return stage >= 0 && stage <= SBX_STAGE_EXEC ? names[stage] : "unknown";
}
static inline int sbx_outcome_get(sbx_outcome_t *outcome)
{
	memset(outcome, 0, sizeof(*outcome));
	outcome->action = -1;
	return 0;
}
static inline void sbx_logger_default(const sbx_event_t *event, void *arg)
{
	(void)arg;
	if (event->kind != SBX_EVENT_EXPAND)
		fprintf(stderr, "sbxspawn: %s\n", event->message);
}

/* ---- the scope: kept, never applied ------------------------------------ */

typedef struct sbx_scopeattr {
	int __init, __paths, __tmpdir, __flags, __ports, __ids, __abi;
	uid_t __uid;
	gid_t __gid;
	unsigned __events;
	sbx_logger_t __logger;
	void *__logger_arg;
} sbx_scopeattr_t;

#define SBX_OPTIONAL_FLAGS 0x1ffff
#define SBX_OPTIONAL_CONTROLS (SBX_OPTIONAL_FLAGS & ~(SBX_SCOPE_REQUIRE | SBX_SCOPE_STRICT | \
                                                     SBX_SCOPE_LISTABLE |                    \
                                                     SBX_SCOPE_SHARE_KEYRINGS |              \
                                                     SBX_SCOPE_TUNE_PROCESSES |              \
                                                     SBX_SCOPE_LOG_DENIALS | SBX_SCOPE_HIDE | \
                                                     SBX_SCOPE_EXPAND | \
                                                     SBX_SCOPE_DIE_WITH_PARENT))

static inline void sbx_optional_say(const sbx_scopeattr_t *s, int kind, int err,
                                    const char *path, const char *path2, const char *message)
{
	sbx_event_t ev;

	if (!(s->__events & SBX_EVENT_BIT(kind)))
		return;
	ev.kind = kind;
	ev.error = err;
	ev.path = path;
	ev.path2 = path2;
	ev.message = message;
	(s->__logger ? s->__logger : sbx_logger_default)(&ev, s->__logger_arg);
}

static inline int sbx_scopeattr_init(sbx_scopeattr_t *scope)
{
	memset(scope, 0, sizeof(*scope));
	scope->__init = 1;
	scope->__events = SBX_EVENTS_ALL;
	return 0;
}
static inline int sbx_scopeattr_destroy(sbx_scopeattr_t *scope)
{
	if (!scope->__init)
		return EINVAL;
	scope->__init = 0;
	return 0;
}
static inline int sbx_optional_add(sbx_scopeattr_t *scope, const char *path)
{
	if (!scope->__init || !path)
		return EINVAL;
	if (!*path)
		return ENOENT;
	scope->__paths++;
	return 0;
}
static inline int sbx_scopeattr_adddeny(sbx_scopeattr_t *scope, const char *path)
{
	return sbx_optional_add(scope, path);
}
static inline int sbx_scopeattr_addallow(sbx_scopeattr_t *scope, const char *path)
{
	return sbx_optional_add(scope, path);
}
static inline int sbx_scopeattr_addreadonly(sbx_scopeattr_t *scope, const char *path)
{
	return sbx_optional_add(scope, path);
}
static inline int sbx_scopeattr_addlist(sbx_scopeattr_t *scope, int mode, const char *list)
{
	if (!scope->__init || !list || mode < SBX_DENY || mode > SBX_READONLY)
		return EINVAL;
	if (list[strspn(list, ":")])
		scope->__paths++;
	return 0;
}
static inline int sbx_scopeattr_settmpdir(sbx_scopeattr_t *scope, const char *dir)
{
	struct stat st;

	if (!scope->__init)
		return EINVAL;
	if (dir && stat(dir, &st))
		return errno;
	if (dir && !S_ISDIR(st.st_mode))
		return ENOTDIR;
	scope->__tmpdir = dir != NULL;
	return 0;
}
/* The child's environment is not changed by a build without the library:
 * said, rather than secrets passed on quietly. */
static inline int sbx_scopeattr_addenv(sbx_scopeattr_t *scope, int how, const char *arg)
{
	(void)how;
	(void)arg;
	return scope->__init ? ENOTSUP : EINVAL;
}
/* Nothing here fails for an item: the words are not needed. */
static inline int sbx_scopeattr_setlabel(sbx_scopeattr_t *scope, int what, const char *label)
{
	if (!scope->__init || what < SBX_DENY || what > SBX_TMPDIR || (label && strlen(label) > 100))
		return EINVAL;
	return 0;
}
static inline int sbx_scopeattr_setflags(sbx_scopeattr_t *scope, int flags)
{
	if (!scope->__init || (flags & ~SBX_OPTIONAL_FLAGS) ||
	    (flags & (SBX_SCOPE_HIDE | SBX_SCOPE_EXPAND)) == (SBX_SCOPE_HIDE | SBX_SCOPE_EXPAND))
		return EINVAL;
	scope->__flags = flags;
	return 0;
}
static inline int sbx_scopeattr_getflags(const sbx_scopeattr_t *scope, int *flags)
{
	if (!scope->__init)
		return EINVAL;
	*flags = scope->__flags;
	return 0;
}
static inline int sbx_scopeattr_allowtcp(sbx_scopeattr_t *scope, int access, unsigned port)
{
	if (!scope->__init || !access || (access & ~(SBX_TCP_BIND | SBX_TCP_CONNECT)) || port > 65535)
		return EINVAL;
	scope->__ports++;
	scope->__flags |= ((access & SBX_TCP_BIND) ? SBX_SCOPE_NO_TCP_BIND : 0) |
	                  ((access & SBX_TCP_CONNECT) ? SBX_SCOPE_NO_TCP_CONNECT : 0);
	return 0;
}
/* Without the library no child's limits can be set before its exec. */
struct rlimit; /* <sys/resource.h> */
static inline int sbx_scopeattr_setrlimit(sbx_scopeattr_t *scope, int resource,
                                          const struct rlimit *limit)
{
	if (!scope->__init || resource < 0 || resource >= 16)
		return EINVAL;
	return limit ? ENOTSUP : 0;
}
static inline int sbx_scopeattr_getrlimit(const sbx_scopeattr_t *scope, int resource,
                                          struct rlimit *limit)
{
	if (!scope->__init || resource < 0 || resource >= 16 || !limit)
		return EINVAL;
	return ENOENT;
}
/* Nor a control group joined before its exec. */
static inline int sbx_scopeattr_setcgroup(sbx_scopeattr_t *scope, int dirfd)
{
	if (!scope->__init || dirfd < -1)
		return EINVAL;
	return dirfd >= 0 ? ENOTSUP : 0;
}
static inline int sbx_scopeattr_getcgroup(const sbx_scopeattr_t *scope, int *dirfd)
{
	if (!scope->__init || !dirfd)
		return EINVAL;
	*dirfd = -1;
	return 0;
}
static inline int sbx_scopeattr_allowsocket(sbx_scopeattr_t *scope, const char *path)
{
	int err = sbx_optional_add(scope, path);

	if (!err)
		scope->__flags |= SBX_SCOPE_NO_UNIX_CONNECT;
	return err;
}
static inline int sbx_scopeattr_setids(sbx_scopeattr_t *scope, uid_t uid, gid_t gid)
{
	if (!scope->__init || (uid != (uid_t)-1 && gid == (gid_t)-1))
		return EINVAL;
	scope->__ids = uid != (uid_t)-1;
	scope->__uid = uid;
	scope->__gid = gid;
	return 0;
}
static inline int sbx_scopeattr_getids(const sbx_scopeattr_t *scope, uid_t *uid, gid_t *gid)
{
	if (!scope->__init)
		return EINVAL;
	*uid = scope->__ids ? scope->__uid : (uid_t)-1;
	*gid = scope->__ids ? scope->__gid : (gid_t)-1;
	return 0;
}
static inline int sbx_scopeattr_setabi(sbx_scopeattr_t *scope, int abi)
{
	if (!scope->__init || abi < 0 || abi > 9)
		return EINVAL;
	scope->__abi = abi;
	return 0;
}
static inline int sbx_scopeattr_getabi(const sbx_scopeattr_t *scope, int *abi)
{
	if (!scope->__init)
		return EINVAL;
	*abi = scope->__abi;
	return 0;
}
static inline int sbx_scopeattr_setlogger(sbx_scopeattr_t *scope, sbx_logger_t logger, void *arg)
{
	if (!scope->__init)
		return EINVAL;
	scope->__logger = logger;
	scope->__logger_arg = arg;
	return 0;
}
static inline int sbx_scopeattr_setevents(sbx_scopeattr_t *scope, unsigned mask)
{
	if (!scope->__init)
		return EINVAL;
	scope->__events = mask;
	return 0;
}
static inline int sbx_scopeattr_getevents(const sbx_scopeattr_t *scope, unsigned *mask)
{
	if (!scope->__init)
		return EINVAL;
	*mask = scope->__events;
	return 0;
}
static inline int sbx_scopeattr_isempty(const sbx_scopeattr_t *scope, int *empty)
{
	if (!scope->__init || !empty)
		return EINVAL;
	*empty = !scope->__paths && !scope->__tmpdir && !(scope->__flags & SBX_OPTIONAL_CONTROLS) &&
	         !scope->__ports && !scope->__ids;
	return 0;
}
static inline int sbx_scopeattr_compile(sbx_scopeattr_t *scope)
{
	if (!scope->__init)
		return EINVAL;
	return (scope->__flags & SBX_SCOPE_REQUIRE) ? ENOTSUP : 0;
}

/* ---- explaining a path: with no library, nothing is confined ---------- */

#define SBX_ACCESS_READ 0x1
#define SBX_ACCESS_WRITE 0x2
#define SBX_ACCESS_EXECUTE 0x4
#define SBX_ACCESS_LIST 0x8
#define SBX_ACCESS_CREATE 0x10
#define SBX_ACCESS_REMOVE 0x20
#define SBX_ACCESS_UNLINK 0x40

enum sbx_reason {
	SBX_REASON_GRANTED = 1, SBX_REASON_DENIED, SBX_REASON_READMITTED, SBX_REASON_READONLY,
	SBX_REASON_FROZEN, SBX_REASON_UNLISTED, SBX_REASON_DROPPED, SBX_REASON_UNCONFINED,
	SBX_REASON_REFUSED
};

typedef struct sbx_explanation {
	int access, reason;
	const char *rule, *frozen;
	int error, exists;
	const char *message;
} sbx_explanation_t;

/* Everything, honestly: a child of this program runs unconfined (or, where
 * the scope requires confinement or asks another uid, does not run). */
static inline int sbx_scopeattr_explain(const sbx_scopeattr_t *scope, const char *path,
                                        sbx_explanation_t *out)
{
	struct stat st;
	int refused;

	if (!scope || !scope->__init || !path || !out)
		return EINVAL;
	if (!*path)
		return ENOENT;
	memset(out, 0, sizeof(*out));
	out->exists = stat(path, &st) ? 0 : S_ISDIR(st.st_mode) ? 2 : 1;
	refused = (scope->__flags & (SBX_SCOPE_REQUIRE | SBX_SCOPE_DROP_CAPS)) || scope->__ids;
	out->reason = refused ? SBX_REASON_REFUSED : SBX_REASON_UNCONFINED;
	out->error = !refused ? 0 : (scope->__flags & SBX_SCOPE_REQUIRE) ? ENOTSUP : SBX_EREFUSED;
	out->access = refused ? 0
	              : SBX_ACCESS_READ | SBX_ACCESS_WRITE | SBX_ACCESS_EXECUTE | SBX_ACCESS_UNLINK |
	                (out->exists != 1 ? SBX_ACCESS_LIST | SBX_ACCESS_CREATE | SBX_ACCESS_REMOVE
	                                  : 0);
	out->message = refused          ? "nothing: no child runs: this program was built without "
	                                  "libsbxspawn"
	               : out->exists == 1 ? "read, write, execute, unlink: unconfined: this program "
	                                  "was built without libsbxspawn"
	                                : "read, write, execute, list, create, remove, unlink: "
	                                  "unconfined: this program was built without libsbxspawn";
	return 0;
}

/* ---- the environment convention (sbx_scopeattr_readenv(3)) ------------ */

static inline const char *sbx_optional_env(char *const envp[], const char *prefix,
                                           const char *suffix)
{
	size_t plen = strlen(prefix), slen = strlen(suffix);

	for (; envp && *envp; envp++)
		if (!strncmp(*envp, prefix, plen) && (*envp)[plen] == '_' &&
		    !strncmp(*envp + plen + 1, suffix, slen) && (*envp)[plen + 1 + slen] == '=')
			return *envp + plen + 2 + slen;
	return NULL;
}
static inline int sbx_optional_on(const char *value)
{
	return value && *value && strcmp(value, "0");
}
static inline int sbx_optional_prefix(const char *prefix)
{
	return prefix && *prefix && strlen(prefix) <= 200 && !strchr(prefix, '=');
}

/* A variable of the convention that could not be applied, said: err. */
static inline int sbx_optional_env_failed(const sbx_scopeattr_t *scope, const char *prefix,
                                          const char *suffix, const char *value, int err)
{
	char name[256], message[1024];

	snprintf(name, sizeof(name), "%s_%s", prefix, suffix);
	snprintf(message, sizeof(message), "%s: %.200s: %s; nothing of %s_* was applied", name,
	         value, sbx_strerror(err), prefix);
	sbx_optional_say(scope, SBX_EVENT_ENV, err, name, value, message);
	return err;
}
static inline int sbx_scopeattr_readenv(sbx_scopeattr_t *scope, const char *prefix,
                                        char *const envp[], int *configured)
{
	static const char *const lists[] = { "DENY", "ALLOW", "READONLY" };
	char *const *env = envp ? envp : environ;
	sbx_scopeattr_t s;
	const char *tmpdir, *unsets;
	int err = 0;

	if (!scope->__init || !sbx_optional_prefix(prefix))
		return EINVAL;
	s = *scope;
	for (int i = 0; i < 3; i++) {
		const char *list = sbx_optional_env(env, prefix, lists[i]);

		if (list)
			sbx_scopeattr_addlist(&s, SBX_DENY + i, list);
	}
	tmpdir = sbx_optional_env(env, prefix, "TMPDIR");
	if (tmpdir && *tmpdir && (err = sbx_scopeattr_settmpdir(&s, tmpdir)))
		return sbx_optional_env_failed(scope, prefix, "TMPDIR", tmpdir, err);
	if (sbx_optional_on(sbx_optional_env(env, prefix, "LISTABLE")))
		s.__flags |= SBX_SCOPE_LISTABLE;
	if (sbx_optional_on(sbx_optional_env(env, prefix, "REQUIRE")))
		s.__flags |= SBX_SCOPE_REQUIRE;
	if (sbx_optional_on(sbx_optional_env(env, prefix, "STRICT")))
		s.__flags |= SBX_SCOPE_STRICT;
	if (sbx_optional_on(sbx_optional_env(env, prefix, "HIDE")) &&
	    sbx_optional_on(sbx_optional_env(env, prefix, "EXPAND")))
		return EINVAL;
	if (sbx_optional_on(sbx_optional_env(env, prefix, "HIDE")))
		s.__flags = (s.__flags & ~SBX_SCOPE_EXPAND) | SBX_SCOPE_HIDE;
	if (sbx_optional_on(sbx_optional_env(env, prefix, "EXPAND")))
		s.__flags = (s.__flags & ~SBX_SCOPE_HIDE) | SBX_SCOPE_EXPAND;
	if (sbx_optional_on(sbx_optional_env(env, prefix, "QUIET")))
		s.__events &= SBX_EVENTS_QUIET;
	if (sbx_optional_on(sbx_optional_env(env, prefix, "NO_NETWORK")))
		s.__flags |= SBX_SCOPE_NO_NETWORK;
	unsets = sbx_optional_env(env, prefix, "UNSETENV");
	/* No environment changed here: said, not passed on quietly. */
	if (unsets && *unsets)
		return sbx_optional_env_failed(scope, prefix, "UNSETENV", unsets, ENOTSUP);
	if (configured)
		*configured = s.__paths > scope->__paths || (tmpdir && *tmpdir) ||
		              (s.__flags & SBX_SCOPE_NO_NETWORK);
	*scope = s;
	return 0;
}
static inline int sbx_env_unset(const char *prefix)
{
	static const char *const names[] = { "DENY",   "ALLOW",  "READONLY", "TMPDIR",
		                             "LISTABLE", "REQUIRE", "STRICT", "HIDE",
		                             "EXPAND", "QUIET",  "NO_NETWORK", "UNSETENV" };
	char name[256];

	if (!sbx_optional_prefix(prefix))
		return EINVAL;
	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "%s_%s", prefix, names[i]);
		if (unsetenv(name))
			return errno;
	}
	return 0;
}
static inline int sbx_scopeattr_fromenv(sbx_scopeattr_t *scope, const char *prefix,
                                        int *configured)
{
	sbx_explanation_t x;
	int any = 0, err;

	if (!scope || !configured)
		return EINVAL;
	*configured = 0;
	memset(scope, 0, sizeof(*scope)); /* whatever fails, a destroy is safe */
	if (!sbx_optional_prefix(prefix))
		return EINVAL;
	if ((err = sbx_scopeattr_init(scope)))
		return err;
	err = sbx_scopeattr_readenv(scope, prefix, NULL, &any);
	if (!err && any && !(err = sbx_scopeattr_explain(scope, "/", &x)) &&
	    x.reason == SBX_REASON_REFUSED)
		err = x.error ? x.error : SBX_EREFUSED;
	if (!err)
		err = sbx_env_unset(prefix);
	if (err) {
		sbx_scopeattr_destroy(scope);
		return err;
	}
	*configured = any;
	return 0;
}

/* ---- spawning: the C library's, as the portable build runs a scope ---- */

/* 0 to run the command unconfined (said once), else why not. */
static inline int sbx_optional_settle(const sbx_scopeattr_t *scope)
{
	static int said;
	int empty = 1;

	if (!scope)
		return 0;
	if (sbx_scopeattr_isempty(scope, &empty))
		return EINVAL;
	if (scope->__flags & SBX_SCOPE_DIE_WITH_PARENT) {
		sbx_optional_say(scope, SBX_EVENT_REFUSED, ENOTSUP, NULL, NULL,
		                 "not run: the child's end with its parent: this program was "
		                 "built without libsbxspawn");
		return SBX_EREFUSED;
	}
	if (empty)
		return 0;
	if (scope->__flags & SBX_SCOPE_REQUIRE)
		return ENOTSUP;
	if (scope->__ids || (scope->__flags & SBX_SCOPE_DROP_CAPS)) {
		sbx_optional_say(scope, SBX_EVENT_REFUSED, ENOTSUP, NULL, NULL,
		                 "not run: another uid or dropped capabilities: this program was "
		                 "built without libsbxspawn");
		return SBX_EREFUSED;
	}
	if (!said && (scope->__events & SBX_EVENT_BIT(SBX_EVENT_UNCONFINED))) {
		said = 1;
		sbx_optional_say(scope, SBX_EVENT_UNCONFINED, ENOSYS, NULL, NULL,
		                 "this program was built without libsbxspawn: commands run "
		                 "unconfined; ask for SBX_SCOPE_REQUIRE to refuse instead");
	}
	return 0;
}

static inline int sbx_posix_spawn(pid_t *pid, const char *path,
                                  const sbx_file_actions_t *file_actions,
                                  const posix_spawnattr_t *attrp, const sbx_scopeattr_t *scope,
                                  char *const argv[], char *const envp[])
{
	int err = sbx_optional_settle(scope);

	return err ? err : posix_spawn(pid, path, file_actions, attrp, argv, envp);
}
static inline int sbx_posix_spawnp(pid_t *pid, const char *file,
                                   const sbx_file_actions_t *file_actions,
                                   const posix_spawnattr_t *attrp, const sbx_scopeattr_t *scope,
                                   char *const argv[], char *const envp[])
{
	int err = sbx_optional_settle(scope);

	return err ? err : posix_spawnp(pid, file, file_actions, attrp, argv, envp);
}
/* No pid file descriptor without the library: ENOSYS, as a kernel without
 * them says; the caller falls back to sbx_posix_spawn. */
static inline int sbx_pidfd_spawn(int *pidfd, const char *path,
                                  const sbx_file_actions_t *file_actions,
                                  const posix_spawnattr_t *attrp, const sbx_scopeattr_t *scope,
                                  char *const argv[], char *const envp[])
{
	(void)pidfd, (void)path, (void)file_actions, (void)attrp, (void)scope, (void)argv, (void)envp;
	return ENOSYS;
}
static inline int sbx_pidfd_spawnp(int *pidfd, const char *file,
                                   const sbx_file_actions_t *file_actions,
                                   const posix_spawnattr_t *attrp, const sbx_scopeattr_t *scope,
                                   char *const argv[], char *const envp[])
{
	return sbx_pidfd_spawn(pidfd, file, file_actions, attrp, scope, argv, envp);
}
static inline int sbx_execve(const char *path, const sbx_scopeattr_t *scope, char *const argv[],
                             char *const envp[])
{
	int err = sbx_optional_settle(scope);

	return err ? err : (execve(path, argv, envp), errno);
}
static inline int sbx_execvpe(const char *file, const sbx_scopeattr_t *scope, char *const argv[],
                              char *const envp[])
{
	int err = sbx_optional_settle(scope);

	if (err)
		return err;
	/* execvp(3) with the environment given (execvpe(3) is not POSIX); the
	 * caller's again where it returns. */
	{
		char **saved = environ;

		environ = (char **)envp;
		execvp(file, argv);
		err = errno;
		environ = saved;
	}
	return err;
}
static inline int sbx_system(const char *command, const sbx_scopeattr_t *scope)
{
	int err = sbx_optional_settle(scope);

	if (err) {
		errno = err;
		return command ? -1 : 0;
	}
	return system(command);
}

#ifdef __cplusplus
}
#endif

#endif /* HAVE_SBXSPAWN */

#endif /* SBXSPAWN_OPTIONAL_H */
