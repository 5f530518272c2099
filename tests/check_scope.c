/* The scope object: its API, errors, and compile-once snapshots. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"

START_TEST(test_api_errors)
{
	sbx_scopeattr_t s;
	int v;

	errno = 99;
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, NULL), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, ""), ENOENT);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, ""), ENOENT);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, NULL), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/nonexistent/but/fine"), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, 0x80), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_REQUIRE), 0);
	ck_assert_int_eq(sbx_scopeattr_getflags(&s, &v), 0);
	ck_assert_int_eq(v, SBX_SCOPE_REQUIRE);
	ck_assert_int_eq(sbx_scopeattr_setabi(&s, -1), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_setabi(&s, 10), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_setabi(&s, 3), 0);
	ck_assert_int_eq(sbx_scopeattr_getabi(&s, &v), 0);
	ck_assert_int_eq(v, 3);
	ck_assert_int_eq(sbx_scopeattr_setabi(&s, 0), 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(&s, NULL, NULL), 0);
	ck_assert_int_eq(errno, 99);
	ck_assert_int_eq(sbx_scopeattr_destroy(&s), 0);
	/* A destroyed scope is refused, not taken for "no scope". */
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/x"), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_getflags(&s, &v), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), EINVAL);
	char *argv[] = { "true", NULL };
	pid_t pid;
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, argv, environ), EINVAL);
	ck_assert_int_eq(errno, 99);
	ck_assert_str_eq(sbx_strerror(SBX_EREFUSED),
	                 "Landlock refused the ruleset; the program did not run");
	ck_assert_str_eq(sbx_strerror(ENOENT), "No such file or directory");
}
END_TEST

START_TEST(test_unresolvable_path)
{
	sbx_scopeattr_t s;
	char *argv[] = { "true", NULL };
	char loop[64];
	pid_t pid;

	REQUIRE_LANDLOCK();
	/* A path whose symlinks never end cannot be denied: the spawn fails
	 * rather than run without that denial. */
	snprintf(loop, sizeof(loop), "/tmp/sbxloop.%d", getpid());
	ck_assert_int_eq(symlink(loop, loop), 0);
	sbx_scopeattr_init(&s);
	sbx_scopeattr_adddeny(&s, loop);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, argv, environ), ELOOP);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	unlink(loop);
	sbx_scopeattr_destroy(&s);
}
END_TEST

static int run_fsop(const sbx_scopeattr_t *s, const char *op, const char *path)
{
	char *argv[] = { FSOP, (char *)op, (char *)path, NULL };

	return run_scoped(s, argv, NULL);
}

static void quiet(const sbx_event_t *ev, void *arg)
{
	(void)ev;
	(void)arg;
}

START_TEST(test_compile_once_snapshot)
{
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	char *top = make_tmpdir();
	char late[4096], denied[4096];

	REQUIRE_LANDLOCK();
	snprintf(denied, sizeof(denied), "%s/denied", top);
	snprintf(late, sizeof(late), "%s/late", top);
	mkdir(denied, 0755);
	sbx_scopeattr_init(&s);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	sbx_scopeattr_adddeny(&s, denied);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);

	/* Made after the snapshot, directly in an expanded directory: not in
	 * the snapshot, so unreachable ... */
	mkdir(late, 0755);
	ck_assert_int_eq(run_fsop(&s, "list", late), 1);
	ck_assert_int_eq(run_fsop(&s, "list", denied), 1);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_CONFINED);
	/* ... until the next compile. */
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	ck_assert_int_eq(run_fsop(&s, "list", late), 0);
	ck_assert_int_eq(run_fsop(&s, "list", denied), 1);

	/* Changing the scope discards the snapshot: spawns compile afresh. */
	rmdir(late);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, "/usr"), 0);
	mkdir(late, 0755);
	ck_assert_int_eq(run_fsop(&s, "list", late), 0);
	sbx_scopeattr_destroy(&s);
	rm_rf(top);
	free(top);
}
END_TEST

START_TEST(test_default_logger_line)
{
	sbx_event_t ev = { .kind = SBX_EVENT_DROPPED, .error = ENOENT, .path = "/x",
	                   .message = "/x stays unreachable" };
	char buf[256] = { 0 };
	FILE *saved = stderr;

	stderr = fmemopen(buf, sizeof(buf), "w");
	sbx_logger_default(&ev, NULL);
	ev.kind = SBX_EVENT_EXPAND; /* debug: not printed */
	sbx_logger_default(&ev, NULL);
	fclose(stderr);
	stderr = saved;
	ck_assert_str_eq(buf, "sbxspawn: /x stays unreachable\n");
}
END_TEST

Suite *suite_scope(void)
{
	Suite *s = suite_create("scope");
	TCase *tc = tcase_create("api");

	tcase_set_timeout(tc, SPAWN_TIMEOUT);
	tcase_add_test(tc, test_api_errors);
	tcase_add_test(tc, test_unresolvable_path);
	tcase_add_test(tc, test_compile_once_snapshot);
	tcase_add_test(tc, test_default_logger_line);
	suite_add_tcase(s, tc);
	return s;
}
