/* SPDX-License-Identifier: MIT */
/* The assertions of libsbxspawn-testing, failing: a Check program whose
 * every test fails one of them, so that check_testing can read what each
 * says.  It exits 0 whatever its tests do. */
#include <errno.h>
#include <stdlib.h>

#include <sbxspawn/testing.h>

START_TEST(outcome)
{
	sbx_ck_assert_outcome(SBX_OUTCOME_REFUSED);
}
END_TEST

START_TEST(stage)
{
	sbx_ck_assert_stage(SBX_STAGE_EXEC, ENOENT);
}
END_TEST

START_TEST(dropped)
{
	sbx_ck_assert_dropped("/sbx-testing/x");
}
END_TEST

START_TEST(exit_code)
{
	sbx_ck_assert_exit(127 << 8, SBX_EXIT_REFUSED);
}
END_TEST

START_TEST(exit_signal)
{
	sbx_ck_assert_exit(9, 0);
}
END_TEST

START_TEST(refusal_none)
{
	sbx_ck_assert_refusal("cat: x: No such file or directory\n", "cat");
}
END_TEST

START_TEST(refusal_twice)
{
	sbx_ck_assert_refusal("sbxspawn: a: not run: Landlock refused the ruleset: c: d\n"
	                      "sbxspawn: a: not run: Landlock refused the ruleset: c: d\n",
	                      "a");
}
END_TEST

START_TEST(refusal_other)
{
	sbx_ck_assert_refusal("sbxspawn: /bin/true: not run: Landlock refused the ruleset: c: d\n",
	                      "true");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("asserts");
	TCase *tc = tcase_create("failing");
	SRunner *sr;

	tcase_add_test(tc, outcome);
	tcase_add_test(tc, stage);
	tcase_add_test(tc, dropped);
	tcase_add_test(tc, exit_code);
	tcase_add_test(tc, exit_signal);
	tcase_add_test(tc, refusal_none);
	tcase_add_test(tc, refusal_twice);
	tcase_add_test(tc, refusal_other);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	srunner_free(sr);
	return EXIT_SUCCESS;
}
