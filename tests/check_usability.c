/* SPDX-License-Identifier: MIT */
/* Deny lists that real programs can live with: directories that stay
 * listable, scopes nested in scopes, frozen directories announced, the
 * harmless devices under a read-only path, strictness.  A busy directory
 * that is not a storm of warnings: check_busy.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/usability.h"

/* ---- 1. listable ------------------------------------------------------------ */

START_TEST(test_listable)
{
	sbx_scopeattr_t s;
	const char *out;

	REQUIRE_LANDLOCK();
	scope_with(&s, 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, ut.other), 0);
	/* By default the ancestors of a denial cannot be listed. */
	ck_assert_int_eq(run_under(&s, ARGV(FSOP, "list", "/"), &out), 1);
	ck_assert_int_eq(run_under(&s, ARGV(FSOP, "list", ut.projects), NULL), 1);
	sbx_scopeattr_destroy(&s);
	/* Listable: / and the way down list; the denied directory's names
	 * show, its contents never. */
	scope_with(&s, SBX_SCOPE_LISTABLE);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, ut.other), 0);
	ck_assert_int_eq(run_under(&s, ARGV("/bin/ls", "/"), &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "usr"));
	ck_assert_int_eq(run_under(&s, ARGV("/bin/ls", ut.projects), &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "other"));
	ck_assert_int_eq(run_under(&s, ARGV("/bin/ls", ut.other), &out), 0);
	ck_assert_str_eq(out, "secret\n");
	ck_assert_int_eq(run_under(&s, ARGV(FSOP, "read", ut.secret), &out), 1);
	ck_assert_ptr_null(strstr(out, "the-secret"));
	/* Nothing more than listing: no file can be made there. */
	ck_assert_int_eq(run_under(&s, ARGV(FSOP, "create", (char *)join(ut.projects, "new")), NULL), 1);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- 2. nesting -------------------------------------------------------------- */

/* A confined process building a narrower scope for its children: under a
 * listable scope it works, two and three levels deep, through the library
 * and through sbxrun, with every level's denials enforced. */
START_TEST(test_nested_scopes)
{
	sbx_scopeattr_t s;
	const char *out;
	char *tf = (char *)join(ut.third, "file"), *mf = (char *)join(ut.mine, "file");

	REQUIRE_LANDLOCK();
	scope_with(&s, SBX_SCOPE_LISTABLE);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, ut.other), 0);
	/* Two levels: the outer denial and the inner one both hold. */
	ck_assert_int_eq(run_under(&s, ARGV(NESTED, "-d", ut.third, FSOP, "read", mf), &out), 0);
	ck_assert_int_eq(run_under(&s, ARGV(NESTED, "-d", ut.third, FSOP, "read", tf), &out), 1);
	ck_assert_int_eq(run_under(&s, ARGV(NESTED, "-d", ut.third, FSOP, "read", ut.secret), &out), 1);
	/* Three levels, the middle one listable too. */
	ck_assert_int_eq(run_under(&s, ARGV(NESTED, "-l", "-d", ut.third, NESTED, "-d", ut.mine, FSOP, "read",
	                              (char *)join(ut.projects, "README")), &out), 0);
	ck_assert_int_eq(run_under(&s, ARGV(NESTED, "-l", "-d", ut.third, NESTED, "-d", ut.mine, FSOP, "read",
	                              mf), &out), 1);
	/* The same with sbxrun, three levels. */
	ck_assert_int_eq(run_under(NULL, ARGV(SBXRUN, "--quiet", "--listable", "--deny", ut.other, SBXRUN,
	                                "--quiet", "--listable", "--deny", ut.third, SBXRUN, "--quiet",
	                                "--deny", ut.mine, "/bin/sh", "-c",
	                                fmt_cmd("cat %s; cat %s; cat %s; cat %s/README", ut.secret, tf,
	                                        mf, ut.projects)),
	                 &out), 0);
	ck_assert_ptr_null(strstr(out, "the-secret"));
	ck_assert_ptr_null(strstr(out, "third\n"));
	ck_assert_ptr_null(strstr(out, "mine\n"));
	ck_assert_ptr_nonnull(strstr(out, "readme"));
	sbx_scopeattr_destroy(&s);

	/* Under a scope that is not listable, an inner scope that must expand
	 * what the outer one froze is refused at compile time, saying why and
	 * what to do: never a child that cannot execute. */
	scope_with(&s, 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, ut.other), 0);
	ck_assert_int_eq(run_under(&s, ARGV(NESTED, "-d", ut.third, FSOP, "read", mf), &out), 125);
	ck_assert_ptr_nonnull(strstr(out, "not run: the Landlock domain this process runs in forbids "
	                                  "listing: open(O_DIRECTORY): / ("));
	ck_assert_ptr_nonnull(strstr(out, "make the enclosing scope listable"));
	ck_assert_int_eq(run_under(&s, ARGV(SBXRUN, "--quiet", "--deny", ut.third, FSOP, "read", mf), &out),
	                 125);
	ck_assert_ptr_nonnull(strstr(out, "--listable"));
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- 3. frozen directories ------------------------------------------------- */

