/* SPDX-License-Identifier: MIT */
/* Prints, one item a line, the process state a spawn is supposed to set, so
 * that two children can be compared as text: the arguments and the
 * environment, descriptors, working directory, signals, process group,
 * session and terminal, scheduling, ids.  Values that are pids print as
 * "self" when they are the process's own. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static void print_pid(const char *what, pid_t v)
{
	if (v == getpid())
		printf("%s=self\n", what);
	else
		printf("%s=%ld\n", what, (long)v);
}

static void print_status_line(const char *key)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0)
			fputs(line, stdout);
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	char cwd[PATH_MAX], target[PATH_MAX];
	struct sched_param sp;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int self = d ? dirfd(d) : -1;

	printf("argc=%d\narg0=%s\n", argc, argc > 0 && argv[0] ? argv[0] : "(none)");
	for (int i = 1; i < argc; i++)
		printf("arg=%s\n", argv[i]);
	for (char **v = environ; v && *v; v++)
		printf("env=%s\n", *v);
	while (d && (e = readdir(d))) {
		int fd = atoi(e->d_name);
		char link[64];
		ssize_t n;

		if (e->d_name[0] == '.' || fd == self)
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		/* pipes and sockets carry inode numbers that differ run to run */
		if (strncmp(target, "pipe:", 5) == 0 || strncmp(target, "socket:", 7) == 0)
			target[4] = '\0';
		printf("fd=%d %s flags=%#x cloexec=%d\n", fd, target,
		       fcntl(fd, F_GETFL) & (O_ACCMODE | O_APPEND | O_NONBLOCK),
		       (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
	}
	if (d)
		closedir(d);
	printf("cwd=%s\n", getcwd(cwd, sizeof(cwd)) ? cwd : "?");
	print_status_line("SigBlk");
	print_status_line("SigIgn");
	print_status_line("SigCgt");
	print_pid("pgid", getpgid(0));
	print_pid("sid", getsid(0));
	print_pid("tpgid", tcgetpgrp(0));
	printf("policy=%d\n", sched_getscheduler(0) & ~SCHED_RESET_ON_FORK);
	sched_getparam(0, &sp);
	printf("priority=%d\n", sp.sched_priority);
	printf("euid=%ld egid=%ld uid=%ld\n", (long)geteuid(), (long)getegid(), (long)getuid());
	return 0;
}
