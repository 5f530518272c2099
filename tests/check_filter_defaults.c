/* SPDX-License-Identifier: MIT */
/* What every scope's seccomp filter closes (lib/kernel/seccomp.c), read by the
 * interpreter of bpf_read.c for the native and the compat numbers: what
 * acts on another process, the keyrings, the message queues, mount
 * attributes and namespaces; the filter without its log; and the defaults
 * built once per process.  Part of check_filter (check_filter.c). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "compat/kernel.h"
#include "lib/internal.h"
#include "tests/emulated.h"
#include "tests/i386_entry.h"
#include "tests/bpf_read.h"

/* Numbers of what acts on another process, and of the keyrings, native
 * and compat: prlimit64, setpriority, sched_setaffinity,
 * sched_setscheduler, sched_setparam, sched_setattr, ioprio_set,
 * perf_event_open, clone, clone3; add_key, request_key, keyctl.
 * mount_setattr is 442 in each. */
#if defined(__x86_64__)
static const int process_nrs[2][10] = { { 302, 141, 203, 144, 142, 314, 251, 298, 56, 435 },
	                                { 340, 97, 241, 156, 154, 351, 289, 336, 120, 435 } };
static const int keyring_nrs[2][3] = { { 248, 249, 250 }, { 286, 287, 288 } };
#elif defined(__aarch64__)
static const int process_nrs[2][10] = { { 261, 140, 122, 119, 118, 274, 30, 241, 220, 435 },
	                                { 369, 97, 241, 156, 154, 380, 314, 364, 120, 435 } };
static const int keyring_nrs[2][3] = { { 217, 218, 219 }, { 309, 310, 311 } };
#endif
#define NR_MOUNT_SETATTR 442
/* mq_open and mq_unlink, native and compat. */
#if defined(__x86_64__)
static const int mq_nrs[2][2] = { { 240, 241 }, { 277, 278 } };
#elif defined(__aarch64__)
static const int mq_nrs[2][2] = { { 180, 181 }, { 274, 275 } };
#endif

/* Other processes, unless the scope tunes them: every call that names one
 * by pid fails but for pid 0, the caller's own; a process group or a user
 * fails whole (setpriority: PRIO_PGRP 1, PRIO_USER 2; ioprio_set:
 * IOPRIO_WHO_PGRP 2, _USER 3); only the low 32 bits name a pid. */
