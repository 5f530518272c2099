/* SPDX-License-Identifier: MIT */
/*
 * The seccomp filters' assembler.  Every call a confined child makes passes
 * its filter, and the kernel compiles the filter at each install: so the
 * architecture is looked at once (seccomp.c), the number is found among
 * the few the rules name by halving (JGE), only a call some rule names
 * reads its arguments, calls with the same rules share one block, and every
 * rule that matches jumps to one RET_ERRNO of its errno.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/internal.h"
#include "lib/bpf.h"

void sbx__bpf_emit(struct prog *p, struct sock_filter f)
{
	struct sock_filter *grown;

	if (p->err)
		return;
	if (!(grown = sbx__grow(p->v, &p->cap, p->n + 1, sizeof(*p->v)))) {
		p->err = ENOMEM;
		return;
	}
	p->v = grown;
	p->v[p->n++] = f;
}

/* Points the jt (or jf) of instruction `at' at instruction `to'; a
 * conditional jump reaches 255 instructions at most. */
static void aim(struct prog *p, size_t at, bool jt, size_t to)
{
	if (p->err)
		return;
	if (to - at - 1 > 255) {
		p->err = E2BIG;
		return;
	}
	if (jt)
		p->v[at].jt = (unsigned char)(to - at - 1);
	else
		p->v[at].jf = (unsigned char)(to - at - 1);
}

/* The jf of the last instruction emitted, to the closing RET_ALLOW. */
static void to_allow(struct prog *p, size_t at, bool jt)
{
	if (p->nallow == (int)(sizeof(p->to_allow) / sizeof(p->to_allow[0]))) {
		p->err = E2BIG;
		return;
	}
	p->to_allow[p->nallow++] = at << 1 | jt;
}

/* The jt (or jf) of instruction at, to the ABI's RET_ERRNO of errnum: one
 * for each errno, after its RET_ALLOW, shared by every rule. */
static void to_ret(struct prog *p, size_t at, bool jt, int errnum)
{
	if (p->nret == (int)(sizeof(p->to_ret) / sizeof(p->to_ret[0]))) {
		p->err = E2BIG;
		return;
	}
	p->to_ret[p->nret].at = at << 1 | jt;
	p->to_ret[p->nret++].errnum = errnum;
}

void sbx__bpf_rule(struct prog *p, int nr, const struct test *tests, int ntests, int errnum)
{
	struct rule *r;

	if (nr < 0)
		return;
	if (p->nrules == (int)(sizeof(p->rules) / sizeof(p->rules[0]))) {
		p->err = E2BIG;
		return;
	}
	r = &p->rules[p->nrules++];
	*r = (struct rule){ .nr = nr, .ntests = ntests, .errnum = errnum };
	for (int t = 0; t < ntests; t++)
		r->tests[t] = tests[t];
}

/* One rule's tests, A holding anything: every test passing goes to the
 * RET_ERRNO of its errno; a failed one to the next instruction after the
 * rule (the next rule of the same call), or for the call's last rule to
 * RET_ALLOW.  A rule without tests is its call's dispatch straight to the
 * RET_ERRNO (assemble()). */
static void assemble_rule(struct prog *p, const struct rule *r, bool last)
{
	size_t fails[16];
	bool fails_jt[16];
	int nfails = 0;

	for (int t = 0; t < r->ntests; t++) {
		const struct test *x = &r->tests[t];
		bool final = t == r->ntests - 1;

		sbx__bpf_emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(x->arg)));
		if (x->mask != ~0U)
			sbx__bpf_emit(p, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, x->mask));
		for (int v = 0; v < x->n; v++) {
			/* none: a match fails the test; else a match goes on to
			 * the next test, past this one's other values (for the
			 * last test, to the errno). */
			sbx__bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, x->values[v],
			                                     x->none ? 0 : (unsigned char)(x->n - 1 - v), 0));
			if (x->none) {
				fails_jt[nfails] = true;
				fails[nfails++] = p->n - 1;
				if (final && v == x->n - 1)
					to_ret(p, p->n - 1, false, r->errnum);
			} else {
				if (final)
					to_ret(p, p->n - 1, true, r->errnum);
				if (v == x->n - 1) {
					fails_jt[nfails] = false;
					fails[nfails++] = p->n - 1;
				}
			}
		}
	}
	for (int f = 0; f < nfails; f++)
		last ? to_allow(p, fails[f], fails_jt[f]) : aim(p, fails[f], fails_jt[f], p->n);
}

