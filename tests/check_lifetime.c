/* SPDX-License-Identifier: MIT */
/* The command's lifetime as the library shapes it: the resource limits a
 * scope sets, each shown to differ from the caller's own first (the
 * control), then set in the child through every call that starts one; a
 * limit the kernel refuses is a refusal, never a command run without it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"
#define LIMITS_SCRIPT "ulimit -Sn; ulimit -Hn"

static char *limits_under(const sbx_scopeattr_t *scope)
{
	char *out = NULL;

	ck_assert_int_eq(run_scoped(scope, (char *[]){ "sh", "-c", LIMITS_SCRIPT, NULL }, &out), 0);
	return out;
}

static void scope_with_files(sbx_scopeattr_t *s, rlim_t soft, rlim_t hard)
{
	struct rlimit l = { soft, hard };

	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_setrlimit(s, RLIMIT_NOFILE, &l), 0);
}

/* The limits reach the child by sbx_posix_spawnp, sbx_system and
 * sbx_execve alike. */
START_TEST(test_rlimit_set)
{
	struct rlimit mine;
	sbx_scopeattr_t s;
	char *out, cmd[256], expect[64];
	pid_t pid;
	int fd;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &mine), 0);
	ck_assert_uint_ne(mine.rlim_cur, 37); /* the control: not the caller's */
	out = limits_under(NULL);
	snprintf(expect, sizeof(expect), "%llu\n", (unsigned long long)mine.rlim_cur);
	ck_assert_msg(!strncmp(out, expect, strlen(expect)), "%s", out);
	free(out);

	scope_with_files(&s, 37, 41);
	out = limits_under(&s);
	ck_assert_str_eq(out, "37\n41\n");
	free(out);

	/* sbx_system: the same, its output through a file. */
	char *dir = make_tmpdir();
	snprintf(cmd, sizeof(cmd), "(ulimit -Sn; ulimit -Hn) > %s/out", dir);
	ck_assert_int_eq(sbx_system(cmd, &s), 0);
	snprintf(cmd, sizeof(cmd), "%s/out", dir);
	ck_assert_int_ge(fd = open(cmd, O_RDONLY), 0);
	ck_assert_int_eq(read(fd, expect, sizeof(expect) - 1), 6);
	expect[6] = '\0';
	ck_assert_str_eq(expect, "37\n41\n");
	close(fd);

	/* sbx_execve: on the caller itself, before its exec. */
	snprintf(cmd, sizeof(cmd), "[ $(ulimit -Sn) = 37 ] && [ $(ulimit -Hn) = 41 ]");
	if ((pid = fork()) == 0)
		_exit(100 + sbx_execve("/bin/sh", &s, (char *[]){ "sh", "-c", cmd, NULL }, environ));
	ck_assert_int_eq(wait_status(pid), 0);
	sbx_scopeattr_destroy(&s);
	rm_rf(dir);
	free(dir);
}
END_TEST

START_TEST(test_rlimit_errors)
{
	struct rlimit l = { 5, 4 }, got;
	sbx_scopeattr_t s;
	int empty;

	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_setrlimit(&s, RLIMIT_NOFILE, &l), EINVAL); /* soft > hard */
	l = (struct rlimit){ 1, 2 };
	ck_assert_int_eq(sbx_scopeattr_setrlimit(&s, -1, &l), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_setrlimit(&s, RLIM_NLIMITS, &l), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_getrlimit(&s, RLIMIT_CPU, &got), ENOENT);
	ck_assert_int_eq(sbx_scopeattr_getrlimit(&s, RLIMIT_CPU, NULL), EINVAL);
	l = (struct rlimit){ 10, RLIM_INFINITY };
	ck_assert_int_eq(sbx_scopeattr_setrlimit(&s, RLIMIT_CPU, &l), 0);
	ck_assert_int_eq(sbx_scopeattr_getrlimit(&s, RLIMIT_CPU, &got), 0);
	ck_assert_uint_eq(got.rlim_cur, 10);
	ck_assert_uint_eq(got.rlim_max, RLIM_INFINITY);
	ck_assert_int_eq(sbx_scopeattr_isempty(&s, &empty), 0);
	ck_assert_int_eq(empty, 0);
	ck_assert_int_eq(sbx_scopeattr_setrlimit(&s, RLIMIT_CPU, NULL), 0);
	ck_assert_int_eq(sbx_scopeattr_getrlimit(&s, RLIMIT_CPU, &got), ENOENT);
	ck_assert_int_eq(sbx_scopeattr_isempty(&s, &empty), 0);
	ck_assert_int_eq(empty, 1);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(sbx_scopeattr_setrlimit(&s, RLIMIT_CPU, &l), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_getrlimit(&s, RLIMIT_CPU, &got), EINVAL);
}
END_TEST

