/* SPDX-License-Identifier: MIT */
/* What a confined child can do to the process that started it, beyond
 * paths: its limits, priority, CPU affinity, scheduling and I/O priority,
 * its keyrings, its tunables in /proc.  Each act runs first with no scope,
 * where it must work on the caller, the test's process (the control: the
 * attack is real here, or the test says SKIP and why); then with a scope
 * that denies an unrelated directory, where the closed ones fail and the
 * caller is as it was; then with the flag that keeps them, where they work
 * again.  The rows of sbxspawn(7)'s inventory name these tests. */
#include "config.h"

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
static void refused_with_control(char *const argv[], bool (*changed)(void), void (*undo)(void))
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

/* ---- mounts ------------------------------------------------------------------ */

static bool read_only(const char *path)
{
	struct statvfs sv;

	ck_assert_int_eq(statvfs(path, &sv), 0);
	return sv.f_flag & ST_RDONLY;
}

/* A root child makes a mount the caller sees read-only with
 * mount_setattr(2), which Landlock does not mediate: refused for every
 * scoped child, no flag keeps it.  The mount is the test's own, a tmpfs in
 * a mount namespace of the test's (Check runs it in a process of its own). */
START_TEST(test_mounts_of_caller)
{
	REQUIRE_FILTERS();
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s", join(denied_top, "mnt"));
	if (getenv("CK_FORK") && !strcmp(getenv("CK_FORK"), "no")) {
		say_skip("SKIP %s: Check runs the tests in its own process (CK_FORK=no), whose "
		        "mounts this test must not change\n", __func__);
		return;
	}
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	/* As another user, root in a user namespace of the test's own: the
	 * programs it runs keep the capability over its mounts. */
	if (!root_mounts(__func__))
		return;
	if (mount("sbxtest", dir, "tmpfs", 0, "size=64k")) {
		say_skip("SKIP %s: no mount of the test's own can be made here (%s)\n", __func__,
		        strerror(errno));
		return;
	}
	ck_assert_str_eq(act(NULL, ARGV("mount-ro", dir)), "ok");
	ck_assert(read_only(dir));
	ck_assert_str_eq(act(NULL, ARGV("mount-rw", dir)), "ok");
	ck_assert(!read_only(dir));
	ck_assert_str_eq(act(&none_kept, ARGV("mount-ro", dir)), "EPERM");
	ck_assert(!read_only(dir));
	ck_assert_str_eq(act(&kept, ARGV("mount-ro", dir)), "EPERM");
	ck_assert(!read_only(dir));
	ck_assert_int_eq(umount(dir), 0);
}
END_TEST

/* ---- keyrings -------------------------------------------------------------- */

#define KEYCTL_JOIN_SESSION_KEYRING 1
#define KEY_SPEC_SESSION_KEYRING -3

/* A key of the caller's, in a session keyring of its own, read and
 * rewritten by its child: unconfined (the control), under a scope (EPERM),
 * with the keyrings shared; and, as root, under another user ID with them
 * shared, where possession still reads it (another user ID does not close
 * keyrings: only the default does). */
