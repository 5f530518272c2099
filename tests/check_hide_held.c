/* SPDX-License-Identifier: MIT */
/* Hidden denials, continued (check_hide.c holds the cover): what the child
 * holds from before its namespace makes the spawn expand instead (its
 * working directory, a descriptor it inherits, one whose name is too long
 * to read).  check_hide_ways.c has the ways chosen and what differs. */
#include "config.h"

#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "tests/hide.h"

/* ---- 4. what the child holds from before its namespace ---------------------- */

struct extra {
	int kind; /* 0 none, 1 chdir, 2 open, 3 fchdir, 4 closefrom */
	const char *path;
	int fd;
};

/* argv under s, with the test's file action after the output's: the
 * verdict, as verdict_of. */
static const char *with_action(const sbx_scopeattr_t *s, struct extra x, char *const argv[],
                               bool may_leak)
{
	static char v[256];
	sbx_file_actions_t fa;
	int out = memfd_create("out", MFD_CLOEXEC), err, status;
	char *o, *nl;
	pid_t pid;

	sbx_file_actions_init(&fa);
	sbx_file_actions_adddup2(&fa, out, 1);
	sbx_file_actions_adddup2(&fa, out, 2);
	if (x.kind == 1)
		sbx_file_actions_addchdir(&fa, x.path);
	else if (x.kind == 2)
		sbx_file_actions_addopen(&fa, x.fd, x.path, O_RDONLY, 0);
	else if (x.kind == 3)
		sbx_file_actions_addfchdir(&fa, x.fd);
	else if (x.kind == 4)
		sbx_file_actions_addclosefrom(&fa, x.fd);
	err = sbx_posix_spawn(&pid, argv[0], &fa, NULL, s, argv, environ);
	sbx_file_actions_destroy(&fa);
	ck_assert_msg(!err, "the spawn failed: %s (%s)", sbx_strerror(err), said);
	status = wait_status(pid);
	(void)status;
	o = calloc(1, 65536);
	ck_assert_int_ge(pread(out, o, 65535, 0), 0);
	close(out);
	ck_assert_msg(may_leak || !strstr(o, SECRET), "ESCAPE: %s", o);
	while ((nl = strrchr(o, '\n')) && !nl[1])
		*nl = '\0';
	nl = strrchr(o, '\n');
	snprintf(v, sizeof(v), "%s", nl ? nl + 1 : o);
	free(o);
	return v;
}

