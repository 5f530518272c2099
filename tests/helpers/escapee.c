/* SPDX-License-Identifier: MIT */
/* Processes that try to outlive the command that started them, each
 * named NAME (its comm) for the test to count:
 *   escapee leader NAME          a child whose first thread ends, SIGTERM
 *                                ignored, while a second one runs on (30 s)
 *   escapee hop NAME SECONDS     three chains that fork and end, each
 *                                process living a moment, for SECONDS;
 *                                then each sleeps (30 s)
 * The command itself returns at once. */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static void *linger(void *arg)
{
	(void)arg;
	sleep(30);
	_exit(0);
}

static void hop(long seconds)
{
	time_t end = time(NULL) + seconds;

	while (time(NULL) < end) {
		pid_t pid = fork();

		if (pid > 0)
			_exit(0);
	}
	sleep(30);
	_exit(0);
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 3)
		return 2;
	prctl(PR_SET_NAME, argv[2], 0, 0, 0);
	if (!strcmp(argv[1], "leader")) {
		if (fork() != 0)
			return 0;
		signal(SIGTERM, SIG_IGN);
		if (pthread_create(&t, NULL, linger, NULL))
			return 1;
		pthread_exit(NULL);
	}
	if (!strcmp(argv[1], "hop") && argc > 3) {
		for (int i = 0; i < 3; i++)
			if (fork() == 0)
				hop(strtol(argv[3], NULL, 10));
		return 0;
	}
	return 2;
}
