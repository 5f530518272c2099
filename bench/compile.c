/* SPDX-License-Identifier: MIT */
/*
 * The compile section: sbx_scopeattr_compile() alone, denying one entry of
 * a directory of 10 up to 100,000, against the floor (floor.c: the same
 * directories listed and their entries added by bare system calls to a
 * fresh ruleset), per rule and in growth.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "fixture.h"
#include "floor.h"
#include "sections.h"

/* ---- section: compile ------------------------------------------------- */

/* sbx_scopeattr_compile() alone; the scope is made and destroyed around
 * it, so that no earlier snapshot is released inside the timing. */
static double compile_once(const char *denied)
{
	sbx_scopeattr_t s;
	char *deny[1] = { (char *)denied };
	double t0, t;
	int err;

	scope_make(&s, deny, 1, false);
	t0 = now_ns();
	err = sbx_scopeattr_compile(&s);
	t = now_ns() - t0;
	sbx_scopeattr_destroy(&s);
	if (err)
		die("sbx_scopeattr_compile: %s", sbx_strerror(err));
	return t;
}

/* The rules a compiled scope denying `denied' applies, from a spawn. */
static long compiled_rules(const char *denied)
{
	sbx_scopeattr_t s;
	char *deny[1] = { (char *)denied };
	long rules;

	scope_make(&s, deny, 1, true);
	rules = spawn_rules(&s);
	sbx_scopeattr_destroy(&s);
	return rules;
}

struct scale_point {
	int siblings;
	long rules;
	unsigned floor_rules;
	struct samples compile, floor, proved; /* proved: the floor with a statx an entry */
	double per_compile, per_floor, per_proved;
};

static void scale_measure(struct scale_point *p, int nrounds)
{
	char dir[PATH_MAX], name[32], denied[PATH_MAX];
	struct floor_path f;

	snprintf(name, sizeof(name), "c%d", p->siblings);
	join(dir, fixture_root, name);
	make_dir(dir);
	make_entries(dir, "f", p->siblings, 0);
	/* The new entries' writeback would otherwise run during the rounds. */
	sync_dir(dir);
	join(denied, dir, "f0000");
	floor_prepare(&f, dir, floor_skip_name, "f0000");
	p->rules = compiled_rules(denied);
	(void)floor_once(&f, &p->floor_rules);
	for (int r = 0; r < nrounds; r++)
		for (int k = 0; k < 3; k++) {
			unsigned rules;

			switch ((r + k) % 3) {
			case 0:
				samples_add(&p->compile, compile_once(denied));
				break;
			case 1:
				f.prove = false;
				samples_add(&p->floor, floor_once(&f, &p->floor_rules));
				break;
			default:
				f.prove = true;
				samples_add(&p->proved, floor_once(&f, &rules));
			}
		}
	floor_free(&f);
	remove_tree(dir);
	p->per_compile = median(&p->compile) / (double)p->rules;
	p->per_floor = median(&p->floor) / p->floor_rules;
	p->per_proved = median(&p->proved) / p->floor_rules;
}

/* One size's line, judged against the floor, and its rows in the CSV. */
static void compile_row(const struct scale_point *p)
{
	/* Per rule, each round's compile against the same round's floor. */
	double per_rules = p->floor_rules / (double)p->rules;
	double ratio = paired(&p->compile, &p->floor) * per_rules;
	double proved = paired(&p->compile, &p->proved) * per_rules;
	const char *v = judge(ratio, TARGET_FLOOR, false,
	                      "compile with %d siblings: %.2fx the floor per rule (<= %.1fx)",
	                      p->siblings, ratio, TARGET_FLOOR);

	printf("  %9d %7zu %7ld %14.0f %14.0f %6.2fx  <= 1.2x: %-6s %9.0f %6.2fx%s\n", p->siblings,
	       p->compile.n, p->rules, p->per_compile, p->per_floor, ratio, v, p->per_proved,
	       proved,
	       (unsigned long)p->rules == p->floor_rules ? "" : "  (rule counts differ)");
	csv_row(&(struct row){ .section = "compile", .name = "compile", .param = p->siblings,
	                       .s = &p->compile, .per = (double)p->rules, .unit = "ns/rule",
	                       .ratio = ratio, .ratio_to = "floor", .rules = p->rules,
	                       .target = "<= 1.2x", .verdict = v });
	csv_row(&(struct row){ .section = "compile", .name = "floor", .param = p->siblings,
	                       .s = &p->floor, .per = p->floor_rules, .unit = "ns/rule",
	                       .ratio = NAN, .rules = p->floor_rules });
	csv_row(&(struct row){ .section = "compile", .name = "floor with statx", .param = p->siblings,
	                       .s = &p->proved, .per = p->floor_rules, .unit = "ns/rule",
	                       .ratio = proved,
	                       .ratio_to = "compile against it", .rules = p->floor_rules });
}

void compile_section(int abi)
{
	static const int sizes[] = { 10, 100, 1000, 10000, 100000 };
	static const int base_rounds[] = { 400, 200, 100, 25, 9 };
	enum { N = sizeof(sizes) / sizeof(sizes[0]) };
	struct scale_point p[N] = { { 0 } };
	double grow_c, grow_f;
	const char *vl;

	floor_rights(abi);
	for (int i = 0; i < N; i++) {
		p[i].siblings = sizes[i];
		scale_measure(&p[i], rounds(base_rounds[i]));
	}
	printf("\ncompile alone: sbx_scopeattr_compile() denying one entry of a directory, "
	       "against the floor, interleaved;\n" FLOOR_DEFINITION
	       "\n(the same floor as the scale section's); floor+statx: the same with a statx of"
	       " each entry,\nas a compile makes to prove what it opened, for reference\n");
	printf("  %9s %7s %7s %14s %14s %7s  %-15s %s\n", "siblings", "rounds", "rules",
	       "compile ns/rule", "floor ns/rule", "ratio", "target", "floor+statx: ns/rule, x");
	for (int i = 0; i < N; i++)
		compile_row(&p[i]);
	/* The floor's own cost per rule is not flat (the kernel's lookups and
	 * rule insertions grow with the directory and the ruleset): the
	 * compile is linear when it grows no faster than the floor does. */
	grow_c = p[N - 1].per_compile / p[2].per_compile;
	grow_f = p[N - 1].per_floor / p[2].per_floor;
	vl = judge(grow_c / grow_f, TARGET_LINEAR, false,
	           "compile linear in siblings: ns/rule grows %.2fx from %d to %d, the floor "
	           "%.2fx (compile/floor growth %.2f, <= %.1f)",
	           grow_c, sizes[2], sizes[N - 1], grow_f, grow_c / grow_f, TARGET_LINEAR);
	printf("  linearity: ns/rule from %d to %d siblings grows %.2fx, the floor's %.2fx;"
	       " compile/floor growth %.2f, <= %.1f: %s\n",
	       sizes[2], sizes[N - 1], grow_c, grow_f, grow_c / grow_f, TARGET_LINEAR, vl);
	for (int i = 0; i < N; i++) {
		free(p[i].compile.v);
		free(p[i].floor.v);
		free(p[i].proved.v);
	}
}
