/* SPDX-License-Identifier: MIT */
/* sbx_system beside the C library's system(3), four ways each time
 * (tests/system.h): they must agree on the status and errno: exit codes,
 * death by signal, a missing or unexecutable shell, a NULL command
 * (check_system_calls.c: the caller's signals while the command runs,
 * calls at once from two threads, a cancelled call).  A refused scope is
 * the one place where they part: -1, SBX_EREFUSED. */
#include "config.h"

#include "tests/system.h"

START_TEST(test_exit_codes)
{
	static const int codes[] = { 0, 1, 2, 3, 42, 125, 126, 127, 128, 255 };
	char command[64];

	REFERENCE();
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		struct result r;

		snprintf(command, sizeof(command), "exit %d", codes[i]);
		r = agree(command);
		ck_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == codes[i]);
		ck_assert_int_eq(r.err, 0);
	}
	/* Exit 127 of a command not found is the shell's own, as ever. */
	ck_assert_int_eq(WEXITSTATUS(agree("no-such-command-anywhere 2>/dev/null").status), 127);
}
END_TEST

/* Signals that end a process without a core, so that no core helper runs. */
START_TEST(test_death_by_signal)
{
	static const int sigs[] = { SIGTERM, SIGKILL, SIGHUP, SIGUSR1, SIGPIPE, SIGALRM };
	char command[64];

	REFERENCE();
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct result r;

		snprintf(command, sizeof(command), "kill -%d $$", sigs[i]);
		r = agree(command);
		ck_assert(WIFSIGNALED(r.status) && WTERMSIG(r.status) == sigs[i]);
	}
}
END_TEST

START_TEST(test_null_command)
{
	struct result r;

	REFERENCE();
	r = agree(NULL);

	ck_assert_int_eq(r.status, 1);
	ck_assert_int_eq(r.err, 0);
}
END_TEST

/* /bin/sh gone (an empty directory mounted where it lies), then there but
 * not executable (a device bound over it): the status of a shell that
 * exited 127, errno saying why; a NULL command says 0. */
