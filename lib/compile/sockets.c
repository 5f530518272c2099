/* SPDX-License-Identifier: MIT */
/*
 * The unix sockets a scope lets its child connect to, and no other: a
 * local proxy's socket, under SBX_SCOPE_NO_NETWORK the one road out.
 *
 * Landlock mediates connect(2) and sendmsg(2) to a unix socket bound to a
 * path from ABI 9 (LANDLOCK_ACCESS_FS_RESOLVE_UNIX), as a filesystem
 * right: held on the socket's inode, or on a directory for every socket
 * beneath it.  A scope that names sockets withholds that right from every
 * other grant (compile.c, rights_at), and grants it on each named path
 * alone, after the ruleset is opened (the paths are the scope's,
 * resolved when added: scope.c).  Below ABI 9 nothing mediates it:
 * the flag the call sets, SBX_SCOPE_NO_UNIX_CONNECT, is then a warning or,
 * under SBX_SCOPE_STRICT, a refusal (controls.c).
 *
 * A grant holds on the inode named when the scope is compiled: a server
 * that binds its socket again makes a new one.  So a compile that grants
 * a socket file is not kept for later spawns (a snapshot keeps it, as a
 * snapshot keeps everything); naming the socket's directory instead
 * outlives the server's restarts.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "lib/internal.h"
#include "lib/compiler.h"

bool sbx__sockets_withheld(const struct sbx_scope *scope, int abi)
{
	return scope->nsockets && (sbx__fs_rights_known(abi) & LANDLOCK_ACCESS_FS_RESOLVE_UNIX);
}

/* One grant per named socket or directory; one that cannot be added (not
 * there, not a socket or a directory, refused) is dropped: connecting to
 * it fails as to every other socket. */
void sbx__sockets_add(struct compiler *cc)
{
	const struct sbx_scope *scope = cc->scope;

	if (!sbx__sockets_withheld(scope, cc->out->abi))
		return;
	for (size_t i = 0; i < scope->nsockets; i++) {
		const char *path = scope->sockets[i];
		int fd = open(path, O_PATH | O_CLOEXEC), err = 0;
		struct stat st;

		if (fd < 0)
			err = errno;
		else if (fstat(fd, &st))
			err = errno;
		else if (!S_ISSOCK(st.st_mode) && !S_ISDIR(st.st_mode))
			err = ENOTSOCK;
		else if (!(err = -sbx__ruleset_add(cc->out->fd, fd, LANDLOCK_ACCESS_FS_RESOLVE_UNIX)))
			cc->out->rules++;
		if (fd >= 0)
			close(fd);
		if (!err && S_ISSOCK(st.st_mode))
			cc->out->reusable = false;
		if (!err && scope->trace)
			scope->trace(path, LANDLOCK_ACCESS_FS_RESOLVE_UNIX, S_ISDIR(st.st_mode), st.st_dev,
			             st.st_ino, scope->trace_arg);
		if (err) {
			strcpy(cc->path, "");
			sbx__drop(cc, path, err, DROP_SOCKET);
		}
	}
}
