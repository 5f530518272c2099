/* SPDX-License-Identifier: MIT */
/*
 * The fixture (fixture.c): a temporary tree shaped like a user's files,
 * the denials of the ~100- and ~1000-rule scopes over it, scope_make(),
 * and the file helpers the compile section uses for its own directories.
 */
#ifndef SBXBENCH_FIXTURE_H
#define SBXBENCH_FIXTURE_H

#include <limits.h>
#include <stdbool.h>

#include "sbxspawn/sbxspawn.h"

#define NPROJECTS 50
#define NHOME 60
#define NWIDE 1000

extern char fixture_root[PATH_MAX];

void join(char *out, const char *dir, const char *name);
void make_dir(const char *path);
void make_entries(const char *dir, const char *prefix, int count, int dir_every);
void sync_dir(const char *dir);
void remove_tree(const char *path);
void make_base(void);
void make_fixture(void);

extern char *deny_home[4];
extern char *deny_wide[1];

/* A scope of the n denials, compiled once where asked: scope_make's
 * expanded (SBX_SCOPE_EXPAND: the walk the compile, reuse and scale
 * sections measure), scope_make_way's with the flags given (0: hidden
 * where the child can). */
void scope_make(sbx_scopeattr_t *s, char *const *deny, int n, bool compile);
void scope_make_way(sbx_scopeattr_t *s, char *const *deny, int n, bool compile, int flags);

#endif
