/* SPDX-License-Identifier: MIT */
/* sbxrun --rlimit NAME=SOFT[:HARD]: its argument read (tools/rlimit.c). */
#ifndef SBX_TOOLS_RLIMIT_H
#define SBX_TOOLS_RLIMIT_H

#include <stddef.h>
#include <sys/resource.h>

/* arg as NAME=VALUE, NAME one of getrlimit(2)'s resources in lower case
 * without RLIMIT_ (nofile, cpu, as, ...), VALUE "SOFT:HARD", "SOFT:"
 * (soft alone), ":HARD" (hard alone) or "BOTH", each a number or
 * "unlimited": 0 with *resource and *limit (the half not given is this
 * process's own), or -1 with why (whycap bytes) saying what is wrong. */
int rlimit_parse(const char *arg, int *resource, struct rlimit *limit, char *why, size_t whycap);

#endif
