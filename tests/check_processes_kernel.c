/* SPDX-License-Identifier: MIT */
/* What a confined child can do to the process that started it through the
 * kernel's shared state (check_processes.c has its limits, priority and
 * children): the caller's mounts, its keyrings, the tunables in /proc.
 * Each act runs first with no scope, where it must work on the caller (the
 * control); then with a scope that denies an unrelated directory; then
 * with the flag that keeps it.  The rows of sbxspawn(7)'s inventory name
 * these tests. */
#include "config.h"

#include "tests/processes.h"

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

Suite *suite_processes_kernel(void)
{
	Suite *s = suite_create("processes-kernel");
	TCase *tc = tcase_create("caller");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_mounts_of_caller);
	tcase_add_test(tc, test_keyrings);
	tcase_add_test(tc, test_proc_tunables_open);
	suite_add_tcase(s, tc);
	return s;
}
