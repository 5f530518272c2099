/* SPDX-License-Identifier: MIT */
/*
 * The scale section: one scope of N configured paths, all denied, in one
 * directory that also holds N other entries (which the compile grants),
 * for N of 1,000, 10,000 and 100,000.  The adddeny calls (each path is
 * resolved as it is added) and sbx_scopeattr_compile() are timed apart,
 * against the floor for the same directory (floor.c), in interleaved
 * rounds, per configured path; and the heap that the scope and its compile
 * keep, per configured path, from mallinfo2() (what the kernel keeps for
 * the ruleset is not the library's heap and is not counted).
 */
#include "config.h"

#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "fixture.h"
#include "floor.h"
#include "sections.h"

/* ---- one size ------------------------------------------------------------ */

struct point {
	int n;            /* configured paths; as many granted entries beside them */
	char dir[PATH_MAX];
	char **paths;
	long rules;
	unsigned floor_rules;
	struct samples add, compile, floor;
	double heap_scope, heap_compile; /* bytes kept per configured path */
};

/* The denied entries are d0000..., the granted g0000... */
static bool skip_denied(const char *name, const void *arg)
{
	(void)arg;
	return name[0] == 'd';
}

static double heap_in_use(void)
{
	struct mallinfo2 m = mallinfo2();

	return (double)m.uordblks + (double)m.hblkhd;
}

static void point_setup(struct point *p)
{
	char name[32], path[PATH_MAX];

	snprintf(name, sizeof(name), "s%d", p->n);
	join(p->dir, fixture_root, name);
	make_dir(p->dir);
	make_entries(p->dir, "d", p->n, 0);
	make_entries(p->dir, "g", p->n, 0);
	/* The new entries' writeback would otherwise run during the rounds. */
	sync_dir(p->dir);
	p->paths = xrealloc(NULL, (size_t)p->n * sizeof(*p->paths));
	for (int i = 0; i < p->n; i++) {
		snprintf(name, sizeof(name), "d%04d", i);
		join(path, p->dir, name);
		p->paths[i] = xstrdup(path);
	}
}

static void point_free(struct point *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->paths[i]);
	free(p->paths);
	free(p->add.v);
	free(p->compile.v);
	free(p->floor.v);
	remove_tree(p->dir);
}

/* One scope: the adddeny calls and the compile, timed apart; on the first
 * round also the heap kept after each and the rules a spawn applies. */
static void point_round(struct point *p, bool first)
{
	double h0 = heap_in_use(), h1 = 0, t0, t1;
	sbx_scopeattr_t s;
	int err = sbx_scopeattr_init(&s);

	if (!err)
		err = sbx_scopeattr_setlogger(&s, quiet_logger, NULL);
	t0 = now_ns();
	for (int i = 0; !err && i < p->n; i++)
		err = sbx_scopeattr_adddeny(&s, p->paths[i]);
	t1 = now_ns();
	samples_add(&p->add, t1 - t0);
	if (first) {
		h1 = heap_in_use();
		t1 = now_ns();
	}
	if (!err)
		err = sbx_scopeattr_compile(&s);
	samples_add(&p->compile, now_ns() - t1);
	if (err)
		die("a scope of %d denials: %s", p->n, sbx_strerror(err));
	if (first) {
		p->heap_scope = (h1 - h0) / p->n;
		p->heap_compile = (heap_in_use() - h1) / p->n;
		p->rules = spawn_rules(&s);
	}
	sbx_scopeattr_destroy(&s);
}

static void point_measure(struct point *p, int nrounds)
{
	struct floor_path f;

	point_setup(p);
	floor_prepare(&f, p->dir, skip_denied, NULL);
	(void)floor_once(&f, &p->floor_rules);
	for (int r = 0; r < nrounds; r++)
		for (int k = 0; k < 2; k++) {
			if ((r + k) % 2)
				samples_add(&p->floor, floor_once(&f, &p->floor_rules));
			else
				point_round(p, p->compile.n == 0);
		}
	floor_free(&f);
}

/* ---- section: scale ------------------------------------------------------ */

#define NPOINTS 3

static double per_path(const struct samples *s, int n)
{
	return median(s) / n;
}

