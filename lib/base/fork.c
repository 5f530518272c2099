/* SPDX-License-Identifier: MIT */
/*
 * A fork of the caller.  A process whose threads spawn may fork (a server
 * starting its workers); its child has one thread, and every lock another
 * thread held at the fork would stay held there forever.  So each lock of
 * the library is taken before the fork, in the order the library nests
 * them (the rulesets alive and the scopes' caches, then the inits run once,
 * then the descriptors kept: the innermost), and let go
 * on both sides; the child also gives up reusing what the parent compiled
 * (ruleset.c).  None is held for long: no lock of these is held across a
 * compile or a clone.
 *
 * The library's own fork, the fallback of the spawn engine, is a raw
 * system call: these handlers do not run for it, as none run for
 * posix_spawn.
 */
#include "config.h"

#include <pthread.h>

#include "lib/internal.h"

const char sbx__fork_handlers = 1;

static void prepare(void)
{
	sbx__system_atfork(SBX_FORK_PREPARE); /* nests none of the others */
#if SBX_BUILD_LANDLOCK
	sbx__ruleset_atfork(SBX_FORK_PREPARE);
#endif
	sbx__once_atfork(SBX_FORK_PREPARE);
#if SBX_BUILD_LANDLOCK
	sbx__fds_atfork(SBX_FORK_PREPARE);
#endif
}

static void let_go(enum sbx_fork_phase side)
{
#if SBX_BUILD_LANDLOCK
	sbx__fds_atfork(side);
#endif
	sbx__once_atfork(side);
#if SBX_BUILD_LANDLOCK
	sbx__ruleset_atfork(side);
#endif
	sbx__system_atfork(side);
}

static void parent(void)
{
	let_go(SBX_FORK_PARENT);
}

static void child(void)
{
	let_go(SBX_FORK_CHILD);
}

__attribute__((constructor)) static void register_handlers(void)
{
	/* Nothing to do where it fails (no memory at load): a fork child may
	 * then block in a spawn, as without these handlers. */
	(void)pthread_atfork(prepare, parent, child);
}
