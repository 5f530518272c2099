/* SPDX-License-Identifier: MIT */
/* What the compiler's fuzzer shares (fuzz_compile.c: the input, the tree,
 * the races, the harness; fuzz_oracle.c: what the grants must be): the
 * grants the compile made, recorded by a test-only hook, and the model
 * the oracle holds them to. */
#ifndef SBX_FUZZ_H
#define SBX_FUZZ_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/internal.h"


struct grant {
	char path[PATH_MAX];
	uint64_t access;
	dev_t dev;
	ino_t ino;
};

struct grants {
	struct grant v[4096];
	size_t n;
};

struct model {
	const struct sbx_scope *scope;
	const struct sbx_ruleset *rs;
	const struct grants *g;
	uint64_t dir, file, read;
};

/* Whether path a is b or above it. */
bool covers(const char *a, const char *b);
/* Whether path lies in a path of rs bound back into a cover (or is one). */
bool bound(const struct sbx_ruleset *rs, const char *path);
/* Where a configured path exists in full, its resolution is realpath's:
 * else it aborts, saying RESOLVE. */
void check_resolution(const struct sbx_scope *scope, char (*given)[PATH_MAX]);
/* The mode of path's nearest configured path, the widest where one path
 * is configured twice (SBX_MODE_ALLOW where none is). */
int desired_mode(const struct model *m, const char *path);
/* Whether path is where a path left out by the compiler led. */
bool led_to(const struct sbx_scope *scope, const char *path);
/* Safety and liveness of every file and directory beneath path: else it
 * aborts, saying UNSAFE or LOST. */
void walk(const struct model *m, const char *path);

#endif
