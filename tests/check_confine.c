/* SPDX-License-Identifier: MIT */
/* Confinement on the real kernel: what a confined child can and cannot do. */
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

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define NESTED HELPER_DIR "/nested"



#define ALLOWED(scope, op, a, b) ck_assert_str_eq(fsop_verdict(scope, op, a, b), "ok")
#define DENIED(scope, op, a, b) ck_assert_str_eq(fsop_verdict(scope, op, a, b), "EACCES")
/* A write refused in a read-only path: by the read-only mount where the
 * path is sealed (its explanation says so; never where expand), else by
 * Landlock. */
#define READ_ONLY(scope, op, a, b, expand)                                                  \
	do {                                                                                \
		const char *v_ = fsop_verdict(scope, op, a, b);                             \
		bool sealed_ = sealed_at(scope, b ? b : a);                                 \
		ck_assert_msg(!((expand) && sealed_), "%s: sealed, and expand asked", a);   \
		ck_assert_msg(!strcmp(v_, sealed_ ? "EROFS" : "EACCES"),                    \
		              "%s %s: %s, not refused (sealed: %d)", op, a, v_, sealed_);   \
	} while (0)

/* Whether path lies in a sealed read-only path, as the scope explains it. */
static bool sealed_at(const sbx_scopeattr_t *scope, const char *path)
{
	sbx_explanation_t x;

	ck_assert_int_eq(sbx_scopeattr_explain(scope, path, &x), 0);
	return strstr(x.message, "sealed") != NULL;
}
/* A link or rename that Landlock refuses is EXDEV where only the move
 * across directories is in question, EACCES otherwise: both are denials. */
#define DENIED_MOVE(scope, op, a, b)                                              \
	do {                                                                      \
		const char *v_ = fsop_verdict(scope, op, a, b);                             \
		ck_assert_msg(!strcmp(v_, "EACCES") || !strcmp(v_, "EXDEV"),      \
		              "%s %s %s: %s, not a denial", op, a, b, v_);        \
	} while (0)

static void scope_deny(sbx_scopeattr_t *s, const char *path)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	sbx_scopeattr_setlogger(s, quiet, NULL);
	ck_assert_int_eq(sbx_scopeattr_adddeny(s, path), 0);
}

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

/* ---- names ------------------------------------------------------------ */