START_TEST(test_missing_shell)
{
	char sh[PATH_MAX], dir[PATH_MAX];
	struct result r;

	REFERENCE();
	if (emulated() && ref == LIBC) {
		ref = SBX_NULL;
		say_skip("SKIP %s (system(3)): under an emulator the C library's posix_spawn "
		        "cannot tell a failed exec (0, and a child that exits 127): the sbx_system "
		        "ways are held to each other\n", __func__);
	}
	if (private_mounts(__func__) == MOUNT_NS_NONE)
		return;
	ck_assert_ptr_nonnull(realpath("/bin/sh", sh));
	snprintf(dir, sizeof(dir), "%s", sh);
	*strrchr(dir, '/') = '\0';
	ck_assert_int_eq(mount("none", dir, "tmpfs", 0, "size=4k"), 0);
	r = agree("exit 0");
	ck_assert_int_eq(r.status, 127 << 8);
	ck_assert_int_eq(r.err, ENOENT);
	r = agree(NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_int_eq(r.err, ENOENT);
	ck_assert_int_eq(umount2(dir, MNT_DETACH), 0);

	ck_assert_int_eq(mount("/dev/null", sh, NULL, MS_BIND, NULL), 0);
	r = agree("exit 0");
	ck_assert_int_eq(r.status, 127 << 8);
	ck_assert_int_eq(r.err, EACCES);
	r = agree(NULL);
	ck_assert_int_eq(r.status, 0);
}
END_TEST

/* A scope that denies the shell itself (the case sbx_system(3)'s example
 * reports): the status of a shell that exited 127, errno saying why, the
 * denial expanded (EACCES) or hidden (ENOENT: not there). */
START_TEST(test_shell_denied)
{
	static const int ways[] = { SBX_SCOPE_EXPAND, 0 };
	char sh[PATH_MAX], dir[PATH_MAX];

	REQUIRE_LANDLOCK();
	ck_assert_ptr_nonnull(realpath("/bin/sh", sh));
	snprintf(dir, sizeof(dir), "%s", sh);
	*strrchr(dir, '/') = '\0';
	for (size_t w = 0; w < 2; w++) {
		sbx_scopeattr_t s;
		int status;

		ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
		sbx_scopeattr_setlogger(&s, quiet, NULL);
		ck_assert_int_eq(sbx_scopeattr_setflags(&s, ways[w]), 0);
		ck_assert_int_eq(sbx_scopeattr_adddeny(&s, dir), 0);
		errno = 0;
		status = sbx_system("exit 0", &s);
		ck_assert_int_eq(status, 127 << 8);
		ck_assert_msg(errno == EACCES || errno == ENOENT, "errno %d", errno);
		sbx_scopeattr_destroy(&s);
	}
}
END_TEST

/* ---- where the scope keeps the shell from running ----------------------- */

/* -1 and errno, never a status: a command can exit 125 (a refused child's
 * status) or 127 (the shell not run). */
static void assert_stopped(const char *command, const sbx_scopeattr_t *scope, int err)
{
	int status;

	errno = 0;
	status = sbx_system(command, scope);
	ck_assert_msg(status == (command ? -1 : 0) && errno == err,
	              "%s: status %#x, errno %d (%s); wanted %d, errno %d", command ? command : "NULL",
	              (unsigned)status, errno, sbx_strerror(errno), command ? -1 : 0, err);
	ck_assert(disposition(SIGINT) == on_int);
}

START_TEST(test_refused)
{
#if SBX_BUILD_LANDLOCK
	sbx_outcome_t o;

	REQUIRE_LANDLOCK();
	handle(SIGINT, on_int);
	seccomp_fail(SYS_landlock_restrict_self, EPERM);
	assert_stopped("exit 0", &fresh, SBX_EREFUSED);
	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	ck_assert_int_eq(o.confinement, SBX_OUTCOME_REFUSED);
	assert_stopped("exit 0", &compiled, SBX_EREFUSED);
	assert_stopped(NULL, &fresh, SBX_EREFUSED);
#else
	sbx_scopeattr_t other_uid;

	/* The portable build refuses what only a confining build does. */
	handle(SIGINT, on_int);
	scope_make(&other_uid);
	ck_assert_int_eq(sbx_scopeattr_setids(&other_uid, 65534, 65534), 0);
	assert_stopped("exit 0", &other_uid, SBX_EREFUSED);
	assert_stopped(NULL, &other_uid, SBX_EREFUSED);
	sbx_scopeattr_destroy(&other_uid);
	/* And a kernel without Landlock under SBX_SCOPE_REQUIRE. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&fresh, SBX_SCOPE_REQUIRE), 0);
	assert_stopped("exit 0", &fresh, ENOTSUP);
#endif
	/* The statuses they are told from. */
	ck_assert_int_eq(sbx_system("exit 125", NULL), 125 << 8);
	ck_assert_int_eq(sbx_system("exit 127", NULL), 127 << 8);
}
END_TEST

/* A scope that is not one (destroyed) stops it too. */
START_TEST(test_scope_invalid)
{
	sbx_scopeattr_t gone;

	handle(SIGINT, on_int);
	scope_make(&gone);
	sbx_scopeattr_destroy(&gone);
	assert_stopped("exit 0", &gone, EINVAL);
}
END_TEST

/* And the scope holds: what it denies, the command cannot read. */
START_TEST(test_confined)
{
	char command[8192];

	REQUIRE_LANDLOCK();
	write_file(join(unrelated, "secret"), "the-secret\n", 0644);
	snprintf(command, sizeof(command), "cat %s > /dev/null 2>&1", join(unrelated, "secret"));
	ck_assert_int_eq(system(command), 0);
	ck_assert_int_eq(sbx_system(command, NULL), 0);
	ck_assert_int_eq(sbx_system(command, &fresh), 1 << 8);
	ck_assert_int_eq(sbx_system(command, &compiled), 1 << 8);
}
END_TEST

Suite *suite_system(void)
{
	Suite *s = suite_create("system");
	TCase *tc = tcase_create("three ways");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_exit_codes);
	tcase_add_test(tc, test_death_by_signal);
	tcase_add_test(tc, test_null_command);
	tcase_add_test(tc, test_missing_shell);
	tcase_add_test(tc, test_shell_denied);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_scope_invalid);
	tcase_add_test(tc, test_confined);
	suite_add_tcase(s, tc);
	return s;
}
