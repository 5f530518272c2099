/* SPDX-License-Identifier: MIT */
/* Which denial of a scope refuses a command's exec (tools/refusing.c). */
#ifndef SBX_TOOLS_REFUSING_H
#define SBX_TOOLS_REFUSING_H

#include <stdbool.h>
#include <stddef.h>

#include "sbxspawn/sbxspawn.h"

/* The program command names (a path, or found on PATH as execvp(3) finds
 * it), resolved, in program (cap bytes): false where there is none, or
 * where scope denies nothing (no denial to name).  Asked before the exec:
 * after a failed one, a hidden denial covers it. */
bool refusing_locate(const sbx_scopeattr_t *scope, const char *command, char *program, size_t cap);
/* The denial of scope that holds program, or NULL where none does (a
 * re-admission nearer to it counts). */
const char *refusing_denial(const sbx_scopeattr_t *scope, const char *program);

#endif
