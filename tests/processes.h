/* SPDX-License-Identifier: MIT */
/* What the suites of a child's acts on its caller share (check_processes.c,
 * check_processes_kernel.c): the scopes (one denying an unrelated
 * directory, one that also keeps the acts with SBX_SCOPE_TUNE_PROCESSES and
 * SBX_SCOPE_SHARE_KEYRINGS), the helper that acts, and its control.  Each
 * suite has its own copy (static): Check runs every test in a process of
 * its own. */
#ifndef SBX_TESTS_PROCESSES_H
#define SBX_TESTS_PROCESSES_H


#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define NUDGE HELPER_DIR "/nudge"
#define ARGV(...) ((char *[]){ NUDGE, __VA_ARGS__, NULL })

static sbx_scopeattr_t none_kept, kept;
static char *denied_top;

static void scope_make(sbx_scopeattr_t *s, int flags)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	sbx_scopeattr_setlogger(s, quiet, NULL);
	ck_assert_int_eq(sbx_scopeattr_adddeny(s, join(denied_top, "elsewhere")), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(s, flags), 0);
}

static void setup(void)
{
	denied_top = make_tmpdir();
	scope_make(&none_kept, 0);
	scope_make(&kept, SBX_SCOPE_TUNE_PROCESSES | SBX_SCOPE_SHARE_KEYRINGS);
}

static void teardown(void)
{
	sbx_scopeattr_destroy(&none_kept);
	sbx_scopeattr_destroy(&kept);
	rm_rf(denied_top);
	free(denied_top);
}

/* The library's refusals here are seccomp's: where no filter can be
 * installed (an emulator), there is nothing to show. */
#define REQUIRE_FILTERS()                                                                   \
	do {                                                                                \
		if (!filters_here(__func__))                                                \
			return;                                                             \
	} while (0)

/* The last line the act printed: its verdict; *out keeps all of it. */
static char last[4096];

static const char *act(const sbx_scopeattr_t *scope, char *const argv[])
{
	char *out = NULL, *nl;
	int status = run_scoped(scope, argv, &out);

	ck_assert_msg(status > -1000, "%s: the spawn failed: %s", argv[1],
	              sbx_strerror(-1000 - status));
	snprintf(last, sizeof(last), "%s", out ? out : "");
	free(out);
	while ((nl = strrchr(last, '\n')) && !nl[1])
		*nl = '\0';
	return (nl = strrchr(last, '\n')) ? nl + 1 : last;
}

/* The act works unconfined, is refused under a scope (EPERM), and works
 * with the flag that keeps it; changed() says whether the caller was
 * changed, undo() puts it back. */
static __attribute__((unused)) void refused_with_control(char *const argv[], bool (*changed)(void), void (*undo)(void))
{
	ck_assert_str_eq(act(NULL, argv), "ok");
	ck_assert_msg(changed(), "%s %s: the control said ok and changed nothing", argv[1], argv[2]);
	undo();
	ck_assert(!changed());
	ck_assert_str_eq(act(&none_kept, argv), "EPERM");
	ck_assert_msg(!changed(), "%s %s: refused, and the caller changed all the same", argv[1],
	              argv[2]);
	ck_assert_str_eq(act(&kept, argv), "ok");
	ck_assert(changed());
	undo();
}


#endif
