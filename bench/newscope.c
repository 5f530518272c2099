/* SPDX-License-Identifier: MIT */
/*
 * The newscope section: a new scope per spawn denying one entry of a
 * directory of 10 up to 10,000 (every second entry a directory), against
 * posix_spawn in the same rounds, wall and processor time; and the slope,
 * what each 1,000 rules more add, in posix_spawns.  Beside it the floor's
 * own slope (floor.c: the same directories listed and their entries added
 * by bare system calls), timed in the same rounds: what no compile can
 * do without.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "fixture.h"
#include "floor.h"
#include "sections.h"

#define NSIZES 4

struct size_point {
	int siblings;
	char dir[PATH_MAX], denied[PATH_MAX];
	char *deny[1];
	struct variant v[2]; /* posix_spawn, a new scope per spawn */
	struct samples floor;
	unsigned floor_rules;
	double x, xc, xf;    /* paired: wall, cpu; the floor against posix_spawn */
};

static void size_measure(struct size_point *p, int nrounds)
{
	char name[32];
	struct floor_path f;

	snprintf(name, sizeof(name), "n%d", p->siblings);
	join(p->dir, fixture_root, name);
	make_dir(p->dir);
	make_entries(p->dir, "e", p->siblings, 2);
	sync_dir(p->dir);
	join(p->denied, p->dir, "e0000");
	p->deny[0] = p->denied;
	p->v[0] = spawn_rows[V_POSIX];
	p->v[0].t = p->v[0].cpu = (struct samples){ 0 };
	p->v[1] = (struct variant){ .name = "new scope per spawn", .spawn = spawn_sbx_new,
	                            .deny = p->deny, .ndeny = 1, .argv = spawn_rows[V_POSIX].argv,
	                            .envp = child_env };
	trial(&p->v[1]);
	floor_prepare(&f, p->dir, floor_skip_name, "e0000");
	(void)floor_once(&f, &p->floor_rules);
	for (int r = 0; r < nrounds; r++) {
		measure(p->v, 2, 1);
		samples_add(&p->floor, floor_once(&f, &p->floor_rules));
	}
	floor_free(&f);
	remove_tree(p->dir);
	p->x = paired(&p->v[1].t, &p->v[0].t);
	p->xc = paired(&p->v[1].cpu, &p->v[0].cpu);
	p->xf = paired(&p->floor, &p->v[0].t);
}

void newscope_section(int abi)
{
	static const int sizes[NSIZES] = { 10, 100, 1000, 10000 };
	static const int base_rounds[NSIZES] = { 200, 120, 60, 16 };
	static struct size_point p[NSIZES];
	const struct size_point *a = &p[0], *b = &p[NSIZES - 1];
	double k, slope, slope_cpu, slope_floor;
	const char *v;

	floor_rights(abi);
	for (int i = 0; i < NSIZES; i++) {
		p[i].siblings = sizes[i];
		size_measure(&p[i], rounds(base_rounds[i]));
	}
	printf("\na new scope per spawn, denying one entry of a directory of N (every second"
	       " a directory),\nagainst posix_spawn in the same rounds; floor: the same grants"
	       " by bare system calls\n(" FLOOR_DEFINITION "),\ntimed in the same rounds, against"
	       " posix_spawn's wall time\n");
	printf("  %8s %6s %6s %9s %9s %7s %7s %8s\n", "siblings", "rounds", "rules", "wall us",
	       "cpu us", "x posix", "x cpu", "floor x");
	for (int i = 0; i < NSIZES; i++) {
		const struct variant *n = &p[i].v[1];

		if (n->skip[0]) {
			printf("  %8d %s\n", p[i].siblings, n->skip);
			continue;
		}
		printf("  %8d %6zu %6ld %9.1f %9.1f %6.2fx %6.2fx %7.2fx\n", p[i].siblings, n->t.n,
		       n->rules, median(&n->t) / 1e3, median(&n->cpu) / 1e3, p[i].x, p[i].xc,
		       p[i].xf);
		csv_row(&(struct row){ .section = "newscope", .name = "new scope per spawn",
		                       .param = p[i].siblings, .s = &n->t, .unit = "ns",
		                       .ratio = p[i].x, .ratio_to = "posix_spawn (paired)",
		                       .rules = n->rules });
		csv_row(&(struct row){ .section = "newscope", .name = "new scope per spawn (cpu)",
		                       .param = p[i].siblings, .s = &n->cpu, .unit = "ns cpu",
		                       .ratio = p[i].xc, .ratio_to = "posix_spawn cpu (paired)",
		                       .rules = n->rules });
		csv_row(&(struct row){ .section = "newscope", .name = "floor", .param = p[i].siblings,
		                       .s = &p[i].floor, .unit = "ns", .ratio = p[i].xf,
		                       .ratio_to = "posix_spawn (paired)", .rules = p[i].floor_rules });
	}
	/* Per 1,000 rules, from the smallest size to the largest. */
	k = (double)(b->v[1].rules - a->v[1].rules) / 1000.0;
	slope = (b->x - a->x) / k;
	slope_cpu = (b->xc - a->xc) / k;
	slope_floor = (b->xf - a->xf) / ((double)(b->floor_rules - a->floor_rules) / 1000.0);
	v = judge(slope_cpu, TARGET_SLOPE, false,
	          "a new scope per spawn grows by %.2fx of a posix_spawn per 1,000 rules (cpu;"
	          " wall %.2fx; the floor alone %.2fx) (<= %.1fx)",
	          slope_cpu, slope, slope_floor, TARGET_SLOPE);
	printf("  slope, %d to %d siblings: each 1,000 rules add %.2fx of a posix_spawn (cpu),"
	       " %.2fx (wall);\n  the floor's own: %.2fx (<= %.1fx: %s)\n",
	       a->siblings, b->siblings, slope_cpu, slope, slope_floor, TARGET_SLOPE, v);
	csv_row(&(struct row){ .section = "newscope", .name = "slope per 1000 rules (cpu)",
	                       .param = b->siblings, .value = slope_cpu, .unit = "x posix_spawn",
	                       .ratio = slope_cpu, .ratio_to = "posix_spawn", .rules = -1,
	                       .target = "<= 1.0x", .verdict = v });
	for (int i = 0; i < NSIZES; i++) {
		free(p[i].v[0].t.v);
		free(p[i].v[0].cpu.v);
		free(p[i].v[1].t.v);
		free(p[i].v[1].cpu.v);
		free(p[i].floor.v);
	}
}