/* Dispatch on the number in A among nrs (sorted, n of them): halved with
 * JGE down to a few, then compared one by one, each JEQ's jt left for its
 * call's rules (at[i]); no match goes to RET_ALLOW.  So a call that no
 * rule names passes after a few comparisons, not one per rule. */
static void dispatch(struct prog *p, const int *nrs, int n, size_t *at)
{
	size_t split;
	int half = n / 2;

	if (n <= 3) {
		for (int i = 0; i < n; i++) {
			sbx__bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nrs[i], 0,
			                                     0));
			at[i] = p->n - 1;
		}
		if (n)
			to_allow(p, p->n - 1, false);
		return;
	}
	sbx__bpf_emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (unsigned)nrs[half], 0, 0));
	split = p->n - 1;
	dispatch(p, nrs, half, at);
	aim(p, split, true, p->n);
	dispatch(p, nrs + half, n - half, at + half);
}

static int by_nr(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static bool same_rule(const struct rule *x, const struct rule *y)
{
	if (x->ntests != y->ntests || x->errnum != y->errnum)
		return false;
	for (int t = 0; t < x->ntests; t++) {
		const struct test *a = &x->tests[t], *b = &y->tests[t];

		if (a->arg != b->arg || a->mask != b->mask || a->n != b->n || a->none != b->none ||
		    memcmp(a->values, b->values, (size_t)a->n * sizeof(a->values[0])))
			return false;
	}
	return true;
}

/* Whether calls a and b have the same rules, in the same order: then
 * they share one block. */
static bool same_rules(const struct prog *p, int a, int b)
{
	int i = 0, k = 0;

	for (;;) {
		while (i < p->nrules && p->rules[i].nr != a)
			i++;
		while (k < p->nrules && p->rules[k].nr != b)
			k++;
		if (i == p->nrules || k == p->nrules)
			return i == p->nrules && k == p->nrules;
		if (!same_rule(&p->rules[i], &p->rules[k]))
			return false;
		i++;
		k++;
	}
}

/* The rules of call nrs[i], laid out where its dispatch (at[i]) leads;
 * or the block of an earlier call with the same rules. */
static void block(struct prog *p, const int *nrs, int i, const size_t *at, size_t *start)
{
	int first = -1, lastrule = -1;

	for (int r = 0; r < p->nrules; r++)
		if (p->rules[r].nr == nrs[i]) {
			first = first < 0 ? r : first;
			lastrule = r;
		}
	if (!p->rules[first].ntests) {
		to_ret(p, at[i], true, p->rules[first].errnum);
		return;
	}
	for (int k = 0; k < i; k++)
		if (start[k] && same_rules(p, nrs[k], nrs[i])) {
			aim(p, at[i], true, start[k]);
			return;
		}
	start[i] = p->n;
	aim(p, at[i], true, p->n);
	for (int r = first; r <= lastrule; r++)
		if (p->rules[r].nr == nrs[i])
			assemble_rule(p, &p->rules[r], r == lastrule);
}

/* The gathered rules of one ABI laid out, A holding the call's number:
 * the dispatch, each call's rules, one RET_ALLOW for all that pass, and
 * one RET_ERRNO for each errno.  The gathering starts again empty. */
void sbx__bpf_assemble(struct prog *p)
{
	int nrs[40], n = 0, k = 0;
	size_t at[40], start[40] = { 0 }, allow;

	for (int i = 0; i < p->nrules; i++)
		nrs[n++] = p->rules[i].nr;
	qsort(nrs, (size_t)n, sizeof(*nrs), by_nr);
	for (int i = 0; i < n; i++)
		if (!k || nrs[k - 1] != nrs[i])
			nrs[k++] = nrs[i];
	n = k;
	dispatch(p, nrs, n, at);
	for (int i = 0; i < n; i++)
		block(p, nrs, i, at, start);
	sbx__bpf_emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	allow = p->n - 1;
	for (int i = 0; i < p->nallow; i++)
		aim(p, p->to_allow[i] >> 1, p->to_allow[i] & 1, allow);
	for (int i = 0; i < p->nret; i++) {
		size_t ret = 0;

		/* The errno's RET, made by the first jump to it. */
		for (size_t x = allow + 1; x < p->n && !ret && !p->err; x++)
			if (p->v[x].k == (SECCOMP_RET_ERRNO | (unsigned)p->to_ret[i].errnum))
				ret = x;
		if (!ret) {
			sbx__bpf_emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			                                     SECCOMP_RET_ERRNO | (unsigned)p->to_ret[i].errnum));
			ret = p->n - 1;
		}
		aim(p, p->to_ret[i].at >> 1, p->to_ret[i].at & 1, ret);
	}
	p->nrules = p->nallow = p->nret = 0;
}
