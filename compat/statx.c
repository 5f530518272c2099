/* SPDX-License-Identifier: MIT */
/* statx(2) for a C library without it: the system call, with the C
 * library's convention (-1 and errno). */
#include "config.h"

#include <sys/syscall.h>
#include <unistd.h>

#include "compat/statx.h"

#ifndef SYS_statx
#error "statx: this C library's <sys/syscall.h> names no SYS_statx"
#endif

int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *sx)
{
	return (int)syscall(SYS_statx, dirfd, path, flags, mask, sx);
}