START_TEST(test_processes_read)
{
#ifdef ARCH_NATIVE
	const struct sock_fprog *prog = sbx__seccomp_filter(SBX_CLOSE_PROCESSES);
	const uint32_t arches[2] = { ARCH_NATIVE, ARCH_COMPAT };

	ck_assert_ptr_nonnull(prog);
	for (int i = 0; i < 2; i++) {
		const int *nr = process_nrs[i];
		uint32_t arch = arches[i];

		/* prlimit64 and the four sched_set* calls: pid in argument 0. */
		for (int k = 0; k < 6; k++) {
			if (k == 1)
				continue;
			ck_assert_uint_eq(verdict_args(prog, arch, nr[k], 0, 7, 0, 0), SECCOMP_RET_ALLOW);
			ck_assert_uint_eq(verdict_args(prog, arch, nr[k], 1, 7, 0, 0), DENIED);
			ck_assert_uint_eq(verdict_args(prog, arch, nr[k], 4242, 0, 0, 0), DENIED);
			ck_assert_uint_eq(verdict_args(prog, arch, nr[k], 0xffffffffULL, 0, 0, 0), DENIED);
			ck_assert_uint_eq(verdict_args(prog, arch, nr[k], 1ULL << 32, 0, 0, 0),
			                  SECCOMP_RET_ALLOW);
		}
		/* setpriority(which, who, prio) */
		ck_assert_uint_eq(verdict_args(prog, arch, nr[1], 0, 0, 5, 0), SECCOMP_RET_ALLOW);
		ck_assert_uint_eq(verdict_args(prog, arch, nr[1], 0, 4242, 5, 0), DENIED);
		ck_assert_uint_eq(verdict_args(prog, arch, nr[1], 1, 0, 5, 0), DENIED);
		ck_assert_uint_eq(verdict_args(prog, arch, nr[1], 2, 0, 5, 0), DENIED);
		ck_assert_uint_eq(verdict_args(prog, arch, nr[1], 2, 1000, 5, 0), DENIED);
		/* ioprio_set(which, who, ioprio) */
		ck_assert_uint_eq(verdict_args(prog, arch, nr[6], 1, 0, 3 << 13, 0), SECCOMP_RET_ALLOW);
		ck_assert_uint_eq(verdict_args(prog, arch, nr[6], 1, 4242, 3 << 13, 0), DENIED);
		ck_assert_uint_eq(verdict_args(prog, arch, nr[6], 2, 0, 3 << 13, 0), DENIED);
		ck_assert_uint_eq(verdict_args(prog, arch, nr[6], 3, 0, 3 << 13, 0), DENIED);
		/* perf_event_open(attr, pid, cpu, group_fd, flags): its own
		 * process alone, not another, not every one on a CPU (-1). */
		ck_assert_uint_eq(verdict_args(prog, arch, nr[7], 0x1000, 0, 0, 0), SECCOMP_RET_ALLOW);
		ck_assert_uint_eq(verdict_args(prog, arch, nr[7], 0x1000, 4242, 0, 0), DENIED);
		ck_assert_uint_eq(verdict_args(prog, arch, nr[7], 0x1000, 0xffffffffULL, 0, 0), DENIED);
		/* clone(flags, ...): CLONE_PARENT (0x8000) among any flags;
		 * fork's, pthread_create's and vfork's flags pass. */
		ck_assert_uint_eq(verdict_args(prog, arch, nr[8], 0x01200011, 0, 0, 0), SECCOMP_RET_ALLOW);
		ck_assert_uint_eq(verdict_args(prog, arch, nr[8], 0x003d0f00, 1, 0, 0), SECCOMP_RET_ALLOW);
		ck_assert_uint_eq(verdict_args(prog, arch, nr[8], 0x00004111, 0, 0, 0), SECCOMP_RET_ALLOW);
		ck_assert_uint_eq(verdict_args(prog, arch, nr[8], 0x00008011, 0, 0, 0), DENIED);
		ck_assert_uint_eq(verdict_args(prog, arch, nr[8], 0x01218011, 0, 0, 0), DENIED);
		/* clone3: ENOSYS, whatever it asks, for the C library falls back. */
		ck_assert_uint_eq(verdict_args(prog, arch, nr[9], 0, 0, 0, 0), SECCOMP_RET_ERRNO | ENOSYS);
		/* Mounts are a closure of their own. */
		ck_assert_uint_eq(verdict(prog, arch, NR_MOUNT_SETATTR), SECCOMP_RET_ALLOW);
		/* The keyrings stay, where only processes are closed. */
		ck_assert_uint_eq(verdict(prog, arch, keyring_nrs[i][2]), SECCOMP_RET_ALLOW);
	}
#if defined(__x86_64__)
	ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, 302 | 0x40000000, 4242, 0, 0, 0), DENIED);
#endif
#else
	fprintf(stderr, "SKIP %s: no filter is known for this architecture\n", __func__);
#endif
}
END_TEST

/* Keyrings, unless the scope shares them: every call, whole. */
START_TEST(test_keyrings_read)
{
#ifdef ARCH_NATIVE
	const struct sock_fprog *prog = sbx__seccomp_filter(SBX_CLOSE_KEYRINGS);
	const uint32_t arches[2] = { ARCH_NATIVE, ARCH_COMPAT };

	ck_assert_ptr_nonnull(prog);
	for (int i = 0; i < 2; i++) {
		for (int k = 0; k < 3; k++) {
			ck_assert_uint_eq(verdict_args(prog, arches[i], keyring_nrs[i][k], 0, 0, 0, 0),
			                  DENIED);
			ck_assert_uint_eq(verdict_args(prog, arches[i], keyring_nrs[i][k] + 3, 0, 0, 0, 0),
			                  SECCOMP_RET_ALLOW);
		}
		ck_assert_uint_eq(verdict_args(prog, arches[i], process_nrs[i][0], 4242, 0, 0, 0),
		                  SECCOMP_RET_ALLOW);
	}
	/* Everything at once still fits one program. */
	prog = sbx__seccomp_filter(SBX_CLOSE_TERMINAL | SBX_CLOSE_PROCESSES | SBX_CLOSE_KEYRINGS |
	                          SBX_CLOSE_IO_URING | SBX_CLOSE_STREAMS | SBX_CLOSE_FASTOPEN |
	                          SBX_CLOSE_TCP);
	ck_assert_ptr_nonnull(prog);
	ck_assert_uint_eq(verdict_args(prog, ARCH_COMPAT, keyring_nrs[1][2], 0, 0, 0, 0), DENIED);
	ck_assert_uint_eq(verdict(prog, ARCH_COMPAT, 20), SECCOMP_RET_ALLOW);
#else
	fprintf(stderr, "SKIP %s: no filter is known for this architecture\n", __func__);
#endif
}
END_TEST

