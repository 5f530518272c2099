/* SPDX-License-Identifier: MIT */
/* How an escape attempt says what each step did (steps.h). */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "compat/compat.h"
#include "tests/helpers/steps.h"

const char *name(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "E?";
}

/* Reports one step; returns r so calls can be chained in conditions. */
long step(const char *what, long r)
{
	int err = errno;

	if (r < 0)
		printf("%s %s\n", what, name(errno));
	else
		printf("%s ok\n", what);
	fflush(stdout);
	errno = err;
	return r;
}

/* The verdict line, then the exit status: 0 when the attempt succeeded. */
int verdict(long r)
{
	printf("%s\n", r < 0 ? name(errno) : "ok");
	return r < 0;
}

/* Reads fd from its start and shows what came out. */
long dump(int fd)
{
	char buf[4096];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		n = read(fd, buf, sizeof(buf) - 1);
	if (n >= 0) {
		buf[n] = '\0';
		fprintf(stderr, "%s", buf);
		fflush(stderr);
	}
	return step("read", n);
}

/* Opened as fd (the result of what), then read. */
long try_read(const char *what, int fd)
{
	if (step(what, fd) < 0)
		return -1;
	return dump(fd);
}

int open_and_dump(const char *what, int fd)
{
	return verdict(try_read(what, fd));
}
