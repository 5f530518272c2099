/* SPDX-License-Identifier: MIT */
/* Whether the tests run under a user-mode emulator (qemu-user). */
#ifndef SBX_TESTS_EMULATED_H
#define SBX_TESTS_EMULATED_H

#include <stdbool.h>

/* qemu-user runs clone(CLONE_VM) as a fork (the library probes it too, and
 * falls back to a fork of its own); it passes no Landlock system call
 * (ENOSYS) and installs no seccomp filter for its guest (EINVAL, ENOSYS).
 * The C library's own posix_spawn, which counts on CLONE_VM, cannot tell
 * a child's failure there: it returns 0 and the child exits 127. */
bool emulated(void);

/* Under qemu-user (7.2 with GLib 2.74, Debian 12), a fork while another
 * thread of the process runs can deadlock inside the emulator: the lock of
 * GLib's slice allocator, which the emulator takes to translate code and to
 * start or end a thread, is copied held into the child, which then never
 * reaches its exec.  No lock of the library is involved:
 * tests/emulator/forkstorm.c shows it without the library.  The tests
 * that spawn from several threads at once skip there (they run natively,
 * with the engine's fork fallback forced too, in the fork suite). */
#define EMULATED_THREADS_WHY                                                    \
	"under qemu-user, a fork while another thread runs can deadlock inside " \
	"the emulator (GLib's slice allocator lock copied held; "                \
	"tests/emulator/forkstorm.c shows it without the library)"
#define SKIP_IF_EMULATED_THREADS()                                                   \
	do {                                                                         \
		if (emulated()) {                                                    \
			say_skip("SKIP %s: %s\n", __func__, EMULATED_THREADS_WHY); \
			return;                                                      \
		}                                                                    \
	} while (0)

#endif
