/* SPDX-License-Identifier: MIT */
/* sbx_execve / sbx_execvpe, and the sbxrun launcher built on them; how
 * sbxrun reads what it is given: check_sbxrun_names.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"

/* ---- sbx_execve ------------------------------------------------------------ */

/* Forks; the child runs fn and exits with what it returns. */
static int in_child(int (*fn)(const struct tree *), const struct tree *t)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(fn(t));
	return wait_status(pid);
}

static int execve_denied(const struct tree *t)
{
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", (char *)t->secret, NULL };
	int fd = open("/dev/null", O_WRONLY);

	dup2(fd, 1);
	sbx_scopeattr_init(&s);
	sbx_scopeattr_adddeny(&s, t->other);
	sbx_execve(FSOP, &s, argv, environ);
	return 99;
}

static int execve_missing(const struct tree *t)
{
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	char *argv[] = { "x", NULL };
	int err;

	sbx_scopeattr_init(&s);
	sbx_scopeattr_adddeny(&s, t->other);
	err = sbx_execvpe("sbx-no-such-program", &s, argv, environ);
	if (err != ENOENT || sbx_outcome_get(&oc) || oc.stage != SBX_STAGE_EXEC ||
	    oc.confinement != SBX_OUTCOME_CONFINED)
		return 2;
	/* The exec failed after confinement: this process is confined now
	 * (the denial hidden, as root an empty directory covers it). */
	return open(t->secret, O_RDONLY) < 0 &&
	               (errno == EACCES || (oc.hidden && errno == ENOENT)) ? 0 : 3;
}

static int execve_refused(const struct tree *t)
{
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	char *argv[] = { FSOP, NULL };
	int err;

	sbx_scopeattr_init(&s);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	sbx_scopeattr_adddeny(&s, t->other);
	/* Expanded: a hidden denial is covered before Landlock refuses
	 * (sbx_execve(3)). */
	expand_way(&s);
	seccomp_fail(SYS_landlock_restrict_self, EPERM);
	err = sbx_execve(FSOP, &s, argv, environ);
	if (err != SBX_EREFUSED || sbx_outcome_get(&oc) || oc.confinement != SBX_OUTCOME_REFUSED ||
	    oc.error != EPERM)
		return 2;
	/* Refused before anything was applied: still unconfined. */
	return open(t->secret, O_RDONLY) >= 0 ? 0 : 3;
}

START_TEST(test_execve_states)
{
	struct tree t;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	ck_assert_int_eq(WEXITSTATUS(in_child(execve_denied, &t)), 1);
	ck_assert_int_eq(WEXITSTATUS(in_child(execve_missing, &t)), 0);
	ck_assert_int_eq(WEXITSTATUS(in_child(execve_refused, &t)), 0);
	tree_free(&t);
}
END_TEST

/* The refused child's own exit status, seen as the kernel reports it in
 * SIGCHLD before the library reaps the child. */
static volatile sig_atomic_t chld_status = -1, chld_code;

static void on_chld(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	chld_status = si->si_status;
	chld_code = si->si_code;
}

START_TEST(test_refused_child_exit_status)
{
	struct tree t;
	sbx_scopeattr_t s;
	struct sigaction sa = { .sa_sigaction = on_chld, .sa_flags = SA_SIGINFO };
	char *argv[] = { FSOP, NULL };
	pid_t pid;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	/* A first spawn, so that only the refused child signals below. */
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, NULL, argv, environ), 0);
	wait_status(pid);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sbx_scopeattr_init(&s);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	sbx_scopeattr_adddeny(&s, t.other);
	seccomp_fail(SYS_landlock_restrict_self, EPERM);
	ck_assert_int_eq(sbx_posix_spawn(&pid, FSOP, NULL, NULL, &s, argv, environ), SBX_EREFUSED);
	ck_assert_int_eq(chld_code, CLD_EXITED);
	ck_assert_int_eq(chld_status, SBX_EXIT_REFUSED);
	ck_assert_int_ne(SBX_EXIT_REFUSED, 127);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* ---- sbxrun ------------------------------------------------------------------ */