START_TEST(test_frozen_announced)
{
	sbx_scopeattr_t s;
	sbx_file_actions_t fa;
	char *env[] = { NULL, NULL }, var[4096];
	pid_t pid;

	REQUIRE_LANDLOCK();
	/* TMPDIR holds a denial: the child can make no temporary file there,
	 * and one event says so, naming it and why. */
	snprintf(var, sizeof(var), "TMPDIR=%s", ut.projects);
	env[0] = var;
	scope_with(&s, 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, ut.other), 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), env), 0);
	wait_status(pid);
	ck_assert_int_eq(noted.kind[SBX_EVENT_FROZEN], 1);
	ck_assert_str_eq(noted.path[SBX_EVENT_FROZEN], ut.projects);
	ck_assert_str_eq(noted.path2[SBX_EVENT_FROZEN], ut.other);
	/* Once per compile, not per spawn. */
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), env), 0);
	wait_status(pid);
	ck_assert_int_eq(noted.kind[SBX_EVENT_FROZEN], 1);
	sbx_scopeattr_destroy(&s);

	/* The working directory a chdir action gives the child. */
	memset(&noted, 0, sizeof(noted));
	scope_with(&s, 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, ut.other), 0);
	sbx_file_actions_init(&fa);
	sbx_file_actions_addchdir(&fa, ut.projects);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", &fa, NULL, &s, ARGV("true"), environ), 0);
	wait_status(pid);
	ck_assert_int_eq(noted.kind[SBX_EVENT_FROZEN], 1);
	ck_assert_str_eq(noted.path[SBX_EVENT_FROZEN], ut.projects);
	sbx_file_actions_destroy(&fa);
	sbx_scopeattr_destroy(&s);

	/* The caller's own working directory, frozen, then read-only. */
	char here[4096];
	ck_assert_ptr_nonnull(getcwd(here, sizeof(here)));
	ck_assert_int_eq(chdir(ut.projects), 0);
	memset(&noted, 0, sizeof(noted));
	scope_with(&s, 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, ut.other), 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), environ), 0);
	wait_status(pid);
	ck_assert_int_eq(noted.kind[SBX_EVENT_FROZEN], 1);
	ck_assert_str_eq(noted.path[SBX_EVENT_FROZEN], ut.projects);
	ck_assert_str_eq(noted.path2[SBX_EVENT_FROZEN], ut.other);
	sbx_scopeattr_destroy(&s);
	memset(&noted, 0, sizeof(noted));
	scope_with(&s, 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, ut.top), 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), environ), 0);
	wait_status(pid);
	ck_assert_int_eq(noted.kind[SBX_EVENT_FROZEN], 1);
	ck_assert_str_eq(noted.path[SBX_EVENT_FROZEN], ut.projects);
	ck_assert_str_eq(noted.path2[SBX_EVENT_FROZEN], ut.top);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(chdir(here), 0);

	/* The remedy: sbxrun --tmpdir, a directory the scope grants. */
	{
		char *tmp = (char *)join(ut.mine, "tmp"), cmd[8192];
		const char *out;

		mkdir(tmp, 0755);
		snprintf(cmd, sizeof(cmd), "TMPDIR=%s exec %s --quiet --expand --deny %s -- mktemp",
		         ut.projects, SBXRUN, ut.other);
		ck_assert_int_eq(run_under(NULL, ARGV("/bin/sh", "-c", cmd), &out), 1);
		snprintf(cmd, sizeof(cmd), "TMPDIR=%s exec %s --quiet --expand --tmpdir %s --deny %s -- "
		         "mktemp", ut.projects, SBXRUN, tmp, ut.other);
		ck_assert_int_eq(run_under(NULL, ARGV("/bin/sh", "-c", cmd), &out), 0);
		ck_assert_int_eq(strncmp(out, tmp, strlen(tmp)), 0);
	}
}
END_TEST