START_TEST(test_keyrings)
{
	REQUIRE_FILTERS();
	char id[32];
	long key;

	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 ||
	    (key = syscall(SYS_add_key, "user", "sbxtest", "caller-secret", 13,
	                   KEY_SPEC_SESSION_KEYRING)) < 0) {
		say_skip("SKIP test_keyrings: keyrings are refused here without the library "
		        "(%s: a container's seccomp profile, or no keys in this kernel)\n",
		        strerror(errno));
		return;
	}
	snprintf(id, sizeof(id), "%ld", key);
	ck_assert_str_eq(act(NULL, ARGV("key-read", id)), "ok");
	ck_assert_msg(strstr(last, "key: caller-secret"), "%s", last);
	ck_assert_str_eq(act(NULL, ARGV("key-update", id, "rewritten")), "ok");
	ck_assert_str_eq(act(&none_kept, ARGV("key-read", id)), "EPERM");
	ck_assert_msg(!strstr(last, "rewritten"), "%s", last);
	ck_assert_str_eq(act(&none_kept, ARGV("key-update", id, "by-the-child")), "EPERM");
	ck_assert_str_eq(act(&kept, ARGV("key-read", id)), "ok");
	ck_assert_msg(strstr(last, "key: rewritten"), "%s", last);
	if (geteuid() != 0) {
		say_skip("SKIP %s (under another user ID): becoming one needs root\n", __func__);
		return;
	}
	if (!nobody_can_run(NUDGE, __func__, "under another user ID"))
		return;
	sbx_scopeattr_t other;

	scope_make(&other, SBX_SCOPE_SHARE_KEYRINGS | SBX_SCOPE_DROP_CAPS);
	ck_assert_int_eq(sbx_scopeattr_setids(&other, 65534, 65534), 0);
	ck_assert_str_eq(act(&other, ARGV("key-read", id)), "ok");
	ck_assert_msg(strstr(last, "key: rewritten"), "%s", last);
	ck_assert_int_eq(sbx_scopeattr_setflags(&other, SBX_SCOPE_DROP_CAPS), 0);
	ck_assert_str_eq(act(&other, ARGV("key-read", id)), "EPERM");
	sbx_scopeattr_destroy(&other);
}
END_TEST

/* ---- /proc tunables: open, with the remedy shown ------------------------ */

static int read_int(const char *path)
{
	FILE *f = fopen(path, "re");
	int v = -1;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%d", &v), 1);
	fclose(f);
	return v;
}

/* Not mediated (sbxspawn(7)): a child of the same user raises the caller's
 * OOM score and reads its command line, confined or not; under another
 * user ID, the files are not its own. */
START_TEST(test_proc_tunables_open)
{
	int adj = read_int("/proc/self/oom_score_adj");
	char more[16];

	if (adj > 990) {
		say_skip("SKIP test_proc_tunables_open: oom_score_adj is %d already\n", adj);
		return;
	}
	snprintf(more, sizeof(more), "%d", adj + 1);
	ck_assert_str_eq(act(NULL, ARGV("write-proc", "oom_score_adj", more)), "ok");
	ck_assert_int_eq(read_int("/proc/self/oom_score_adj"), adj + 1);
	snprintf(more, sizeof(more), "%d", adj + 2);
	ck_assert_str_eq(act(&none_kept, ARGV("write-proc", "oom_score_adj", more)), "ok");
	ck_assert_int_eq(read_int("/proc/self/oom_score_adj"), adj + 2);
	ck_assert_str_eq(act(&none_kept, ARGV("read-proc", "cmdline")), "ok");
	ck_assert_msg(strstr(last, "check_sbxspawn"), "%s", last);
	if (geteuid() != 0) {
		say_skip("SKIP %s (the remedy, another user ID): becoming one needs root\n", __func__);
		return;
	}
	if (!nobody_can_run(NUDGE, __func__, "the remedy, another user ID"))
		return;
	sbx_scopeattr_t other;

	scope_make(&other, SBX_SCOPE_DROP_CAPS);
	ck_assert_int_eq(sbx_scopeattr_setids(&other, 65534, 65534), 0);
	snprintf(more, sizeof(more), "%d", adj + 3);
	ck_assert_str_eq(act(&other, ARGV("write-proc", "oom_score_adj", more)), "EACCES");
	ck_assert_int_eq(read_int("/proc/self/oom_score_adj"), adj + 2);
	sbx_scopeattr_destroy(&other);
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
	tcase_add_test(tc, test_mounts_of_caller);
	tcase_add_test(tc, test_keyrings);
	tcase_add_test(tc, test_proc_tunables_open);
	suite_add_tcase(s, tc);
	return s;
}