static int sbxrun(char *const argv[], char **out)
{
	return run_scoped(NULL, argv, out);
}

START_TEST(test_sbxrun_statuses)
{
	struct tree t;
	char *out;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	/* The command's own status, and 128+N for a signal. */
	char *own[] = { SBXRUN, "--deny", t.other, "--", "sh", "-c", "exit 7", NULL };
	ck_assert_int_eq(sbxrun(own, &out), 7);
	free(out);
	char *sig[] = { SBXRUN, "--deny", t.other, "sh", "-c", "kill -TERM $$", NULL };
	ck_assert_int_eq(sbxrun(sig, &out), 128 + SIGTERM);
	free(out);
	/* 127: not found. */
	char *nf[] = { SBXRUN, "--deny", t.other, "sbx-no-such-program", NULL };
	ck_assert_int_eq(sbxrun(nf, &out), 127);
	ck_assert_ptr_nonnull(strstr(out, "sbxrun: sbx-no-such-program: No such file or directory"));
	free(out);
	/* 126: found, cannot be executed. */
	char *nx[] = { SBXRUN, "/etc/passwd", NULL };
	ck_assert_int_eq(sbxrun(nx, &out), 126);
	free(out);
	/* ... including a program the scope denies. */
	write_file(join(t.other, "tool"), "#!/bin/sh\necho ran\n", 0755);
	char *dx[] = { SBXRUN, "--expand", "--deny", t.other, (char *)join(t.other, "tool"), NULL };
	ck_assert_int_eq(sbxrun(dx, &out), 126);
	ck_assert_ptr_null(strstr(out, "ran"));
	free(out);
	/* 125: sbxrun itself: bad options, no command, a refused ruleset. */
	char *bad[] = { SBXRUN, "--frobnicate", "true", NULL };
	ck_assert_int_eq(sbxrun(bad, &out), 125);
	ck_assert_ptr_nonnull(strstr(out, "--help"));
	free(out);
	char *none[] = { SBXRUN, "--deny", t.other, NULL };
	ck_assert_int_eq(sbxrun(none, &out), 125);
	free(out);
	char *abi[] = { SBXRUN, "--abi", "12", "true", NULL };
	ck_assert_int_eq(sbxrun(abi, &out), 125);
	free(out);
	char *missing[] = { SBXRUN, "--deny", NULL };
	ck_assert_int_eq(sbxrun(missing, &out), 125);
	free(out);
	tree_free(&t);
}
END_TEST

/* --env PREFIX: the environment convention, as a program that reads it
 * takes it; added to the options; a variable that cannot be applied is
 * named; the command sees none of them. */
START_TEST(test_sbxrun_env)
{
	struct tree t;
	char *out, deny[4200], allow[4200];

	REQUIRE_LANDLOCK();
	tree_make(&t);
	snprintf(deny, sizeof(deny), "T_RUN_DENY=%s", t.projects);
	snprintf(allow, sizeof(allow), "T_RUN_ALLOW=%s", t.other);
	/* Re-admitted inside the environment's denial, which an option's
	 * denial adds to. */
	char *read[] = { "env", deny, allow, "T_RUN_QUIET=1", SBXRUN, "--env", "T_RUN", "--deny",
		         t.third, FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbxrun(read, &out), 0);
	free(out);
	char *mine[] = { "env", deny, allow, SBXRUN, "--env", "T_RUN", FSOP, "read",
		         (char *)join(t.mine, "file"), NULL };
	ck_assert_int_eq(sbxrun(mine, &out), 1);
	/* Hidden, the re-admission bound back into its cover: not there. */
	ck_assert_msg(strstr(out, "EACCES") || strstr(out, "ENOENT"), "%s", out);
	free(out);
	char *third[] = { "env", allow, SBXRUN, "--deny", t.third, "--env", "T_RUN", FSOP, "read",
		          (char *)join(t.third, "file"), NULL };
	ck_assert_int_eq(sbxrun(third, &out), 1);
	free(out);
	char *seen[] = { "env", deny, "T_RUN_OTHER=kept", SBXRUN, "--env", "T_RUN", "sh", "-c",
		         "env | grep '^T_RUN_'", NULL };
	ck_assert_int_eq(sbxrun(seen, &out), 0);
	ck_assert_ptr_null(strstr(out, "T_RUN_DENY"));
	ck_assert_ptr_nonnull(strstr(out, "T_RUN_OTHER=kept"));
	free(out);
	char *bad[] = { "env", deny, "T_RUN_TMPDIR=/nonexistent/tmp", SBXRUN, "--env", "T_RUN",
		        "true", NULL };
	ck_assert_int_eq(sbxrun(bad, &out), 125);
	ck_assert_ptr_nonnull(strstr(out, "sbxrun: T_RUN_TMPDIR: /nonexistent/tmp: No such file"));
	free(out);
	char *nothing[] = { "env", "T_RUN_DENY=::", SBXRUN, "--env", "T_RUN", FSOP, "read",
		            t.secret, NULL };
	ck_assert_int_eq(sbxrun(nothing, &out), 0);
	free(out);
	tree_free(&t);
}
END_TEST

