/* SPDX-License-Identifier: MIT */
/* Whether the test process is alone (one thread): a spawn from a process
 * that is looks at the child's signals and inherited descriptors before
 * its clone, one from a process that is not leaves them to the child
 * (lib/clone.c).  The tests hold both ways. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

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

static pthread_t idle;
static int idle_pipe[2] = { -1, -1 };

static void *idle_wait(void *arg)
{
	char c;

	(void)arg;
	while (read(idle_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

void idle_thread_start(void)
{
	ck_assert_int_eq(pipe2(idle_pipe, O_CLOEXEC), 0);
	ck_assert_int_eq(pthread_create(&idle, NULL, idle_wait, NULL), 0);
	ck_assert_int_eq(threads_here(), 2);
}

void idle_thread_stop(void)
{
	close(idle_pipe[1]);
	pthread_join(idle, NULL);
	close(idle_pipe[0]);
	idle_pipe[0] = idle_pipe[1] = -1;
}
