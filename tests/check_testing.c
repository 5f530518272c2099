/* SPDX-License-Identifier: MIT */
/* libsbxspawn-testing, every call on the real kernel: each provocation
 * gives the outcome its page promises, the guards refuse where they say,
 * and the readers and assertions read what a spawn left
 * (check_testing_report.c).  Its own runner:
 * the provocations change the process for good, so every test runs in a
 * process of its own (Check's fork mode), and the runner itself never
 * spawns with a scope (that would cache the library's ABI probe in every
 * test it forks). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "sbxspawn/testing.h"
#include "tests/emulated.h"
#include "tests/testing_fixtures.h"

extern char **environ;

/* ---- the guard: only in a copy forked for one test ----------------------- */

START_TEST(test_guard_not_forked)
{
	char *argv[] = { GUARD, "direct", NULL };
	char *out;
	int status;

	/* The helper is started, not forked: its parent runs this program. */
	ck_assert_int_eq(sbx_testing_run(argv, &status, &out), 0);
	sbx_ck_assert_exit(status, 0);
	ck_assert_msg(strstr(out, "hide=10 refuse=10 e2big=10 drop=10\n") != NULL,
	              "each provocation refuses with ECHILD: %s", out);
	/* and changed nothing: it asks the kernel, and is answered. */
	ck_assert_msg(strstr(out, "unchanged=1\n") != NULL, "%s", out);
	free(out);
}
END_TEST

START_TEST(test_guard_forked)
{
	char *argv[] = { GUARD, "fork", NULL };
	char *out;
	int status;

	/* A copy it forks runs the same program: allowed. */
	ck_assert_int_eq(sbx_testing_run(argv, &status, &out), 0);
	sbx_ck_assert_exit(status, 0);
	ck_assert_msg(strstr(out, "forked hide=0\n") != NULL, "%s", out);
	free(out);
	/* Unless Check is told not to fork: then no test has a copy. */
	ck_assert_int_eq(setenv("CK_FORK", "no", 1), 0);
	ck_assert_int_eq(sbx_testing_run(argv, &status, &out), 0);
	sbx_ck_assert_exit(status, 0);
	ck_assert_msg(strstr(out, "forked hide=10\n") != NULL, "%s", out);
	free(out);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_RESTRICT_SELF, EPERM), ECHILD);
	ck_assert_int_eq(sbx_testing_landlock_hide(ENOSYS), ECHILD);
	unsetenv("CK_FORK");
}
END_TEST

/* ---- Landlock hidden ----------------------------------------------------- */

static void hidden(int err)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	struct cat c;
	char *argv[] = { "true", NULL };
	pid_t pid;
	int abi;

	tree_make(&t);
	/* Before the first spawn of the process: its probe hears err. */
	ck_assert_int_eq(sbx_testing_landlock_hide(err), 0);
	ck_assert_int_eq(sbx_testing_landlock_abi(&abi), 0);
	ck_assert_int_eq(abi, 0);
	scope_make(&s, &seen, t.other);
	c = cat(&s, t.secret);
	ck_assert_int_eq(c.err, 0);
	ck_assert_int_eq(c.code, 0);
	ck_assert_str_eq(c.text, "the-secret\n"); /* unconfined, for real */
	free(c.text);
	sbx_ck_assert_outcome(SBX_OUTCOME_UNCONFINED);
	sbx_ck_assert_stage(SBX_STAGE_NONE, 0);
	ck_assert_int_eq(seen.count[SBX_EVENT_UNCONFINED], 1);
	ck_assert_int_eq(seen.error[SBX_EVENT_UNCONFINED], err);
	/* Failing closed instead: ENOTSUP, and no child. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_REQUIRE), 0);
	ck_assert_int_eq(sbx_posix_spawnp(&pid, "true", NULL, NULL, &s, argv, environ), ENOTSUP);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}

START_TEST(test_hide_enosys)
{
	hidden(ENOSYS);
}
END_TEST

START_TEST(test_hide_eopnotsupp)
{
	hidden(EOPNOTSUPP);
}
END_TEST

START_TEST(test_hide_too_late)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	struct cat c;

	sbx_ck_require_landlock();
	tree_make(&t);
	scope_make(&s, &seen, t.other);
	c = cat(&s, t.secret); /* the library asks for the ABI, once */
	ck_assert_int_eq(c.code, 1);
	free(c.text);
	ck_assert_int_eq(sbx_testing_landlock_hide(ENOSYS), EALREADY);
	/* Refused without acting: Landlock answers, and still confines. */
	ck_assert_int_gt(kernel_abi(), 0);
	c = cat(&s, t.secret);
	ck_assert_int_eq(c.code, 1);
	ck_assert_ptr_null(strstr(c.text, "the-secret"));
	free(c.text);
	assert_confined_beneath(t.top);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_hide_invalid)
{
	ck_assert_int_eq(sbx_testing_landlock_hide(EPERM), EINVAL);
	ck_assert_int_eq(sbx_testing_landlock_hide(0), EINVAL);
	/* errno is left alone, a failure included. */
	errno = 1234;
	ck_assert_int_eq(sbx_testing_landlock_hide(-1), EINVAL);
	ck_assert_int_eq(errno, 1234);
}
END_TEST