START_TEST(test_sbxrun_refused)
{
	struct tree t;
	char *out;
	char *argv[] = { SBXRUN, "--quiet", "--deny", NULL, FSOP, "read", NULL, NULL };

	REQUIRE_LANDLOCK();
	tree_make(&t);
	argv[3] = t.other;
	argv[6] = t.secret;
	seccomp_fail(SYS_landlock_restrict_self, EPERM);
	ck_assert_int_eq(sbxrun(argv, &out), SBX_EXIT_REFUSED);
	/* One line, even with --quiet, and the command never ran. */
	ck_assert_ptr_nonnull(strstr(out, "sbxrun: " FSOP ": not run: Landlock refused the ruleset"));
	ck_assert_ptr_null(strstr(out, "the-secret"));
	ck_assert_ptr_null(strstr(out, "ok"));
	ck_assert_int_eq((int)(strchr(out, '\n') - out), (int)strlen(out) - 1);
	free(out);
	tree_free(&t);
}
END_TEST

START_TEST(test_sbxrun_options)
{
	struct tree t;
	char *out;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	char *deny[] = { SBXRUN, "--expand", "--deny", t.other, FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbxrun(deny, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "EACCES"));
	free(out);
	char *allow[] = { SBXRUN, "--deny", t.projects, "--allow", t.other, FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbxrun(allow, &out), 0);
	free(out);
	char *ro[] = { SBXRUN, "--readonly", t.other, FSOP, "write", t.secret, NULL };
	ck_assert_int_eq(sbxrun(ro, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "EACCES") ? out : strstr(out, "EROFS")); /* sealed */
	free(out);
	/* --abi 1: cross-directory links are refused outright. */
	char *abi[] = { SBXRUN, "--abi", "1", "--deny", t.other, FSOP, "link",
	                (char *)join(t.mine, "file"), (char *)join(t.third, "l"), NULL };
	ck_assert_int_eq(sbxrun(abi, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "EXDEV"));
	free(out);
	/* --require on a kernel with Landlock: runs. */
	char *req[] = { SBXRUN, "--require", "--deny", t.other, "true", NULL };
	ck_assert_int_eq(sbxrun(req, &out), 0);
	free(out);
	/* --quiet silences warnings: a denial of / is ignored, and said so unless quiet. */
	char *loud[] = { SBXRUN, "--deny", "/", "true", NULL };
	ck_assert_int_eq(sbxrun(loud, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "sbxrun: not denying /"));
	free(out);
	char *hush[] = { SBXRUN, "--quiet", "--deny", "/", "true", NULL };
	ck_assert_int_eq(sbxrun(hush, &out), 0);
	ck_assert_str_eq(out, "");
	free(out);
	char *help[] = { SBXRUN, "--help", NULL };
	ck_assert_int_eq(sbxrun(help, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "Usage: sbxrun [OPTIONS] [--] COMMAND [ARG]..."));
	free(out);
	char *version[] = { SBXRUN, "--version", NULL };
	ck_assert_int_eq(sbxrun(version, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "sbxrun (libsbxspawn) " PACKAGE_VERSION));
	free(out);
	char *status[] = { SBXRUN, "--status", NULL };
	ck_assert_int_eq(sbxrun(status, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "Landlock: enforcing, ABI"));
	ck_assert_ptr_nonnull(strstr(out, "read_file"));
	ck_assert_ptr_nonnull(strstr(out, "no_new_privs: can be set"));
	free(out);
	tree_free(&t);
}
END_TEST

