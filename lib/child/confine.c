/* SPDX-License-Identifier: MIT */
/*
 * Confinement applied to the calling thread, in the order the kernel needs:
 * no_new_privs, the capabilities made usable, the bounding and ambient sets
 * emptied, the ids changed, the other sets emptied, the Landlock domain,
 * and last the seccomp filter.  Raw system calls only: it runs in the
 * spawn engine's child, between clone and exec, and in sbx_execve.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <string.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "compat/landlock.h"
#include "lib/internal.h"
#include "lib/confine.h"

/* The permitted capabilities made effective, for the drops below need
 * CAP_SETPCAP: a caller with real uid 0 and another effective uid holds
 * them permitted only, and an exec would make them its program's again. */
CHILD static int raise_effective(const char **call)
{
	struct { uint32_t version; int pid; } head = { 0x20080522 /* v3 */, 0 };
	struct { uint32_t effective, permitted, inheritable; } data[2];
	long r;

	*call = "capget";
	if ((r = sys(SYS_capget, (long)&head, (long)data, 0, 0)) < 0)
		return (int)-r;
	if (data[0].effective == data[0].permitted && data[1].effective == data[1].permitted)
		return 0;
	data[0].effective = data[0].permitted;
	data[1].effective = data[1].permitted;
	*call = "capset";
	r = sys(SYS_capset, (long)&head, (long)data, 0, 0);
	return r < 0 ? (int)-r : 0;
}

/* The bounding set emptied (an exec as uid 0 would fill the capabilities
 * from it again) and the ambient set: first, while the capabilities they
 * need are still there.  A bounding set left full is harmless only where
 * no exec as uid 0 follows. */
CHILD static int drop_bounding(bool root_after, const char **call)
{
	long r = 0;

	*call = "prctl(PR_CAPBSET_DROP)";
	for (long cap = 0; cap < 64; cap++)
		if ((r = sys(SYS_prctl, PR_CAPBSET_READ, cap, 0, 0)) > 0 &&
		    (r = sys(SYS_prctl, PR_CAPBSET_DROP, cap, 0, 0)) < 0)
			break;
	if (r == -EPERM && !root_after)
		r = 0; /* no CAP_SETPCAP, and no exec as root to use the set */
	if (r < 0 && r != -EINVAL)
		return (int)-r;
	*call = "prctl(PR_CAP_AMBIENT_CLEAR_ALL)";
	if ((r = sys(SYS_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0)) < 0 && r != -EINVAL)
		return (int)-r;
	return 0;
}

/* Then, last, the effective, permitted and inheritable sets, and with
 * them the ambient set (the kernel keeps of it only what is both permitted
 * and inheritable).  Under no_new_privs an exec leaves the program no
 * capability outside the permitted set it had at the exec, whatever the
 * program's file capabilities or its uid: an empty one is enough to pass
 * nothing on, now and at every later exec. */