/* ---- Landlock refusing, step by step ------------------------------------- */

/* cat of the secret, refused: the child's line names the call and why. */
static void assert_refused(const struct tree *t, const char *call, int err, const char *reason)
{
	struct seen seen;
	sbx_scopeattr_t s;
	sbx_testing_refusal_t r;
	struct cat c;

	scope_make(&s, &seen, t->other);
	c = cat(&s, t->secret);
	ck_assert_int_eq(c.err, SBX_EREFUSED);
	sbx_ck_assert_refusal(c.text, "cat");
	ck_assert_int_eq(sbx_testing_refusal_find(c.text, &r), 0);
	ck_assert_str_eq(r.what, "Landlock refused the ruleset");
	ck_assert_str_eq(r.call, call);
	ck_assert_str_eq(r.reason, reason);
	ck_assert_ptr_null(strstr(c.text, "the-secret"));
	free(c.text);
	sbx_ck_assert_outcome(SBX_OUTCOME_REFUSED);
	sbx_ck_assert_stage(SBX_STAGE_CONFINE, err);
	ck_assert_int_eq(seen.count[SBX_EVENT_REFUSED], 1);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1); /* the library reaped it */
	sbx_scopeattr_destroy(&s);
}

START_TEST(test_refuse_create_first)
{
	struct tree t;

	/* No Landlock needed: the probe itself is refused, and a refusal is
	 * never taken for an absence. */
	tree_make(&t);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_CREATE_RULESET, EPERM), 0);
	assert_refused(&t, "landlock_create_ruleset(VERSION)", EPERM,
	               "not permitted (no_new_privs could not be set, or a filter forbids Landlock)");
	tree_free(&t);
}
END_TEST

START_TEST(test_refuse_create_after_probe)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	struct cat c;

	sbx_ck_require_landlock();
	tree_make(&t);
	scope_make(&s, &seen, t.third);
	c = cat(&s, t.secret); /* probed and cached */
	ck_assert_int_eq(c.code, 0);
	free(c.text);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_CREATE_RULESET, E2BIG), 0);
	assert_refused(&t, "landlock_create_ruleset", E2BIG,
	               "the ruleset's attributes are larger than this kernel knows");
	tree_free(&t);
}
END_TEST

START_TEST(test_refuse_add_rule)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	sbx_outcome_t o;
	struct cat c;

	sbx_ck_require_landlock();
	tree_make(&t);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_ADD_RULE, EPERM), 0);
	scope_make(&s, &seen, t.other);
	/* By the library's model a refused rule is a dropped grant: every
	 * grant is dropped, the empty ruleset is applied, and the program
	 * itself is out of reach. */
	c = cat(&s, t.mine_file);
	ck_assert_int_eq(c.err, EACCES);
	free(c.text);
	sbx_ck_assert_outcome(SBX_OUTCOME_NARROWED);
	sbx_ck_assert_stage(SBX_STAGE_EXEC, EACCES);
	/* The entries beside the denial, and those beside its ancestors. */
	sbx_ck_assert_dropped(t.mine);
	sbx_ck_assert_dropped(t.third);
	sbx_ck_assert_dropped("/usr");
	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	ck_assert_uint_eq(o.rules, 0);
	ck_assert_uint_gt(o.dropped, 1);
	ck_assert_int_eq(seen.count[SBX_EVENT_DROPPED], (int)o.dropped);
	ck_assert_int_eq(seen.error[SBX_EVENT_DROPPED], EPERM);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_refuse_restrict_self_eperm)
{
	struct tree t;

	sbx_ck_require_landlock();
	tree_make(&t);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_RESTRICT_SELF, EPERM), 0);
	assert_refused(&t, "landlock_restrict_self", EPERM,
	               "not permitted (no_new_privs could not be set, or a filter forbids Landlock)");
	tree_free(&t);
}
END_TEST

