/* SPDX-License-Identifier: MIT */
/* The portable build (no Landlock at build time): every scope runs
 * unconfined after one notice, SBX_SCOPE_REQUIRE is ENOTSUP, what only a
 * confining build does is refused, the file actions are the system's, and
 * sbxrun says so and runs the command (or exits 125 with --require). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"

struct seen {
	int count[16];
	int error[16];
};

static void record(const sbx_event_t *ev, void *arg)
{
	struct seen *s = arg;

	if (ev->kind > 0 && ev->kind < 16) {
		s->count[ev->kind]++;
		s->error[ev->kind] = ev->error;
	}
}

static void scope_make(sbx_scopeattr_t *s, struct seen *seen, const char *deny)
{
	memset(seen, 0, sizeof(*seen));
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(s, record, seen), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(s, deny), 0);
}

static void assert_no_child(void)
{
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
}

START_TEST(test_unconfined_with_notice)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	sbx_outcome_t o;
	char *argv[] = { "cat", NULL, NULL }, *out;

	tree_make(&t);
	argv[1] = t.secret;
	scope_make(&s, &seen, t.other);
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "the-secret"));
	free(out);
	ck_assert_int_eq(seen.count[SBX_EVENT_UNCONFINED], 1);
	ck_assert_int_eq(seen.error[SBX_EVENT_UNCONFINED], ENOSYS);
	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	ck_assert_int_eq(o.confinement, SBX_OUTCOME_UNCONFINED);
	ck_assert_int_eq(o.abi, 0);
	ck_assert_int_eq(o.kernel_abi, 0);
	ck_assert_int_eq(o.stage, SBX_STAGE_NONE);
	/* Said once per process. */
	ck_assert_int_eq(run_scoped(&s, argv, NULL), 0);
	ck_assert_int_eq(seen.count[SBX_EVENT_UNCONFINED], 1);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	/* Without a scope, nothing is said and nothing is confined. */
	ck_assert_int_eq(run_scoped(NULL, argv, NULL), 0);
	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	ck_assert_int_eq(o.confinement, SBX_OUTCOME_NONE);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_require_enotsup)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	sbx_outcome_t o;
	char *argv[] = { "cat", NULL, NULL };
	pid_t pid = 0;

	tree_make(&t);
	argv[1] = t.secret;
	scope_make(&s, &seen, t.other);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_REQUIRE), 0);
	errno = 4242;
	ck_assert_int_eq(sbx_posix_spawnp(&pid, "cat", NULL, NULL, &s, argv, environ), ENOTSUP);
	ck_assert_int_eq(errno, 4242);
	assert_no_child();
	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	ck_assert_int_eq(o.confinement, SBX_OUTCOME_NONE);
	ck_assert_int_eq(o.stage, SBX_STAGE_SETUP);
	ck_assert_int_eq(o.error, ENOTSUP);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), ENOTSUP);
	/* sbx_execve returns, and the process is still this one. */
	ck_assert_int_eq(sbx_execve("/bin/cat", &s, argv, environ), ENOTSUP);
	ck_assert_int_eq(sbx_execvpe("cat", &s, argv, environ), ENOTSUP);
	ck_assert_int_eq(seen.count[SBX_EVENT_UNCONFINED], 0);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* Another uid, dropped capabilities, a control asked for strictly: what
 * this build cannot do is refused, and nothing runs. */
