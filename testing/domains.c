/* SPDX-License-Identifier: MIT */
/*
 * Stacked Landlock domains: the kernel allows 16 on a thread, and refuses
 * the 17th with E2BIG.  Reaching the limit is the real way to make a
 * spawn's landlock_restrict_self fail so.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "testing/internal.h"

/* The most the kernel has ever allowed; a 17th attempt refused with
 * anything but E2BIG is an error of its own. */
#define MAX_LAYERS 16

/* A domain that restricts nothing: it handles executing only, and grants
 * it beneath the root. */
static int stack_one(void)
{
	struct sbx_landlock_ruleset_attr attr = { .handled_access_fs = LANDLOCK_ACCESS_FS_EXECUTE };
	struct sbx_landlock_path_beneath_attr pb = { .allowed_access = LANDLOCK_ACCESS_FS_EXECUTE };
	int fd, err = 0;

	/* The first fields only: a kernel of ABI 1 knows no others. */
	fd = (int)sbx_landlock_create_ruleset(&attr, sizeof(attr.handled_access_fs), 0);
	if (fd < 0)
		return errno;
	pb.parent_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pb.parent_fd < 0 ||
	    sbx_landlock_add_rule(fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) ||
	    sbx_landlock_restrict_self(fd, 0))
		err = errno;
	if (pb.parent_fd >= 0)
		close(pb.parent_fd);
	close(fd);
	return err;
}

int sbx__testing_stack_domains(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L))
		return errno;
	for (int i = 0; i <= MAX_LAYERS; i++) {
		int err = stack_one();

		if (err == E2BIG)
			return 0;
		if (err)
			return err;
	}
	return ENOTSUP;
}