/* ---- 4. the harmless devices under a read-only path ------------------------ */

/* The README's example, a real configure script (made by autoconf: a C
 * compiler found, a program compiled and run, a header checked, a file
 * written), from the directory it may write, through sbxrun.  Read-only
 * /tmp is said, and --tmpdir is the remedy. */
static void readme_configure(const char *configure)
{
	char *tmp = (char *)join(ut.mine, "tmp"), *out;

	write_file(join(ut.mine, "configure.ac"),
	           "AC_INIT([probe], [1])\nAC_PROG_CC\nAC_CHECK_HEADERS([stdio.h])\n"
	           "AC_CONFIG_FILES([probe.txt])\nAC_OUTPUT\n", 0644);
	write_file(join(ut.mine, "probe.txt.in"), "made by @PACKAGE_NAME@\n", 0644);
	if (run_scoped_cwd(NULL, ut.mine, ARGV("/bin/sh", "-c", "autoconf 2>&1"), NULL) != 0 ||
	    access(configure, X_OK)) {
		say_skip("SKIP test_readonly_devices (a real configure): no autoconf here\n");
		return;
	}
	mkdir(tmp, 0755);
	unsetenv("TMPDIR");
	/* /tmp is read-only: the compiler cannot make its files there. */
	ck_assert_int_ne(run_scoped_cwd(NULL, ut.mine,
	                                ARGV(SBXRUN, "--readonly", "/", "--allow", ut.mine, "--",
	                                     "./configure"),
	                                &out), 0);
	/* (", HOME" where HOME is /tmp as well.) */
	ck_assert_msg(strstr(out, "sbxrun: /tmp (the temporary directory") &&
	              strstr(out, ") is read-only, in /: the command can create nothing there; "
	                          "give it a TMPDIR the scope grants (--tmpdir DIR)\n"),
	              "%s", out);
	free(out);
	ck_assert_int_eq(run_scoped_cwd(NULL, ut.mine,
	                                ARGV(SBXRUN, "--readonly", "/", "--allow", ut.mine, "--tmpdir",
	                                     tmp, "--", "./configure"),
	                                &out), 0);
	ck_assert_msg(strstr(out, "checking whether the C compiler works... yes"), "%s", out);
	ck_assert_ptr_null(strstr(out, "is read-only"));
	free(out);
	ck_assert_int_eq(access(join(ut.mine, "probe.txt"), R_OK), 0);
}