CHILD static int drop_caps(const char **call)
{
	struct { uint32_t version; int pid; } head = { 0x20080522 /* v3 */, 0 };
	struct { uint32_t effective, permitted, inheritable; } data[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	long r;

	*call = "capset";
	r = sys(SYS_capset, (long)&head, (long)data, 0, 0);
	return r < 0 ? (int)-r : 0;
}

/* ESRCH where parent (by pid) is no longer the calling thread's parent:
 * it has ended since the parent-death signal was last asked for.  A
 * parent outside the child's pid namespace shows as 0 whichever it is,
 * and is taken to be there still. */
CHILD static int parent_gone(pid_t parent)
{
	long now = sys(SYS_getppid, 0, 0, 0, 0);

	return now == parent || now == 0 ? 0 : ESRCH;
}

/* Another uid and gid, with no supplementary group: raw calls, for the C
 * library's would signal the parent's threads. */
CHILD static int set_ids(const struct confinement *cf, const char **call)
{
	int pdeath = 0;
	long r;

	/* The kernel clears the parent-death signal when the ids change: it
	 * is the caller's, and set again after them. */
	(void)sys(SYS_prctl, PR_GET_PDEATHSIG, (long)&pdeath, 0, 0);
	*call = "setgroups";
	if ((r = sys(SYS_setgroups, 0, 0, 0, 0)) < 0)
		return (int)-r;
	*call = "setresgid";
	if ((r = sys(SYS_setresgid, cf->gid, cf->gid, cf->gid, 0)) < 0)
		return (int)-r;
	*call = "setresuid";
	if ((r = sys(SYS_setresuid, cf->uid, cf->uid, cf->uid, 0)) < 0)
		return (int)-r;
	*call = "prctl(PR_SET_PDEATHSIG)";
	if (pdeath && (r = sys(SYS_prctl, PR_SET_PDEATHSIG, pdeath, 0, 0)) < 0)
		return (int)-r;
	/* A parent that ended while the ids changed sent no signal. */
	return cf->die_with ? parent_gone(cf->die_with) : 0;
}

/* Whether the program will run as uid 0: where the real or the
 * effective uid is 0, an exec under no_new_privs runs it as root. */
CHILD static bool root_after_exec(const struct confinement *cf)
{
	unsigned r = 1, e = 1, s = 1;

	if (cf->set_ids)
		return cf->uid == 0;
	if (sys(SYS_getresuid, (long)&r, (long)&e, (long)&s, 0) < 0)
		return true;
	return r == 0 || e == 0;
}

/* What the caller holds is not passed on to another uid: the kernel clears
 * the permitted set when root becomes another user, but not under
 * PR_SET_KEEPCAPS, nor from one other user to the next, and a program with
 * a file capability would take back what is left. */
CHILD static bool caps_emptied(const struct confinement *cf)
{
	return cf->drop_caps || (cf->set_ids && cf->uid != 0);
}

/* The step's name for the refusal line, one per resource. */
static const char *const limit_calls[SBX_RLIMITS] = {
	[RLIMIT_CPU] = "prlimit64(RLIMIT_CPU)",       [RLIMIT_FSIZE] = "prlimit64(RLIMIT_FSIZE)",
	[RLIMIT_DATA] = "prlimit64(RLIMIT_DATA)",     [RLIMIT_STACK] = "prlimit64(RLIMIT_STACK)",
	[RLIMIT_CORE] = "prlimit64(RLIMIT_CORE)",     [RLIMIT_RSS] = "prlimit64(RLIMIT_RSS)",
	[RLIMIT_NPROC] = "prlimit64(RLIMIT_NPROC)",   [RLIMIT_NOFILE] = "prlimit64(RLIMIT_NOFILE)",
	[RLIMIT_MEMLOCK] = "prlimit64(RLIMIT_MEMLOCK)", [RLIMIT_AS] = "prlimit64(RLIMIT_AS)",
	[RLIMIT_LOCKS] = "prlimit64(RLIMIT_LOCKS)",   [RLIMIT_SIGPENDING] = "prlimit64(RLIMIT_SIGPENDING)",
	[RLIMIT_MSGQUEUE] = "prlimit64(RLIMIT_MSGQUEUE)", [RLIMIT_NICE] = "prlimit64(RLIMIT_NICE)",
	[RLIMIT_RTPRIO] = "prlimit64(RLIMIT_RTPRIO)", [RLIMIT_RTTIME] = "prlimit64(RLIMIT_RTTIME)",
};

/* The scope's limits, before anything drops the capability that raising
 * a hard limit needs. */
CHILD static int set_limits(const struct confinement *cf, const char **call)
{
	long r;

	for (int i = 0; i < SBX_RLIMITS; i++) {
		if (!(cf->rlimits_set & (1u << i)))
			continue;
		*call = limit_calls[i] ? limit_calls[i] : "prlimit64";
		if ((r = sys(SYS_prlimit64, 0, i, (long)&cf->rlimits[i], 0)) < 0)
			return (int)-r;
	}
	return 0;
}

/* Joins the cgroup v2 directory dirfd: "0" written to its cgroup.procs
 * moves the writer, the whole process. */
CHILD int sbx__join_cgroup(int dirfd, const char **call)
{
	long fd, r;

	*call = "cgroup.procs";
	if ((fd = sys(SYS_openat, dirfd, (long)"cgroup.procs", O_WRONLY | O_CLOEXEC, 0)) < 0)
		return (int)-fd;
	r = sys(SYS_write, fd, (long)"0", 1, 0);
	(void)sys(SYS_close, fd, 0, 0, 0);
	return r < 0 ? (int)-r : 0;
}

CHILD int sbx__die_with(pid_t parent, const char **call)
{
	long r;

	/* Asked for, then checked: a parent that ended before the request
	 * took effect leaves nothing to run for. */
	*call = "prctl(PR_SET_PDEATHSIG)";
	if ((r = sys(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0)) < 0)
		return (int)-r;
	return parent_gone(parent);
}

CHILD int sbx__confine(const struct confinement *cf, const char **call)
{
	bool root_after = root_after_exec(cf);
	long r;
	int err;

	if (cf->cgroup_fd >= 0 && (err = sbx__join_cgroup(cf->cgroup_fd, call)))
		return err;
	if (cf->rlimits_set && (err = set_limits(cf, call)))
		return err;
	if (cf->ruleset_fd < 0 && !cf->filter && !cf->set_ids && !cf->drop_caps)
		return 0;
	/* prctl wants every unused argument zero: five of them. */
	*call = "prctl(PR_SET_NO_NEW_PRIVS)";
	if (syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) < 0)
		return errno;
	if ((cf->drop_caps || cf->set_ids) && (err = raise_effective(call)))
		return err;
	if (cf->drop_caps && (err = drop_bounding(root_after, call)))
		return err;
	if (cf->set_ids && (err = set_ids(cf, call)))
		return err;
	if (caps_emptied(cf) && (err = drop_caps(call)))
		return err;
	if (cf->ruleset_fd >= 0) {
		*call = "landlock_restrict_self";
		if ((r = sys(__NR_landlock_restrict_self, cf->ruleset_fd, cf->restrict_flags, 0, 0)) < 0)
			return (int)-r;
	}
	/* Last: a filter does not need to survive anything else. */
	*call = "seccomp";
	if (cf->filter && (r = sys(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, (long)cf->filter, 0)) < 0)
		return (int)-r;
	return 0;
}

