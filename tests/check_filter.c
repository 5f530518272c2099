/* SPDX-License-Identifier: MIT */
/* The seccomp filters (lib/seccomp.c), on the architecture they were built
 * for: the one closing io_uring, its check of the architecture and of the
 * system call number, read by an interpreter of classic BPF (which runs
 * anywhere, an emulator included), and installed in the kernel where the
 * kernel takes it; the one closing TCP's other roads, read for every
 * protocol and family the kernel may know, x32's own numbers included; and
 * the terminal's, every scope's, read for every number of ioctl. */
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

#if defined(__x86_64__)
#define ARCH_NATIVE AUDIT_ARCH_X86_64
#define ARCH_COMPAT AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define ARCH_NATIVE AUDIT_ARCH_AARCH64
#define ARCH_COMPAT AUDIT_ARCH_ARM
#endif

#define IO_URING_SETUP 425

/* Instructions the last run took. */
static unsigned executed;

/* What the filter answers for one system call: the kernel's reading of a
 * classic BPF program, for the instructions the library emits. */
static uint32_t run(const struct sock_fprog *prog, const struct seccomp_data *d)
{
	uint32_t a = 0;

	executed = 0;
	for (unsigned pc = 0; pc < prog->len; pc++) {
		const struct sock_filter *f = &prog->filter[pc];

		executed++;
		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			ck_assert_msg(f->k + 4 <= sizeof(*d) && f->k % 4 == 0, "load at %u", f->k);
			memcpy(&a, (const char *)d + f->k, 4);
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= f->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			pc += a > f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JA:
			pc += f->k;
			break;
		case BPF_RET | BPF_K:
			return f->k;
		default:
			ck_abort_msg("instruction %u: code %#x the interpreter does not know", pc, f->code);
		}
	}
	ck_abort_msg("the filter ran off its end");
	return 0;
}

static uint32_t verdict(const struct sock_fprog *prog, uint32_t arch, int nr)
{
	struct seccomp_data d = { .nr = nr, .arch = arch };

	return run(prog, &d);
}

#define DENIED (SECCOMP_RET_ERRNO | EPERM)

static uint32_t verdict_args(const struct sock_fprog *prog, uint32_t arch, int nr, uint64_t a0,
                             uint64_t a1, uint64_t a2, uint64_t a3)
{
	struct seccomp_data d = { .nr = nr, .arch = arch, .args = { a0, a1, a2, a3 } };

	return run(prog, &d);
}

#if defined(__x86_64__)
#define NR_SOCKET 41
#define NR_SOCKET_COMPAT 359
#define NR_SENDTO 44
#define NR_SENDMSG 46
#define NR_SENDMMSG 307
#define NR_SOCKETPAIR 53
#define NR_SOCKETPAIR_COMPAT 360
#elif defined(__aarch64__)
#define NR_SOCKET 198
#define NR_SOCKET_COMPAT 281
#define NR_SENDTO 206
#define NR_SENDMSG 211
#define NR_SENDMMSG 269
#define NR_SOCKETPAIR 199
#define NR_SOCKETPAIR_COMPAT 288
#endif
#define FASTOPEN 0x20000000

/* No network: every family but unix refused at socket and socketpair, an
 * inet socket that is not a stream too; inet streams only where a port is
 * allowed (SBX_CLOSE_INET absent); socketcall's socket and socketpair
 * fail whole. */