START_TEST(test_readonly_devices)
{
	sbx_scopeattr_t s;
	const char *out;
	char *configure = (char *)join(ut.mine, "configure");

	REQUIRE_LANDLOCK();
	scope_with(&s, 0);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, "/"), 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, ut.mine), 0);
	ck_assert_int_eq(run_under(&s, ARGV(FSOP, "write", "/dev/null", "x"), NULL), 0);
	ck_assert_int_eq(run_under(&s, ARGV(FSOP, "write", "/dev/zero", "x"), NULL), 0);
	ck_assert_int_eq(run_under(&s, ARGV(FSOP, "write", "/dev/urandom", "x"), NULL), 0);
	ck_assert_int_eq(run_under(&s, ARGV(FSOP, "write", "/dev/random", "x"), NULL), 0);
	ck_assert_int_eq(run_under(&s, ARGV(FSOP, "openw", "/dev/full"), NULL), 0);
	/* The rest stays read-only. */
	ck_assert_int_eq(run_under(&s, ARGV(FSOP, "create", (char *)join(ut.third, "x")), NULL), 1);
	sbx_scopeattr_destroy(&s);
	readme_configure(configure);
	/* Named, a device is what the scope says of it. */
	scope_with(&s, 0);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, "/"), 0);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, "/dev/null"), 0);
	ck_assert_int_eq(run_under(&s, ARGV(FSOP, "write", "/dev/null", "x"), &out), 1);
	ck_assert_int_eq(run_under(&s, ARGV(FSOP, "write", "/dev/zero", "x"), NULL), 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- 5. strictness and errors that name their path ------------------------ */

START_TEST(test_strict_ignored_denial)
{
	sbx_scopeattr_t s;
	pid_t pid;

	REQUIRE_LANDLOCK();
	/* Ignored with a warning by default ... */
	scope_with(&s, 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/"), 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), environ), 0);
	wait_status(pid);
	ck_assert_int_eq(noted.kind[SBX_EVENT_IGNORED_DENY], 1);
	/* ... fatal under SBX_SCOPE_STRICT: EINVAL, the event names it,
	 * nothing runs. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_STRICT), 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), environ),
	                 EINVAL);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_str_eq(noted.path[SBX_EVENT_IGNORED_DENY], "/");
	ck_assert_int_eq(sbx_scopeattr_compile(&s), EINVAL);
	sbx_scopeattr_destroy(&s);
	/* sbxrun: status 125, the path named. */
	{
		const char *out;

		ck_assert_int_eq(run_under(NULL, ARGV(SBXRUN, "--strict", "--deny", "/", "true"), &out), 125);
		ck_assert_ptr_nonnull(strstr(out, "not denying /"));
	}
}
END_TEST

/* A compile that fails for want of descriptors (fewer than 3 free) says
 * where it was. */
START_TEST(test_compile_error_names_path)
{
	sbx_scopeattr_t s;
	struct rlimit rl, was;
	pid_t pid;
	int err, lowest;

	REQUIRE_LANDLOCK();
	scope_with(&s, 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, ut.other), 0);
	getrlimit(RLIMIT_NOFILE, &rl);
	was = rl;
	lowest = open("/dev/null", O_RDONLY | O_CLOEXEC);
	close(lowest);
	rl.rlim_cur = (rlim_t)lowest + 2; /* two free at most */
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	err = sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), environ);
	ck_assert_int_eq(err, EMFILE);
	ck_assert_ptr_nonnull(strstr(noted.text[SBX_EVENT_FAILED], "needs 3 free descriptors"));
	ck_assert_int_eq(noted.kind[SBX_EVENT_FAILED], 1);
	ck_assert_int_eq(noted.error[SBX_EVENT_FAILED], EMFILE);
	ck_assert_int_eq(noted.path[SBX_EVENT_FAILED][0], '/');
	ck_assert_str_eq(noted.path2[SBX_EVENT_FAILED], ut.other); /* what it was compiling for */
	sbx_scopeattr_destroy(&s);
	/* The teardown walks the tree to remove it: it needs descriptors. */
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &was), 0);
}
END_TEST

Suite *suite_usability(void)
{
	Suite *su = suite_create("usability");
	TCase *tc = tcase_create("deny-lists");

	untimed(tc);
	tcase_add_checked_fixture(tc, usability_setup, usability_teardown);
	tcase_add_test(tc, test_listable);
	tcase_add_test(tc, test_nested_scopes);
	tcase_add_test(tc, test_frozen_announced);
	tcase_add_test(tc, test_readonly_devices);
	tcase_add_test(tc, test_strict_ignored_denial);
	tcase_add_test(tc, test_compile_error_names_path);
	busy_tests(tc);
	suite_add_tcase(su, tc);
	return su;
}
