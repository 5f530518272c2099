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
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "internal.h"

static atomic_int said;

/* The uid the program runs as, after its exec under no_new_privs: where
 * the effective uid differs from the real one, the exec takes the real one
 * back (a caller with real uid 0 that set only its effective uid aside
 * starts its programs as root), and an exec with real or effective uid 0
 * fills the permitted capabilities from the bounding set. */
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

int sbx__privilege_kept(const struct sbx_scope *scope, short spawn_flags)
{
	struct __user_cap_header_struct head = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	uid_t uid = uid_after_exec(scope, spawn_flags);
	int kept = uid == 0 ? SBX_PRIVILEGE_ROOT : 0;

	if (!(scope->flags & SBX_SCOPE_DROP_CAPS)) {
		/* As uid 0 an exec fills the capabilities from the bounding
		 * set; otherwise only ambient ones pass an exec (no_new_privs
		 * stops the rest), and they lie in permitted and inheritable. */
		if (uid == 0)
			kept |= SBX_PRIVILEGE_CAPS;
		else if (syscall(SYS_capget, &head, data) == 0 &&
		         ((data[0].permitted & data[0].inheritable) ||
		          (data[1].permitted & data[1].inheritable)))
			kept |= SBX_PRIVILEGE_CAPS;
	}
	if (kept && !atomic_exchange(&said, 1))
		sbx__event(scope, SBX_EVENT_PRIVILEGED, 0, NULL, NULL,
		           "confined commands run %s: they can reconfigure the kernel (the core dump "
		           "helper, sysctls, modules, raw I/O, other processes) and reach past any "
		           "Landlock boundary; give them another uid and gid (sbx_scopeattr_setids, "
		           "sbxrun --uid/--gid)%s",
		           kept & SBX_PRIVILEGE_ROOT ? "as root (uid 0)" : "with capabilities",
		           kept & SBX_PRIVILEGE_CAPS ? " and drop their capabilities (SBX_SCOPE_DROP_CAPS, "
		                                       "--drop-caps)" : "");
	return kept;
}
