/* SPDX-License-Identifier: MIT */
/* The spawning calls, the same in both builds: posix_spawn's two and
 * glibc 2.39's pidfd_spawn's two, each over sbx__spawn (spawn.c, or
 * portable.c in the portable build). */
#include "config.h"

#include <unistd.h>

#include "lib/internal.h"

SBX_EXPORT int sbx_posix_spawn(pid_t *restrict pid, const char *restrict path,
                               const sbx_file_actions_t *file_actions,
                               const posix_spawnattr_t *restrict attrp,
                               const sbx_scopeattr_t *restrict scope, char *const argv[restrict],
                               char *const envp[restrict])
{
	return sbx__spawn(pid, NULL, path, 0, file_actions, attrp, scope, argv, envp);
}

SBX_EXPORT int sbx_posix_spawnp(pid_t *restrict pid, const char *restrict file,
                                const sbx_file_actions_t *file_actions,
                                const posix_spawnattr_t *restrict attrp,
                                const sbx_scopeattr_t *restrict scope, char *const argv[restrict],
                                char *const envp[restrict])
{
	return sbx__spawn(pid, NULL, file, 1, file_actions, attrp, scope, argv, envp);
}

/* A NULL pidfd gets nothing, and keeps nothing open. */
static int pidfd_spawn(int *pidfd, const char *file, int search, const sbx_file_actions_t *fa,
                       const posix_spawnattr_t *restrict attr, const sbx_scopeattr_t *restrict scope,
                       char *const argv[restrict], char *const envp[restrict])
{
	int fd, err = sbx__spawn(NULL, &fd, file, search, fa, attr, scope, argv, envp);

	if (!err && pidfd)
		*pidfd = fd;
	else if (!err)
		close(fd);
	return err;
}

SBX_EXPORT int sbx_pidfd_spawn(int *restrict pidfd, const char *restrict path,
                               const sbx_file_actions_t *file_actions,
                               const posix_spawnattr_t *restrict attrp,
                               const sbx_scopeattr_t *restrict scope, char *const argv[restrict],
                               char *const envp[restrict])
{
	return pidfd_spawn(pidfd, path, 0, file_actions, attrp, scope, argv, envp);
}

SBX_EXPORT int sbx_pidfd_spawnp(int *restrict pidfd, const char *restrict file,
                                const sbx_file_actions_t *file_actions,
                                const posix_spawnattr_t *restrict attrp,
                                const sbx_scopeattr_t *restrict scope, char *const argv[restrict],
                                char *const envp[restrict])
{
	return pidfd_spawn(pidfd, file, 1, file_actions, attrp, scope, argv, envp);
}
