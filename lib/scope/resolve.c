/* SPDX-License-Identifier: MIT */
/*
 * Resolving the caller's paths, once, when they are added to a scope:
 * absolute against the working directory, symlinks followed, `..', `//' and
 * trailing slashes normalised; and the string tests on resolved paths the
 * other stages share.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat/compat.h"
#include "lib/internal.h"

/* Appends "/name" (len bytes of it) to the absolute path in buf. */
int sbx__path_push(char *buf, const char *name, size_t len)
{
	size_t n = strlen(buf);

	if (n + 1 + len >= PATH_MAX)
		return ENAMETOOLONG;
	if (n > 1)
		buf[n++] = '/';
	memcpy(buf + n, name, len);
	buf[n + len] = '\0';
	return 0;
}

void sbx__path_pop(char *buf)
{
	char *slash = strrchr(buf, '/');

	if (slash == buf)
		buf[1] = '\0';
	else if (slash)
		*slash = '\0';
}

/* out (resolved so far) ends in a symlink: replace it by the link's target
 * and put the target in front of what is left to walk (*p, in todo). */
static int follow(char *out, char *todo, size_t cap, char **p)
{
	char link[PATH_MAX];
	ssize_t n = readlink(out, link, sizeof(link) - 1);
	size_t rest = strlen(*p);

	if (n < 0)
		return errno;
	link[n] = '\0';
	sbx__path_pop(out);
	if (link[0] == '/')
		strcpy(out, "/");
	if ((size_t)n + 1 + rest + 1 > cap)
		return ENAMETOOLONG;
	memmove(todo + n + 1, *p, rest + 1);
	memcpy(todo, link, (size_t)n);
	todo[n] = '/';
	*p = todo;
	return 0;
}

/* Where the whole of path exists, the kernel resolves it in one open and
 * names what it reached: 0 with out filled, or -1 to walk it instead.
 * The name is read from the calling thread's own descriptor table (a
 * thread that unshared its table has descriptors /proc/self does not
 * show), and it is believed only if it leads back to the very inode that
 * was opened: a name read from another table, or renamed meanwhile, is
 * never taken for this one. */
static int resolve_existing(const char *path, char *out)
{
#ifdef O_PATH
	char link[64];
	struct stat opened, named;
	int fd = open(path, O_PATH | O_CLOEXEC), err;
	ssize_t n;

	if (fd < 0)
		return -1;
	snprintf(link, sizeof(link), "/proc/thread-self/fd/%d", fd);
	n = readlink(link, out, PATH_MAX);
	err = n <= 0 || n >= PATH_MAX || fstat(fd, &opened);
	close(fd);
	/* Not a name a walk would give (unreachable from the root, deleted,
	 * no /proc), or not this inode's: walk. */
	if (err || out[0] != '/' ||
	    ((size_t)n > 10 && !memcmp(out + n - 10, " (deleted)", 10)))
		return -1;
	out[n] = '\0';
	if (lstat(out, &named) || named.st_dev != opened.st_dev || named.st_ino != opened.st_ino)
		return -1;
	return 0;
#else
	/* No O_PATH, no /proc/self/fd (the portable build's hosts): walk. */
	(void)path;
	(void)out;
	return -1;
#endif
}

/* Makes path absolute against the calling thread's working directory and
 * resolves every symlink in the part that exists; the rest ("a denied path
 * that does not exist yet") is normalised as written: `..' is the physical
 * parent, `.', `//' and trailing slashes go.  out holds PATH_MAX bytes. */
int sbx__resolve(const char *path, char *out)
{
	char todo[2 * PATH_MAX];
	int links = 0, err;

	if (strlen(path) >= PATH_MAX)
		return ENAMETOOLONG;
	if (resolve_existing(path, out) == 0)
		return 0;
	if (path[0] == '/')
		strcpy(out, "/");
	else if (!getcwd(out, PATH_MAX))
		return errno;
	strcpy(todo, path);
	for (char *p = todo; *p;) {
		char *end = strchrnul(p, '/');
		size_t len = (size_t)(end - p);
		struct stat st;

		if (len == 0 || (len == 1 && p[0] == '.')) {
			p = *end ? end + 1 : end;
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			sbx__path_pop(out); /* out is resolved: this is its real parent */
			p = *end ? end + 1 : end;
			continue;
		}
		if ((err = sbx__path_push(out, p, len)))
			return err;
		p = *end ? end + 1 : end;
		if (lstat(out, &st)) {
			if (errno == ENOENT || errno == ENOTDIR)
				continue; /* the rest is normalised as written */
			return errno;
		}
		if (!S_ISLNK(st.st_mode))
			continue;
		if (++links > 40)
			return ELOOP;
		if ((err = follow(out, todo, sizeof(todo), &p)))
			return err;
	}
	return 0;
}

/* path made absolute against the working directory and normalised as it is
 * written, looking at no symlink: `.', `//' and trailing slashes go, `..'
 * takes away the component written before it.  What sbx__resolve() gives
 * for a path with no symlink on its way; out holds PATH_MAX bytes. */
int sbx__path_written(const char *path, char *out)
{
	if (path[0] == '/')
		strcpy(out, "/");
	else if (!getcwd(out, PATH_MAX))
		return errno;
	for (const char *p = path; *p;) {
		const char *end = strchrnul(p, '/');
		size_t len = (size_t)(end - p);
		int err;

		if (len == 2 && p[0] == '.' && p[1] == '.')
			sbx__path_pop(out);
		else if (len && !(len == 1 && p[0] == '.') && (err = sbx__path_push(out, p, len)))
			return err;
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* Whether a is b or one of b's ancestors (both resolved, absolute). */
bool sbx__path_covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (strcmp(a, "/") == 0)
		return true;
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

const char *sbx__path_after(const char *prefix, const char *path)
{
	return strcmp(prefix, "/") == 0 ? path : path + strlen(prefix);
}

int sbx__path_order(const char *a, const char *b, size_t alen)
{
	for (size_t i = 0;; i++) {
		int x = i < alen && a[i] ? (a[i] == '/' ? 1 : (unsigned char)a[i] + 1) : 0;
		int y = b[i] == '/' ? 1 : b[i] ? (unsigned char)b[i] + 1 : 0;

		if (x != y || !x)
			return x - y;
	}
}