START_TEST(test_hide_held_working_directory)
{
	sbx_scopeattr_t s;
	char here[4096];

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	scope_deny(&s, ssh, 0);
	/* A chdir action into the denial: expanded, and Landlock refuses. */
	ck_assert_str_eq(with_action(NULL, (struct extra){ 1, ssh, 0 }, ARGV(FSOP, "read", "id"), true),
	                 "ok");
	ck_assert_str_eq(with_action(&s, (struct extra){ 1, ssh, 0 }, ARGV(FSOP, "read", "id"), false),
	                 "EACCES");
	outcome(0, 1);
	ck_assert_ptr_nonnull(strstr(said, "the working directory"));
	/* The caller's own, there. */
	ck_assert_ptr_nonnull(getcwd(here, sizeof(here)));
	ck_assert_int_eq(chdir(ssh), 0);
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", "id"), "EACCES");
	outcome(0, 1);
	ck_assert_int_eq(chdir(here), 0);
	/* Above the denial it stays hidden: the lookup meets the cover. */
	REFUSED(&s, FSOP, "read", key);
	outcome(1, 0);
	ck_assert(denied_verdict(with_action(&s, (struct extra){ 1, home, 0 },
	                                     ARGV(FSOP, "read", ".ssh/id"), false)));
	outcome(1, 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

START_TEST(test_hide_held_descriptors)
{
	sbx_scopeattr_t s;
	char num[16], rel[4600];
	int dir;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	dir = open(t.top, O_RDONLY | O_DIRECTORY); /* left open past exec */
	ck_assert_int_ge(dir, 0);
	snprintf(num, sizeof(num), "%d", dir);
	snprintf(rel, sizeof(rel), "home/.ssh/id");
	/* The control: from the inherited directory, the key. */
	ck_assert_str_eq(verdict_of(NULL, ARGV(ESCAPE, "openat", num, rel), true, NULL), "ok");
	/* An inherited directory, anywhere (".." climbs from it): expanded. */
	scope_deny(&s, ssh, 0);
	ck_assert_str_eq(VERDICT(&s, ESCAPE, "openat", num, rel), "EACCES");
	outcome(0, 1);
	ck_assert_ptr_nonnull(strstr(said, "directory descriptor"));
	/* Closed by the file actions: hidden again. */
	REFUSED(&s, FSOP, "read", key);
	ck_assert(denied_verdict(with_action(&s, (struct extra){ 4, NULL, 3 },
	                                     ARGV(FSOP, "read", key), false)));
	outcome(1, 0);
	/* fchdir to one close-on-exec: the working directory names the
	 * caller's tree, expanded. */
	ck_assert_int_eq(fcntl(dir, F_SETFD, FD_CLOEXEC), 0);
	ck_assert_str_eq(with_action(&s, (struct extra){ 3, NULL, dir }, ARGV(FSOP, "read", rel),
	                             false), "EACCES");
	outcome(0, 1);
	/* A file in the denial opened by a file action: the child's, either
	 * way; the spawn expands, so that no reopen widens it. */
	ck_assert_str_eq(with_action(&s, (struct extra){ 2, key, 3 }, ARGV(ESCAPE, "fd-read", "3"), true),
	                 "ok");
	outcome(0, 1);
	sbx_scopeattr_destroy(&s);
	/* Demanded, hiding refuses the spawn that holds one. */
	ck_assert_int_eq(fcntl(dir, F_SETFD, 0), 0);
	scope_deny(&s, ssh, SBX_SCOPE_HIDE);
	ck_assert_int_eq(run_scoped(&s, ARGV(FSOP, "read", key), NULL), -1000 - EINVAL);
	ck_assert_ptr_nonnull(strstr(said, "SBX_SCOPE_HIDE: nothing runs"));
	sbx_scopeattr_destroy(&s);
	close(dir);
}
END_TEST

/* A chain of directories in .ssh whose whole name is longer than PATH_MAX,
 * a file at its bottom: the bottom, opened and left open past exec. */
#define DEEP 20
static char deep_name[251];

static int deep_make(void)
{
	int fd = open(ssh, O_RDONLY | O_DIRECTORY | O_CLOEXEC), next, file, kept;

	memset(deep_name, 'd', 250);
	for (int i = 0; i < DEEP; i++) {
		ck_assert_int_eq(mkdirat(fd, deep_name, 0755), 0);
		next = openat(fd, deep_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ck_assert_int_ge(next, 0);
		close(fd);
		fd = next;
	}
	file = openat(fd, "deepfile", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_eq(write(file, SECRET "\n", strlen(SECRET) + 1), (ssize_t)strlen(SECRET) + 1);
	close(file);
	kept = fcntl(fd, F_DUPFD, 10); /* not close-on-exec */
	close(fd);
	return kept;
}

/* Bottom up, by descriptors: no name of it fits in PATH_MAX. */
static void deep_remove(int fd, int depth)
{
	int sub;

	if (depth == DEEP) {
		unlinkat(fd, "deepfile", 0);
		return;
	}
	if ((sub = openat(fd, deep_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		deep_remove(sub, depth + 1);
		close(sub);
	}
	unlinkat(fd, deep_name, AT_REMOVEDIR);
}

static void deep_free(int dir)
{
	int top = open(ssh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	close(dir);
	ck_assert_int_ge(top, 0);
	deep_remove(top, 0);
	close(top);
}

/* The deep chain made, its bottom's number in num: -1 where no denial can
 * be hidden here (said). */
static int deep_start(const char *test, char *num, size_t cap)
{
	int dir;

	if (!can_hide(test))
		return -1;
	dir = deep_make();
	snprintf(num, cap, "%d", dir);
	return dir;
}

/* What cannot be named in PATH_MAX is not known not to reach: an inherited
 * directory whose name is longer (the process's first spawn: the child
 * finds it), and a working directory there (the parent does). */
START_TEST(test_hide_held_long_names)
{
	char here[4096], num[16];
	sbx_scopeattr_t s;
	int dir;

	REQUIRE_LANDLOCK();
	if ((dir = deep_start(__func__, num, sizeof(num))) < 0)
		return;
	WORKS(ESCAPE, "openat", num, "deepfile");
	scope_deny(&s, ssh, 0);
	ck_assert(denied_verdict(VERDICT(&s, ESCAPE, "openat", num, "deepfile")));
	outcome(0, 1);
	ck_assert_ptr_nonnull(strstr(said, "directory descriptor"));
	ck_assert_int_eq(fcntl(dir, F_SETFD, FD_CLOEXEC), 0);
	ck_assert_ptr_nonnull(getcwd(here, sizeof(here)));
	ck_assert_int_eq(fchdir(dir), 0);
	WORKS(FSOP, "read", "deepfile");
	ck_assert(denied_verdict(VERDICT(&s, FSOP, "read", "deepfile")));
	outcome(0, 1);
	ck_assert_int_eq(chdir(here), 0);
	sbx_scopeattr_destroy(&s);
	deep_free(dir);
}
END_TEST

/* Demanded hidden, the same process's first spawn refuses (EINVAL). */
START_TEST(test_hide_held_long_names_demanded)
{
	char num[16];
	sbx_scopeattr_t s;
	int dir;

	REQUIRE_LANDLOCK();
	if ((dir = deep_start(__func__, num, sizeof(num))) < 0)
		return;
	scope_deny(&s, ssh, SBX_SCOPE_HIDE);
	ck_assert_int_eq(run_scoped(&s, ARGV(ESCAPE, "openat", num, "deepfile"), NULL),
	                 -1000 - EINVAL);
	ck_assert_ptr_nonnull(strstr(said, "SBX_SCOPE_HIDE: nothing runs"));
	sbx_scopeattr_destroy(&s);
	deep_free(dir);
}
END_TEST

Suite *suite_hide_held(void)
{
	Suite *su = suite_create("hide-held");
	TCase *tc = tcase_create("held");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_hide_held_working_directory);
	tcase_add_test(tc, test_hide_held_descriptors);
	tcase_add_test(tc, test_hide_held_long_names);
	tcase_add_test(tc, test_hide_held_long_names_demanded);
	suite_add_tcase(su, tc);
	return su;
}
