/* SPDX-License-Identifier: MIT */
/* The child and its parent.  Under SBX_SCOPE_DIE_WITH_PARENT a child whose
 * spawning process is killed is killed with it: shown surviving without
 * the flag first, then with the flag alone, with a denial (hidden where the
 * child can have a namespace), with the ids a scope sets and as the first
 * process of a pid namespace its parent is not in (root); a
 * kernel that refuses the request is a refusal, never a child without it.
 * And the first spawn of a process, which does not know yet whether its
 * child shares its memory: one child the caller hears of, and no other.
 * (Part of the lifetime suite.) */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

enum way { PLAIN, DYING, DYING_DENIED, DYING_OTHER_IDS, DYING_IN_PID_NS };

/* A process of the test's that spawns a sleeper with scope's way, tells
 * its pid through fd, and waits to be killed. */
static _Noreturn void spawner(enum way way, const char *denied, int fd)
{
	char *argv[] = { "sleep", "100000", NULL };
	sbx_scopeattr_t s;
	pid_t pid;
	int err;

	/* Its child the first of a pid namespace: its parent shows as 0.  A
	 * spawn first, for the engine's probe (a child that exits) would be
	 * that namespace's first, and end it. */
	if (way == DYING_IN_PID_NS) {
		char *t[] = { "true", NULL };

		if (sbx_posix_spawnp(&pid, "true", NULL, NULL, NULL, t, environ) ||
		    waitpid(pid, NULL, 0) != pid || unshare(CLONE_NEWPID))
			_exit(2);
	}
	if (sbx_scopeattr_init(&s) ||
	    (way != PLAIN && sbx_scopeattr_setflags(&s, SBX_SCOPE_DIE_WITH_PARENT)) ||
	    (way == DYING_DENIED && sbx_scopeattr_adddeny(&s, denied)) ||
	    (way == DYING_OTHER_IDS && sbx_scopeattr_setids(&s, 65534, 65534)))
		_exit(2);
	if ((err = sbx_posix_spawnp(&pid, "sleep", NULL, NULL, &s, argv, environ)))
		pid = -err;
	(void)!write(fd, &pid, sizeof(pid));
	for (;;)
		pause();
}

/* The signal that ended the sleeper of way once its spawner was killed:
 * SIGKILL from the kernel where it dies with its parent; else it is alive
 * (adopted by the test), and the SIGTERM the test sends it ends it. */
static int ended_by(enum way way, const char *denied)
{
	int p[2], status;
	pid_t spawner_pid, sleeper;

	ck_assert_int_eq(pipe(p), 0);
	spawner_pid = fork();
	ck_assert_int_ge(spawner_pid, 0);
	if (spawner_pid == 0)
		spawner(way, denied, p[1]);
	close(p[1]);
	ck_assert_int_eq(read(p[0], &sleeper, sizeof(sleeper)), sizeof(sleeper));
	close(p[0]);
	ck_assert_msg(sleeper > 0, "spawn: %s", strerror(-sleeper));
	/* The parent-death signal is sent as the spawner exits, before it
	 * can be reaped: once reaped, a SIGKILL is there or never comes. */
	ck_assert_int_eq(kill(spawner_pid, SIGKILL), 0);
	ck_assert_int_eq(WTERMSIG(wait_status(spawner_pid)), SIGKILL);
	kill(sleeper, SIGTERM);
	status = wait_status(sleeper);
	ck_assert(WIFSIGNALED(status));
	return WTERMSIG(status);
}

START_TEST(test_die_with_parent)
{
	char *dir = make_tmpdir();

	/* The test adopts what its spawners leave. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) {
		say_skip("SKIP %s: this process cannot adopt what its children leave (%s%s)\n",
		         __func__, strerror(errno), emulated() ? ": qemu-user refuses a subreaper" : "");
		rm_rf(dir);
		free(dir);
		return;
	}
	ck_assert_int_eq(ended_by(PLAIN, NULL), SIGTERM); /* the control */
	ck_assert_int_eq(ended_by(DYING, NULL), SIGKILL);
	if (landlock_abi() > 0)
		ck_assert_int_eq(ended_by(DYING_DENIED, dir), SIGKILL);
	if (geteuid() == 0) {
		ck_assert_int_eq(ended_by(DYING_OTHER_IDS, NULL), SIGKILL);
		ck_assert_int_eq(ended_by(DYING_IN_PID_NS, NULL), SIGKILL);
	} else {
		say_skip("SKIP %s: (part) the ids a scope sets, and a pid namespace, need root\n",
		         __func__);
	}
	rm_rf(dir);
	free(dir);
}
END_TEST

/* The request refused by a filter: nothing runs, one line says what. */
START_TEST(test_die_with_parent_refused)
{
	char *argv[] = { "true", NULL }, *out = NULL;
	sbx_file_actions_t fa;
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	int p[2];
	pid_t pid;

	if (!filters_here(__func__))
		return;
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	sbx_scopeattr_setlogger(&s, NULL, NULL);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_DIE_WITH_PARENT), 0);
	seccomp_fail(SYS_prctl, EPERM);
	/* The control: the filter stops no plain spawn. */
	ck_assert_int_eq(sbx_posix_spawnp(&pid, "true", NULL, NULL, NULL, argv, environ), 0);
	ck_assert_int_eq(wait_status(pid), 0);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(sbx_file_actions_init(&fa), 0);
	ck_assert_int_eq(sbx_file_actions_adddup2(&fa, p[1], 2), 0);
	pid = -1;
	ck_assert_int_eq(sbx_posix_spawnp(&pid, "true", &fa, NULL, &s, argv, environ), SBX_EREFUSED);
	ck_assert_int_eq(pid, -1);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_REFUSED);
	close(p[1]);
	out = slurp_fd(p[0]);
	ck_assert_msg(strstr(out, "prctl(PR_SET_PDEATHSIG)") && strchr(out, '\n') == strrchr(out, '\n'),
	              "%s", out);
	close(p[0]);
	free(out);
	sbx_file_actions_destroy(&fa);
	sbx_scopeattr_destroy(&s);
}
END_TEST

static volatile sig_atomic_t chlds;

static void count_chld(int sig)
{
	(void)sig;
	chlds++;
}

/* The first spawn of a process, which does not know yet whether its child
 * shares its memory, makes that one child and no other the caller hears
 * of (its probe has no exit signal): one SIGCHLD, one child to reap, even where the process may not be read by another
 * (non-dumpable, as agents holding secrets make themselves) and a filter
 * refuses kcmp; and an exec that fails is the spawn's error. */
START_TEST(test_first_spawn_one_child)
{
	char *argv[] = { "true", NULL };
	struct sigaction sa = { .sa_handler = count_chld };
	pid_t pid;

	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGCHLD, &sa, NULL), 0);
	ck_assert_int_eq(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), 0);
	if (filters_here(__func__))
		seccomp_fail(SYS_kcmp, EPERM);
	ck_assert_int_eq(sbx_posix_spawnp(&pid, "true", NULL, NULL, NULL, argv, environ), 0);
	ck_assert_int_eq(wait_status(pid), 0);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
	ck_assert_int_eq(chlds, 1);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/nonexistent/x", NULL, NULL, NULL, argv, environ),
	                 ENOENT);
}
END_TEST

TCase *tcase_lifetime_parent(void)
{
	TCase *tc = tcase_create("parent");

	untimed(tc);
	tcase_add_test(tc, test_die_with_parent);
	tcase_add_test(tc, test_die_with_parent_refused);
	tcase_add_test(tc, test_first_spawn_one_child);
	return tc;
}
