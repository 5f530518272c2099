/* SPDX-License-Identifier: MIT */
/*
 * Landlock's outcomes provoked: the kernel without it (hidden), or one of
 * its three calls refused.  When a provocation may act is guard.c's; the
 * filter that makes a call fail, filter.c's.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <sys/syscall.h>

#include "compat/kernel.h"
#include "compat/landlock.h"
#include "sbxspawn/testing.h"
#include "testing/internal.h"

/* The kernel's largest error number: a system call returns -1 .. -4095. */
#define MAX_ERRNO 4095

static const long landlock_calls[] = {
	[SBX_TESTING_CREATE_RULESET - 1] = __NR_landlock_create_ruleset,
	[SBX_TESTING_ADD_RULE - 1] = __NR_landlock_add_rule,
	[SBX_TESTING_RESTRICT_SELF - 1] = __NR_landlock_restrict_self,
};

SBX_TESTING_EXPORT int sbx_testing_landlock_hide(int err)
{
	SBX_TESTING_KEEP_ERRNO;
	int r;

	if (err != ENOSYS && err != EOPNOTSUPP)
		return EINVAL;
	if ((r = sbx__testing_forked()) || (r = sbx__testing_unprobed()))
		return r;
	return sbx__testing_filter(landlock_calls, 3, SECCOMP_RET_ERRNO | (unsigned)err, 1, NULL);
}

SBX_TESTING_EXPORT int sbx_testing_landlock_refuse(int step, int err)
{
	SBX_TESTING_KEEP_ERRNO;
	int r;

	if (step < SBX_TESTING_CREATE_RULESET || step > SBX_TESTING_RESTRICT_SELF || err <= 0 ||
	    err > MAX_ERRNO)
		return EINVAL;
	/* Creation failing so, before the library's first question, is the
	 * answer of a kernel without Landlock: sbx_testing_landlock_hide(). */
	if (step == SBX_TESTING_CREATE_RULESET && (err == ENOSYS || err == EOPNOTSUPP))
		return EINVAL;
	if ((r = sbx__testing_forked()))
		return r;
	/* Without Landlock nothing adds a rule or applies a ruleset: there
	 * would be nothing to refuse.  Creation is asked either way. */
	if (step != SBX_TESTING_CREATE_RULESET && (r = sbx__testing_need_landlock()))
		return r;
	/* The kernel's own E2BIG: its limit of stacked domains, reached. */
	if (step == SBX_TESTING_RESTRICT_SELF && err == E2BIG)
		return sbx__testing_stack_domains();
	return sbx__testing_filter(&landlock_calls[step - 1], 1, SECCOMP_RET_ERRNO | (unsigned)err, 1,
	                           NULL);
}
