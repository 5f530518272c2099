/* SPDX-License-Identifier: MIT */
/* The seccomp filters (lib/kernel/seccomp.c), on the architecture they were built
 * for: the one closing io_uring, its check of the architecture and of the
 * system call number, read by an interpreter of classic BPF (which runs
 * anywhere, an emulator included), and installed in the kernel where the
 * kernel takes it; the one closing TCP's other roads, read for every
 * protocol and family the kernel may know, x32's own numbers included; and
 * the terminal's, every scope's, read for every number of ioctl.  What
 * every scope's filter closes besides: check_filter_defaults.c. */
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
	suite_add_tcase(s, tcase_filter_defaults());
	sr = srunner_create(s);
	printf("build: %s; %s; %s\n", SBX_BUILD_KIND, SBX_BUILD_LIBC, SBX_BUILD_HOST);
	setvbuf(stdout, NULL, _IOLBF, 0); /* as tests/runner.c */
	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