static void scale_row(const struct point *p)
{
	double ratio = paired(&p->compile, &p->floor);
	double heap = p->heap_scope + p->heap_compile;
	const char *vr, *vh;

	vr = judge(ratio, TARGET_SCALE, false,
	           "compile of %d configured paths: %.2fx the floor (<= %.1fx)", p->n, ratio,
	           TARGET_SCALE);
	vh = judge(heap, TARGET_BYTES, false,
	           "heap kept for %d configured paths: %.0f bytes a path (< %.0f)", p->n, heap,
	           TARGET_BYTES);
	printf("  %7d %6zu %7ld %8.0f %8.0f %8.0f %7.2fx %-4s %5.0f + %4.0f = %4.0f %-4s%s\n",
	       p->n, p->compile.n, p->rules, per_path(&p->add, p->n), per_path(&p->compile, p->n),
	       per_path(&p->floor, p->n), ratio, vr, p->heap_scope, p->heap_compile, heap, vh,
	       (unsigned long)p->rules == p->floor_rules ? "" : "  (rule counts differ)");
	csv_row(&(struct row){ .section = "scale", .name = "adddeny", .param = p->n, .s = &p->add,
	                       .per = p->n, .unit = "ns/path", .ratio = NAN, .rules = -1 });
	csv_row(&(struct row){ .section = "scale", .name = "compile", .param = p->n,
	                       .s = &p->compile, .per = p->n, .unit = "ns/path", .ratio = ratio,
	                       .ratio_to = "floor", .rules = p->rules, .target = "<= 1.5x",
	                       .verdict = vr });
	csv_row(&(struct row){ .section = "scale", .name = "floor", .param = p->n, .s = &p->floor,
	                       .per = p->n, .unit = "ns/path", .ratio = NAN,
	                       .rules = p->floor_rules });
	csv_row(&(struct row){ .section = "scale", .name = "heap", .param = p->n, .value = heap,
	                       .unit = "bytes/path", .ratio = NAN, .rules = -1,
	                       .target = "< 300", .verdict = vh });
}

/* Time per configured path from the smallest size to the largest: flat
 * when the cost is linear.  Judged against the floor's own growth, as the
 * compile section's linearity is. */
static void scale_growth(const struct point *p)
{
	const struct point *a = &p[0], *b = &p[NPOINTS - 1];
	double gc = per_path(&b->compile, b->n) / per_path(&a->compile, a->n);
	double gf = per_path(&b->floor, b->n) / per_path(&a->floor, a->n);
	double ga = per_path(&b->add, b->n) / per_path(&a->add, a->n);
	const char *v = judge(gc / gf, TARGET_LINEAR, false,
	                      "compile linear in configured paths: ns/path grows %.2fx from %d to"
	                      " %d, the floor %.2fx (compile/floor growth %.2f, <= %.1f)",
	                      gc, a->n, b->n, gf, gc / gf, TARGET_LINEAR);

	printf("  growth of ns per configured path, %d to %d: compile %.2fx, floor %.2fx"
	       " (compile/floor %.2f, <= %.1f: %s); adddeny %.2fx\n",
	       a->n, b->n, gc, gf, gc / gf, TARGET_LINEAR, v, ga);
	csv_row(&(struct row){ .section = "scale", .name = "compile growth against floor",
	                       .param = b->n, .value = gc / gf, .unit = "ratio", .ratio = gc / gf,
	                       .ratio_to = "floor growth", .rules = -1, .target = "<= 1.2",
	                       .verdict = v });
}

void scale_section(int abi)
{
	static const int sizes[NPOINTS] = { 1000, 10000, 100000 };
	static const int base_rounds[NPOINTS] = { 30, 10, 4 };
	static struct point p[NPOINTS];

	floor_rights(abi);
	for (int i = 0; i < NPOINTS; i++) {
		p[i] = (struct point){ .n = sizes[i] };
		point_measure(&p[i], rounds(base_rounds[i]));
	}
	printf("\nscale of configured paths: N paths denied in one directory that holds N more"
	       " entries to grant;\nthe adddeny calls (each resolves its path) and"
	       " sbx_scopeattr_compile() timed apart, interleaved with\n" FLOOR_DEFINITION
	       ";\nheap: what the scope (adddeny) + its compile keep, from mallinfo2()\n");
	printf("  %7s %6s %7s %8s %8s %8s %12s %22s\n", "paths", "rounds", "rules", "adddeny",
	       "compile", "floor", "compile/floor", "heap bytes a path");
	printf("  %7s %6s %7s %8s %8s %8s %12s %22s\n", "", "", "", "ns/path", "ns/path", "ns/path",
	       "<= 1.5x", "scope + compile, < 300");
	for (int i = 0; i < NPOINTS; i++)
		scale_row(&p[i]);
	scale_growth(p);
	for (int i = 0; i < NPOINTS; i++)
		point_free(&p[i]);
}
