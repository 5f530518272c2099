/* SPDX-License-Identifier: MIT */
/* Confinement on the real kernel, continued (check_confine.c): the names a
 * scope is given (relative, through symlinks, "..", files, sockets) and
 * what the library does with them, and the ruleset descriptor (kept from a
 * caller's file actions, never inherited, closed where it must be). */
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

#define NESTED HELPER_DIR "/nested"

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

void confine_ruleset_tests(TCase *tc)
{
	tcase_add_test(tc, test_symlinks);
	tcase_add_test(tc, test_relative_and_normalised);
	tcase_add_test(tc, test_nonexistent_denied);
	tcase_add_test(tc, test_rename_link_write);
	tcase_add_test(tc, test_nested_wider_scope);
	tcase_add_test(tc, test_ruleset_fd_never_reaches_the_program);
	tcase_add_test(tc, test_library_descriptors_invisible);
	tcase_add_test(tc, test_next_open_unchanged);
}
