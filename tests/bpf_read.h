/* SPDX-License-Identifier: MIT */
/* An interpreter of classic BPF for the seccomp filters' suite
 * (bpf_read.c): the kernel's reading of a program, for the instructions
 * the library emits, and the architectures' numbers.  The filters read
 * with it: check_filter.c (io_uring's, TCP's and every network road's,
 * the terminal's) and check_filter_defaults.c (what every scope closes). */
#ifndef SBX_TESTS_BPF_READ_H
#define SBX_TESTS_BPF_READ_H

#include <errno.h>
#include <stdint.h>

#include <check.h>

#include "compat/kernel.h"

#if defined(__x86_64__)
#define ARCH_NATIVE AUDIT_ARCH_X86_64
#define ARCH_COMPAT AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define ARCH_NATIVE AUDIT_ARCH_AARCH64
#define ARCH_COMPAT AUDIT_ARCH_ARM
#endif

#define IO_URING_SETUP 425

#define DENIED (SECCOMP_RET_ERRNO | EPERM)

/* ioctl, native (and x32's) and compat. */
#if defined(__x86_64__)
#define NR_IOCTL 16
#define NR_IOCTL_X32 (514 | 0x40000000)
#elif defined(__aarch64__)
#define NR_IOCTL 29
#endif
#define NR_IOCTL_COMPAT 54

/* Instructions the last run took. */
extern unsigned executed;

/* What the filter answers for one system call. */
uint32_t run(const struct sock_fprog *prog, const struct seccomp_data *d);
uint32_t verdict(const struct sock_fprog *prog, uint32_t arch, int nr);
uint32_t verdict_args(const struct sock_fprog *prog, uint32_t arch, int nr, uint64_t a0,
                      uint64_t a1, uint64_t a2, uint64_t a3);

/* check_filter_defaults.c's case: what every scope's filter closes. */
TCase *tcase_filter_defaults(void);

#endif /* SBX_TESTS_BPF_READ_H */
