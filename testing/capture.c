/* SPDX-License-Identifier: MIT */
/*
 * What a child said, kept in memory files: nothing on disk changes, which
 * would make every scope with a denial near it compile afresh, and nothing
 * blocks, as a pipe would once it is full.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sbxspawn/testing.h"
#include "testing/internal.h"

extern char **environ;

SBX_TESTING_EXPORT int sbx_testing_capture_open(int *fd)
{
	SBX_TESTING_KEEP_ERRNO;
	int r;

	if (!fd)
		return EINVAL;
	/* Close-on-exec: a child gets it only where a file action puts it. */
	if ((r = memfd_create("sbx-testing-capture", MFD_CLOEXEC)) < 0)
		return errno;
	*fd = r;
	return 0;
}

SBX_TESTING_EXPORT int sbx_testing_capture_read(int fd, char **text)
{
	SBX_TESTING_KEEP_ERRNO;
	size_t len = 0, cap = 4096;
	char *buf, *grown;
	ssize_t n;

	if (!text)
		return EINVAL;
	if (!(buf = malloc(cap)))
		return ENOMEM;
	/* From the start, whatever the offset the writers left. */
	while ((n = pread(fd, buf + len, cap - len - 1, (off_t)len)) != 0) {
		if (n < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			free(buf);
			return err;
		}
		len += (size_t)n;
		if (len + 1 == cap) {
			if (!(grown = realloc(buf, cap * 2))) {
				free(buf);
				return ENOMEM;
			}
			buf = grown;
			cap *= 2;
		}
	}
	buf[len] = '\0';
	*text = buf;
	return 0;
}

/* glibc's posix_spawn, not the library's: running the program under test
 * must not replace the calling thread's outcome (sbx_outcome_get). */
static int start(char *const argv[], int out, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	int err;

	if ((err = posix_spawn_file_actions_init(&fa)))
		return err;
	if (!(err = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) &&
	    !(err = posix_spawn_file_actions_adddup2(&fa, out, 1)) &&
	    !(err = posix_spawn_file_actions_adddup2(&fa, out, 2)))
		err = posix_spawnp(pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	return err;
}

SBX_TESTING_EXPORT int sbx_testing_run(char *const argv[], int *status, char **output)
{
	SBX_TESTING_KEEP_ERRNO;
	int fd, err, st;
	pid_t pid;

	if (!argv || !argv[0])
		return EINVAL;
	if ((err = sbx_testing_capture_open(&fd)))
		return err;
	if ((err = start(argv, fd, &pid))) {
		close(fd);
		return err;
	}
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			err = errno;
			close(fd);
			return err;
		}
	}
	if (output)
		err = sbx_testing_capture_read(fd, output);
	close(fd);
	if (!err && status)
		*status = st;
	return err;
}