START_TEST(test_refuse_restrict_self_e2big)
{
	struct tree t;
	char *out;
	int status;

	sbx_ck_require_landlock();
	tree_make(&t);
	/* The kernel's own limit, reached: sixteen domains stacked here. */
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_RESTRICT_SELF, E2BIG), 0);
	assert_refused(&t, "landlock_restrict_self", E2BIG,
	               "16 Landlock domains are already stacked on this process");
	/* The domains restrict nothing ... */
	{
		char *argv[] = { "cat", t.secret, NULL };

		ck_assert_int_eq(sbx_testing_run(argv, &status, &out), 0);
		sbx_ck_assert_exit(status, 0);
		ck_assert_str_eq(out, "the-secret\n");
		free(out);
	}
	/* ... and are inherited: a launcher started now is refused too, and
	 * exits 125, which is not 127. */
	{
		char *argv[] = { SBXRUN, "--deny", t.other, "--", "true", NULL };

		ck_assert_int_eq(sbx_testing_run(argv, &status, &out), 0);
		sbx_ck_assert_exit(status, SBX_EXIT_REFUSED);
		ck_assert_msg(strstr(out, "not run: Landlock refused the ruleset") != NULL, "%s", out);
		free(out);
	}
	tree_free(&t);
}
END_TEST

START_TEST(test_refuse_invalid)
{
	ck_assert_int_eq(sbx_testing_landlock_refuse(0, EPERM), EINVAL);
	ck_assert_int_eq(sbx_testing_landlock_refuse(4, EPERM), EINVAL);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_ADD_RULE, 0), EINVAL);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_ADD_RULE, 4096), EINVAL);
	/* That is an absent Landlock, not a refusing one. */
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_CREATE_RULESET, ENOSYS), EINVAL);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_CREATE_RULESET, EOPNOTSUPP), EINVAL);
}
END_TEST

START_TEST(test_refuse_without_landlock)
{
	/* Nothing applies a ruleset where the kernel has none: nothing to
	 * refuse, and the call says so rather than pretend. */
	ck_assert_int_eq(sbx_testing_landlock_hide(ENOSYS), 0);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_RESTRICT_SELF, EPERM), ENOTSUP);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_RESTRICT_SELF, E2BIG), ENOTSUP);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_ADD_RULE, EPERM), ENOTSUP);
	ck_assert_int_eq(sbx_testing_grant_drop("/usr", EPERM), ENOTSUP);
}
END_TEST

/* ---- a grant dropped, by name -------------------------------------------- */

START_TEST(test_drop_configured_path)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	struct cat c;

	sbx_ck_require_landlock();
	tree_make(&t);
	/* Everything under projects denied but mine, re-admitted: mine is a
	 * configured path with a grant of its own, and that is dropped. */
	scope_make(&s, &seen, t.projects);
	seen.beneath = t.top;
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, t.mine), 0);
	ck_assert_int_eq(sbx_testing_grant_drop(t.mine, EPERM), 0);
	c = cat(&s, t.mine_file);
	ck_assert_int_eq(c.err, 0);
	ck_assert_int_eq(c.code, 1); /* narrower, never wider */
	ck_assert_ptr_nonnull(strstr(c.text, "Permission denied"));
	free(c.text);
	sbx_ck_assert_outcome(SBX_OUTCOME_NARROWED);
	sbx_ck_assert_dropped(t.mine);
	ck_assert_int_eq(seen.count[SBX_EVENT_DROPPED], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_DROPPED], t.mine);
	ck_assert_int_eq(seen.error[SBX_EVENT_DROPPED], EPERM);
	/* The rest of the ruleset stands. */
	c = cat(&s, "/etc/hostname");
	ck_assert_int_eq(c.code, 0);
	free(c.text);
	sbx_ck_assert_dropped(t.mine);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_drop_entries)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	struct cat c;
	char absent[4096];

	sbx_ck_require_landlock();
	tree_make(&t);
	/* A relative name is the same file. */
	ck_assert_int_eq(chdir(t.projects), 0);
	ck_assert_int_eq(sbx_testing_grant_drop("third", EACCES), 0);
	ck_assert_int_eq(chdir("/"), 0);
	ck_assert_int_eq(sbx_testing_grant_drop(t.mine_file, EINVAL), 0);
	/* Beside a denial: projects is listed, third is an entry of it. */
	scope_make(&s, &seen, t.other);
	seen.beneath = t.top;
	c = cat(&s, t.third_file);
	ck_assert_int_eq(c.code, 1);
	free(c.text);
	sbx_ck_assert_outcome(SBX_OUTCOME_NARROWED);
	sbx_ck_assert_dropped(t.third);
	ck_assert_int_eq(seen.error[SBX_EVENT_DROPPED], EACCES);
	/* mine/file has no rule of its own here (mine is granted whole):
	 * nothing of it to drop. */
	ck_assert_uint_eq(dropped_beneath(t.top), 1);
	c = cat(&s, t.mine_file);
	ck_assert_int_eq(c.code, 0);
	free(c.text);
	sbx_scopeattr_destroy(&s);
	/* With mine listed too, its file has a rule, and loses it. */
	snprintf(absent, sizeof(absent), "%s/absent", t.mine);
	scope_make(&s, &seen, t.other);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, absent), 0);
	c = cat(&s, t.mine_file);
	ck_assert_int_eq(c.code, 1);
	free(c.text);
	sbx_ck_assert_dropped(t.mine_file);
	sbx_ck_assert_dropped(t.third);
	ck_assert_uint_eq(dropped_beneath(t.top), 2);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_drop_in_children)
{
	struct tree t;
	char *argv[] = { SBXRUN, "--expand", "--deny", NULL, "--", "cat", NULL, NULL };
	char *out;
	int status;

	sbx_ck_require_landlock();
	tree_make(&t);
	argv[3] = t.other;
	argv[6] = t.third_file;
	ck_assert_int_eq(sbx_testing_grant_drop(t.third, EPERM), 0);
	/* A program started afterwards compiles its own scope: the same
	 * filter, answered by this process. */
	ck_assert_int_eq(sbx_testing_run(argv, &status, &out), 0);
	sbx_ck_assert_exit(status, 1);
	ck_assert_msg(strstr(out, "stays unreachable") && strstr(out, t.third) &&
	                  strstr(out, "Permission denied"),
	              "%s", out);
	free(out);
	tree_free(&t);
}
END_TEST

