/* SPDX-License-Identifier: MIT */
/* The filters' suite's interpreter of classic BPF (bpf_read.h). */
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

unsigned executed;

/* What the filter answers for one system call: the kernel's reading of a
 * classic BPF program, for the instructions the library emits. */
uint32_t run(const struct sock_fprog *prog, const struct seccomp_data *d)
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

uint32_t verdict(const struct sock_fprog *prog, uint32_t arch, int nr)
{
	struct seccomp_data d = { .nr = nr, .arch = arch };

	return run(prog, &d);
}

uint32_t verdict_args(const struct sock_fprog *prog, uint32_t arch, int nr, uint64_t a0,
                             uint64_t a1, uint64_t a2, uint64_t a3)
{
	struct seccomp_data d = { .nr = nr, .arch = arch, .args = { a0, a1, a2, a3 } };

	return run(prog, &d);
}
