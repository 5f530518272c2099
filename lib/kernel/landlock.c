/* SPDX-License-Identifier: MIT */
/* The kernel interface: the Landlock ABI of the running kernel, the rights
 * each ABI knows, and the ruleset syscalls. */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>

#include "compat/landlock.h"
#include "lib/internal.h"

#define FS_ABI1 (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |       \
		 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |      \
		 LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |  \
		 LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |      \
		 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |      \
		 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |    \
		 LANDLOCK_ACCESS_FS_MAKE_SYM)

/* 0 until probed; then the ABI, or a negative errno. */
static atomic_int probed_abi;

int sbx__landlock_abi(void)
{
	int abi = atomic_load_explicit(&probed_abi, memory_order_relaxed);

	if (abi == 0) {
		int saved = errno;
		long r = sbx_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

		/* ENOSYS: not built in; EOPNOTSUPP: disabled at boot.  Anything
		 * else (a filter saying EPERM) is Landlock refusing. */
		abi = r > 0 ? (int)r : -errno;
		errno = saved;
		atomic_store_explicit(&probed_abi, abi, memory_order_relaxed);
	}
	return abi;
}

/* Strips, one ABI at a time, what an older kernel does not know.  Rights
 * that are not filesystem rights (network, scopes) are handled elsewhere. */
uint64_t sbx__fs_rights_known(int abi)
{
	uint64_t r = FS_ABI1 | LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE |
		     LANDLOCK_ACCESS_FS_IOCTL_DEV | LANDLOCK_ACCESS_FS_RESOLVE_UNIX;

	switch (abi) {
	case 1:
		r &= ~LANDLOCK_ACCESS_FS_REFER;
		/* fall through */
	case 2:
		r &= ~LANDLOCK_ACCESS_FS_TRUNCATE;
		/* fall through */
	case 3:
	case 4:
		r &= ~LANDLOCK_ACCESS_FS_IOCTL_DEV;
		/* fall through */
	case 5:
	case 6:
	case 7:
	case 8:
		r &= ~LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
		/* fall through */
	default:
		break;
	}
	return abi <= 0 ? 0 : r;
}

uint64_t sbx__fs_rights_file(int abi)
{
	return sbx__fs_rights_known(abi) &
	       (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
		LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |
		LANDLOCK_ACCESS_FS_IOCTL_DEV | LANDLOCK_ACCESS_FS_RESOLVE_UNIX);
}

uint64_t sbx__fs_rights_read(int abi)
{
	return sbx__fs_rights_known(abi) &
	       (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
		LANDLOCK_ACCESS_FS_READ_DIR);
}

int sbx__ruleset_create(int abi, uint64_t net, uint64_t scoped)
{
	struct sbx_landlock_ruleset_attr attr = { .handled_access_fs = sbx__fs_rights_known(abi),
	                                          .handled_access_net = net,
	                                          .scoped = scoped };
	long fd = sbx_landlock_create_ruleset(&attr, sizeof(attr), 0);

	return fd < 0 ? -errno : (int)fd;
}

int sbx__ruleset_add_port(int ruleset_fd, unsigned port, uint64_t access)
{
	struct sbx_landlock_net_port_attr np = { .allowed_access = access, .port = port };

	return sbx_landlock_add_rule(ruleset_fd, LANDLOCK_RULE_NET_PORT, &np, 0) ? -errno : 0;
}

int sbx__ruleset_add(int ruleset_fd, int fd, uint64_t access)
{
	struct sbx_landlock_path_beneath_attr pb = { .allowed_access = access, .parent_fd = fd };

	return sbx_landlock_add_rule(ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) ? -errno : 0;
}

bool sbx__is_ruleset(int fd)
{
	int saved = errno;
	/* Rule type 0 is no rule: a ruleset says EINVAL, anything else EBADFD
	 * or EBADF, before the type is even read. */
	bool is = fd >= 0 && sbx_landlock_add_rule(fd, 0, NULL, 0) < 0 && errno == EINVAL;

	errno = saved;
	return is;
}
