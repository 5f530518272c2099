/* SPDX-License-Identifier: MIT */
/*
 * The portable build: the same API over the system's posix_spawn, where
 * there is no Landlock to build against (any host that is not Linux, and
 * Linux configured with --disable-landlock).
 *
 * The scope is kept and checked as in every build (scope.c), and nothing
 * confines: a spawn with a scope runs unconfined after one notice per
 * process, SBX_SCOPE_REQUIRE fails with ENOTSUP, a control is not enforced
 * (a warning, or a refusal under SBX_SCOPE_STRICT), and what only a
 * confining build does to the child (another uid, dropped capabilities)
 * is refused: nothing runs.  The file actions are the system's own; one it
 * lacks fails the spawn with ENOTSUP.  POSIX only, but the _np file
 * actions where the C library has them.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat/compat.h"
#include "lib/internal.h"

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

int sbx__landlock_abi(void)
{
	return -ENOSYS;
}

/* Nothing is compiled, so nothing is kept. */
void sbx__ruleset_forget(struct sbx_scope *s)
{
	(void)s;
}

static const struct {
	int flag;
	const char *name;
} controls[] = {
	{ SBX_SCOPE_NO_TCP_BIND, "tcp_bind" },
	{ SBX_SCOPE_NO_TCP_CONNECT, "tcp_connect" },
	{ SBX_SCOPE_NO_ABSTRACT_UNIX, "abstract_unix" },
	{ SBX_SCOPE_NO_SIGNAL, "signal" },
	{ SBX_SCOPE_NO_UNIX_CONNECT, "unix_connect" },
	{ SBX_SCOPE_NO_IO_URING, "io_uring" },
	{ SBX_SCOPE_NO_NETWORK, "network" },
};

static atomic_int said_unconfined;

/* What only a confining build can do that the scope asks for, or NULL. */
static const char *beyond_this_build(const struct sbx_scope *scope)
{
	if (scope->ids)
		return "another uid and gid (sbx_scopeattr_setids)";
	if (scope->flags & SBX_SCOPE_DROP_CAPS)
		return "dropping capabilities (SBX_SCOPE_DROP_CAPS)";
	if (scope->rlimits_set)
		return "resource limits (sbx_scopeattr_setrlimit)";
	if (scope->cgroup)
		return "a control group (sbx_scopeattr_setcgroup)";
	if (scope->flags & SBX_SCOPE_DIE_WITH_PARENT)
		return "the child's end with its parent (SBX_SCOPE_DIE_WITH_PARENT)";
	for (size_t i = 0; i < sizeof(controls) / sizeof(controls[0]); i++)
		if ((scope->flags & controls[i].flag) && (scope->flags & SBX_SCOPE_STRICT))
			return controls[i].name;
	return NULL;
}

/* What a spawn with scope does: 0 to run unconfined, ENOTSUP under
 * SBX_SCOPE_REQUIRE, SBX_EREFUSED (after its event) for what this build
 * cannot do. */
static int settle(const struct sbx_scope *scope, const char *file)
{
	const char *beyond = beyond_this_build(scope);

	if (scope->flags & SBX_SCOPE_REQUIRE)
		return ENOTSUP;
	if (beyond) {
		sbx__event(scope, SBX_EVENT_REFUSED, ENOTSUP, file, NULL,
		           "%s: not run: its confinement could not be applied: %s: not in this "
		           "build (portable, no Landlock)", file, beyond);
		return SBX_EREFUSED;
	}
	for (size_t i = 0; i < sizeof(controls) / sizeof(controls[0]); i++)
		if (scope->flags & controls[i].flag)
			sbx__event(scope, SBX_EVENT_DOWNGRADED, ENOTSUP, controls[i].name, NULL,
			           "not enforced: %s (this build has no Landlock; SBX_SCOPE_STRICT "
			           "refuses instead)", controls[i].name);
	if (sbx__wants(scope, SBX_EVENT_UNCONFINED) && !atomic_exchange(&said_unconfined, 1))
		sbx__event(scope, SBX_EVENT_UNCONFINED, ENOSYS, NULL, NULL,
		           "this build has no Landlock (portable): commands run unconfined; ask for "
		           "SBX_SCOPE_REQUIRE to refuse instead");
	return 0;
}

/* What the child keeps of the caller's privilege: all of it, as root. */
static int privilege(short flags)
{
	uid_t uid = (flags & POSIX_SPAWN_RESETIDS) ? getuid() : geteuid();

	return uid == 0 ? SBX_PRIVILEGE_ROOT | SBX_PRIVILEGE_CAPS : 0;
}