/* A limit the kernel refuses, for root too: more open files than
 * fs.nr_open.  Not run: the one line names the resource, the spawn says
 * SBX_EREFUSED at the confinement, and sbxrun exits 125. */
START_TEST(test_rlimit_refused)
{
	unsigned long long nr_open = 0;
	sbx_scopeattr_t s;
	sbx_outcome_t o;
	char *out = NULL, arg[64];
	FILE *f = fopen("/proc/sys/fs/nr_open", "r");

	if (!f || fscanf(f, "%llu", &nr_open) != 1) {
		say_skip("SKIP %s: /proc/sys/fs/nr_open cannot be read here\n", __func__);
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	scope_with_files(&s, nr_open + 1, nr_open + 1);
	ck_assert_int_eq(run_scoped(&s, (char *[]){ "true", NULL }, &out), -1000 - SBX_EREFUSED);
	ck_assert_msg(strstr(out, "true: not run: its confinement could not be applied: "
	                          "prlimit64(RLIMIT_NOFILE): not permitted"), "%s", out);
	free(out);
	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	ck_assert_int_eq(o.stage, SBX_STAGE_CONFINE);
	ck_assert_int_eq(o.error, EPERM);
	sbx_scopeattr_destroy(&s);
	snprintf(arg, sizeof(arg), "nofile=%llu", nr_open + 1);
	ck_assert_int_eq(run_scoped(NULL, (char *[]){ SBXRUN, "--quiet", "--rlimit", arg, "--", "true",
	                                            NULL }, &out), SBX_EXIT_REFUSED);
	ck_assert_msg(strstr(out, "prlimit64(RLIMIT_NOFILE)"), "%s", out);
	free(out);
}
END_TEST

START_TEST(test_sbxrun_rlimit)
{
	static const struct {
		const char *arg, *expect;
		int status;
	} cases[] = {
		{ "nofile=64:128", "64\n128\n", 0 },
		{ "nofile=77", "77\n77\n", 0 },
		{ "nofile=:1000", NULL, 0 },  /* hard alone: the soft is sbxrun's */
		{ "nofile=200:100", "the soft limit is above the hard limit", SBX_EXIT_REFUSED },
		{ "nofile=x", "a limit is a number or \"unlimited\"", SBX_EXIT_REFUSED },
		{ "nofile=:", "a limit is a number", SBX_EXIT_REFUSED },
		{ "files=1", "not NAME=SOFT[:HARD]", SBX_EXIT_REFUSED },
		{ "nofile", "not NAME=SOFT[:HARD]", SBX_EXIT_REFUSED },
	};
	struct rlimit mine;
	char *out;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &mine), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = { SBXRUN, "--quiet", "--rlimit", (char *)cases[i].arg, "--", "sh", "-c",
			         "ulimit -Sn; ulimit -Hn", NULL };
		int status = run_scoped(NULL, argv, &out);

		if (i == 2 && mine.rlim_cur > 1000) {
			/* Above the hard limit asked for: refused, saying whose. */
			ck_assert_int_eq(status, SBX_EXIT_REFUSED);
			ck_assert_msg(strstr(out, "the half not given is sbxrun's own"), "%s", out);
		} else if (i == 2) {
			char expect[64];

			snprintf(expect, sizeof(expect), "%llu\n1000\n", (unsigned long long)mine.rlim_cur);
			ck_assert_int_eq(status, 0);
			ck_assert_str_eq(out, expect);
		} else {
			ck_assert_msg(status == cases[i].status, "%s: %d: %s", cases[i].arg, status, out);
			ck_assert_msg(strstr(out, cases[i].expect), "%s: %s", cases[i].arg, out);
		}
		free(out);
	}
}
END_TEST

Suite *suite_lifetime(void)
{
	Suite *s = suite_create("lifetime");
	TCase *tc = tcase_create("rlimits");

	tcase_add_test(tc, test_rlimit_set);
	tcase_add_test(tc, test_rlimit_errors);
	tcase_add_test(tc, test_rlimit_refused);
	tcase_add_test(tc, test_sbxrun_rlimit);
	suite_add_tcase(s, tc);
	return s;
}