START_TEST(test_symlinks)
{
	struct tree t;
	sbx_scopeattr_t s;
	char link[4096], alias[4096], up[4096];

	REQUIRE_LANDLOCK();
	tree_make(&t);
	/* Beside the denial, pointing into it. */
	snprintf(link, sizeof(link), "%s/link", t.projects);
	ck_assert_int_eq(symlink(t.other, link), 0);
	/* Inside a granted directory, pointing into it, and up. */
	snprintf(up, sizeof(up), "%s/up", t.mine);
	ck_assert_int_eq(symlink("../other/secret", up), 0);

	scope_deny(&s, t.other);
	expand_way(&s);
	DENIED(&s, "read", join(link, "secret"), NULL);
	DENIED(&s, "read", up, NULL);
	sbx_scopeattr_destroy(&s);

	/* A denial configured through a symlinked path denies the target. */
	snprintf(alias, sizeof(alias), "%s/alias", t.top);
	ck_assert_int_eq(symlink(t.other, alias), 0);
	scope_deny(&s, alias);
	expand_way(&s);
	DENIED(&s, "read", t.secret, NULL);
	DENIED(&s, "read", join(alias, "secret"), NULL);
	ALLOWED(&s, "read", join(t.mine, "file"), NULL);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_relative_and_normalised)
{
	struct tree t;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	ck_assert_int_eq(chdir(t.projects), 0);
	/* Relative, with .., // and a trailing slash: all the same directory. */
	scope_deny(&s, "mine/..//other/./");
	expand_way(&s);
	DENIED(&s, "read", t.secret, NULL);
	ALLOWED(&s, "read", join(t.mine, "file"), NULL);
	/* Resolved against the cwd when added, not at spawn time. */
	ck_assert_int_eq(chdir(t.mine), 0);
	DENIED(&s, "read", t.secret, NULL);
	ALLOWED(&s, "read", join(t.mine, "file"), NULL);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_nonexistent_denied)
{
	struct tree t;
	sbx_scopeattr_t s;
	char future[4096], deep[4096], ghost[4096];

	REQUIRE_LANDLOCK();
	tree_make(&t);
	snprintf(future, sizeof(future), "%s/future", t.projects);
	snprintf(ghost, sizeof(ghost), "%s/ghost", t.top);
	snprintf(deep, sizeof(deep), "%s/deeper/still", ghost);

	scope_deny(&s, future);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, deep), 0);
	DENIED(&s, "mkdir", future, NULL);
	DENIED(&s, "create", future, NULL);
	DENIED(&s, "symlink", t.mine, future);
	DENIED(&s, "mkdir", ghost, NULL);
	DENIED_MOVE(&s, "rename", t.mine, future);
	/* Made after the compile, by someone else: still unreachable. */
	mkdir(future, 0755);
	write_file(join(future, "f"), "f\n", 0644);
	DENIED(&s, "read", join(future, "f"), NULL);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_rename_link_write)
{
	struct tree t;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	scope_deny(&s, t.other);
	expand_way(&s);
	/* In, out, and through hard links. */
	DENIED_MOVE(&s, "rename", join(t.mine, "file"), join(t.other, "file"));
	DENIED_MOVE(&s, "rename", t.secret, join(t.mine, "stolen"));
	DENIED_MOVE(&s, "rename", t.other, join(t.mine, "stolen"));
	DENIED_MOVE(&s, "link", t.secret, join(t.mine, "stolen"));
	DENIED_MOVE(&s, "link", join(t.mine, "file"), join(t.other, "planted"));
	DENIED(&s, "symlink", "/etc/passwd", join(t.other, "planted"));
	DENIED(&s, "unlink", t.secret, NULL);
	DENIED(&s, "truncate", t.secret, NULL);
	/* Moving things between granted directories still works. */
	ALLOWED(&s, "rename", join(t.mine, "file"), join(t.third, "moved"));
	ALLOWED(&s, "link", join(t.third, "moved"), join(t.mine, "again"));
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_nested_wider_scope)
{
	struct tree t;
	sbx_scopeattr_t s;
	char *out;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	scope_deny(&s, t.other);
	expand_way(&s);
	/* The child starts its own child with a scope that denies nothing. */
	char *argv[] = { NESTED, FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "EACCES"));
	free(out);
	/* ... or that grants reading everywhere. */
	char *argv2[] = { NESTED, "-r", "/", FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(run_scoped(&s, argv2, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "EACCES"));
	free(out);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* ---- the ruleset descriptor -------------------------------------------- */

START_TEST(test_ruleset_fd_never_reaches_the_program)
{
	struct tree t;
	sbx_scopeattr_t s;
	sbx_file_actions_t fa;
	char *out;
	char *argv[] = { FSOP, "fds", NULL };
	pid_t pid;
	int status;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	scope_deny(&s, t.other);
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	ck_assert_ptr_null(strstr(out, "landlock"));
	free(out);

	/* Compiled once, the ruleset lives in the parent as a descriptor whose
	 * number a caller might name; in the child it is not there. */
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	int rfd = -1;
	for (int fd = 3; fd < 1024 && rfd < 0; fd++) {
		char link[64], target[256];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n > 0 && (target[n] = '\0', strstr(target, "landlock")))
			rfd = fd;
	}
	ck_assert_int_ge(rfd, 3);
	sbx_file_actions_init(&fa);
	sbx_file_actions_adddup2(&fa, rfd, 5);
	ck_assert_int_eq(sbx_posix_spawn(&pid, FSOP, &fa, NULL, &s, argv, environ), EBADF);
	sbx_file_actions_destroy(&fa);

	/* closefrom below it spares it: the child is still confined. */
	sbx_file_actions_init(&fa);
	sbx_file_actions_addclosefrom(&fa, 3);
	char *cat[] = { FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbx_posix_spawn(&pid, FSOP, &fa, NULL, &s, cat, environ), 0);
	status = wait_status(pid);
	ck_assert_int_eq(WEXITSTATUS(status), 1);
	/* Targets above it push it further up. */
	sbx_file_actions_destroy(&fa);
	sbx_file_actions_init(&fa);
	sbx_file_actions_adddup2(&fa, 1, rfd);
	sbx_file_actions_adddup2(&fa, 1, rfd + 10);
	ck_assert_int_eq(sbx_posix_spawn(&pid, FSOP, &fa, NULL, &s, cat, environ), 0);
	ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 1);
	sbx_file_actions_destroy(&fa);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* The descriptors the library keeps in the parent (rulesets, the mount
 * tables they watch), of this scope and of others: the numbers it holds. */
static int library_fds(int *v, int cap)
{
	int n = 0;

	for (int fd = 3; fd < 1024 && n < cap; fd++) {
		char link[64], target[256];
		ssize_t len;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		len = readlink(link, target, sizeof(target) - 1);
		if (len > 0 && (target[len] = '\0', strstr(target, "landlock") || strstr(target, "mountinfo")))
			v[n++] = fd;
	}
	return n;
}

static int spawn_with(sbx_scopeattr_t *s, sbx_file_actions_t *fa, char **argv)
{
	pid_t pid;
	int err = sbx_posix_spawn(&pid, FSOP, fa, NULL, s, argv, environ);

	if (err == 0)
		err = WIFEXITED(wait_status(pid)) ? 0 : -1;
	return err;
}

