/* SPDX-License-Identifier: MIT */
/* Confinement on the real kernel: what a confined child can and cannot do.
 * The names a scope is given, and the ruleset descriptor:
 * check_confine_ruleset.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/confined.h"


/* ---- the design's measurement: a sibling project ----------------------- */

START_TEST(test_sibling_readers)
{
	struct tree t;
	sbx_scopeattr_t s;
	char *out;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	scope_deny(&s, t.other);
	expand_way(&s);

	/* Unconfined, every reader leaks it; confined, none does. */
	char *cat[] = { "cat", t.secret, NULL };
	ck_assert_int_eq(run_scoped(NULL, cat, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "the-secret"));
	free(out);
	ck_assert_int_eq(run_scoped(&s, cat, &out), 1);
	ck_assert_ptr_null(strstr(out, "the-secret"));
	ck_assert_ptr_nonnull(strstr(out, "Permission denied"));
	free(out);

	char *grep[] = { "grep", "-r", "the-secret", t.other, NULL };
	ck_assert_int_eq(run_scoped(NULL, grep, &out), 0);
	free(out);
	ck_assert_int_eq(run_scoped(&s, grep, &out), 2);
	ck_assert_ptr_nonnull(strstr(out, "Permission denied"));
	free(out);

	char code[8192];
	snprintf(code, sizeof(code), "print(open('%s').read())", t.secret);
	char *py[] = { "python3", "-c", code, NULL };
	ck_assert_int_eq(run_scoped(NULL, py, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "the-secret"));
	free(out);
	ck_assert_int_eq(run_scoped(&s, py, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "PermissionError"));
	free(out);

	DENIED(&s, "read", t.secret, NULL);
	DENIED(&s, "list", t.other, NULL);
	DENIED(&s, "write", t.secret, NULL);
	DENIED(&s, "create", join(t.other, "new"), NULL);

	/* The rest of the tree stays usable. */
	ALLOWED(&s, "read", join(t.mine, "file"), NULL);
	ALLOWED(&s, "write", join(t.mine, "file"), NULL);
	ALLOWED(&s, "create", join(t.mine, "new"), NULL);
	ALLOWED(&s, "mkdir", join(t.mine, "dir"), NULL);
	ALLOWED(&s, "list", t.mine, NULL);
	ALLOWED(&s, "create", join(t.third, "new"), NULL);
	ALLOWED(&s, "read", "/etc/passwd", NULL);
	/* Regular files in an expanded directory stay readable and writable;
	 * the directory itself can be neither listed nor added to. */
	ALLOWED(&s, "read", join(t.projects, "README"), NULL);
	ALLOWED(&s, "write", join(t.projects, "README"), NULL);
	DENIED(&s, "list", t.projects, NULL);
	DENIED(&s, "create", join(t.projects, "new"), NULL);

	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* ---- nesting --------------------------------------------------------- */

START_TEST(test_readmit_nested)
{
	struct tree t;
	sbx_scopeattr_t s;
	char a[4096], b[4096], c[4096];

	REQUIRE_LANDLOCK();
	tree_make(&t);
	snprintf(a, sizeof(a), "%s/a", t.top);
	snprintf(b, sizeof(b), "%s/b", a);
	snprintf(c, sizeof(c), "%s/c", b);
	mkdir(a, 0755);
	mkdir(b, 0755);
	mkdir(c, 0755);
	mkdir(join(b, "d"), 0755);
	write_file(join(a, "x"), "x\n", 0644);
	write_file(join(b, "y"), "y\n", 0644);
	write_file(join(c, "z"), "z\n", 0644);

	scope_deny(&s, a);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, b), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, c), 0);
	DENIED(&s, "read", join(a, "x"), NULL);
	DENIED(&s, "list", a, NULL);
	ALLOWED(&s, "read", join(b, "y"), NULL);
	ALLOWED(&s, "write", join(b, "y"), NULL);
	ALLOWED(&s, "mkdir", join(join(b, "d"), "sub"), NULL);
	ALLOWED(&s, "create", join(join(b, "d"), "new"), NULL);
	/* b holds a denial, so it is expanded: nothing is created directly in it. */
	DENIED(&s, "create", join(b, "new"), NULL);
	DENIED(&s, "read", join(c, "z"), NULL);
	DENIED(&s, "create", join(c, "new"), NULL);
	sbx_scopeattr_destroy(&s);

	/* The same path denied and re-admitted: the re-admission wins. */
	scope_deny(&s, t.other);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, t.other), 0);
	ALLOWED(&s, "read", t.secret, NULL);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_readonly)
{
	struct tree t;
	sbx_scopeattr_t s;
	char script[4096];

	REQUIRE_LANDLOCK();
	tree_make(&t);
	snprintf(script, sizeof(script), "%s/run.sh", t.mine);
	write_file(script, "#!/bin/sh\necho ran\n", 0755);

	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, t.mine), 0);
	ALLOWED(&s, "read", join(t.mine, "file"), NULL);
	ALLOWED(&s, "list", t.mine, NULL);
	ck_assert_str_eq(fsop_verdict(&s, "exec", script, NULL), "ran");
	READ_ONLY(&s, "write", join(t.mine, "file"), NULL, false);
	READ_ONLY(&s, "create", join(t.mine, "new"), NULL, false);
	READ_ONLY(&s, "unlink", join(t.mine, "file"), NULL, false);
	READ_ONLY(&s, "truncate", join(t.mine, "file"), NULL, false);
	ALLOWED(&s, "write", join(t.third, "file"), NULL);
	sbx_scopeattr_destroy(&s);

	/* Read-only / with one re-admitted directory: a write allow-list. */
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, "/"), 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, t.third), 0);
	ALLOWED(&s, "create", join(t.third, "new"), NULL);
	ALLOWED(&s, "write", join(t.third, "file"), NULL);
	ALLOWED(&s, "read", t.secret, NULL);
	ALLOWED(&s, "list", "/", NULL);
	ALLOWED(&s, "list", t.projects, NULL);
	DENIED(&s, "write", t.secret, NULL);
	DENIED(&s, "create", join(t.mine, "new2"), NULL);
	DENIED(&s, "create", "/tmp/sbx-should-not-exist", NULL);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* A denial inside a read-only tree: the siblings its expansion grants one
 * by one keep the tree's read-only rights, not one right more (a file, a
 * directory, a link made in a sibling, a file written, removed or cut
 * short there), at the denial's own level and at each level above it;
 * expanded, and hidden where the child can hide it (the read-only tree
 * sealed: a read-only mount refuses the writes). */
