/* SPDX-License-Identifier: MIT */
/* What a confined child can do to the process that started it, beyond
 * paths: its limits, priority, CPU affinity, scheduling and I/O priority,
 * perf events, processes made its children (check_processes_kernel.c: its
 * mounts, keyrings, tunables in /proc).  Each act runs first with no scope,
 * where it must work on the caller, the test's process (the control: the
 * attack is real here, or the test says SKIP and why); then with a scope
 * that denies an unrelated directory, where the closed ones fail and the
 * caller is as it was; then with the flag that keeps them, where they work
 * again.  The rows of sbxspawn(7)'s inventory name these tests. */
#include "config.h"

#include "tests/processes.h"

/* ---- limits --------------------------------------------------------------- */

static struct rlimit fsize0, core0;

static bool fsize_changed(void)
{
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &rl), 0);
	return rl.rlim_cur != fsize0.rlim_cur;
}

static void fsize_undo(void)
{
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &fsize0), 0);
}

static bool core_changed(void)
{
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_CORE, &rl), 0);
	return rl.rlim_cur != core0.rlim_cur;
}

static void core_undo(void)
{
	ck_assert_int_eq(setrlimit(RLIMIT_CORE, &core0), 0);
}

/* RLIMIT_FSIZE of 1 MiB on the caller (0 would kill it at its next write,
 * SIGXFSZ); its RLIMIT_CORE raised from 0 (then a crash the child provokes
 * dumps the caller's memory where the child may read it).  Its own limits
 * the child sets as before. */
START_TEST(test_limits_of_caller)
{
	REQUIRE_FILTERS();
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &fsize0), 0);
	if (fsize0.rlim_max < 1048576 * 2) {
		say_skip("SKIP test_limits_of_caller: RLIMIT_FSIZE's hard limit is below 2 MiB "
		        "here\n");
		return;
	}
	fsize0.rlim_cur = RLIM_INFINITY == fsize0.rlim_max ? RLIM_INFINITY : fsize0.rlim_max;
	fsize_undo();
	refused_with_control(ARGV("prlimit", "parent", "fsize", "1048576"), fsize_changed, fsize_undo);
	ck_assert_str_eq(act(&none_kept, ARGV("prlimit", "self", "fsize", "1048576")), "ok");

	ck_assert_int_eq(getrlimit(RLIMIT_CORE, &core0), 0);
	if (core0.rlim_max == 0) {
		say_skip("SKIP test_limits_of_caller (RLIMIT_CORE): its hard limit is 0 here, "
		        "nothing can raise it\n");
		return;
	}
	core0.rlim_cur = 0;
	core_undo();
	refused_with_control(ARGV("prlimit", "parent", "core", "4096"), core_changed, core_undo);
}
END_TEST

/* ---- priority, affinity, scheduling, I/O priority ------------------------- */

static int nice0;

static bool nice_changed(void)
{
	errno = 0;
	return getpriority(PRIO_PROCESS, 0) != nice0;
}

/* A regular user cannot lower its nice value again: the next act starts
 * from the new one. */
static void nice_undo(void)
{
	if (setpriority(PRIO_PROCESS, 0, nice0))
		nice0 = getpriority(PRIO_PROCESS, 0);
}

START_TEST(test_priority_of_caller)
{
	REQUIRE_FILTERS();
	errno = 0;
	nice0 = getpriority(PRIO_PROCESS, 0);
	if (nice0 >= 17) {
		say_skip("SKIP test_priority_of_caller: this process's nice value is %d "
		        "already, too close to 19 to be raised three times\n", nice0);
		return;
	}
	refused_with_control(ARGV("nice", "process", "parent", "1"), nice_changed, nice_undo);
	/* The child's own group is the caller's (Check made it a group of its
	 * own; the child stays in it). */
	refused_with_control(ARGV("nice", "group", "-", "1"), nice_changed, nice_undo);
	/* No control for a user: it would renice every process of this user
	 * (as root, the machine's). */
	ck_assert_str_eq(act(&none_kept, ARGV("nice", "user", "-", "1")), "EPERM");
	ck_assert(!nice_changed());
	ck_assert_str_eq(act(&none_kept, ARGV("nice", "process", "self", "1")), "ok");
	ck_assert(!nice_changed());
}
END_TEST

static cpu_set_t cpus0;

static bool cpus_changed(void)
{
	cpu_set_t now;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(now), &now), 0);
	return !CPU_EQUAL(&now, &cpus0);
}

static void cpus_undo(void)
{
	ck_assert_int_eq(sched_setaffinity(0, sizeof(cpus0), &cpus0), 0);
}

START_TEST(test_affinity_of_caller)
{
	REQUIRE_FILTERS();
	ck_assert_int_eq(sched_getaffinity(0, sizeof(cpus0), &cpus0), 0);
	if (CPU_COUNT(&cpus0) < 2) {
		say_skip("SKIP test_affinity_of_caller: this process may run on one CPU only; "
		        "no pinning could show\n");
		return;
	}
	refused_with_control(ARGV("affinity", "parent"), cpus_changed, cpus_undo);
	ck_assert_str_eq(act(&none_kept, ARGV("affinity", "self")), "ok");
	ck_assert(!cpus_changed());
}
END_TEST

static bool policy_changed(void)
{
	return syscall(SYS_sched_getscheduler, 0) != SCHED_OTHER;
}

static void policy_undo(void)
{
	struct sched_param sp = { 0 };

	ck_assert_int_eq(syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, &sp), 0);
}

