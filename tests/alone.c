/* SPDX-License-Identifier: MIT */
/* Whether the test process is alone (one thread): a spawn from a process
 * that is reads which signals the child catches before its clone, one
 * from a process that is not leaves that to the child (lib/child/clone.c).  The
 * tests hold both ways. */
#include "config.h"

#include <stdio.h>

#include "tests/common.h"

int threads_here(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	int n = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}
