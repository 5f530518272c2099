/* SPDX-License-Identifier: MIT */
/* What a scope sets on its child's resources: the control group it joins
 * and its resource limits (any RLIMIT_*), applied in the child before its
 * exec, first of all its confinement (confine.c), so that joining a group
 * or raising a hard limit still has the privilege it needs.  Limits are
 * kept as the kernel's prlimit64(2) takes them: 64 bits whatever rlim_t
 * is.  Read at each spawn, not compiled: a snapshot keeps neither. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <sys/resource.h>

#include "lib/internal.h"

static uint64_t kernel_value(rlim_t v)
{
	return v == RLIM_INFINITY ? UINT64_MAX : (uint64_t)v;
}

static rlim_t user_value(uint64_t v)
{
	return v == UINT64_MAX || v > (uint64_t)(rlim_t)-1 ? RLIM_INFINITY : (rlim_t)v;
}

static bool known(int resource)
{
	return resource >= 0 && resource < SBX_RLIMITS && resource < RLIM_NLIMITS;
}

SBX_EXPORT int sbx_scopeattr_setrlimit(sbx_scopeattr_t *restrict scope, int resource,
                                       const struct rlimit *restrict limit)
{
	SBX_NO_CANCEL;
	struct sbx_scope *s = scope->__scope;
	uint64_t cur, max;

	if (!s || !known(resource))
		return EINVAL;
	if (!limit) {
		s->rlimits_set &= ~(1u << resource);
		return 0;
	}
	cur = kernel_value(limit->rlim_cur);
	max = kernel_value(limit->rlim_max);
	if (cur > max)
		return EINVAL; /* as setrlimit(2) says */
	s->rlimits[resource] = (struct sbx_rlimit64){ cur, max };
	s->rlimits_set |= 1u << resource;
	return 0;
}

SBX_EXPORT int sbx_scopeattr_getrlimit(const sbx_scopeattr_t *restrict scope, int resource,
                                       struct rlimit *restrict limit)
{
	const struct sbx_scope *s = scope->__scope;

	if (!s || !known(resource) || !limit)
		return EINVAL;
	if (!(s->rlimits_set & (1u << resource)))
		return ENOENT;
	limit->rlim_cur = user_value(s->rlimits[resource].cur);
	limit->rlim_max = user_value(s->rlimits[resource].max);
	return 0;
}

/* The caller's descriptor of a cgroup v2 directory, kept by number, as
 * posix_spawnattr_setcgroup_np keeps it: open until the last spawn. */
SBX_EXPORT int sbx_scopeattr_setcgroup(sbx_scopeattr_t *scope, int dirfd)
{
	struct sbx_scope *s = scope->__scope;

	if (!s || dirfd < -1)
		return EINVAL;
	s->cgroup = dirfd >= 0;
	s->cgroup_fd = dirfd;
	return 0;
}

SBX_EXPORT int sbx_scopeattr_getcgroup(const sbx_scopeattr_t *restrict scope, int *restrict dirfd)
{
	const struct sbx_scope *s = scope->__scope;

	if (!s || !dirfd)
		return EINVAL;
	*dirfd = s->cgroup ? s->cgroup_fd : -1;
	return 0;
}
