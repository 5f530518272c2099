/* SPDX-License-Identifier: MIT */
/* The suites' seccomp filters (tests/common.h): whether one can be
 * installed here, one that makes a system call fail with an errno of the
 * test's choosing, and the mutations that switch a part of the library off
 * under the suite (SBX_TEST_MUTATE). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <ftw.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "tests/common.h"

bool filters_here(const char *test)
{
#if defined(__x86_64__) || defined(__aarch64__)
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0L, NULL) < 0 && errno == EFAULT)
		return true;
	say_skip("SKIP %s: no seccomp filter can be installed here (%s)\n", test,
	         emulated() ? "qemu-user" : strerror(errno));
#else
	say_skip("SKIP %s: no filter is known for this architecture\n", test);
#endif
	return false;
}

void seccomp_fail_(long nr, int err, const char *test)
{
	seccomp_fail_when_(nr, -1, err, test);
}

void seccomp_fail_when_(long nr, long arg0, int err, const char *test)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
#if defined(__x86_64__)
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
#elif defined(__aarch64__)
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_AARCH64, 1, 0),
#else
#error "seccomp_fail: add this architecture"
#endif
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 3),
		/* The first argument's low word, where one is asked for. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)arg0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)(err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(filter) / sizeof(filter[0]), .filter = filter };
	int saved;

	if (arg0 < 0) {
		/* Every call of it: straight to the answer. */
		filter[4].jt = 2;
	}
	ck_assert_int_eq(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0)
		return;
	saved = errno;
	if (emulated()) {
		/* The test provokes its failure with a filter; qemu-user
		 * installs none for its guest (EINVAL). */
		say_skip("SKIP %s: the emulator refuses seccomp filters (%s)\n", test,
		        strerror(saved));
		exit(0);
	}
	ck_abort_msg("seccomp: %s", strerror(saved));
}

int mutate_filter(long nr, bool only_with_program)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 5),
		/* seccomp(SET_MODE_FILTER, flags, program): a NULL program (a
		 * probe) goes through to the kernel. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2]) + 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(filter) / sizeof(filter[0]), .filter = filter };

	if (!only_with_program) {
		/* Every call of it: straight to the answer 0. */
		filter[1].jt = 4;
	}
	/* With CAP_SYS_ADMIN, without no_new_privs: a run as root keeps what
	 * its tests look at (set-user-ID programs, sbxrun --status). */
	if (!syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return 0;
	if (prctl_no_new_privs())
		return errno;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) ? errno : 0;
}

int mutate_hiding(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_move_mount, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mount, 0, 5),
		/* mount(source, target, type, flags, data): the flags' low word. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[3])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MS_SILENT, 2, 3),
		/* move_mount(from, path, to, path, flags): onto a descriptor. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[4])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, SBX_MOVE_MOUNT_T_EMPTY_PATH, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(filter) / sizeof(filter[0]), .filter = filter };

	if (!syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return 0;
	if (prctl_no_new_privs())
		return errno;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) ? errno : 0;
}

int prctl_no_new_privs(void)
{
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}
