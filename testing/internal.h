/* SPDX-License-Identifier: MIT */
/* What the files of the testing library share; nothing here leaves it. */
#ifndef SBX_TESTING_INTERNAL_H
#define SBX_TESTING_INTERNAL_H

#include <errno.h>
#include <stddef.h>

#define SBX_TESTING_EXPORT __attribute__((visibility("default")))

/* Every exported function leaves errno as it found it, like the library. */
static inline void sbx__testing_restore_errno(const int *saved)
{
	errno = *saved;
}
#define SBX_TESTING_KEEP_ERRNO                                                             \
	int sbx__testing_saved_errno __attribute__((cleanup(sbx__testing_restore_errno))) = errno

/* ---- guard.c: when a provocation may act ------------------------------- */

/* 0 when the calling process may be changed for good (a copy forked to run
 * one test, or no way to tell), ECHILD when it is not. */
int sbx__testing_forked(void);
/* The kernel's answer to the ABI question: the ABI, or -errno. */
long sbx__testing_abi_probe(void);
/* 0 where Landlock is there (refusing included), ENOTSUP where it is not. */
int sbx__testing_need_landlock(void);
/* 0 when this process's copy of libsbxspawn has not asked the kernel for
 * its Landlock ABI yet, EALREADY when it has (the answer is cached). */
int sbx__testing_unprobed(void);

/* ---- filter.c: seccomp filters ------------------------------------------ */

/* Installs a filter making each of the n system calls in nrs return `ret'
 * (a SECCOMP_RET_* action and its data), with no_new_privs set.  With all
 * set, on every thread of the process; with listener non-NULL, it is a
 * user notification's, returned there. */
int sbx__testing_filter(const long *nrs, size_t n, unsigned ret, int all, int *listener);

/* ---- domains.c ----------------------------------------------------------- */

/* Stacks domains that restrict nothing until the kernel refuses one more. */
int sbx__testing_stack_domains(void);

#endif