START_TEST(test_readonly_siblings_of_a_denial)
{
	static const int ways[] = { SBX_SCOPE_EXPAND, 0 };
	struct tree t;
	char ro[4200], d[4300], secretdir[4400], sib[4400], up[4300];
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	snprintf(ro, sizeof(ro), "%s/ro", t.top);
	snprintf(d, sizeof(d), "%s/d", ro);
	snprintf(secretdir, sizeof(secretdir), "%s/secretdir", d);
	snprintf(sib, sizeof(sib), "%s/sib", d);
	snprintf(up, sizeof(up), "%s/up", ro);
	ck_assert(mkdir(ro, 0755) == 0 && mkdir(d, 0755) == 0 && mkdir(secretdir, 0755) == 0 &&
	          mkdir(sib, 0755) == 0 && mkdir(up, 0755) == 0);
	write_file(join(secretdir, "key"), "secret\n", 0644);
	write_file(join(sib, "file"), "data\n", 0644);
	write_file(join(up, "file"), "data\n", 0644);
	write_file(join(d, "file"), "data\n", 0644);
	/* The positive controls: without a scope, each works, in each. */
	for (size_t i = 0; i < 3; i++) {
		const char *dir = i == 0 ? sib : i == 1 ? up : d;
		char f[4500];

		snprintf(f, sizeof(f), "%s/control", dir);
		ALLOWED(NULL, "create", f, NULL);
		ALLOWED(NULL, "write", f, NULL);
		ALLOWED(NULL, "truncate", f, NULL);
		ALLOWED(NULL, "unlink", f, NULL);
		ALLOWED(NULL, "mkdir", f, NULL);
		ck_assert_int_eq(rmdir(f), 0);
		ALLOWED(NULL, "symlink", "/etc/passwd", f);
		ck_assert_int_eq(unlink(f), 0);
	}
	for (size_t w = 0; w < sizeof(ways) / sizeof(ways[0]); w++) {
		const char *dirs[] = { sib, up, d };

		ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
		sbx_scopeattr_setlogger(&s, quiet, NULL);
		ck_assert_int_eq(sbx_scopeattr_setflags(&s, ways[w]), 0);
		ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, ro), 0);
		ck_assert_int_eq(sbx_scopeattr_adddeny(&s, secretdir), 0);
		ck_assert(denied_verdict(fsop_verdict(&s, "read", join(secretdir, "key"), NULL)));
		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			ALLOWED(&s, "read", join(dirs[i], "file"), NULL);
			if (dirs[i] != d) /* an expanded directory is not listed */
				ALLOWED(&s, "list", dirs[i], NULL);
			READ_ONLY(&s, "create", join(dirs[i], "new"), NULL, ways[w]);
			READ_ONLY(&s, "mkdir", join(dirs[i], "newdir"), NULL, ways[w]);
			READ_ONLY(&s, "symlink", "/etc/passwd", join(dirs[i], "newlink"), ways[w]);
			READ_ONLY(&s, "write", join(dirs[i], "file"), NULL, ways[w]);
			READ_ONLY(&s, "truncate", join(dirs[i], "file"), NULL, ways[w]);
			READ_ONLY(&s, "unlink", join(dirs[i], "file"), NULL, ways[w]);
		}
		sbx_scopeattr_destroy(&s);
	}
	tree_free(&t);
}
END_TEST