START_TEST(test_refused_beyond_build)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	sbx_outcome_t o;
	char *argv[] = { "cat", NULL, NULL }, *out;
	pid_t pid;

	tree_make(&t);
	argv[1] = t.secret;
	scope_make(&s, &seen, t.other);
	ck_assert_int_eq(sbx_scopeattr_setids(&s, 65534, 65534), 0);
	ck_assert_int_eq(sbx_posix_spawnp(&pid, "cat", NULL, NULL, &s, argv, environ), SBX_EREFUSED);
	assert_no_child();
	ck_assert_int_eq(seen.count[SBX_EVENT_REFUSED], 1);
	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	ck_assert_int_eq(o.confinement, SBX_OUTCOME_REFUSED);
	ck_assert_int_eq(o.stage, SBX_STAGE_CONFINE);
	ck_assert_int_eq(o.error, ENOTSUP);
	ck_assert_int_eq(sbx_execvpe("cat", &s, argv, environ), SBX_EREFUSED);
	ck_assert_int_eq(sbx_scopeattr_setids(&s, (uid_t)-1, (gid_t)-1), 0);

	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_DROP_CAPS), 0);
	ck_assert_int_eq(sbx_posix_spawnp(&pid, "cat", NULL, NULL, &s, argv, environ), SBX_EREFUSED);
	assert_no_child();

	/* No child that would outlive its parent. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_DIE_WITH_PARENT), 0);
	ck_assert_int_eq(sbx_posix_spawnp(&pid, "cat", NULL, NULL, &s, argv, environ), SBX_EREFUSED);
	assert_no_child();

	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_NO_IO_URING | SBX_SCOPE_STRICT), 0);
	ck_assert_int_eq(sbx_posix_spawnp(&pid, "cat", NULL, NULL, &s, argv, environ), SBX_EREFUSED);
	assert_no_child();
	ck_assert_int_eq(seen.count[SBX_EVENT_REFUSED], 5);

	/* Not strictly: a warning for each control, and the command runs. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_NO_IO_URING | SBX_SCOPE_NO_SIGNAL), 0);
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "the-secret"));
	free(out);
	ck_assert_int_eq(seen.count[SBX_EVENT_DOWNGRADED], 2);
	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	ck_assert_int_eq(o.confinement, SBX_OUTCOME_UNCONFINED);
	ck_assert_int_eq(o.controls, 0);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* The file actions go to the system's posix_spawn; one it lacks fails the
 * spawn with ENOTSUP, before anything runs. */
START_TEST(test_file_actions_mapped)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	sbx_file_actions_t fa;
	sbx_outcome_t o;
	char *argv[] = { "cat", "secret", NULL }, *out;
	pid_t pid;
	int err;

	tree_make(&t);
	scope_make(&s, &seen, t.other);
	/* open, dup2, chdir: run_scoped_cwd's own actions. */
	ck_assert_int_eq(run_scoped_cwd(&s, t.other, argv, &out), 0);
	ck_assert_str_eq(out, "the-secret\n");
	free(out);

	sbx_file_actions_init(&fa);
	sbx_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	sbx_file_actions_addtcsetpgrp(&fa, 0);
	err = sbx_posix_spawnp(&pid, "cat", &fa, NULL, &s, argv, environ);
#if HAVE_DECL_POSIX_SPAWN_FILE_ACTIONS_ADDTCSETPGRP_NP
	/* Mapped: the system's own error (fd 0 is no terminal here). */
	ck_assert_int_ne(err, ENOTSUP);
	if (!err)
		wait_status(pid);
#else
	ck_assert_int_eq(err, ENOTSUP);
	assert_no_child();
	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	ck_assert_int_eq(o.stage, SBX_STAGE_SETUP);
	ck_assert_int_eq(o.action, 1);
#endif
	sbx_file_actions_destroy(&fa);

	/* A failure of the system's posix_spawn: it does not say which step
	 * failed. */
	sbx_file_actions_init(&fa);
	sbx_file_actions_addopen(&fa, 3, "/nonexistent/file", O_RDONLY, 0);
	ck_assert_int_eq(sbx_posix_spawnp(&pid, "cat", &fa, NULL, &s, argv, environ), ENOENT);
	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	ck_assert_int_eq(o.stage, SBX_STAGE_EXEC);
	ck_assert_int_eq(o.error, ENOENT);
	sbx_file_actions_destroy(&fa);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

static int exec_in_child(const char *secret, int search)
{
	sbx_scopeattr_t s;
	char *argv[] = { "cat", (char *)secret, NULL };
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 2); /* the notice */
		sbx_scopeattr_init(&s);
		sbx_scopeattr_adddeny(&s, secret);
		_exit(100 + (search ? sbx_execvpe("cat", &s, argv, environ)
		                    : sbx_execve("/bin/cat", &s, argv, environ)));
	}
	return WEXITSTATUS(wait_status(pid));
}

START_TEST(test_execve_unconfined)
{
	struct tree t;

	tree_make(&t);
	ck_assert_int_eq(exec_in_child(t.secret, 0), 0);
	ck_assert_int_eq(exec_in_child(t.secret, 1), 0);
	tree_free(&t);
}
END_TEST