START_TEST(test_library_descriptors_invisible)
{
	struct tree t;
	sbx_scopeattr_t a, b;
	sbx_file_actions_t fa;
	char *argv[] = { FSOP, "read", NULL, NULL };
	int fds[16], n, reused, status;
	pid_t pid;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	argv[2] = t.secret;
	scope_deny(&a, t.other);
	scope_deny(&b, t.third);
	usleep(200 * 1000); /* a tree this fresh is not worth keeping a compile of */
	/* Both scopes compiled and kept: each holds a ruleset and the mount
	 * table it watches, at numbers the caller believes free. */
	ck_assert_int_eq(run_scoped(&a, argv, NULL), 1);
	ck_assert_int_eq(run_scoped(&b, argv, NULL), 0);
	n = library_fds(fds, 16);
	ck_assert_int_ge(n, 4);
	for (int i = 0; i < n; i++) {
		/* Named by a file action, each is as closed as the caller thinks:
		 * fchdir, dup2 and tcsetpgrp say EBADF. */
		sbx_file_actions_init(&fa);
		sbx_file_actions_addfchdir(&fa, fds[i]);
		ck_assert_int_eq(spawn_with(&a, &fa, argv), EBADF);
		sbx_file_actions_destroy(&fa);
		sbx_file_actions_init(&fa);
		sbx_file_actions_adddup2(&fa, fds[i], 200);
		ck_assert_int_eq(spawn_with(&b, &fa, argv), EBADF);
		ck_assert_int_eq(spawn_with(NULL, &fa, argv), EBADF);
		sbx_file_actions_destroy(&fa);
	}
	/* The caller closes one of them and reuses its number: the library
	 * neither uses it nor hides it, and compiles again; the child gets
	 * the caller's file there. */
	for (int i = 0; i < n; i++) {
		int nul = fcntl(open("/dev/null", O_RDONLY | O_CLOEXEC), F_DUPFD_CLOEXEC, 100);

		/* dup2 over it: the number is the caller's file now (whether
		 * the library still held it or had closed it already). */
		reused = dup2(nul, fds[i]);
		ck_assert_int_eq(reused, fds[i]);
		close(nul);
		sbx_file_actions_init(&fa);
		sbx_file_actions_adddup2(&fa, reused, 200);
		ck_assert_int_eq(sbx_posix_spawn(&pid, FSOP, &fa, NULL, &a, argv, environ), 0);
		status = wait_status(pid);
		ck_assert_int_eq(WEXITSTATUS(status), 1); /* still confined */
		ck_assert_int_eq(sbx_posix_spawn(&pid, FSOP, &fa, NULL, &b, argv, environ), 0);
		ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 0);
		sbx_file_actions_destroy(&fa);
		ck_assert_int_ge(fcntl(reused, F_GETFD), 0); /* the caller's, open */
	}
	sbx_scopeattr_destroy(&a);
	sbx_scopeattr_destroy(&b);
	for (int i = 0; i < n; i++)
		ck_assert_int_ge(fcntl(fds[i], F_GETFD), 0); /* not closed by a destroy */
	tree_free(&t);
}
END_TEST

/* What a kept scope holds (its ruleset, the mount table it watches, its
 * inotify queue) sits out of the caller's way: after spawns with it,
 * compiled, reused, reused after a change, compiled again, the caller's
 * next open() returns what it returns after posix_spawn; a destroy
 * releases it all. */
START_TEST(test_next_open_unchanged)
{
	struct tree t;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", NULL, NULL }, added[4096];
	int expect, fd, before, held;
	pid_t pid;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	argv[2] = t.secret;
	ck_assert_int_eq(posix_spawn(&pid, FSOP, NULL, NULL, argv, environ), 0);
	ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 0);
	expect = open("/dev/null", O_RDONLY | O_CLOEXEC);
	close(expect);
	before = count_fds();
	scope_deny(&s, t.other);
	usleep(200 * 1000); /* a tree this fresh is not worth keeping a compile of */
	for (int i = 0; i < 4; i++) {
		if (i == 2) {
			snprintf(added, sizeof(added), "%s/added", t.projects);
			write_file(added, "new\n", 0644);
		}
		if (i == 3)
			ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
		ck_assert_int_eq(run_scoped(&s, argv, NULL), 1);
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		ck_assert_msg(fd == expect, "spawn %d: the next open() gave %d, after posix_spawn %d", i, fd,
		              expect);
		close(fd);
	}
	held = count_fds() - before;
	ck_assert_msg(held >= 2, "the kept scope holds %d descriptors", held);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(count_fds(), before);
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
	tcase_add_test(tc, test_symlinks);
	tcase_add_test(tc, test_relative_and_normalised);
	tcase_add_test(tc, test_nonexistent_denied);
	tcase_add_test(tc, test_rename_link_write);
	tcase_add_test(tc, test_nested_wider_scope);
	tcase_add_test(tc, test_ruleset_fd_never_reaches_the_program);
	tcase_add_test(tc, test_library_descriptors_invisible);
	tcase_add_test(tc, test_next_open_unchanged);
	tcase_add_test(tc, test_abi_cap);
	suite_add_tcase(s, tc);
	return s;
}