/* setns, open_by_handle_at and fanotify_init, native and compat;
 * open_tree, fsopen, fsmount, fspick and open_tree_attr are 428, 430, 432,
 * 433 and 467 in each (move_mount, 429, and fsconfig, 431, are Landlock's
 * to refuse, or harmless alone). */
#if defined(__x86_64__)
static const int namespace_nrs[2][3] = { { 308, 304, 300 }, { 346, 342, 338 } };
#elif defined(__aarch64__)
static const int namespace_nrs[2][3] = { { 268, 265, 262 }, { 375, 371, 367 } };
#endif

/* A child that hides a denial: every call past a cover that does not
 * cross it fails whole, with EPERM; the mount calls Landlock refuses
 * itself, and the rest, pass. */
START_TEST(test_namespace_read)
{
#ifdef ARCH_NATIVE
	const struct sock_fprog *prog = sbx__seccomp_filter(SBX_CLOSE_NAMESPACE);
	const uint32_t arches[2] = { ARCH_NATIVE, ARCH_COMPAT };
	const int mounts[5] = { 428, 430, 432, 433, 467 };

	ck_assert_ptr_nonnull(prog);
	for (int i = 0; i < 2; i++) {
		for (int k = 0; k < 3; k++)
			ck_assert_uint_eq(verdict_args(prog, arches[i], namespace_nrs[i][k], 3, 0, 0, 0),
			                  DENIED);
		for (int k = 0; k < 5; k++)
			ck_assert_uint_eq(verdict_args(prog, arches[i], mounts[k], 0, 0, 0, 0), DENIED);
		ck_assert_uint_eq(verdict(prog, arches[i], 429), SECCOMP_RET_ALLOW);
		ck_assert_uint_eq(verdict(prog, arches[i], 431), SECCOMP_RET_ALLOW);
		ck_assert_uint_eq(verdict(prog, arches[i], NR_MOUNT_SETATTR), SECCOMP_RET_ALLOW);
	}
	/* With the defaults, still one program of a reasonable size. */
	prog = sbx__seccomp_filter(SBX_CLOSE_TERMINAL | SBX_CLOSE_PROCESSES | SBX_CLOSE_KEYRINGS |
	                           SBX_CLOSE_MOUNTS | SBX_CLOSE_MQUEUE | SBX_CLOSE_NAMESPACE);
	ck_assert_ptr_nonnull(prog);
	ck_assert_uint_le(prog->len, 140);
	ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, namespace_nrs[0][0], 3, 0, 0, 0), DENIED);
	ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, NR_MOUNT_SETATTR, 0, 0, 0, 0), DENIED);
#else
	fprintf(stderr, "SKIP %s: no filter is known for this architecture\n", __func__);
#endif
}
END_TEST

/* Under SBX_SCOPE_LOG_DENIALS: a layer of the child's own that would not
 * log as the scope's does fails with EPERM, in both ABIs: one without
 * LOG_NEW_EXEC_ON, or with an off flag; LOG_NEW_EXEC_ON alone (TSYNC
 * aside) passes. */
START_TEST(test_log_off_read)
{
#ifdef ARCH_NATIVE
	const struct sock_fprog *prog = sbx__seccomp_filter(SBX_CLOSE_LOG_OFF);
	const uint32_t arches[2] = { ARCH_NATIVE, ARCH_COMPAT };

	ck_assert_ptr_nonnull(prog);
	for (int i = 0; i < 2; i++) {
		for (uint64_t flags = 0; flags < 16; flags++)
			ck_assert_uint_eq(verdict_args(prog, arches[i], 446, 3, flags, 0, 0),
			                  (flags & 7) != 2 ? DENIED : SECCOMP_RET_ALLOW);
		ck_assert_uint_eq(verdict_args(prog, arches[i], 446, (uint64_t)-1, 4, 0, 0), DENIED);
		ck_assert_uint_eq(verdict_args(prog, arches[i], 444, 0, 0, 1, 0), SECCOMP_RET_ALLOW);
	}
	ck_assert_uint_eq(verdict_args(sbx__seccomp_filter(SBX_CLOSE_TERMINAL), ARCH_NATIVE, 446, 3, 1, 0, 0),
	                  SECCOMP_RET_ALLOW);
#else
	fprintf(stderr, "SKIP %s: no filter is known for this architecture\n", __func__);
#endif
}
END_TEST

/* What every scoped child gets, the default rules: built once per process
 * (the same program for the same closures, another for others), and cheap
 * to pass: a call no rule names runs a few instructions, not one per rule,
 * and the whole stays small, for the kernel compiles it at every install.
 * Each rule read the same as the rules read alone. */
