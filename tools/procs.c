/* SPDX-License-Identifier: MIT */
/*
 * The command's tree, for sbxrun --report-denials: sbxrun is the subreaper
 * of what the command starts, so each process of the tree has sbxrun for
 * an ancestor, whatever ended between them: a process whose parent ends
 * is sbxrun's child.  /proc/PID/stat names each one's parent.
 */
#include "config.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/procs.h"

/* The parent of pid, or -1 where pid is not there; *state its state ('Z'
 * for a zombie) and *start when it started (in clock ticks since boot),
 * where asked. */
static long parent_of(long pid, char *state, unsigned long long *start)
{
	char path[64], buf[1024], *close_paren, st = '?';
	unsigned long long started = 0;
	long ppid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (!(f = fopen(path, "re")))
		return -1;
	/* pid (comm) state ppid ... starttime (the 22nd field): comm may
	 * hold anything, ")" too. */
	if (!fgets(buf, sizeof(buf), f) || !(close_paren = strrchr(buf, ')')) ||
	    sscanf(close_paren + 1,
	           " %c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
	           &st, &ppid, &started) != 3)
		ppid = -1;
	fclose(f);
	if (state)
		*state = st;
	if (start)
		*start = started;
	return ppid;
}

int procs_descends(pid_t pid)
{
	unsigned long long child_start, start;
	long p = pid, self = (long)getpid();

	if (parent_of(p, NULL, &child_start) < 0)
		return -1;
	/* A chain longer than this is no tree of a command's.  A parent
	 * never started after its child: one that did is a pid reused after
	 * the parent ended, and the chain is broken there. */
	for (int depth = 0; depth < 4096; depth++) {
		if ((p = parent_of(p, NULL, NULL)) < 0)
			return -1;
		if (p == self)
			return 1;
		if (p <= 1 || parent_of(p, NULL, &start) < 0 || start > child_start)
			return 0;
		child_start = start;
	}
	return 0;
}

bool procs_running(pid_t pid)
{
	char state = 'Z';

	return parent_of(pid, &state, NULL) >= 0 && state != 'Z' && state != 'X';
}

unsigned procs_descendants(void)
{
	unsigned n = 0;
	struct dirent *e;
	DIR *proc;

	if (!(proc = opendir("/proc")))
		return 0;
	while ((e = readdir(proc))) {
		pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);

		if (pid > 0 && procs_running(pid) && procs_descends(pid) == 1)
			n++;
	}
	closedir(proc);
	return n;
}
