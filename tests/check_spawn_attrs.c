/* SPDX-License-Identifier: MIT */
/* The spawn engine against the C library, continued (check_spawn.c): every
 * attribute of posix_spawnattr_t (signal masks and defaults, process
 * groups, sessions, scheduling, effective ids) through posix_spawn and
 * sbx_posix_spawn the ways of tests/ways.h, the same return and the same
 * child. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/ways.h"

/* ---- attributes -------------------------------------------------------- */

START_TEST(test_sigmask)
{
	struct ways d;
	sigset_t set;
	char *out;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	ways_init(&d);
	w_flags(&d, POSIX_SPAWN_SETSIGMASK);
	posix_spawnattr_setsigmask(&d.attr, &set);
	out = ways_probe(&d);
	assert_has(out, "SigBlk:\t0000000000004200");
	free(out);
	ways_destroy(&d);

	/* Without the flag the child inherits the caller's mask. */
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	ways_init(&d);
	out = ways_probe(&d);
	assert_has(out, "SigBlk:\t0000000000000001");
	free(out);
	ways_destroy(&d);
}
END_TEST

static void handler(int sig)
{
	(void)sig;
}

/* The ignored signals the probe printed: those of 1 to 31 as want says;
 * glibc leaves its own two (32, 33) ignored, musl those it caught. */
static void assert_ignored(const char *out, unsigned long long want, const char *test)
{
	const char *line = strstr(out, "SigIgn:\t");
	unsigned long long ign;

	if (emulated()) {
		say_skip("SKIP %s (what is ignored): the probe runs under the emulator "
		        "(qemu-user), whose own signal dispositions the kernel shows\n", test);
		return;
	}
	ck_assert_ptr_nonnull(line);
	ign = strtoull(line + 8, NULL, 16);
	ck_assert_msg((ign & 0x7fffffffULL) == want, "SigIgn %llx, want %llx below 32", ign, want);
#ifdef __GLIBC__
	ck_assert_msg((ign >> 31) == 3, "SigIgn %llx: glibc's own signals not ignored", ign);
#endif
}