START_TEST(test_network_roads_read)
{
#ifdef ARCH_NATIVE
	const struct sock_fprog *proxy = sbx__seccomp_filter(SBX_CLOSE_NETWORK);
	const struct sock_fprog *none = sbx__seccomp_filter(SBX_CLOSE_NETWORK | SBX_CLOSE_INET);
	const uint32_t denied = SECCOMP_RET_ERRNO | EACCES;
	const uint32_t arches[2] = { ARCH_NATIVE, ARCH_COMPAT };
	const int sockets[2] = { NR_SOCKET, NR_SOCKET_COMPAT };
	const int pairs[2] = { NR_SOCKETPAIR, NR_SOCKETPAIR_COMPAT };

	ck_assert_ptr_nonnull(proxy);
	ck_assert_ptr_nonnull(none);
	for (int i = 0; i < 2; i++) {
		for (int w = 0; w < 2; w++) {
			const struct sock_fprog *prog = w ? none : proxy;

			ck_assert_uint_eq(verdict_args(prog, arches[i], sockets[i], AF_UNIX, SOCK_DGRAM,
			                               0, 0),
			                  SECCOMP_RET_ALLOW);
			ck_assert_uint_eq(verdict_args(prog, arches[i], pairs[i], AF_UNIX, SOCK_STREAM,
			                               0, 0),
			                  SECCOMP_RET_ALLOW);
			ck_assert_uint_eq(verdict_args(prog, arches[i], pairs[i], AF_INET, SOCK_STREAM,
			                               0, 0),
			                  denied);
			for (int v = 0; v < 2; v++) {
				unsigned family = v ? AF_INET6 : AF_INET;

				ck_assert_uint_eq(verdict_args(prog, arches[i], sockets[i], family,
				                               SOCK_DGRAM | SOCK_CLOEXEC, 0, 0),
				                  denied);
				ck_assert_uint_eq(verdict_args(prog, arches[i], sockets[i], family,
				                               SOCK_RAW, 1, 0),
				                  denied);
				ck_assert_uint_eq(verdict_args(prog, arches[i], sockets[i], family,
				                               SOCK_STREAM | SOCK_NONBLOCK, 0, 0),
				                  w ? denied : SECCOMP_RET_ALLOW);
			}
			/* packet, netlink, vsock, one the kernel may learn later */
			ck_assert_uint_eq(verdict_args(prog, arches[i], sockets[i], 17, SOCK_RAW, 768, 0),
			                  denied);
			ck_assert_uint_eq(verdict_args(prog, arches[i], sockets[i], 16, SOCK_RAW, 0, 0),
			                  denied);
			ck_assert_uint_eq(verdict_args(prog, arches[i], sockets[i], 40, SOCK_STREAM, 0, 0),
			                  denied);
			ck_assert_uint_eq(verdict_args(prog, arches[i], sockets[i], 60, SOCK_DGRAM, 0, 0),
			                  denied);
		}
	}
	/* socketcall(2): SYS_SOCKET (1) and SYS_SOCKETPAIR (8), whole. */
	ck_assert_uint_eq(verdict_args(proxy, ARCH_COMPAT, 102, 1, 0, 0, 0),
	                  SECCOMP_RET_ERRNO | EAFNOSUPPORT);
	ck_assert_uint_eq(verdict_args(proxy, ARCH_COMPAT, 102, 8, 0, 0, 0),
	                  SECCOMP_RET_ERRNO | EAFNOSUPPORT);
	ck_assert_uint_eq(verdict_args(proxy, ARCH_COMPAT, 102, 3 /* CONNECT */, 0, 0, 0),
	                  SECCOMP_RET_ALLOW);
#else
	say_skip("SKIP %s: no filter for this architecture\n", __func__);
#endif
}
END_TEST

/* Under a TCP control, an inet stream socket is TCP's or nothing, the SMC
 * family is closed, and no send hides a connect. */