struct confinement sbx__confinement(const struct sbx_scope *scope, const struct sbx_ruleset *rs)
{
	struct confinement cf = { .cgroup_fd = scope->cgroup ? scope->cgroup_fd : -1,
	                          .rlimits = scope->rlimits, .rlimits_set = scope->rlimits_set,
	                          .ruleset_fd = rs->fd, .restrict_flags = rs->restrict_flags,
	                          .filter = rs->filter, .set_ids = scope->ids,
	                          .uid = scope->uid, .gid = scope->gid,
	                          .drop_caps = (scope->flags & SBX_SCOPE_DROP_CAPS) != 0,
	                          /* The spawn's caller; sbx_execve's parent, set there. */
	                          .die_with = (scope->flags & SBX_SCOPE_DIE_WITH_PARENT) ? getpid() : 0 };

	if (rs->ncovers && rs->confinement != SBX_OUTCOME_REFUSED)
		cf.hiding = (struct hiding){ rs->covers, rs->ncovers, (const char *const *)rs->pins,
		                             rs->npins, rs->binds, rs->nbinds, NULL };
	return cf;
}

/* Landlock's own steps (and no_new_privs, which it needs) are a refused
 * ruleset; the ids, capabilities and filter, a confinement that could not
 * be applied. */
CHILD const char *sbx__refused_by(const char *call)
{
	return !strncmp(call, "landlock", 8) || !strncmp(call, "prctl(PR_SET_NO", 15)
	               ? SBX_REFUSED_LANDLOCK
	               : SBX_REFUSED_APPLY;
}
