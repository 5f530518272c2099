/* SPDX-License-Identifier: MIT */
/*
 * The syscall floor (floor.c) that the compile and scale sections hold the
 * compiler against: for each directory from / down to the one holding the
 * denials, list it, then openat(O_PATH) + landlock_add_rule + close each
 * entry that a compile would grant, into a fresh ruleset.
 */
#ifndef SBXBENCH_FLOOR_H
#define SBXBENCH_FLOOR_H

#include <stdbool.h>

/* Whether an entry of the leaf directory is denied (no rule for it). */
typedef bool (*floor_skip_fn)(const char *name, const void *arg);

struct floor_path {
	int levels;      /* directories from / down to the leaf */
	char *next[64];  /* next[i]: the component leading down from level i */
	floor_skip_fn skip;
	const void *arg;
	bool prove;      /* also statx each entry, as a compile does to prove it */
};

/* The rights of the floor's rules at this Landlock ABI. */
void floor_rights(int abi);
void floor_prepare(struct floor_path *f, const char *leaf, floor_skip_fn skip, const void *arg);
void floor_free(struct floor_path *f);
/* One run of the floor: the time in ns; *rules the rules it added. */
double floor_once(const struct floor_path *f, unsigned *rules);
/* A floor_skip_fn: the one name arg. */
bool floor_skip_name(const char *name, const void *arg);

/* The floor's definition, as every section that uses it prints it. */
#define FLOOR_DEFINITION                                                                  \
	"the floor: each directory from / down listed (getdents64), then openat O_PATH +\n" \
	"landlock_add_rule + close of each entry a compile grants, into a fresh ruleset"

#endif