START_TEST(test_tcp_roads_read)
{
#ifdef ARCH_NATIVE
	const struct sock_fprog *prog = sbx__seccomp_filter(SBX_CLOSE_STREAMS | SBX_CLOSE_FASTOPEN);
	const uint32_t noproto = SECCOMP_RET_ERRNO | EPROTONOSUPPORT;
	const uint32_t nofamily = SECCOMP_RET_ERRNO | EAFNOSUPPORT;
	const uint32_t denied = SECCOMP_RET_ERRNO | EACCES;
	const uint32_t arches[2] = { ARCH_NATIVE, ARCH_COMPAT };
	const int sockets[2] = { NR_SOCKET, NR_SOCKET_COMPAT };

	ck_assert_ptr_nonnull(prog);
	for (int i = 0; i < 2; i++) {
		uint32_t arch = arches[i];
		int nr = sockets[i];

		/* TCP itself, by its number or by default, and what is not a
		 * stream: let through, for Landlock's rights to judge. */
		ck_assert_uint_eq(verdict_args(prog, arch, nr, AF_INET, SOCK_STREAM, 0, 0),
		                  SECCOMP_RET_ALLOW);
		ck_assert_uint_eq(verdict_args(prog, arch, nr, AF_INET6, SOCK_STREAM | SOCK_CLOEXEC,
		                               IPPROTO_TCP, 0),
		                  SECCOMP_RET_ALLOW);
		ck_assert_uint_eq(verdict_args(prog, arch, nr, AF_INET, SOCK_DGRAM, IPPROTO_UDP, 0),
		                  SECCOMP_RET_ALLOW);
		ck_assert_uint_eq(verdict_args(prog, arch, nr, AF_UNIX, SOCK_STREAM, 0, 0),
		                  SECCOMP_RET_ALLOW);
		/* Every other stream protocol on inet addresses: MPTCP (262),
		 * SMC (256), SCTP (132), one the kernel may learn later. */
		for (int v = 0; v < 2; v++) {
			unsigned family = v ? AF_INET6 : AF_INET;

			ck_assert_uint_eq(verdict_args(prog, arch, nr, family, SOCK_STREAM, 262, 0),
			                  noproto);
			ck_assert_uint_eq(verdict_args(prog, arch, nr, family,
			                               SOCK_STREAM | SOCK_NONBLOCK, 256, 0),
			                  noproto);
			ck_assert_uint_eq(verdict_args(prog, arch, nr, family, SOCK_STREAM, 132, 0),
			                  noproto);
			ck_assert_uint_eq(verdict_args(prog, arch, nr, family, SOCK_STREAM, 300, 0),
			                  noproto);
		}
		/* The SMC family, whatever its protocol: it falls back to TCP. */
		ck_assert_uint_eq(verdict_args(prog, arch, nr, 43, SOCK_STREAM, 0, 0), nofamily);
		ck_assert_uint_eq(verdict_args(prog, arch, nr, 43, SOCK_STREAM, 1, 0), nofamily);
	}
	/* A connect hidden in a send, on every number of each send. */
	ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, NR_SENDTO, 3, 0, 0, FASTOPEN), denied);
	ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, NR_SENDTO, 3, 0, 0, 0), SECCOMP_RET_ALLOW);
	ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, NR_SENDMSG, 3, 0, FASTOPEN, 0), denied);
	ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, NR_SENDMMSG, 3, 0, 1, FASTOPEN), denied);
	ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, NR_SENDMSG, 3, 0, 0x40, 0),
	                  SECCOMP_RET_ALLOW);
#if defined(__x86_64__)
	/* x32: its own sendmsg (518) and sendmmsg (538), and the shared
	 * numbers with bit 30. */
	ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, 518 | 0x40000000, 3, 0, FASTOPEN, 0),
	                  denied);
	ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, 538 | 0x40000000, 3, 0, 1, FASTOPEN),
	                  denied);
	ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, 518 | 0x40000000, 3, 0, 0, 0),
	                  SECCOMP_RET_ALLOW);
	ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, NR_SENDTO | 0x40000000, 3, 0, 0, FASTOPEN),
	                  denied);
	ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, NR_SOCKET | 0x40000000, AF_INET,
	                               SOCK_STREAM, 262, 0),
	                  noproto);
	/* i386's socketcall(2) hides its arguments: its socket call fails
	 * whole. */
	ck_assert_uint_eq(verdict_args(prog, ARCH_COMPAT, 102, 1, 0, 0, 0), nofamily);
#endif
#else
	fprintf(stderr, "SKIP %s: no filter is known for this architecture\n", __func__);
#endif
}
END_TEST

#if defined(__x86_64__)
#define NR_IOCTL 16
#define NR_IOCTL_X32 (514 | 0x40000000)
#elif defined(__aarch64__)
#define NR_IOCTL 29
#endif
#define NR_IOCTL_COMPAT 54

/* The terminal, closed for every scope: TIOCSTI and TIOCLINUX fail, read
 * as the kernel reads a command (32 bits), on every number of ioctl; every
 * other command passes. */