static int map_action(posix_spawn_file_actions_t *out, const struct sbx_file_action *a)
{
	switch (a->kind) {
	case SBX_FA_OPEN:
		return posix_spawn_file_actions_addopen(out, a->fd, a->path, a->oflag, a->mode);
	case SBX_FA_CLOSE:
		return posix_spawn_file_actions_addclose(out, a->fd);
	case SBX_FA_DUP2:
		return posix_spawn_file_actions_adddup2(out, a->srcfd, a->fd);
#if HAVE_DECL_POSIX_SPAWN_FILE_ACTIONS_ADDCHDIR_NP
	case SBX_FA_CHDIR:
		return posix_spawn_file_actions_addchdir_np(out, a->path);
#endif
#if HAVE_DECL_POSIX_SPAWN_FILE_ACTIONS_ADDFCHDIR_NP
	case SBX_FA_FCHDIR:
		return posix_spawn_file_actions_addfchdir_np(out, a->fd);
#endif
#if HAVE_DECL_POSIX_SPAWN_FILE_ACTIONS_ADDCLOSEFROM_NP
	case SBX_FA_CLOSEFROM:
		return posix_spawn_file_actions_addclosefrom_np(out, a->fd);
#endif
#if HAVE_DECL_POSIX_SPAWN_FILE_ACTIONS_ADDTCSETPGRP_NP
	case SBX_FA_TCSETPGRP:
		return posix_spawn_file_actions_addtcsetpgrp_np(out, a->fd);
#endif
	default:
		return ENOTSUP; /* the C library has no such file action */
	}
}

/* fa as the system's file actions; *failed: the index of one it lacks. */
static int map_actions(const sbx_file_actions_t *fa, posix_spawn_file_actions_t *out,
                       int *failed)
{
	int err;

	if ((err = posix_spawn_file_actions_init(out)))
		return err;
	for (int i = 0; i < fa->__used; i++)
		if ((err = map_action(out, &fa->__actions[i]))) {
			*failed = i;
			posix_spawn_file_actions_destroy(out);
			return err;
		}
	return 0;
}

static char *const no_arguments[] = { NULL };

/* No pid file descriptor through the system's posix_spawn: ENOSYS, as a
 * kernel without them says (sbx_pidfd_spawn(3)). */
int sbx__spawn(pid_t *restrict pidp, int *pidfdp, const char *file, int search,
               const sbx_file_actions_t *fa, const posix_spawnattr_t *restrict attr,
               const sbx_scopeattr_t *restrict scopeattr, char *const argv[restrict],
               char *const envp[restrict])
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	const struct sbx_scope *scope = scopeattr ? scopeattr->__scope : NULL;
	posix_spawn_file_actions_t pfa;
	char **env_copy = NULL;
	/* A NULL vector is an empty one, as the Landlock build hands it to
	 * the kernel (the system's posix_spawn may count it first, and
	 * crash). */
	char *const *args = argv ? argv : no_arguments, *const *env = envp;
	int err = 0, stage = SBX_STAGE_SETUP, action = -1, confinement = SBX_OUTCOME_NONE;
	short flags = 0;

	if (pidfdp)
		return ENOSYS;
	if (attr && posix_spawnattr_getflags(attr, &flags))
		err = EINVAL;
	else if (scopeattr && !scope)
		err = EINVAL; /* not initialised, or destroyed */
	else if (scope)
		err = settle(scope, file);
	if (!err && scope)
		err = sbx__scope_env(scope, envp, &env, &env_copy);
	if (err == SBX_EREFUSED) {
		confinement = SBX_OUTCOME_REFUSED;
		stage = SBX_STAGE_CONFINE;
	} else if (!err) {
		confinement = scope ? SBX_OUTCOME_UNCONFINED : SBX_OUTCOME_NONE;
		if (fa)
			err = map_actions(fa, &pfa, &action);
		if (!err) {
			err = (search ? posix_spawnp : posix_spawn)(pidp, file, fa ? &pfa : NULL, attr,
			                                            args, env);
			/* The system's posix_spawn does not say which step failed. */
			stage = SBX_STAGE_EXEC;
			if (fa)
				posix_spawn_file_actions_destroy(&pfa);
		}
	}
	sbx__outcome_record(confinement, NULL, err ? stage : SBX_STAGE_NONE, action,
	                    confinement == SBX_OUTCOME_REFUSED ? ENOTSUP : err,
	                    scope ? privilege(flags) : 0);
	free(env_copy);
	return err;
}

