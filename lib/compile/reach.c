/* SPDX-License-Identifier: MIT */
/*
 * What the caller itself may not do at a path, for sbx_scopeattr_explain:
 * a child inherits the caller's own Landlock domain (and, where the scope
 * keeps its ids, its permissions), which a scope only adds to.  The rights
 * a probe can tell without a trace: opening a regular file for reading
 * (never blocking) and a directory for listing.  Not writing: the close of
 * a file opened for writing tells every watcher it was written
 * (IN_CLOSE_WRITE), and a build tool rebuilds.  Nor execution: access(2)
 * does not ask Landlock, and an exec would run the program.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/internal.h"

/* Whether opening path with flags is refused for a reason the child meets
 * too: EACCES (a domain, or permissions the child shares), EPERM (another
 * module). */
static bool refused(const char *path, int flags)
{
	int fd = open(path, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == EACCES || errno == EPERM;
}

void sbx__explain_caller(const struct sbx_scope *s, const char *path, int *access, char *note,
                         size_t cap)
{
	int saved = errno, lost = 0;
	struct stat st;

	note[0] = '\0';
	/* A child that runs as another user meets other permissions, which
	 * a refusal of the caller's cannot be told from (root's too: without
	 * CAP_DAC_OVERRIDE, permissions refuse it): not tried. */
	if (!*access || lstat(path, &st) || s->ids)
		goto out;
	if (S_ISREG(st.st_mode)) {
		if ((*access & SBX_ACCESS_READ) && refused(path, O_RDONLY))
			lost |= SBX_ACCESS_READ;
	} else if (S_ISDIR(st.st_mode)) {
		if ((*access & SBX_ACCESS_LIST) && refused(path, O_RDONLY | O_DIRECTORY))
			lost |= SBX_ACCESS_LIST;
	}
	if (!lost)
		goto out;
	*access &= ~lost;
	snprintf(note, cap, "; %s refused to the caller itself (its own Landlock domain, or its "
	         "permissions), which a child inherits", lost & SBX_ACCESS_READ ? "read" : "list");
out:
	errno = saved;
}