START_TEST(test_terminal_read)
{
#ifdef ARCH_NATIVE
	const int closed[2] = { SBX_CLOSE_TERMINAL, SBX_CLOSE_TERMINAL | SBX_CLOSE_IO_URING |
	                                            SBX_CLOSE_STREAMS | SBX_CLOSE_FASTOPEN };
	const uint32_t arches[2] = { ARCH_NATIVE, ARCH_COMPAT };
	const int ioctls[2] = { NR_IOCTL, NR_IOCTL_COMPAT };
	const unsigned long passes[] = { TCGETS, TCSETS, TCSETSW, TCSETSF, TIOCGWINSZ, TIOCSWINSZ,
		                         TIOCGPGRP, TIOCSPGRP, TIOCSCTTY, TCFLSH, TCSBRK, FIONREAD,
		                         TIOCGSID, TIOCNOTTY, TIOCSTI + 1, TIOCSTI - 1 };
	const uint64_t high = 0xffffffff00000000ULL;

	ck_assert_uint_eq(TIOCSTI, 0x5412);
	ck_assert_uint_eq(TIOCLINUX, 0x541c);
	for (int c = 0; c < 2; c++) {
		const struct sock_fprog *prog = sbx__seccomp_filter(closed[c]);

		ck_assert_ptr_nonnull(prog);
		for (int i = 0; i < 2; i++) {
			uint32_t arch = arches[i];
			int nr = ioctls[i];

			ck_assert_uint_eq(verdict_args(prog, arch, nr, 0, TIOCSTI, 0, 0), DENIED);
			ck_assert_uint_eq(verdict_args(prog, arch, nr, 0, TIOCLINUX, 0, 0), DENIED);
			/* Set high bits do not make another command. */
			ck_assert_uint_eq(verdict_args(prog, arch, nr, 0, TIOCSTI | high, 0, 0), DENIED);
			ck_assert_uint_eq(verdict_args(prog, arch, nr, 0, TIOCLINUX | high, 0, 0),
			                  DENIED);
			for (size_t k = 0; k < sizeof(passes) / sizeof(passes[0]); k++)
				ck_assert_uint_eq(verdict_args(prog, arch, nr, 0, passes[k], 0, 0),
				                  SECCOMP_RET_ALLOW);
		}
		/* The same command to another call passes: its second argument
		 * is no command there. */
		ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, NR_IOCTL + 1, 0, TIOCSTI, 0, 0),
		                  SECCOMP_RET_ALLOW);
		ck_assert_uint_eq(verdict_args(prog, ARCH_COMPAT, NR_IOCTL_COMPAT + 1, 0, TIOCSTI, 0,
		                               0),
		                  SECCOMP_RET_ALLOW);
#if defined(__x86_64__)
		/* x32: its own ioctl, and the native number with bit 30. */
		ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, NR_IOCTL_X32, 0, TIOCSTI, 0, 0),
		                  DENIED);
		ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, NR_IOCTL_X32, 0, TIOCLINUX | high,
		                               0, 0),
		                  DENIED);
		ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, NR_IOCTL_X32, 0, TCSETS, 0, 0),
		                  SECCOMP_RET_ALLOW);
		ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, NR_IOCTL | 0x40000000, 0, TIOCSTI,
		                               0, 0),
		                  DENIED);
		/* i386's 16 is lchown: not an ioctl. */
		ck_assert_uint_eq(verdict_args(prog, ARCH_COMPAT, 16, 0, TIOCSTI, 0, 0),
		                  SECCOMP_RET_ALLOW);
#endif
	}
	/* The cost: a few instructions in all, a few run per call. */
	const struct sock_fprog *prog = sbx__seccomp_filter(SBX_CLOSE_TERMINAL);

	ck_assert_uint_le(prog->len, 32);
	ck_assert_uint_eq(verdict(prog, ARCH_NATIVE, SYS_getpid), SECCOMP_RET_ALLOW);
	ck_assert_uint_le(executed, 12);
	ck_assert_uint_eq(verdict_args(prog, ARCH_NATIVE, NR_IOCTL, 0, TCGETS, 0, 0),
	                  SECCOMP_RET_ALLOW);
	ck_assert_uint_le(executed, 14);
#else
	ck_assert_ptr_null(sbx__seccomp_filter(SBX_CLOSE_TERMINAL));
	fprintf(stderr, "SKIP %s: no filter is known for this architecture\n", __func__);
#endif
}
END_TEST

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

