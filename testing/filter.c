/* SPDX-License-Identifier: MIT */
/*
 * Seccomp filters: the way a test makes one system call fail, for real,
 * in the calling process and in every process it starts afterwards, which
 * inherit the filter across fork and exec.  A filter cannot be removed.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "compat/landlock.h"
#include "sbxspawn/testing.h"
#include "testing/internal.h"

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_FILTER_FLAG_TSYNC_ESRCH
#define SECCOMP_FILTER_FLAG_TSYNC_ESRCH (1UL << 4)
#endif

/* The Landlock system calls have the same numbers in every ABI of an
 * architecture, compat ones included (they came after the tables were
 * unified), so one filter serves a 32-bit child of a 64-bit test too. */
#if defined(__x86_64__)
#define ARCH_NATIVE AUDIT_ARCH_X86_64
#define ARCH_COMPAT AUDIT_ARCH_I386
#define NR_MASK 0xbfffffffU /* x32 system calls carry bit 30 */
#elif defined(__aarch64__)
#define ARCH_NATIVE AUDIT_ARCH_AARCH64
#define ARCH_COMPAT AUDIT_ARCH_ARM
#elif defined(__i386__)
#define ARCH_NATIVE AUDIT_ARCH_I386
#elif defined(__arm__) && defined(__ARMEL__)
#define ARCH_NATIVE AUDIT_ARCH_ARM
#elif defined(__riscv) && __riscv_xlen == 64
#define ARCH_NATIVE AUDIT_ARCH_RISCV64
#elif defined(__s390x__)
#define ARCH_NATIVE AUDIT_ARCH_S390X
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARCH_NATIVE AUDIT_ARCH_PPC64LE
#endif
#ifndef ARCH_COMPAT
#define ARCH_COMPAT ARCH_NATIVE
#endif
#ifndef NR_MASK
#define NR_MASK 0xffffffffU
#endif

/* The kernel's largest error number: a system call returns -1 .. -4095. */
#define MAX_ERRNO 4095

/* At most the three Landlock calls. */
#define MAX_NRS 3

#ifdef ARCH_NATIVE
static long install(const struct sock_fprog *prog, unsigned long flags)
{
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, prog);
}

/* On every thread: TSYNC, with a failure to synchronise one reported as
 * ESRCH rather than as that thread's id where the kernel allows it (which
 * a listener needs); a kernel too old for the listener on every thread
 * gets it on the calling thread only. */
static int install_all(const struct sock_fprog *prog, unsigned long flags, int *listener)
{
	long r = install(prog, flags | SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_TSYNC_ESRCH);

	if (r < 0 && errno == EINVAL)
		r = install(prog, listener ? flags : flags | SECCOMP_FILTER_FLAG_TSYNC);
	if (r < 0)
		return errno == EINVAL ? ENOTSUP : errno == ESRCH ? EBUSY : errno;
	if (!listener && r > 0)
		return EBUSY; /* thread r has filters of its own: nothing installed */
	if (listener)
		*listener = (int)r;
	return 0;
}
#endif

int sbx__testing_filter(const long *nrs, size_t n, unsigned ret, int all, int *listener)
{
#ifdef ARCH_NATIVE
	struct sock_filter f[6 + MAX_NRS + 2] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_NATIVE, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_COMPAT, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, NR_MASK),
	};
	struct sock_fprog prog = { .filter = f };
	unsigned short len = 6;
	long r;

	if (n == 0 || n > MAX_NRS)
		return EINVAL;
	/* Each call jumps to the last instruction, `ret'; the others fall
	 * through to ALLOW, the one before it. */
	for (size_t i = 0; i < n; i++, len++)
		f[len] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nrs[i],
		                                      (unsigned char)(n - i), 0);
	f[len++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[len++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ret);
	prog.len = len;
	/* Without it an unprivileged process may not install a filter; set
	 * anyway, so that the state a test runs in does not depend on who
	 * runs it. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L))
		return errno;
	if (all)
		return install_all(&prog, listener ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, listener);
	r = install(&prog, listener ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0);
	if (r < 0)
		return errno == EINVAL ? ENOTSUP : errno;
	if (listener)
		*listener = (int)r;
	return 0;
#else
	(void)nrs;
	(void)n;
	(void)ret;
	(void)all;
	(void)listener;
	return ENOTSUP; /* an architecture this file does not know */
#endif
}
