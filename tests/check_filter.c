/* The seccomp filter that closes io_uring (lib/seccomp.c), on the
 * architecture it was built for: its check of the architecture and of the
 * system call number, read by an interpreter of classic BPF (which runs
 * anywhere, an emulator included), and installed in the kernel where the
 * kernel takes it. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "compat/kernel.h"
#include "lib/internal.h"
#include "tests/emulated.h"

#if defined(__x86_64__)
#define ARCH_NATIVE AUDIT_ARCH_X86_64
#define ARCH_COMPAT AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define ARCH_NATIVE AUDIT_ARCH_AARCH64
#define ARCH_COMPAT AUDIT_ARCH_ARM
#endif

#define IO_URING_SETUP 425

/* What the filter answers for one system call: the kernel's reading of a
 * classic BPF program, for the instructions the library emits. */
static uint32_t run(const struct sock_fprog *prog, const struct seccomp_data *d)
{
	uint32_t a = 0;

	for (unsigned pc = 0; pc < prog->len; pc++) {
		const struct sock_filter *f = &prog->filter[pc];

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

START_TEST(test_arch_check_read)
{
#ifdef ARCH_NATIVE
	struct sock_fprog *prog = sbx__seccomp_build(SBX_CLOSE_IO_URING);

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
	sbx__seccomp_free(prog);
#else
	ck_assert(!sbx__seccomp_supported());
	ck_assert_ptr_null(sbx__seccomp_build(SBX_CLOSE_IO_URING));
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

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(IO_URING_SETUP), "b"(0), "c"(0) : "memory");
	return r;
}
#endif

/* In a child: the filter installed, then io_uring_setup made. */
static int child_under_filter(int compat)
{
	struct sock_fprog *prog = sbx__seccomp_build(SBX_CLOSE_IO_URING);

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

	tcase_add_test(tc, test_arch_check_read);
	tcase_add_test(tc, test_arch_check_in_kernel);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	printf("build: %s; %s; %s\n", SBX_BUILD_KIND, SBX_BUILD_LIBC, SBX_BUILD_HOST);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
