/* SPDX-License-Identifier: MIT */
/* The three outcomes, each provoked on the real kernel: a dropped grant
 * (check_dropped.c), no Landlock, and a refused ruleset.  The denials that
 * are refused and the aliases that are warned about: check_aliases.c. */
#include "config.h"

#include <dlfcn.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/recorder.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* ---- 2. no Landlock ------------------------------------------------------ */

#define no_landlock(err) no_landlock_(err, __func__)
static void no_landlock_(int err, const char *test)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	char *out;
	char *argv[] = { FSOP, "read", NULL, NULL };
	pid_t pid;

	tree_make(&t);
	argv[2] = (char *)t.secret;
	/* Before the first spawn, so the once-per-process probe sees it. */
	seccomp_fail_(SYS_landlock_create_ruleset, err, test);
	scope_make(&s, &seen, t.other);
	/* Unconfined, and said once per process. */
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
		ck_assert_ptr_nonnull(strstr(out, "the-secret"));
		free(out);
		ck_assert_int_eq(sbx_outcome_get(&oc), 0);
		ck_assert_int_eq(oc.confinement, SBX_OUTCOME_UNCONFINED);
		ck_assert_int_eq(oc.kernel_abi, 0);
		ck_assert_int_eq(oc.abi, 0);
	}
	ck_assert_int_eq(seen.count[SBX_EVENT_UNCONFINED], 1);
	ck_assert_int_eq(seen.error[SBX_EVENT_UNCONFINED], err);

	/* Failing closed: ENOTSUP, and no child. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_REQUIRE), 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, FSOP, NULL, NULL, &s, argv, environ), ENOTSUP);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), ENOTSUP);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}

START_TEST(test_no_landlock_enosys)
{
	no_landlock(ENOSYS);
}
END_TEST

START_TEST(test_no_landlock_eopnotsupp)
{
	no_landlock(EOPNOTSUPP);
}
END_TEST

/* ---- 3. Landlock refuses the ruleset ------------------------------------- */

/* Spawns `fsop read secret' with stderr captured; asserts a refusal. */
static void assert_refused(sbx_scopeattr_t *s, struct seen *seen, const struct tree *t,
                           const char *reason)
{
	char *argv[] = { FSOP, "read", (char *)t->secret, NULL };
	char *out;
	sbx_outcome_t oc;

	ck_assert_int_eq(run_scoped(s, argv, &out), -1000 - SBX_EREFUSED);
	/* One line, on the child's (redirected) stderr, naming the program
	 * and the reason; the program never ran. */
	ck_assert_msg(strstr(out, "sbxspawn: " FSOP ": not run: Landlock refused the ruleset") != NULL,
	              "refusal line missing: %s", out);
	ck_assert_msg(strstr(out, reason) != NULL, "reason \"%s\" missing: %s", reason, out);
	ck_assert_ptr_null(strstr(out, "the-secret"));
	ck_assert_int_eq((int)(strchr(out, '\n') - out), (int)strlen(out) - 1);
	free(out);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_REFUSED);
	ck_assert_int_eq(oc.stage, SBX_STAGE_CONFINE);
	ck_assert_int_eq(seen->count[SBX_EVENT_REFUSED], 1);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1); /* reaped */
}

START_TEST(test_refused_restrict_self_eperm)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	scope_make(&s, &seen, t.other);
	seccomp_fail(SYS_landlock_restrict_self, EPERM);
	assert_refused(&s, &seen, &t, "landlock_restrict_self: not permitted");
	ck_assert_int_eq(seen.error[SBX_EVENT_REFUSED], EPERM);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_refused_sixteen_domains)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	uint64_t handled = 1; /* EXECUTE: enough to make a domain */

	REQUIRE_LANDLOCK();
	tree_make(&t);
	scope_make(&s, &seen, t.other);
	ck_assert_int_eq(prctl_no_new_privs(), 0);
	for (int i = 0; i < 16; i++) {
		int fd = (int)syscall(SYS_landlock_create_ruleset, &handled, sizeof(handled), 0);
		int root = open("/", O_PATH | O_CLOEXEC);
		struct {
			uint64_t access;
			int32_t fd;
		} __attribute__((packed)) pb = { 1, root };

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(syscall(SYS_landlock_add_rule, fd, 1, &pb, 0), 0);
		ck_assert_int_eq(syscall(SYS_landlock_restrict_self, fd, 0), 0);
		close(fd);
		close(root);
	}
	assert_refused(&s, &seen, &t, "16 Landlock domains are already stacked");
	ck_assert_int_eq(seen.error[SBX_EVENT_REFUSED], E2BIG);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_refused_probe)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	scope_make(&s, &seen, t.other);
	/* The very first question to Landlock answered with EPERM: present and
	 * refusing, not absent.  Nothing runs unconfined. */
	seccomp_fail(SYS_landlock_create_ruleset, EPERM);
	assert_refused(&s, &seen, &t, "landlock_create_ruleset(VERSION): not permitted");
	ck_assert_int_eq(seen.count[SBX_EVENT_UNCONFINED], 0);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_refused_create_ruleset)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	char *argv[] = { "true", NULL };
	char *out;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	scope_make(&s, &seen, t.other);
	/* The probe is done (and cached) by a first spawn with another scope;
	 * then creating a ruleset fails, which is a refusal, not an absence. */
	{
		sbx_scopeattr_t first;

		sbx_scopeattr_init(&first);
		sbx_scopeattr_adddeny(&first, t.third);
		ck_assert_int_eq(run_scoped(&first, argv, &out), 0);
		free(out);
		sbx_scopeattr_destroy(&first);
	}
	seccomp_fail(SYS_landlock_create_ruleset, EPERM);
	assert_refused(&s, &seen, &t, "landlock_create_ruleset: not permitted");
	ck_assert_int_eq(seen.count[SBX_EVENT_UNCONFINED], 0);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

Suite *suite_outcomes(void)
{
	Suite *s = suite_create("outcomes");
	TCase *tc = tcase_create("provoked");

	untimed(tc);
	dropped_tests(tc);
	tcase_add_test(tc, test_no_landlock_enosys);
	tcase_add_test(tc, test_no_landlock_eopnotsupp);
	tcase_add_test(tc, test_refused_restrict_self_eperm);
	tcase_add_test(tc, test_refused_sixteen_domains);
	tcase_add_test(tc, test_refused_create_ruleset);
	tcase_add_test(tc, test_refused_probe);
	aliases_tests(tc);
	suite_add_tcase(s, tc);
	return s;
}