START_TEST(test_defaults_built_once)
{
#ifdef ARCH_NATIVE
	int defaults = SBX_CLOSE_TERMINAL | SBX_CLOSE_PROCESSES | SBX_CLOSE_KEYRINGS | SBX_CLOSE_MOUNTS |
	               SBX_CLOSE_MQUEUE;
	const struct sock_fprog *prog = sbx__seccomp_filter(defaults);
	const uint32_t arches[2] = { ARCH_NATIVE, ARCH_COMPAT };

	ck_assert_ptr_nonnull(prog);
	ck_assert_ptr_eq(sbx__seccomp_filter(defaults), prog);
	ck_assert_ptr_ne(sbx__seccomp_filter(defaults | SBX_CLOSE_IO_URING), prog);
	ck_assert_ptr_null(sbx__seccomp_filter(SBX_CLOSE_ALL + 1));
	/* 113 on x86_64: the terminal, other processes (perf events,
	 * CLONE_PARENT and clone3 among them), keyrings, mounts and queues
	 * of both ABIs. */
	ck_assert_uint_le(prog->len, 120);
	for (int i = 0; i < 2; i++) {
		/* mount_setattr, whole, in every scoped child. */
		ck_assert_uint_eq(verdict_args(prog, arches[i], NR_MOUNT_SETATTR, 0, 0, 0, 0), DENIED);
		/* Queues by name, whole, unless the scope names their mount:
		 * then the defaults without them. */
		for (int k = 0; k < 2; k++) {
			ck_assert_uint_eq(verdict_args(prog, arches[i], mq_nrs[i][k], 0, 0, 0, 0),
			                  SECCOMP_RET_ERRNO | EACCES);
			ck_assert_uint_eq(verdict(sbx__seccomp_filter(defaults & ~SBX_CLOSE_MQUEUE),
			                          arches[i], mq_nrs[i][k]), SECCOMP_RET_ALLOW);
		}
		for (int nr = 0; nr < 460; nr++) {
			bool named = false;
			uint32_t alone;

			for (int k = 0; k < 10; k++)
				named |= nr == process_nrs[i][k];
			named |= nr == NR_MOUNT_SETATTR || nr == mq_nrs[i][0] || nr == mq_nrs[i][1];
			for (int k = 0; k < 3; k++)
				named |= nr == keyring_nrs[i][k];
			/* 514: x32's own ioctl, under x86_64's mask. */
			named |= nr == (i ? NR_IOCTL_COMPAT : NR_IOCTL) || (!i && nr == 514);
			if (named) {
				alone = verdict_args(sbx__seccomp_filter(SBX_CLOSE_PROCESSES), arches[i], nr,
				                     7, 7, 0, 0);
				if (alone == SECCOMP_RET_ALLOW)
					alone = verdict_args(sbx__seccomp_filter(SBX_CLOSE_KEYRINGS),
					                     arches[i], nr, 7, 7, 0, 0);
				if (alone == SECCOMP_RET_ALLOW)
					alone = verdict_args(sbx__seccomp_filter(SBX_CLOSE_TERMINAL),
					                     arches[i], nr, 7, 7, 0, 0);
				if (alone == SECCOMP_RET_ALLOW)
					alone = verdict_args(sbx__seccomp_filter(SBX_CLOSE_MOUNTS),
					                     arches[i], nr, 7, 7, 0, 0);
				if (alone == SECCOMP_RET_ALLOW)
					alone = verdict_args(sbx__seccomp_filter(SBX_CLOSE_MQUEUE),
					                     arches[i], nr, 7, 7, 0, 0);
				ck_assert_uint_eq(verdict_args(prog, arches[i], nr, 7, 7, 0, 0), alone);
				continue;
			}
			ck_assert_uint_eq(verdict(prog, arches[i], nr), SECCOMP_RET_ALLOW);
			ck_assert_uint_le(executed, 12);
		}
	}
#else
	fprintf(stderr, "SKIP %s: no filter is known for this architecture\n", __func__);
#endif
}
END_TEST

TCase *tcase_filter_defaults(void)
{
	TCase *tc = tcase_create("defaults");

	/* Untimed (Check's default is 4 s): tests/watchdog catches a hang. */
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, test_processes_read);
	tcase_add_test(tc, test_keyrings_read);
	tcase_add_test(tc, test_namespace_read);
	tcase_add_test(tc, test_log_off_read);
	tcase_add_test(tc, test_defaults_built_once);
	return tc;
}
