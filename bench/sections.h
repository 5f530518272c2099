/*
 * What the sections share: the targets they judge against, the spawn rows
 * that spawn.c sets up once and the other sections reuse, and each
 * section's entry point (spawn.c, memory.c, threads.c, compile.c).
 */
#ifndef SBXBENCH_SECTIONS_H
#define SBXBENCH_SECTIONS_H

#include <sys/types.h>

#include "sbxspawn/sbxspawn.h"
#include "harness.h"

/* ---- targets: what the issue asks for ------------------------------- */

#define TARGET_ONCE 1.03    /* compiled once, against posix_spawn */
#define TARGET_FRESH 1.25   /* ~100 rules compiled at each spawn */
#define TARGET_FLOOR 1.2    /* compile against the bare system calls, per rule */
#define TARGET_LINEAR 1.2   /* per-rule growth 1k..100k, against the floor's */
#define TARGET_HEAP 1.1     /* 1 GiB parent against a small one */
#define TARGET_BWRAP 5.0    /* bwrap's latency over ours */

extern char *child_env[];

int spawn_sbx(const struct variant *v, pid_t *pid);

extern sbx_scopeattr_t home_fresh, home_once, wide_fresh, wide_once;

enum {
	V_POSIX,
	V_FORK,
	V_SBX_NULL,
	V_HOME_NEW,
	V_HOME_FRESH,
	V_HOME_ONCE,
	V_WIDE_NEW,
	V_WIDE_FRESH,
	V_WIDE_ONCE,
	V_SBXRUN,
	V_BWRAP,
	V_COUNT
};

extern struct variant spawn_rows[V_COUNT];

void setup_spawn_rows(void);
void spawn_section(void);
void memory_section(void);
void threads_section(void);
void compile_section(int abi);

#endif