static int sbxrun(char *const argv[], char **out)
{
	int fd = open("/dev/null", O_RDONLY), status;
	sbx_file_actions_t fa;
	FILE *f = tmpfile();
	size_t n;
	pid_t pid;

	ck_assert_ptr_nonnull(f);
	sbx_file_actions_init(&fa);
	sbx_file_actions_adddup2(&fa, fileno(f), 1);
	sbx_file_actions_adddup2(&fa, fileno(f), 2);
	sbx_file_actions_adddup2(&fa, fd, 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, SBXRUN, &fa, NULL, NULL, argv, environ), 0);
	status = wait_status(pid);
	sbx_file_actions_destroy(&fa);
	close(fd);
	*out = calloc(1, 65536);
	rewind(f);
	n = fread(*out, 1, 65535, f);
	(*out)[n] = '\0';
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

START_TEST(test_sbxrun_portable)
{
	struct tree t;
	char *out;

	tree_make(&t);
	char *run[] = { SBXRUN, "--deny", t.other, "cat", t.secret, NULL };
	ck_assert_int_eq(sbxrun(run, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "the-secret"));
	ck_assert_ptr_nonnull(strstr(out, "sbxrun: this build has no Landlock (portable)"));
	free(out);
	char *req[] = { SBXRUN, "--require", "--deny", t.other, "cat", t.secret, NULL };
	ck_assert_int_eq(sbxrun(req, &out), 125);
	ck_assert_ptr_nonnull(strstr(out, "this build (portable) has no Landlock"));
	ck_assert_ptr_null(strstr(out, "the-secret"));
	free(out);
	char *missing[] = { SBXRUN, "--deny", t.other, "/nonexistent/command", NULL };
	ck_assert_int_eq(sbxrun(missing, &out), 127);
	free(out);
	char *status[] = { SBXRUN, "--status", NULL };
	ck_assert_int_eq(sbxrun(status, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "build: portable"));
	ck_assert_ptr_nonnull(strstr(out, "Landlock: not in this build"));
	free(out);
	char *status_req[] = { SBXRUN, "--status", "--require", NULL };
	ck_assert_int_eq(sbxrun(status_req, &out), 125);
	free(out);
	char *version[] = { SBXRUN, "--version", NULL };
	ck_assert_int_eq(sbxrun(version, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "build: portable (no Landlock: commands run unconfined); "
	                                  SBX_BUILD_LIBC "; " SBX_BUILD_HOST "\n"));
	free(out);
	tree_free(&t);
}
END_TEST

/* Explaining a path, here, says the truth: everything, unconfined; or,
 * where no child would run, nothing.  sbxrun --explain and
 * --report-denials say the same. */
START_TEST(test_explain_portable)
{
	struct tree t;
	sbx_scopeattr_t s;
	sbx_explanation_t x;
	struct seen seen;
	char *out;

	tree_make(&t);
	scope_make(&s, &seen, t.other);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, t.secret, &x), 0);
	ck_assert_int_eq(x.reason, SBX_REASON_UNCONFINED);
	ck_assert_int_eq(x.exists, 1);
	ck_assert_int_eq(x.access, SBX_ACCESS_READ | SBX_ACCESS_WRITE | SBX_ACCESS_EXECUTE |
	                               SBX_ACCESS_UNLINK);
	ck_assert_ptr_nonnull(strstr(x.message, "confines nothing"));
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_REQUIRE), 0);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, t.other, &x), 0);
	ck_assert_int_eq(x.reason, SBX_REASON_REFUSED);
	ck_assert_int_eq(x.error, ENOTSUP);
	ck_assert_int_eq(x.access, 0);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, "", &x), ENOENT);
	sbx_scopeattr_destroy(&s);
	char *explain[] = { SBXRUN, "--deny", t.other, "--explain", t.secret, NULL };
	ck_assert_int_eq(sbxrun(explain, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, ": read, write, execute, unlink: unconfined"));
	free(out);
	char *report[] = { SBXRUN, "--report-denials", "--deny", t.other, "cat", t.secret, NULL };
	ck_assert_int_eq(sbxrun(report, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "sbxrun: no denial report: this build confines nothing"));
	free(out);
	tree_free(&t);
}
END_TEST

Suite *suite_portable(void)
{
	Suite *s = suite_create("portable");
	TCase *tc = tcase_create("unconfined");

	untimed(tc);
	tcase_add_test(tc, test_unconfined_with_notice);
	tcase_add_test(tc, test_require_enotsup);
	tcase_add_test(tc, test_refused_beyond_build);
	tcase_add_test(tc, test_file_actions_mapped);
	tcase_add_test(tc, test_execve_unconfined);
	tcase_add_test(tc, test_sbxrun_portable);
	tcase_add_test(tc, test_explain_portable);
	suite_add_tcase(s, tc);
	return s;
}
