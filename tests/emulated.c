/* SPDX-License-Identifier: MIT */
/* Whether the tests run under a user-mode emulator: clone(CLONE_VM) that
 * does not share memory says so. */
#include "config.h"

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/emulated.h"

/* It runs on a stack of its own, which an address sanitizer cannot tell
 * from an overflow (as the library's child). */
#if defined(__SANITIZE_ADDRESS__)
__attribute__((no_sanitize_address))
#endif
static int vm_probe(void *arg)
{
	*(volatile int *)arg = 1;
	_exit(0);
}

bool emulated(void)
{
	static int state; /* 0 unknown, 1 emulated, -1 not */

	if (state == 0) {
		static char stack[64 * 1024] __attribute__((aligned(16)));
		volatile int shared = 0;
		pid_t pid = clone(vm_probe, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD,
		                  (void *)&shared);

		if (pid > 0)
			waitpid(pid, NULL, 0);
		state = pid > 0 && !shared ? 1 : -1;
	}
	return state > 0;
}
