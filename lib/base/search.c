/* SPDX-License-Identifier: MIT */
/* The PATH lookup, shared by the spawn engine's child and sbx_execvpe, in
 * both builds: the path searched, and the search, async-signal-safe (the
 * Landlock build's child makes the raw system call: tests/child-calls.sh;
 * the portable build calls execve(2)). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/internal.h"

#if SBX_BUILD_LANDLOCK
#include <sys/syscall.h>

#include "lib/confine.h"
#define exec_at(path, argv, envp) syscall(SYS_execve, path, argv, envp)
#else
#define CHILD
#define exec_at(path, argv, envp) execve(path, argv, envp)
#endif

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

const char *sbx__search_path(char *buf, size_t size)
{
	const char *path = getenv("PATH");
	size_t n;

	if (path)
		return path;
	n = confstr(_CS_PATH, buf, size);
	return n > 0 && n <= size ? buf : "/bin:/usr/bin";
}

/* glibc's execvpe lookup, without its shell fallback (as posix_spawnp):
 * EACCES is remembered and the search goes on, ENOENT, ENOTDIR and their
 * kin go on, anything else ends it.  Async-signal-safe: it runs in the
 * spawn engine's child.  Returns the errno. */
CHILD int sbx__exec_search(const char *file, const char *search_path, char *const argv[],
                     char *const envp[])
{
	char buf[PATH_MAX + NAME_MAX + 3];
	/* A name too long for a directory entry is cut one byte past the
	 * limit: exec then fails with ENAMETOOLONG, as glibc's does. */
	size_t flen = strnlen(file, NAME_MAX + 1);
	int got_eacces = 0;
	const char *p = search_path, *end;

	for (;; p = end + 1) {
		size_t dlen;

		for (end = p; *end && *end != ':'; end++)
			;
		dlen = (size_t)(end - p);
		if (dlen < PATH_MAX) {
			/* An empty element is the current directory. */
			memcpy(buf, p, dlen);
			buf[dlen] = '/';
			memcpy(buf + dlen + (dlen > 0), file, flen);
			buf[dlen + (dlen > 0) + flen] = '\0';
			if (exec_at(buf, argv, envp) < 0) {
				switch (errno) {
				case EACCES:
					got_eacces = 1;
					break;
				case ENOENT:
				case ESTALE:
				case ENOTDIR:
				case ENODEV:
				case ETIMEDOUT:
					break;
				default:
					return errno;
				}
			}
		}
		if (!*end)
			break;
	}
	return got_eacces ? EACCES : ENOENT;
}
