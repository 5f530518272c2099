/* SPDX-License-Identifier: MIT */
/*
 * Privilege: what a confined child keeps of its parent's.  Landlock
 * confines data only for an unprivileged process: one running as uid 0, or
 * with capabilities, reconfigures the kernel through files it owns and
 * powers it holds (the core dump helper, modules, raw I/O, ptrace), and
 * what the kernel then runs is in no Landlock domain.  Said once per
 * process, with what takes it away.
 */
#include "config.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "lib/internal.h"

static atomic_int said;

/* The uid the program runs as, after its exec under no_new_privs: where
 * the effective uid differs from the real one, the exec takes the real one
 * back (a caller with real uid 0 that set only its effective uid aside
 * starts its programs as root). */
static uid_t uid_after_exec(const struct sbx_scope *scope, short spawn_flags)
{
	uid_t r, e, s;

	if (scope->ids)
		return scope->uid;
	if (getresuid(&r, &e, &s))
		return 0; /* cannot tell: say the worst */
	if (spawn_flags & POSIX_SPAWN_RESETIDS)
		return r;
	return r == 0 || e == 0 ? 0 : e;
}

/* Whether a program can hold a capability after its exec under
 * no_new_privs, the caller's sets passed on unchanged.  The exec gives it
 * (bounding & fP) | (inheritable & fI) | ambient, fP and fI its file's
 * capabilities (all of them for uid 0), ambient within permitted and
 * inheritable, and then takes away whatever lies outside the permitted set
 * it had: what can survive is permitted & (bounding | inheritable), with
 * or without a file capability, as root or not. */
static bool caps_survive(void)
{
	struct __user_cap_header_struct head = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &head, data))
		return true; /* cannot tell: say the worst */
	for (int cap = 0; cap < 64; cap++) {
		uint32_t bit = UINT32_C(1) << (cap % 32);
		const struct __user_cap_data_struct *d = &data[cap / 32];

		if (!(d->permitted & bit))
			continue;
		if ((d->inheritable & bit) || prctl(PR_CAPBSET_READ, cap, 0, 0, 0) != 0)
			return true; /* in the bounding set, or cannot tell */
	}
	return false;
}

int sbx__privilege_kept(const struct sbx_scope *scope, short spawn_flags)
{
	uid_t uid = uid_after_exec(scope, spawn_flags);
	int kept = uid == 0 ? SBX_PRIVILEGE_ROOT : 0;

	/* The child empties every set when it drops them, and the permitted,
	 * effective, inheritable and ambient ones when it takes another uid
	 * than 0 (confine.c); otherwise it has the caller's.  As uid 0 it is
	 * said whatever they hold: where nothing sets no_new_privs (no
	 * Landlock, no other step), its exec fills them from the bounding set. */
	if (!(scope->flags & SBX_SCOPE_DROP_CAPS) && !(scope->ids && scope->uid != 0) &&
	    (uid == 0 || caps_survive()))
		kept |= SBX_PRIVILEGE_CAPS;
	/* One short line: it lands in the middle of the caller's output.  Not
	 * for a scope that asks nothing (an empty list): there is no boundary
	 * to reach past. */
	if (kept && !sbx__scope_empty(scope) && sbx__wants(scope, SBX_EVENT_PRIVILEGED) &&
	    !atomic_exchange(&said, 1))
		sbx__event(scope, SBX_EVENT_PRIVILEGED, 0, NULL, NULL,
		           kept & SBX_PRIVILEGE_ROOT
		           ? "confined commands run as root (uid 0) and can reach past the boundary: "
		             "see sbx_scopeattr_setids(3)"
		           : "confined commands keep capabilities and can reach past the boundary: "
		             "see SBX_SCOPE_DROP_CAPS");
	return kept;
}