START_TEST(test_scheduling_of_caller)
{
	REQUIRE_FILTERS();
	/* Raw calls: musl's sched_getscheduler and sched_setscheduler say
	 * ENOSYS, where the kernel's do the work. */
	if (syscall(SYS_sched_getscheduler, 0) != SCHED_OTHER) {
		say_skip("SKIP test_scheduling_of_caller: this process does not run "
		        "SCHED_OTHER (%ld)\n", syscall(SYS_sched_getscheduler, 0));
		return;
	}
	refused_with_control(ARGV("batch", "parent"), policy_changed, policy_undo);
	refused_with_control(ARGV("attr", "parent"), policy_changed, policy_undo);
	ck_assert_str_eq(act(&none_kept, ARGV("batch", "self")), "ok");
	ck_assert(!policy_changed());
}
END_TEST

static long ioprio0;

static bool io_changed(void)
{
	return syscall(SYS_ioprio_get, 1, 0) != ioprio0;
}

static void io_undo(void)
{
	/* None set: best effort at the nice value's level, as it was. */
	ck_assert_int_eq(syscall(SYS_ioprio_set, 1, 0, ioprio0 ? ioprio0 : (2 << 13) | 4), 0);
	ioprio0 = syscall(SYS_ioprio_get, 1, 0);
}

START_TEST(test_io_priority_of_caller)
{
	REQUIRE_FILTERS();
	ioprio0 = syscall(SYS_ioprio_get, 1, 0);
	ck_assert_int_ge(ioprio0, 0);
	io_undo();
	refused_with_control(ARGV("idle-io", "parent"), io_changed, io_undo);
	ck_assert_str_eq(act(&none_kept, ARGV("idle-io", "self")), "ok");
	ck_assert(!io_changed());
}
END_TEST

static int perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = -99;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -99;
		fclose(f);
	}
	return v;
}

/* ---- perf events, and processes made the caller's children --------------- */

/* A perf event on the caller: as root, a sampling one reads its stack, or
 * sends it SIGTRAP at each overflow; a counter shows the way in.  The
 * child's own counters stay.  Kept by the flag, it is a root child's
 * (CAP_PERFMON passes before any security module is asked); a regular
 * user's child is refused by the Landlock domain's own rule on processes
 * outside it (EACCES). */
START_TEST(test_perf_event_of_caller)
{
	REQUIRE_FILTERS();
	const char *control = act(NULL, ARGV("perf", "parent"));

	if (strcmp(control, "ok")) {
		say_skip("SKIP %s: perf_event_open on another process is refused here without "
		        "the library (%s; kernel.perf_event_paranoid %d)\n", __func__, control,
		        perf_paranoid());
		return;
	}
	ck_assert_str_eq(act(&none_kept, ARGV("perf", "parent")), "EPERM");
	ck_assert_str_eq(act(&kept, ARGV("perf", "parent")), geteuid() == 0 ? "ok" : "EACCES");
	ck_assert_str_eq(act(&none_kept, ARGV("perf", "self")), "ok");
}
END_TEST

/* The sibling a CLONE_PARENT child makes is the caller's child: the caller
 * gets its SIGCHLD (under SBX_SCOPE_NO_SIGNAL too) and reaps a pid it never
 * started; a loop of them fills its table of children. */
static pid_t sibling(void)
{
	const char *at = strstr(last, "sibling: ");

	return at ? (pid_t)atol(at + 9) : 0;
}

static void reap_sibling(void)
{
	pid_t pid = sibling();
	int status;

	ck_assert_msg(pid > 0, "no sibling said: %s", last);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

START_TEST(test_clone_parent)
{
	REQUIRE_FILTERS();
	ck_assert_str_eq(act(NULL, ARGV("clone-parent")), "ok");
	reap_sibling();
	ck_assert_str_eq(act(&none_kept, ARGV("clone-parent")), "EPERM");
	ck_assert_int_eq(sibling(), 0);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
	ck_assert_str_eq(act(&kept, ARGV("clone-parent")), "ok");
	reap_sibling();
}
END_TEST

/* clone3(2)'s flags lie in memory, out of a filter's reach: it says ENOSYS,
 * and the C library's own spawns fall back to clone(2) and work. */
START_TEST(test_clone3_falls_back)
{
	REQUIRE_FILTERS();
	ck_assert_str_eq(act(NULL, ARGV("clone3")), "ok");
	if (!strstr(last, "clone3: ok")) {
		say_skip("SKIP %s: clone3 fails here without the library (%s)\n", __func__, last);
		return;
	}
	ck_assert_str_eq(act(&none_kept, ARGV("clone3")), "ok");
	ck_assert_msg(strstr(last, "clone3: ENOSYS"), "%s", last);
	ck_assert_str_eq(act(&kept, ARGV("clone3")), "ok");
	ck_assert_msg(strstr(last, "clone3: ok"), "%s", last);
}
END_TEST

Suite *suite_processes(void)
{
	Suite *s = suite_create("processes");
	TCase *tc = tcase_create("caller");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_limits_of_caller);
	tcase_add_test(tc, test_priority_of_caller);
	tcase_add_test(tc, test_affinity_of_caller);
	tcase_add_test(tc, test_scheduling_of_caller);
	tcase_add_test(tc, test_io_priority_of_caller);
	tcase_add_test(tc, test_perf_event_of_caller);
	tcase_add_test(tc, test_clone_parent);
	tcase_add_test(tc, test_clone3_falls_back);
	suite_add_tcase(s, tc);
	return s;
}
