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

#endif
