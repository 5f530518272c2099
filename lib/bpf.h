/* SPDX-License-Identifier: MIT */
/* The seccomp filters' assembler (bpf.c): rules "system call nr, its
 * arguments matching, fails with errno" gathered for one ABI, then laid out
 * as classic BPF, the number in A; seccomp.c says which rules. */
#ifndef SBX_BPF_H
#define SBX_BPF_H

#include <stdbool.h>
#include <stddef.h>

#include "compat/kernel.h"

#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))

/* One test of a rule: (argument & mask) is one of values (n of them), or
 * with `none', none of them. */
struct test {
	int arg;
	unsigned mask;
	unsigned values[3];
	int n;
	bool none;
};

/* A rule: system call nr with every test passing fails with errno. */
struct rule {
	int nr;
	struct test tests[3];
	int ntests;
	int errnum;
};

/* A program being assembled: the rules of one ABI are gathered first, then
 * laid out at once (assemble()). */
struct prog {
	struct sock_filter *v;
	size_t n, cap;
	struct rule rules[40];
	int nrules;
	size_t to_allow[64]; /* jumps to the ABI's closing RET_ALLOW, patched there */
	int nallow;
	struct { size_t at; int errnum; } to_ret[64]; /* to its RET_ERRNO of that errno */
	int nret;
	int err;
};

/* Appends one instruction (p->err on failure, and nothing more after). */
void sbx__bpf_emit(struct prog *p, struct sock_filter f);
/* Gathers a rule: call nr (none where negative) fails with errnum when
 * every test passes; the order of one call's rules is kept. */
void sbx__bpf_rule(struct prog *p, int nr, const struct test *tests, int ntests, int errnum);
/* Lays out what was gathered, A holding the call's number: the dispatch,
 * each call's rules, one RET_ALLOW for what passes, one RET_ERRNO for each
 * errno; and starts the gathering again. */
void sbx__bpf_assemble(struct prog *p);

#endif /* SBX_BPF_H */