START_TEST(test_sigdefault)
{
	struct ways d;
	sigset_t set;
	char *out;

	/* What the environment ignored (nohup: SIGHUP; a background job of
	 * a shell without job control: SIGINT, SIGQUIT) is not this test's. */
	for (int sig = 1; sig < 32; sig++) {
		struct sigaction sa;

		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			signal(sig, SIG_DFL);
	}
	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
	signal(SIGTERM, handler);
	ways_init(&d);
	out = ways_probe(&d);
	/* Ignored signals stay ignored; caught ones are reset. */
	assert_ignored(out, 0xa00, __func__);
	free(out);
	ways_destroy(&d);

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	ways_init(&d);
	w_flags(&d, POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigdefault(&d.attr, &set);
	out = ways_probe(&d);
	assert_ignored(out, 0x800, __func__);
	free(out);
	ways_destroy(&d);
}
END_TEST

START_TEST(test_pgroup_and_sid)
{
	struct ways d;
	char *out, want[64];

	ways_init(&d);
	w_flags(&d, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&d.attr, 0);
	out = ways_probe(&d);
	assert_has(out, "pgid=self");
	free(out);
	ways_destroy(&d);

	/* Joining an existing group: this process's own (a new one first, so
	 * that the number is ours to join). */
	ck_assert_int_eq(setpgid(0, 0), 0);
	ways_init(&d);
	w_flags(&d, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&d.attr, getpgrp());
	out = ways_probe(&d);
	snprintf(want, sizeof(want), "pgid=%ld", (long)getpgrp());
	assert_has(out, want);
	free(out);
	ways_destroy(&d);

	ways_init(&d);
	w_flags(&d, POSIX_SPAWN_SETSID);
	out = ways_probe(&d);
	assert_has(out, "sid=self");
	assert_has(out, "pgid=self");
	free(out);
	ways_destroy(&d);

	/* A group that does not exist: EPERM from setpgid, in both. */
	char *argv[] = { "probe", NULL };
	ways_init(&d);
	w_flags(&d, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&d.attr, 999999);
	free(ways_run(&d, 0, PROBE, argv, EPERM));
	ways_destroy(&d);
}
END_TEST

START_TEST(test_scheduling)
{
	struct ways d;
	struct sched_param sp = { .sched_priority = 0 };
	char *argv[] = { "probe", NULL };
	char *out;

	posix_spawnattr_t probe;
	int unsupported;

	/* musl keeps no scheduling in its attributes, and its
	 * sched_setscheduler says ENOSYS: nothing to compare against. */
	posix_spawnattr_init(&probe);
	unsupported = posix_spawnattr_setschedpolicy(&probe, SCHED_OTHER) == ENOSYS;
	posix_spawnattr_destroy(&probe);
	if (unsupported) {
		say_skip("SKIP %s: the C library has no scheduling in posix_spawnattr_t "
		        "(ENOSYS)\n", __func__);
		return;
	}
	/* The caller runs SCHED_BATCH, which a child inherits ... */
	ck_assert_int_eq(sched_setscheduler(0, SCHED_BATCH, &sp), 0);
	ways_init(&d);
	out = ways_probe(&d);
	assert_has(out, "policy=3\n");
	free(out);
	ways_destroy(&d);

	/* ... unless SETSCHEDULER names another policy (glibc takes only
	 * OTHER, FIFO and RR there). */
	ways_init(&d);
	w_flags(&d, POSIX_SPAWN_SETSCHEDULER);
	ck_assert_int_eq(posix_spawnattr_setschedpolicy(&d.attr, SCHED_BATCH), EINVAL);
	ck_assert_int_eq(posix_spawnattr_setschedpolicy(&d.attr, SCHED_OTHER), 0);
	posix_spawnattr_setschedparam(&d.attr, &sp);
	out = ways_probe(&d);
	assert_has(out, "policy=0\n");
	free(out);
	ways_destroy(&d);

	/* SETSCHEDPARAM alone keeps the policy. */
	ways_init(&d);
	w_flags(&d, POSIX_SPAWN_SETSCHEDPARAM);
	posix_spawnattr_setschedparam(&d.attr, &sp);
	out = ways_probe(&d);
	assert_has(out, "policy=3\n");
	free(out);
	ways_destroy(&d);

	/* A priority SCHED_OTHER does not take: EINVAL from both. */
	sp.sched_priority = 5;
	ways_init(&d);
	w_flags(&d, POSIX_SPAWN_SETSCHEDPARAM);
	posix_spawnattr_setschedparam(&d.attr, &sp);
	free(ways_run(&d, 0, PROBE, argv, EINVAL));
	ways_destroy(&d);

	if (geteuid() == 0) {
		sp.sched_priority = 1;
		ways_init(&d);
		w_flags(&d, POSIX_SPAWN_SETSCHEDULER | POSIX_SPAWN_SETSCHEDPARAM);
		posix_spawnattr_setschedpolicy(&d.attr, SCHED_FIFO);
		posix_spawnattr_setschedparam(&d.attr, &sp);
		out = ways_probe(&d);
		assert_has(out, "policy=1\npriority=1\n");
		free(out);
		ways_destroy(&d);
	} else {
		say_skip("SKIP %s: SCHED_FIFO needs root\n", __func__);
	}
}
END_TEST

START_TEST(test_resetids)
{
	struct ways d;
	const char *probe;
	char *out;

	if (geteuid() != 0) {
		say_skip("SKIP %s: needs root to change the effective id\n", __func__);
		return;
	}
#if defined(__SANITIZE_ADDRESS__)
	/* The probe, built with the sanitizer too, cannot start with effective
	 * ids that differ from the real ones (a secure-exec process). */
	say_skip("SKIP %s: sanitizer build\n", __func__);
	return;
#endif
	/* Effective ids differ from the real ones, the real ones stay root;
	 * the probe where uid 65534 may run it. */
	probe = probe_for_anyone();
	/* Made as root, in the run's directory: uid 65534 may not write there,
	 * and would make it in /tmp, whose churn makes the compiled scope
	 * compile again. */
	ways_denied();
	ck_assert_int_eq(setresgid(-1, 65534, -1), 0);
	ck_assert_int_eq(setresuid(-1, 65534, -1), 0);
	ways_init(&d);
	d.probe = probe;
	out = ways_probe(&d);
	assert_has(out, "euid=65534 egid=65534 uid=0");
	free(out);
	ways_destroy(&d);

	ways_init(&d);
	d.probe = probe;
	w_flags(&d, POSIX_SPAWN_RESETIDS);
	out = ways_probe(&d);
	assert_has(out, "euid=0 egid=");
	free(out);
	ways_destroy(&d);
}
END_TEST

START_TEST(test_usevfork_and_unknown_flag)
{
	struct ways d;
	posix_spawnattr_t attr;
	char *argv[] = { "true", NULL };
	pid_t pid;

	ways_init(&d);
	w_flags(&d, POSIX_SPAWN_USEVFORK);
	free(ways_probe(&d));
	ways_destroy(&d);

	/* glibc refuses an unknown flag when it is set; one that reaches the
	 * spawn anyway (set by a newer C library) is EINVAL, and nothing runs.
	 * The portable build hands the attributes to the system as they are. */
	if (!SBX_BUILD_LANDLOCK) {
		say_skip("SKIP %s (an unknown flag): the portable build's posix_spawn "
		        "judges the attributes\n", __func__);
		return;
	}
	posix_spawnattr_init(&attr);
	ck_assert_int_eq(posix_spawnattr_setflags(&attr, 0x4000), EINVAL);
	memcpy(&attr, &(short){ 0x4000 }, sizeof(short));
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, &attr, NULL, argv, environ), EINVAL);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	posix_spawnattr_destroy(&attr);
}
END_TEST

void spawn_attr_tests(TCase *tc)
{
	tcase_add_test(tc, test_sigmask);
	tcase_add_test(tc, test_sigdefault);
	tcase_add_test(tc, test_pgroup_and_sid);
	tcase_add_test(tc, test_scheduling);
	tcase_add_test(tc, test_resetids);
	tcase_add_test(tc, test_usevfork_and_unknown_flag);
}
