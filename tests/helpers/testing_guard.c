/* SPDX-License-Identifier: MIT */
/* The forked-test guard of libsbxspawn-testing, from outside: started as a
 * program of its own (not a copy forked by its parent), every provocation
 * must refuse with ECHILD and change nothing; a copy it forks itself may
 * act, unless CK_FORK=no says no test runs in a copy. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sbxspawn/testing.h>

/* The state a provocation would change: no_new_privs, and the number of
 * seccomp filters (Landlock domains cannot be counted from here, but
 * stacking them sets no_new_privs first). */
static void state(char *buf, size_t size)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");
	int filters = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Seccomp_filters:", 16))
			filters = atoi(line + 16);
	if (f)
		fclose(f);
	snprintf(buf, size, "nnp %d filters %d", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), filters);
}

int main(int argc, char **argv)
{
	char before[64], after[64];
	int status;
	pid_t pid;

	if (argc == 2 && !strcmp(argv[1], "direct")) {
		state(before, sizeof(before));
		printf("hide=%d refuse=%d e2big=%d drop=%d\n", sbx_testing_landlock_hide(ENOSYS),
		       sbx_testing_landlock_refuse(SBX_TESTING_RESTRICT_SELF, EPERM),
		       sbx_testing_landlock_refuse(SBX_TESTING_RESTRICT_SELF, E2BIG),
		       sbx_testing_grant_drop("/usr", EPERM));
		state(after, sizeof(after));
		printf("unchanged=%d\n", !strcmp(before, after));
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "fork")) {
		fflush(stdout);
		if ((pid = fork()) == 0) {
			printf("forked hide=%d\n", sbx_testing_landlock_hide(ENOSYS));
			fflush(stdout);
			_exit(0);
		}
		return pid > 0 && waitpid(pid, &status, 0) == pid && status == 0 ? 0 : 1;
	}
	fprintf(stderr, "usage: testing_guard direct|fork\n");
	return 2;
}