static int exec_unconfined(const char *file, int search, const sbx_scopeattr_t *scopeattr,
                           char *const argv[], char *const envp[])
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	const struct sbx_scope *scope = scopeattr ? scopeattr->__scope : NULL;
	int confinement = scope ? SBX_OUTCOME_UNCONFINED : SBX_OUTCOME_NONE, err = 0;
	char **env_copy = NULL, dflt[256];

	if (scopeattr && !scope) {
		sbx__outcome_record(SBX_OUTCOME_NONE, NULL, SBX_STAGE_SETUP, -1, EINVAL, 0);
		return EINVAL;
	}
	if (scope && (err = settle(scope, file))) {
		sbx__outcome_record(err == SBX_EREFUSED ? SBX_OUTCOME_REFUSED : SBX_OUTCOME_NONE, NULL,
		                    err == SBX_EREFUSED ? SBX_STAGE_CONFINE : SBX_STAGE_SETUP, -1,
		                    err == SBX_EREFUSED ? ENOTSUP : err, privilege(0));
		return err;
	}
	if (scope && (err = sbx__scope_env(scope, envp, &envp, &env_copy))) {
		sbx__outcome_record(SBX_OUTCOME_NONE, NULL, SBX_STAGE_SETUP, -1, err, privilege(0));
		return err;
	}
	/* On record before exec, for the caller to read if exec fails. */
	sbx__outcome_record(confinement, NULL, SBX_STAGE_EXEC, -1, 0, scope ? privilege(0) : 0);
	if (search && !*file)
		err = ENOENT;
	else if (search && !strchr(file, '/'))
		err = sbx__exec_search(file, sbx__search_path(dflt, sizeof(dflt)), argv, envp);
	else
		err = execve(file, argv, envp) ? errno : 0;
	sbx__outcome_record(confinement, NULL, SBX_STAGE_EXEC, -1, err, scope ? privilege(0) : 0);
	free(env_copy);
	return err;
}

SBX_EXPORT int sbx_execve(const char *path, const sbx_scopeattr_t *scope, char *const argv[],
                          char *const envp[])
{
	return exec_unconfined(path, 0, scope, argv, envp);
}

SBX_EXPORT int sbx_execvpe(const char *file, const sbx_scopeattr_t *scope, char *const argv[],
                           char *const envp[])
{
	return exec_unconfined(file, 1, scope, argv, envp);
}

/* Nothing to compile; what a spawn would say of the scope, it says. */
SBX_EXPORT int sbx_scopeattr_compile(sbx_scopeattr_t *scope)
{
	if (!scope->__scope)
		return EINVAL;
	return (scope->__scope->flags & SBX_SCOPE_REQUIRE) ? ENOTSUP : 0;
}

/* Nothing is confined here: every path allows everything, or, where the
 * scope requires Landlock or asks what only a confining build does, no
 * child runs.  Said so, with the path resolved as a confining build would. */
SBX_EXPORT int sbx_scopeattr_explain(const sbx_scopeattr_t *restrict scope,
                                     const char *restrict path, sbx_explanation_t *restrict out)
{
	SBX_KEEP_ERRNO;
	const struct sbx_scope *s = scope ? scope->__scope : NULL;
	const char *beyond = s ? beyond_this_build(s) : NULL;
	char resolved[PATH_MAX];
	struct stat st;
	int err;

	if (!s || !path || !out)
		return EINVAL;
	if (!*path)
		return ENOENT;
	if ((err = sbx__resolve(path, resolved)))
		return err;
	*out = (sbx_explanation_t){ .reason = SBX_REASON_UNCONFINED };
	out->exists = lstat(resolved, &st) ? 0 : S_ISDIR(st.st_mode) ? 2 : 1;
	out->access = SBX_ACCESS_READ | SBX_ACCESS_WRITE | SBX_ACCESS_EXECUTE | SBX_ACCESS_UNLINK |
	              (out->exists != 1 ? SBX_ACCESS_LIST | SBX_ACCESS_CREATE | SBX_ACCESS_REMOVE : 0);
	out->message = out->exists == 1 ? "read, write, execute, unlink: unconfined: this build of "
	                                  "libsbxspawn confines nothing (portable)"
	                                : "read, write, execute, list, create, remove, unlink: "
	                                  "unconfined: this build of libsbxspawn confines nothing "
	                                  "(portable)";
	if ((s->flags & SBX_SCOPE_REQUIRE) || beyond) {
		out->reason = SBX_REASON_REFUSED;
		out->error = s->flags & SBX_SCOPE_REQUIRE ? ENOTSUP : SBX_EREFUSED;
		out->access = 0;
		out->message = s->flags & SBX_SCOPE_REQUIRE
		               ? "nothing: no child runs: this build has no Landlock, and the scope "
		                 "requires it (SBX_SCOPE_REQUIRE)"
		               : "nothing: no child runs: the scope asks what only a confining build does";
	}
	return 0;
}