START_TEST(test_arch_check_read)
{
#ifdef ARCH_NATIVE
	const struct sock_fprog *prog = sbx__seccomp_filter(SBX_CLOSE_IO_URING);

	ck_assert(sbx__seccomp_supported());
	ck_assert_ptr_nonnull(prog);
	/* io_uring_setup, _enter, _register: the native ABI and its compat
	 * one, where the three have the same numbers. */
	for (int nr = IO_URING_SETUP; nr <= IO_URING_SETUP + 2; nr++) {
		ck_assert_uint_eq(verdict(prog, ARCH_NATIVE, nr), DENIED);
		ck_assert_uint_eq(verdict(prog, ARCH_COMPAT, nr), DENIED);
	}
	/* Their neighbours, and everything else, pass. */
	ck_assert_uint_eq(verdict(prog, ARCH_NATIVE, IO_URING_SETUP - 1), SECCOMP_RET_ALLOW);
	ck_assert_uint_eq(verdict(prog, ARCH_NATIVE, IO_URING_SETUP + 3), SECCOMP_RET_ALLOW);
	ck_assert_uint_eq(verdict(prog, ARCH_NATIVE, SYS_getpid), SECCOMP_RET_ALLOW);
	ck_assert_uint_eq(verdict(prog, ARCH_COMPAT, 20), SECCOMP_RET_ALLOW);
	/* An architecture neither native nor compat is let through: the
	 * numbers would mean other calls there. */
	ck_assert_uint_eq(verdict(prog, AUDIT_ARCH_PPC64LE, IO_URING_SETUP), SECCOMP_RET_ALLOW);
#if defined(__x86_64__)
	/* x32 calls carry bit 30 on x86_64's own architecture. */
	ck_assert_uint_eq(verdict(prog, ARCH_NATIVE, IO_URING_SETUP | 0x40000000), DENIED);
#endif
#else
	ck_assert(!sbx__seccomp_supported());
	ck_assert_ptr_null(sbx__seccomp_filter(SBX_CLOSE_IO_URING));
	ck_assert_int_eq(errno, ENOTSUP);
	fprintf(stderr, "SKIP %s: no filter is known for this architecture\n", __func__);
#endif
}
END_TEST

#if defined(__x86_64__)
/* io_uring_setup through the i386 entry (int $0x80), as a 32-bit program
 * would make it: the compat architecture's number. */
static long compat_io_uring_setup(void)
{
	long r;

	i386_entry_faults_kill();
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(IO_URING_SETUP), "b"(0), "c"(0) : "memory");
	return r;
}
#endif

/* In a child: the filter installed, then io_uring_setup made. */
static int child_under_filter(int compat)
{
	const struct sock_fprog *prog = sbx__seccomp_filter(SBX_CLOSE_IO_URING);

	if (!prog || prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog))
		_exit(100 + errno % 100);
	if (syscall(SYS_getpid) != getpid())
		_exit(2);
#if defined(__x86_64__)
	if (compat)
		_exit(compat_io_uring_setup() == -EPERM ? 0 : 3);
#endif
	(void)compat;
	_exit(syscall(IO_URING_SETUP, 1, NULL) == -1 && errno == EPERM ? 0 : 4);
}

static int run_child(int compat)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		child_under_filter(compat);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

START_TEST(test_arch_check_in_kernel)
{
#ifdef ARCH_NATIVE
	int status = run_child(0);

	if (WIFEXITED(status) && WEXITSTATUS(status) >= 100 && emulated()) {
		fprintf(stderr, "SKIP %s: the emulator (qemu-user) installs no seccomp filter (%s)\n",
		        __func__, strerror(WEXITSTATUS(status) - 100));
		return;
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "native: status %#x", status);
#if defined(__x86_64__)
	status = run_child(1);
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "SKIP %s (the i386 entry): int $0x80 is not served here (signal %d: "
		        "no IA32 emulation, or a hypervisor that does not pass it)\n", __func__,
		        WTERMSIG(status));
		return;
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "i386: status %#x", status);
#else
	fprintf(stderr, "SKIP %s (the compat entry): an aarch64 process cannot make AArch32 "
	        "system calls\n", __func__);
#endif
#else
	fprintf(stderr, "SKIP %s: no filter is known for this architecture\n", __func__);
#endif
}
END_TEST

int main(void)
{
	Suite *s = suite_create("filter");
	TCase *tc = tcase_create("io_uring");
	SRunner *sr;
	int failed;

	/* Untimed (Check's default is 4 s): tests/watchdog catches a hang. */
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, test_arch_check_read);
	tcase_add_test(tc, test_arch_check_in_kernel);
	suite_add_tcase(s, tc);
	tc = tcase_create("tcp");
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, test_tcp_roads_read);
	tcase_add_test(tc, test_network_roads_read);
	suite_add_tcase(s, tc);
	tc = tcase_create("terminal");
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, test_terminal_read);
	suite_add_tcase(s, tc);
	tc = tcase_create("defaults");
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, test_processes_read);
	tcase_add_test(tc, test_keyrings_read);
	tcase_add_test(tc, test_namespace_read);
	tcase_add_test(tc, test_log_off_read);
	tcase_add_test(tc, test_defaults_built_once);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	printf("build: %s; %s; %s\n", SBX_BUILD_KIND, SBX_BUILD_LIBC, SBX_BUILD_HOST);
	setvbuf(stdout, NULL, _IOLBF, 0); /* as tests/runner.c */
	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
