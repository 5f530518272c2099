/* SPDX-License-Identifier: MIT */
/*
 * When a provocation may act.  Each one changes the calling process for
 * good, so it must run in a process that is thrown away after one test:
 * the copy Check forks for each test.  And hiding Landlock only works
 * before libsbxspawn has asked the kernel for its ABI, which it does once
 * per process and caches.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "compat/landlock.h"
#include "sbxspawn/testing.h"
#include "testing/internal.h"

/* A copy forked to run one test still runs its parent's program: Check's
 * runner forks and does not exec.  A process started any other way (from a
 * shell, a test driver, a debugger; or the runner itself when CK_FORK=no
 * keeps every test in it) has a parent that runs another program.  Where
 * /proc cannot say, nothing can be told and the call goes ahead. */
int sbx__testing_forked(void)
{
	const char *mode = getenv("CK_FORK");
	struct stat self, parent;
	char up[64];

	if (mode && !strcmp(mode, "no"))
		return ECHILD;
	snprintf(up, sizeof(up), "/proc/%ld/exe", (long)getppid());
	if (stat("/proc/self/exe", &self) || stat(up, &parent))
		return 0;
	return self.st_dev == parent.st_dev && self.st_ino == parent.st_ino ? 0 : ECHILD;
}

long sbx__testing_abi_probe(void)
{
	long r = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	return r < 0 ? -errno : r;
}

SBX_TESTING_EXPORT int sbx_testing_landlock_abi(int *abi)
{
	SBX_TESTING_KEEP_ERRNO;
	long r = sbx__testing_abi_probe();

	if (!abi)
		return EINVAL;
	if (r > 0)
		*abi = (int)r;
	else if (r == -ENOSYS || r == -EOPNOTSUPP)
		*abi = 0;
	else
		return (int)-r; /* a filter says no: present, and unknown */
	return 0;
}

int sbx__testing_need_landlock(void)
{
	long r = sbx__testing_abi_probe();

	/* A filter answering EPERM hides nothing: Landlock is there, refusing. */
	return r == -ENOSYS || r == -EOPNOTSUPP ? ENOTSUP : 0;
}

static void quiet(const sbx_event_t *event, void *arg)
{
	(void)event;
	(void)arg;
}

/* In a copy of the process, where nothing it does matters afterwards:
 * Landlock made absent, then a compile that must ask for the ABI.  If the
 * library asks now, it hears ENOSYS and the compile fails with ENOTSUP
 * (SBX_SCOPE_REQUIRE); if it asked before, it has its answer cached, goes
 * on and is refused.  The parent learns which without asking anything. */
static _Noreturn void probe_in_copy(void)
{
	const long create = __NR_landlock_create_ruleset;
	sbx_scopeattr_t s;
	int err;

	if (sbx__testing_filter(&create, 1, SECCOMP_RET_ERRNO | ENOSYS, 0, NULL))
		_exit(2);
	if (sbx_scopeattr_init(&s) || sbx_scopeattr_setflags(&s, SBX_SCOPE_REQUIRE) ||
	    sbx_scopeattr_setlogger(&s, quiet, NULL) ||
	    sbx_scopeattr_adddeny(&s, "/sbx-testing-probe"))
		_exit(3);
	err = sbx_scopeattr_compile(&s);
	_exit(err == ENOTSUP ? 0 : 1);
}

int sbx__testing_unprobed(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return errno;
	if (pid == 0)
		probe_in_copy();
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return errno;
	/* Anything but these two answers tells nothing: go ahead. */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
		return EALREADY;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
		return ENOTSUP;
	return 0;
}
