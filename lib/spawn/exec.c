/* SPDX-License-Identifier: MIT */
/* Exec: sbx_execve / sbx_execvpe, which confine the calling process and
 * exec (the PATH lookup they share with the spawn engine's child is
 * search.c's). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "lib/internal.h"
#include "lib/hiding.h"
#include "lib/confine.h"

/* The ruleset an exec applies: hiding what it can, unless the process
 * holds something that reaches a hidden denial (held.c), or cannot make a
 * namespace of its own.  Once the namespace is made, the process is in it
 * whatever follows: a failure to map its ids in a user namespace is a
 * refusal (it would run as nobody); one to make the mounts private (a
 * Landlock domain this process runs in forbids mounts) leaves the denials
 * expanded.  0 with *user; -1 with *refusal; or an error number. */
static int enter_hidden(const struct sbx_scope *scope, struct sbx_ruleset **rs, bool *user,
                        struct refusal *refusal)
{
	char what[PATH_MAX + 64];
	unsigned was;
	bool lasts = true;
	int err = 0, held = (*rs)->ncovers ? sbx__held_reaches(*rs, NULL, true, what, sizeof(what)) : 0;

	if (held < 0)
		return -held;
	if (held > 0) {
		err = -1;
	} else if ((*rs)->ncovers && (*rs)->confinement != SBX_OUTCOME_REFUSED &&
	           (err = sbx__hide_enter(user, &refusal->call))) {
		if (strncmp(refusal->call, "/proc/", 6) == 0) {
			refusal->what = SBX_REFUSED_HIDE;
			return err;
		}
		if ((lasts = sbx__hide_refusal_lasts(err)))
			sbx__hide_refused(err, refusal->call);
		snprintf(what, sizeof(what), "no mount namespace of its own (%s: %s)%s", refusal->call,
		         strerror(err), lasts ? "" : ", for this exec");
	}
	if (!err)
		return 0;
	sbx__hide_event(scope, *rs, what);
	if (scope->flags & SBX_SCOPE_HIDE)
		return lasts ? EINVAL : err;
	sbx__scope_put(*rs);
	*rs = NULL;
	/* Expanded, whatever the reason: this process is in no namespace it
	 * could make private (a shortage is not on record, and a compile that
	 * hid would cover in the caller's). */
	was = sbx__events_mute(SBX__SAID_OF_PATHS);
	err = sbx__scope_get(scope, true, true, rs);
	sbx__events_mute(was);
	return err;
}

/* Applies the compiled ruleset (its covers first), and what the scope asks
 * of ids and capabilities, to the calling thread: 0, or the errno with
 * *refusal saying what refused it. */
static int restrict_self(const struct sbx_scope *scope, const struct sbx_ruleset *rs, bool user,
                         struct refusal *refusal)
{
	int err, ours = rs->fd;
	struct confinement cf = sbx__confinement(scope, rs);

	/* The process that becomes the command dies with its own parent
	 * (one outside its pid namespace shows as 0: -1 stands for it). */
	if (cf.die_with && !(cf.die_with = getppid()))
		cf.die_with = -1;
	if (rs->confinement == SBX_OUTCOME_REFUSED) {
		*refusal = rs->refusal;
		return rs->error;
	}
	if (cf.die_with && (err = sbx__die_with(cf.die_with, &refusal->call))) {
		refusal->what = SBX_REFUSED_APPLY;
		return err;
	}
	if (cf.hiding.covers &&
	    (err = sbx__hide_cover(&cf.hiding, user, &ours, 1, NULL, true, &refusal->call))) {
		refusal->what = SBX_REFUSED_HIDE;
		return err;
	}
	if ((err = sbx__confine(&cf, &refusal->call)))
		refusal->what = sbx__refused_by(refusal->call);
	return err;
}

static int exec_confined(const char *file, int search, const sbx_scopeattr_t *scopeattr,
                         char *const argv[], char *const envp[])
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	const struct sbx_scope *scope = scopeattr ? scopeattr->__scope : NULL;
	struct sbx_ruleset *rs = NULL;
	char default_path[256];
	const char *search_path = NULL;
	struct refusal refusal = { NULL, NULL, NULL };
	char **env_copy = NULL;
	int err = 0, stage = SBX_STAGE_SETUP, privilege = 0;

	if (scopeattr && !scope) {
		err = EINVAL;
		goto out;
	}
	if (search && !strchr(file, '/')) {
		if (!*file) {
			/* Nothing to look up: the exec's failure, as env(1) has it. */
			stage = SBX_STAGE_EXEC;
			err = ENOENT;
			goto out;
		}
		search_path = sbx__search_path(default_path, sizeof(default_path));
	}
	if (scope) {
		bool user = false;

		if ((err = sbx__scope_get(scope, true, false, &rs)))
			goto out;
		if ((err = sbx__scope_env(scope, envp, &envp, &env_copy)))
			goto out;
		privilege = sbx__privilege_kept(scope, 0);
		if ((err = enter_hidden(scope, &rs, &user, &refusal)) > 0 && !refusal.what)
			goto out;
		sbx__announce_frozen(scope, rs, envp, NULL);
		if (err || (err = restrict_self(scope, rs, user, &refusal))) {
			sbx__refused_event(scope, file, err, &refusal, false);
			stage = SBX_STAGE_CONFINE;
			sbx__outcome_record(SBX_OUTCOME_REFUSED, rs, stage, -1, err, privilege);
			sbx__scope_put(rs);
			free(env_copy);
			return SBX_EREFUSED;
		}
	}
	/* The outcome is on record before exec, for the caller to read if
	 * exec fails. */
	stage = SBX_STAGE_EXEC;
	sbx__outcome_record(rs ? rs->confinement : SBX_OUTCOME_NONE, rs, stage, -1, 0, privilege);
	if (search_path)
		err = sbx__exec_search(file, search_path, argv, envp);
	else
		err = execve(file, argv, envp) ? errno : 0;
out:
	sbx__outcome_record(rs ? rs->confinement : SBX_OUTCOME_NONE, rs, stage, -1, err, privilege);
	sbx__scope_put(rs);
	free(env_copy);
	return err;
}

SBX_EXPORT int sbx_execve(const char *path, const sbx_scopeattr_t *scope, char *const argv[],
                          char *const envp[])
{
	return exec_confined(path, 0, scope, argv, envp);
}

SBX_EXPORT int sbx_execvpe(const char *file, const sbx_scopeattr_t *scope, char *const argv[],
                           char *const envp[])
{
	return exec_confined(file, 1, scope, argv, envp);
}
