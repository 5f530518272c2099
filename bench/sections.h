/* SPDX-License-Identifier: MIT */
/*
 * What the sections share: the targets they judge against, the spawn rows
 * that spawn.c sets up once and the other sections reuse, the tally of a
 * kept scope's spawns (reuse.c, for churn.c too), and each section's entry
 * point (spawn.c, memory.c, threads.c, reuse.c, churn.c, compile.c,
 * scale.c).
 */
#ifndef SBXBENCH_SECTIONS_H
#define SBXBENCH_SECTIONS_H

#include <sys/types.h>

#include "sbxspawn/sbxspawn.h"
#include "harness.h"

/* ---- targets: what the issue asks for ------------------------------- */

#define TARGET_ONCE 1.05    /* compiled once, against its floor (same ruleset) */
#define TARGET_FRESH 1.25   /* ~100 rules compiled at each spawn */
#define TARGET_NEW 2.0      /* ~100 rules, a new scope per spawn, against posix_spawn */
#define TARGET_FLOOR 1.2    /* compile against the bare system calls, per rule */
#define TARGET_LINEAR 1.2   /* per-rule growth 1k..100k, against the floor's */
#define TARGET_HEAP 1.1     /* 1 GiB parent against a small one */
#define TARGET_BWRAP 5.0    /* bwrap's latency over ours */
#define TARGET_SBXRUN 1.0   /* sbxrun with the denials, against the kernel's sample
                             * given the same grants as an allow list */
#define TARGET_SBXRUN_BARE 1.1 /* sbxrun with no scope, against two plain execs */
#define TARGET_REUSE 1.10   /* a reuse hit at ~1000 rules, against compiled once */
#define TARGET_CHURN 1.10   /* a kept scope beside 1,000 files/s, against posix_spawn */
#define TARGET_SCALE 1.5    /* compile of N configured paths, against the floor */
#define TARGET_BYTES 300.0  /* heap a scope and its compile keep, per configured path */
#define TARGET_SLOPE 1.0    /* a new scope per spawn: posix_spawns added per 1,000 rules */
#define TARGET_HIDE 1.15    /* a hidden denial compiled once, against posix_spawn */
#define TARGET_HIDE_FLAT 1.05 /* hidden beside 1,000 entries, against beside 60 */

extern char *child_env[];

int spawn_sbx(const struct variant *v, pid_t *pid);
/* A scope made of v->deny for this one spawn, and destroyed after it. */
int spawn_sbx_new(const struct variant *v, pid_t *pid);
/* The rules a spawn of /bin/true with scope s applies (dies if it fails). */
long spawn_rules(const sbx_scopeattr_t *s);

extern sbx_scopeattr_t home_fresh, home_once, home_kept, home_offline, wide_fresh, wide_once;

enum {
	V_POSIX,
	V_FORK,
	V_SBX_NULL,
	V_HOME_NEW,
	V_HOME_FRESH,
	V_HOME_ONCE,
	V_HOME_FLOOR,
	V_HOME_FLOOR_SIGNALS,
	V_HOME_FLOOR_DUTIES,
	V_HOME_KEPT,
	V_HOME_OFFLINE,
	V_WIDE_NEW,
	V_WIDE_FRESH,
	V_WIDE_ONCE,
	V_EXEC2,
	V_SBXRUN_BARE,
	V_SBXRUN,
	V_SBXRUN_EXEC,
	V_SAMPLE,
	V_BWRAP,
	V_COUNT
};

extern struct variant spawn_rows[V_COUNT];

void setup_spawn_rows(void);
/* hide.c: the hidden way beside the expanded one. */
void hide_section(void);
/* sample.c: the kernel's own sample launcher given the grants of deny as
 * an allow list, or v->skip saying why not. */
void setup_sample(struct variant *v, char *const *deny, int n);

/* ---- reuse.c: what each spawn of a kept scope did ------------------------ */

/* Filled by the scope's logger and by spawn_tallied(): each spawn was a
 * clean hit (one statx per directory), re-listed a directory whose stamp
 * moved, or compiled anew. */
struct tally {
	unsigned ev_compiled, ev_relisted; /* the library's expansion events */
	unsigned hits, relists, compiles;  /* spawns */
};

void tally_attach(sbx_scopeattr_t *s, struct tally *t);
void tally_reset(struct tally *t);
/* Forgets every attached scope (their section destroys them). */
void tally_clear(void);
/* spawn_sbx(), tallying the spawn for a scope given to tally_attach(). */
int spawn_tallied(const struct variant *v, pid_t *pid);

struct tallied_row {
	const char *section;
	const char *label;  /* printed */
	const char *name;   /* in the CSV file; NULL: the label */
	const struct variant *v, *base;
	const struct tally *t; /* NULL: no tally column */
	double param;
	const char *target, *verdict;
};

void print_tallied_row(const struct tallied_row *r);

void spawn_section(void);
void memory_section(void);
void threads_section(void);
void reuse_section(void);
void churn_section(void);
void compile_section(int abi);
void scale_section(int abi);
void newscope_section(int abi);

#endif
