/* SPDX-License-Identifier: MIT */
/*
 * The spawn engine's parent side (the child's is in child.c).
 *
 * The child is made by clone.c, sharing the parent's memory; between
 * clone and exec it makes raw system calls only: no malloc, stdio, locks,
 * strerror or getenv.  Everything it needs is prepared here first: the
 * attributes read, the scope's ruleset, what it holds from before its
 * namespace, and what to do when it must start again.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "compat/landlock.h"
#include "lib/internal.h"
#include "lib/hiding.h"
#include "lib/child.h"
#include "lib/escape.h"

SBX__WITH_FORK_HANDLERS;

/* Every flag glibc 2.36 knows, and 2.39's control group where the C
 * library has it; any other bit is EINVAL. */
#if HAVE_DECL_POSIX_SPAWNATTR_GETCGROUP_NP
#define CGROUP_FLAG POSIX_SPAWN_SETCGROUP
#else
#define CGROUP_FLAG 0
#endif
#define KNOWN_FLAGS (POSIX_SPAWN_RESETIDS | POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |  \
		     POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSCHEDPARAM |                    \
		     POSIX_SPAWN_SETSCHEDULER | POSIX_SPAWN_USEVFORK | POSIX_SPAWN_SETSID |  \
		     CGROUP_FLAG)

/* Reads the attribute object through its getters; EINVAL for a flag
 * this library does not know. */
