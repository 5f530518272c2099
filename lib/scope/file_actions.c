/* SPDX-License-Identifier: MIT */
/* sbx_file_actions_t: the same arguments, checks and errors as glibc's
 * posix_spawn_file_actions_*(3), which cannot be read from outside glibc. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/internal.h"

/* As glibc: a descriptor is valid if it is below the RLIMIT_NOFILE soft
 * limit at the time the action is added. */
static int valid_fd(int fd)
{
	long maxfd = sysconf(_SC_OPEN_MAX);

	return fd >= 0 && (maxfd < 0 || fd < maxfd);
}

SBX_EXPORT int sbx_file_actions_init(sbx_file_actions_t *fa)
{
	memset(fa, 0, sizeof(*fa));
	return 0;
}

SBX_EXPORT int sbx_file_actions_destroy(sbx_file_actions_t *fa)
{
	for (int i = 0; i < fa->__used; i++)
		free(fa->__actions[i].path);
	free(fa->__actions);
	memset(fa, 0, sizeof(*fa));
	return 0;
}

/* Appends a copy of act (taking a copy of path) or returns ENOMEM. */
static int append(sbx_file_actions_t *fa, struct sbx_file_action act, const char *path)
{
	SBX_KEEP_ERRNO;

	if (fa->__used == fa->__allocated) {
		int n = fa->__allocated ? 2 * fa->__allocated : 8;
		struct sbx_file_action *grown = realloc(fa->__actions, (size_t)n * sizeof(*grown));

		if (!grown)
			return ENOMEM;
		fa->__actions = grown;
		fa->__allocated = n;
	}
	act.path = NULL;
	if (path && !(act.path = strdup(path)))
		return ENOMEM;
	fa->__actions[fa->__used++] = act;
	return 0;
}

SBX_EXPORT int sbx_file_actions_addopen(sbx_file_actions_t *restrict fa, int fd,
                                        const char *restrict path, int oflag, mode_t mode)
{
	SBX_KEEP_ERRNO;

	if (!valid_fd(fd))
		return EBADF;
	return append(fa, (struct sbx_file_action){ .kind = SBX_FA_OPEN, .fd = fd,
	                                            .oflag = oflag, .mode = mode }, path);
}

SBX_EXPORT int sbx_file_actions_addclose(sbx_file_actions_t *fa, int fd)
{
	SBX_KEEP_ERRNO;

	if (!valid_fd(fd))
		return EBADF;
	return append(fa, (struct sbx_file_action){ .kind = SBX_FA_CLOSE, .fd = fd }, NULL);
}

SBX_EXPORT int sbx_file_actions_adddup2(sbx_file_actions_t *fa, int fd, int newfd)
{
	SBX_KEEP_ERRNO;

	if (!valid_fd(fd) || !valid_fd(newfd))
		return EBADF;
	return append(fa, (struct sbx_file_action){ .kind = SBX_FA_DUP2, .srcfd = fd, .fd = newfd },
	              NULL);
}

SBX_EXPORT int sbx_file_actions_addchdir(sbx_file_actions_t *restrict fa, const char *restrict path)
{
	return append(fa, (struct sbx_file_action){ .kind = SBX_FA_CHDIR }, path);
}

/* glibc checks nothing here: a bad descriptor fails at spawn time. */
SBX_EXPORT int sbx_file_actions_addfchdir(sbx_file_actions_t *fa, int fd)
{
	return append(fa, (struct sbx_file_action){ .kind = SBX_FA_FCHDIR, .fd = fd }, NULL);
}

SBX_EXPORT int sbx_file_actions_addclosefrom(sbx_file_actions_t *fa, int from)
{
	SBX_KEEP_ERRNO;

	if (!valid_fd(from))
		return EBADF;
	return append(fa, (struct sbx_file_action){ .kind = SBX_FA_CLOSEFROM, .fd = from }, NULL);
}

SBX_EXPORT int sbx_file_actions_addtcsetpgrp(sbx_file_actions_t *fa, int tcfd)
{
	SBX_KEEP_ERRNO;

	if (!valid_fd(tcfd))
		return EBADF;
	return append(fa, (struct sbx_file_action){ .kind = SBX_FA_TCSETPGRP, .fd = tcfd }, NULL);
}

int sbx__file_actions_maxfd(const sbx_file_actions_t *fa)
{
	int max = -1;

	for (int i = 0; fa && i < fa->__used; i++) {
		const struct sbx_file_action *a = &fa->__actions[i];

		/* fchdir's descriptor is not checked when added; one outside the
		 * limit cannot be open, nor collide with ours. */
		if (a->kind == SBX_FA_FCHDIR && !valid_fd(a->fd))
			continue;
		if (a->kind != SBX_FA_CHDIR && a->fd > max)
			max = a->fd;
		if (a->kind == SBX_FA_DUP2 && a->srcfd > max)
			max = a->srcfd;
	}
	return max;
}
