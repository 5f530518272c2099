/* SPDX-License-Identifier: MIT */
/*
 * The command's tree, for sbxrun --report-denials: sbxrun is the subreaper
 * of what the command starts, so each process of the tree has sbxrun for
 * an ancestor, whatever ended between them: a process whose parent ends
 * is sbxrun's child.  /proc/PID/stat names each one's parent.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/procs.h"

/* The parent of pid, or -1 where pid is not there. */
static long parent_of(long pid)
{
	char path[64], buf[512], *close_paren;
	long ppid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (!(f = fopen(path, "re")))
		return -1;
	/* pid (comm) state ppid: comm may hold anything, ")" too. */
	if (!fgets(buf, sizeof(buf), f) || !(close_paren = strrchr(buf, ')')) ||
	    sscanf(close_paren + 1, " %*c %ld", &ppid) != 1)
		ppid = -1;
	fclose(f);
	return ppid;
}

int procs_descends(pid_t pid)
{
	long p = pid, self = (long)getpid();

	/* A chain longer than this is no tree of a command's. */
	for (int depth = 0; depth < 4096; depth++) {
		if ((p = parent_of(p)) < 0)
			return -1;
		if (p == self)
			return 1;
		if (p <= 1)
			return 0;
	}
	return 0;
}

unsigned procs_descendants(void)
{
	unsigned n = 0;
	struct dirent *e;
	DIR *proc;

	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (!(proc = opendir("/proc")))
		return 0;
	while ((e = readdir(proc)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' &&
		    procs_descends((pid_t)strtol(e->d_name, NULL, 10)) == 1)
			n++;
	closedir(proc);
	return n;
}