/* ---- the ABI cap -------------------------------------------------------- */

START_TEST(test_abi_cap)
{
	struct tree t;
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	int kernel = landlock_abi();
	char dev[4096], rodir[4096];

	REQUIRE_LANDLOCK();
	tree_make(&t);
	snprintf(rodir, sizeof(rodir), "%s/ro", t.top);
	mkdir(rodir, 0755);
	snprintf(dev, sizeof(dev), "%s/tty", rodir);
	/* A device of our own (a /dev/null), where an ioctl is the question. */
	if (geteuid() == 0)
		ck_assert_int_eq(mknod(dev, S_IFCHR | 0666, makedev(1, 3)), 0);
	else
		say_skip("SKIP %s (device ioctls, ABI 5): making a device node needs root\n", __func__);

	for (int abi = 1; abi <= kernel + 2; abi++) {
		int eff = abi < kernel ? abi : kernel;

		scope_deny(&s, t.other);
		expand_way(&s);
		ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, rodir), 0);
		ck_assert_int_eq(sbx_scopeattr_setabi(&s, abi), 0);
		DENIED(&s, "read", t.secret, NULL);
		ck_assert_int_eq(sbx_outcome_get(&oc), 0);
		ck_assert_int_eq(oc.abi, eff);
		ck_assert_int_eq(oc.kernel_abi, kernel);

		/* ABI 1 does not know REFER: a link or rename across
		 * directories is always refused. */
		write_file(join(t.mine, "f"), "f\n", 0644);
		ck_assert_str_eq(fsop_verdict(&s, "link", join(t.mine, "f"), join(t.third, "f")),
		                 eff >= 2 ? "ok" : "EXDEV");
		unlink(join(t.third, "f"));
		/* Before ABI 3, truncate is not mediated. */
		ck_assert_str_eq(fsop_verdict(&s, "truncate", t.secret, NULL), eff >= 3 ? "EACCES" : "ok");
		write_file(t.secret, "the-secret\n", 0644);
		/* Before ABI 5, ioctl on devices is not mediated. */
		if (geteuid() == 0)
			ck_assert_str_eq(fsop_verdict(&s, "ioctl", dev, NULL), eff >= 5 ? "EACCES" : "ENOTTY");
		sbx_scopeattr_destroy(&s);
	}
	tree_free(&t);
}
END_TEST

Suite *suite_confine(void)
{
	Suite *s = suite_create("confine");
	TCase *tc = tcase_create("kernel");

	untimed(tc);
	tcase_add_test(tc, test_sibling_readers);
	tcase_add_test(tc, test_readmit_nested);
	tcase_add_test(tc, test_readonly);
	tcase_add_test(tc, test_readonly_siblings_of_a_denial);
	confine_ruleset_tests(tc);
	tcase_add_test(tc, test_abi_cap);
	suite_add_tcase(s, tc);
	return s;
}