static int read_attributes(struct child *c, const posix_spawnattr_t *attr)
{
	int err;

	if (!attr)
		return 0;
	if (posix_spawnattr_getflags(attr, &c->flags) || posix_spawnattr_getpgroup(attr, &c->pgroup) ||
	    posix_spawnattr_getsigdefault(attr, &c->sigdefault) ||
	    posix_spawnattr_getsigmask(attr, &c->sigmask))
		return EINVAL;
#ifdef __GLIBC__
	/* glibc never lets a mask block its own two (32, 33: cancellation,
	 * set*id across threads), its posix_spawn's included; the child
	 * sets the mask with a raw call, so they are taken out here. */
	((unsigned long *)(void *)&c->sigmask)[0] &= ~(3UL << 31);
#endif
	if ((unsigned short)c->flags & ~(unsigned)KNOWN_FLAGS)
		return EINVAL;
	err = posix_spawnattr_getschedpolicy(attr, &c->policy);
	if (!err)
		err = posix_spawnattr_getschedparam(attr, &c->param);
	/* A C library that keeps no scheduling there (musl: ENOSYS) ignores
	 * the flags that would apply it, and so does its posix_spawn. */
	if (err == ENOSYS)
		c->flags &= (short)~(POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER);
	else if (err)
		return EINVAL;
#if HAVE_DECL_POSIX_SPAWNATTR_GETCGROUP_NP
	if ((c->flags & POSIX_SPAWN_SETCGROUP) && posix_spawnattr_getcgroup_np(attr, &c->cgroup_fd))
		return EINVAL;
#endif
	return 0;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* text as the child's line says it, in out: the scope's words, escaped. */
static const char *said(const struct sbx_scope *scope, const char *text, char *out, size_t cap)
{
	char words[1024];

	sbx__scope_words(scope, text, words, sizeof(words));
	sbx__escape(words, out, cap);
	return out;
}

/* The ruleset a spawn with this scope applies, in the child's record. */
static int prepare_scope(struct child *c, const struct sbx_scope *scope, bool expand,
                         struct sbx_ruleset **rs)
{
	int err = sbx__scope_get(scope, false, expand, rs);

	if (err)
		return err;
	if ((*rs)->confinement == SBX_OUTCOME_REFUSED) {
		c->refused = (*rs)->error;
		c->refusal = (*rs)->refusal;
		/* The child's line speaks as the scope does, every name in it
		 * escaped (a path in why). */
		if (c->refusal.what)
			c->refusal.what = said(scope, c->refusal.what, c->what, sizeof(c->what));
		if (c->refusal.why)
			c->refusal.why = said(scope, c->refusal.why, c->why, sizeof(c->why));
	}
	c->cf = sbx__confinement(scope, *rs);
	return 0;
}

/* The ruleset compiled again, its denials expanded, for a spawn whose
 * first compile hid them: what that one said of the paths is not said twice. */
static int prepare_again(struct child *c, const struct sbx_scope *scope, bool expand,
                         struct sbx_ruleset **rs)
{
	unsigned was = sbx__events_mute(SBX__SAID_OF_PATHS);
	int err = prepare_scope(c, scope, expand, rs);

	sbx__events_mute(was);
	return err;
}

/* The ruleset for a spawn that would hold, from before its namespace,
 * something that reaches a hidden denial (held.c): one that expands every
 * denial; under SBX_SCOPE_HIDE, EINVAL. */
static int prepare_held(struct child *c, const struct sbx_scope *scope,
                        const sbx_file_actions_t *fa, struct sbx_ruleset **rs)
{
	char what[PATH_MAX + 64];
	int held;

	/* What it inherits is looked at just before the clone (clone.c). */
	if (!(*rs)->ncovers || !(held = sbx__held_reaches(*rs, fa, false, what, sizeof(what))))
		return 0;
	if (held < 0)
		return -held;
	sbx__hide_event(scope, *rs, what);
	if (scope->flags & SBX_SCOPE_HIDE)
		return EINVAL;
	sbx__scope_put(*rs);
	*rs = NULL;
	return prepare_again(c, scope, true, rs);
}

/* A child that did nothing, for what says: it is started again with every
 * denial expanded (under SBX_SCOPE_HIDE, EINVAL); expand: for this spawn
 * alone (else the scope's compile is stale now, sbx__hide_current, and is
 * made again, expanded, and kept). */
static int restart_expanded(struct child *c, const struct sbx_scope *scope,
                            const sbx_file_actions_t *fa, struct sbx_ruleset **rs, bool expand,
                            const char *what)
{
	int err;

	c->res = (struct child_result){ 0 };
	sbx__hide_event(scope, *rs, what);
	if (scope->flags & SBX_SCOPE_HIDE)
		return EINVAL;
	sbx__scope_put(*rs);
	*rs = NULL;
	if (!(err = prepare_again(c, scope, expand, rs)))
		sbx__announce_frozen(scope, *rs, c->envp, fa);
	return err;
}

/* A child that would inherit a descriptor reaching a hidden denial (seen
 * before its clone, or by the child in its own table). */
static int prepare_inherited(struct child *c, const struct sbx_scope *scope,
                             const sbx_file_actions_t *fa, struct sbx_ruleset **rs)
{
	char what[PATH_MAX + 64];

	sbx__held_say(c->res.held_fd, what, sizeof(what));
	return restart_expanded(c, scope, fa, rs, true, what);
}

/* A child that found no namespace for itself; from now on every spawn of
 * this process expands its denials. */
static int prepare_refused(struct child *c, const struct sbx_scope *scope,
                           const sbx_file_actions_t *fa, struct sbx_ruleset **rs)
{
	bool lasts = sbx__hide_refusal_lasts(c->res.err);
	int err = c->res.err;
	char what[128];

	snprintf(what, sizeof(what), "no mount namespace of its own (%s: %s)%s",
	         c->res.refusal.call, strerror(err), lasts ? "" : ", for this spawn");
	/* A resource short for the moment: this spawn expands alone (demanded,
	 * hiding fails with what was short), and the next one hides. */
	if (!lasts && (scope->flags & SBX_SCOPE_HIDE)) {
		sbx__hide_event(scope, *rs, what);
		return err;
	}
	if (lasts)
		sbx__hide_refused(err, c->res.refusal.call);
	return restart_expanded(c, scope, fa, rs, !lasts, what);
}

/* What the spawn tells the logger and records for sbx_outcome_get(). */
static void report(const struct sbx_scope *scope, const struct child *c,
                   const struct sbx_ruleset *rs, const char *file, int err, int privilege)
{
	/* The compile's refusal has its own words in the event, not the
	 * child's copy of them (the logger escapes, and speaks as the scope). */
	struct refusal r = rs && c->res.refusal.what == c->refusal.what ? rs->refusal : c->res.refusal;

	if (c->res.stage == SBX_STAGE_CONFINE)
		sbx__refused_event(scope, file, c->res.err, &r, true);
	sbx__outcome_record(c->res.stage == SBX_STAGE_CONFINE ? SBX_OUTCOME_REFUSED
	                    : rs                              ? rs->confinement
	                                                      : SBX_OUTCOME_NONE,
	                    rs, c->res.stage ? c->res.stage : (err ? SBX_STAGE_SETUP : 0),
	                    c->res.stage == SBX_STAGE_FILE_ACTION ? c->res.action : -1,
	                    c->res.stage ? c->res.err : err, privilege);
}

/* Starts the child with the library's descriptors it must close listed:
 * again where one was kept or closed meanwhile (fds.c), and in a namespace
 * of its own where the one kept with rs would not serve (hidens.c).  0
 * with *pid, or the errno. */
static int start_hiding(struct child *c, struct sbx_ruleset *rs, pid_t *pid)
{
	int *hidden, err;

	for (;;) {
		if ((err = sbx__fds_hide(c->fd_floor, &hidden, &c->nhidden, &c->hidden_gen)))
			return err;
		c->hidden = hidden;
		c->res = (struct child_result){ 0 };
		*pid = sbx__start_child(c);
		err = *pid < 0 ? errno : 0;
		free(hidden);
		if (!(*pid > 0 && c->res.again && !c->res.nohide))
			return err;
		/* The kept namespace would not serve: a namespace of its own,
		 * and none kept from now on but where the working directory
		 * was what it could not find. */
		if (c->res.unkept) {
			c->cf.hiding.kept = NULL;
			if (c->res.err != ENOENT)
				sbx__hide_unkeep(rs, false);
		}
	}
}

/* Whether this kernel makes pid file descriptors (pidfd_open, Linux 5.3):
 * asked at each pidfd spawn, for a filter may say no to it any time. */
static bool pidfds_made(void)
{
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	if (fd >= 0)
		close(fd);
	return fd >= 0 || errno != ENOSYS;
}

int sbx__spawn(pid_t *restrict pidp, int *pidfdp, const char *file, int search,
                 const sbx_file_actions_t *fa, const posix_spawnattr_t *restrict attr,
                 const sbx_scopeattr_t *restrict scopeattr, char *const argv[restrict],
                 char *const envp[restrict])
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	const struct sbx_scope *scope = scopeattr ? scopeattr->__scope : NULL;
	int pidfd = -1;
	struct child c = { .file = file, .argv = argv, .envp = envp, .fa = fa, .cgroup_fd = -1,
	                   .cf = { .cgroup_fd = -1, .ruleset_fd = -1 }, .report_fd = -1, .report_rfd = -1,
	                   .pidfd = pidfdp ? &pidfd : NULL };
	struct sbx_ruleset *rs = NULL;
	char default_path[256], **env_copy = NULL;
	int privilege = 0;
	pid_t pid = -1;
	int err;

	if ((err = read_attributes(&c, attr)))
		goto out;
	if (pidfdp && !pidfds_made()) {
		err = ENOSYS;
		goto out;
	}
	/* An empty name is looked up nowhere: the child runs its attributes
	 * and file actions, then exec fails (ENOENT), as with posix_spawnp. */
	if (search && *file && !strchr(file, '/'))
		c.search_path = sbx__search_path(default_path, sizeof(default_path));
	if (scopeattr && !scope) {
		err = EINVAL; /* not initialised, or destroyed */
		goto out;
	}
	if (scope && ((err = prepare_scope(&c, scope, false, &rs)) ||
	              (err = prepare_held(&c, scope, fa, &rs))))
		goto out;
	if (scope) {
		if ((err = sbx__scope_env(scope, envp, &c.envp, &env_copy)))
			goto out;
		privilege = sbx__privilege_kept(scope, c.flags);
		sbx__announce_frozen(scope, rs, c.envp, fa);
	}
	sbx__escape(file, c.shown, sizeof(c.shown));
	c.speaker = scope && scope->speaker ? scope->speaker : "sbxspawn";
	c.fd_floor = max_int(sbx__file_actions_maxfd(fa), 2) + 1;
	/* A ruleset spawned from again: its namespace, kept. */
	if (rs && c.cf.hiding.covers && (err = sbx__hide_kept(rs, &c.cf.hiding.kept)))
		goto out;
	while (!(err = start_hiding(&c, rs, &pid)) && pid >= 0 && (c.res.nohide || c.res.held))
		if ((err = (c.res.held ? prepare_inherited : prepare_refused)(&c, scope, fa, &rs)))
			break;
	if (err)
		goto out;
	if (pid > 0 && c.res.stage) {
		/* It failed before exec, and was reaped (start_child). */
		err = c.res.stage == SBX_STAGE_CONFINE ? SBX_EREFUSED : c.res.err;
	} else if (pid > 0 && pidfdp) {
		*pidfdp = pidfd;
		pidfd = -1;
	} else if (pid > 0 && pidp) {
		*pidp = pid;
	}
out:
	if (pidfd >= 0)
		close(pidfd);
	report(scope, &c, rs, file, err, privilege);
	sbx__scope_put(rs);
	free(env_copy);
	return err;
}