START_TEST(test_drop_invalid)
{
	ck_assert_int_eq(sbx_testing_grant_drop(NULL, EPERM), EINVAL);
	ck_assert_int_eq(sbx_testing_grant_drop("/", 0), EINVAL);
	ck_assert_int_eq(sbx_testing_grant_drop("/", 4096), EINVAL);
	ck_assert_int_eq(sbx_testing_grant_drop("/nonexistent/sbx-testing", EPERM), ENOENT);
}
END_TEST

static const char *under_emulator(const char *tcase, const TTest *test)
{
	if (!strcmp(tcase, "guard") || !strcmp(tcase, "hide") || !strcmp(tcase, "refuse") ||
	    !strcmp(tcase, "drop") || !strcmp(test->name, "test_landlock_abi"))
		return "libsbxspawn-testing provokes outcomes with seccomp filters, which the "
		       "emulator (qemu-user) refuses";
	if (!strcmp(test->name, "test_run"))
		return "sbx_testing_run uses the C library's posix_spawn, which cannot tell a "
		       "failed child under the emulator (qemu-user breaks CLONE_VM)";
	return NULL;
}

static Suite *suite_testing(void)
{
	Suite *s = suite_create("testing");
	struct {
		const char *name;
		const TTest *tests[12];
	} cases[] = {
		{ "guard", { test_guard_not_forked, test_guard_forked } },
		{ "hide", { test_hide_enosys, test_hide_eopnotsupp, test_hide_too_late, test_hide_invalid } },
		{ "refuse",
		  { test_refuse_create_first, test_refuse_create_after_probe, test_refuse_add_rule,
		    test_refuse_restrict_self_eperm, test_refuse_restrict_self_e2big, test_refuse_invalid,
		    test_refuse_without_landlock } },
		{ "drop", { test_drop_configured_path, test_drop_entries, test_drop_in_children,
		            test_drop_invalid } },
		{ "report", { NULL } },
		{ "asserts", { NULL } },
	};

	testing_report_cases(cases[4].tests, cases[5].tests);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TCase *tc = tcase_create(cases[i].name);

		/* Untimed: a slow machine must not fail a test; tests/watchdog
		 * catches a hang around the whole program. */
		tcase_set_timeout(tc, 0);
		for (size_t j = 0; j < 12 && cases[i].tests[j]; j++) {
			const char *why = emulated() ? under_emulator(cases[i].name, cases[i].tests[j])
			                             : NULL;

			if (why)
				printf("SKIP %s: %s\n", cases[i].tests[j]->name, why);
			else
				tcase_add_test(tc, cases[i].tests[j]);
		}
		suite_add_tcase(s, tc);
	}
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite_testing());
	int failed, abi = 0;

	/* Asked directly: the library's own probe must wait for each test. */
	if (sbx_testing_landlock_abi(&abi) == 0 && abi > 0)
		printf("Landlock: ABI %d, enforcing\n", abi);
	else
		printf("Landlock: absent; every test that needs it prints SKIP\n");
	setvbuf(stdout, NULL, _IOLBF, 0); /* as tests/runner.c */
	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