/* A first run's child plants a symlink where the scope lets it write,
 * pointing into the denial; the next run with the same options builds its
 * scope anew, and must not take that path for a re-admission of what the
 * link points at: it says so and leaves it out, or, --strict, runs
 * nothing. */
START_TEST(test_sbxrun_planted_symlink)
{
	struct tree t;
	char *out, cache[4096], plant[8192], said[8192], target[4096];
	ssize_t n;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	mkdir(join(t.top, "scratch"), 0755);
	snprintf(cache, sizeof(cache), "%s/scratch/cache", t.top);
	snprintf(plant, sizeof(plant), "ln -s %s %s", t.other, cache);
	char *first[] = { SBXRUN, "--deny", t.projects, "--allow", t.mine, "--allow", cache, "--",
		          "sh", "-c", plant, NULL };
	ck_assert_int_eq(sbxrun(first, &out), 0);
	free(out);
	n = readlink(cache, target, sizeof(target) - 1);
	ck_assert_int_gt(n, 0);
	target[n] = '\0';
	ck_assert_str_eq(target, t.other);
	/* The next run: the secret stays denied, by its name and the link's. */
	char *next[] = { SBXRUN, "--deny", t.projects, "--allow", t.mine, "--allow", cache, "--",
		         FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbxrun(next, &out), 1);
	ck_assert_msg(!strstr(out, "the-secret"), "ESCAPE: the second run read the secret:\n%s", out);
	ck_assert_msg(strstr(out, "EACCES") || strstr(out, "ENOENT"), "%s", out);
	snprintf(said, sizeof(said), "sbxrun: not re-admitting %s: it leads through a symlink to %s",
	         cache, t.other);
	ck_assert_msg(strstr(out, said), "not said: %s\nin:\n%s", said, out);
	free(out);
	char *via[] = { SBXRUN, "--deny", t.projects, "--allow", t.mine, "--allow", cache, "--",
		        FSOP, "read", (char *)join(cache, "secret"), NULL };
	ck_assert_int_eq(sbxrun(via, &out), 1);
	ck_assert_ptr_null(strstr(out, "the-secret"));
	free(out);
	/* What is re-admitted as written still is. */
	char *mine[] = { SBXRUN, "--quiet", "--deny", t.projects, "--allow", t.mine, "--allow", cache,
		         "--", FSOP, "read", (char *)join(t.mine, "file"), NULL };
	ck_assert_int_eq(sbxrun(mine, &out), 0);
	free(out);
	/* --strict: nothing runs. */
	char *strict[] = { SBXRUN, "--strict", "--deny", t.projects, "--allow", t.mine, "--allow",
		           cache, "--", FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbxrun(strict, &out), 125);
	ck_assert_ptr_null(strstr(out, "the-secret"));
	ck_assert_ptr_nonnull(strstr(out, "--strict: nothing runs")); /* the option, not the flag */
	ck_assert_ptr_nonnull(strstr(out, "not run: the scope could not be compiled"));
	free(out);
	tree_free(&t);
}
END_TEST

/* An ambiguous prefix is a usage error naming every option it could mean,
 * and nothing runs: the command would leave a file behind. */
Suite *suite_sbxrun(void)
{
	Suite *s = suite_create("sbxrun");
	TCase *tc = tcase_create("launcher");

	untimed(tc);
	tcase_add_test(tc, test_execve_states);
	tcase_add_test(tc, test_refused_child_exit_status);
	tcase_add_test(tc, test_sbxrun_statuses);
	sbxrun_names_tests(tc);
	tcase_add_test(tc, test_sbxrun_refused);
	tcase_add_test(tc, test_sbxrun_env);
	tcase_add_test(tc, test_sbxrun_options);
	tcase_add_test(tc, test_sbxrun_planted_symlink);
	suite_add_tcase(s, tc);
	return s;
}
