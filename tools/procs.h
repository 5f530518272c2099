/* SPDX-License-Identifier: MIT */
/* The processes a command started, as sbxrun (their subreaper) sees them
 * in /proc (tools/procs.c). */
#ifndef SBX_TOOLS_PROCS_H
#define SBX_TOOLS_PROCS_H

#include <stdbool.h>
#include <sys/types.h>

/* Whether pid descends from this process: 1, 0, or -1 where it cannot be
 * told (it, or a process between, has ended). */
int procs_descends(pid_t pid);
/* Whether pid is there and has not ended (a zombie has). */
bool procs_running(pid_t pid);
/* How many processes that have not ended descend from this process now. */
unsigned procs_descendants(void);

#endif
