/* SPDX-License-Identifier: MIT */
/* What a confined fsop says (reads.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <mqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/reads.h"

/* A scope denying a directory of its own, under uid and gid 65534 when
 * nobody is set: the remedy the inventory names for these channels. */
void scope_for(sbx_scopeattr_t *s, const char *deny, bool nobody)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(s, deny), 0);
	sbx_scopeattr_setlogger(s, quiet, NULL);
	if (nobody)
		ck_assert_int_eq(sbx_scopeattr_setids(s, 65534, 65534), 0);
}

/* What fsop printed for op and arg under scope (its result and what it
 * read), malloc'd. */
char *fsop(const sbx_scopeattr_t *s, const char *op, const char *arg)
{
	char *argv[] = { FSOP, (char *)op, (char *)arg, NULL }, *out = NULL;

	run_scoped(s, argv, &out);
	ck_assert_ptr_nonnull(out);
	return out;
}

void assert_reads(char *out, const char *what)
{
	ck_assert_msg(strstr(out, "ok") && strstr(out, what), "expected %s read, got: %s", what, out);
	free(out);
}

void assert_refused(char *out)
{
	ck_assert_msg((strstr(out, "EACCES") || (hidden_way() && strstr(out, "ENOENT"))) &&
	                      !strstr(out, "the-secret"),
	              "expected a denial, got: %s", out);
	free(out);
}
