/* SPDX-License-Identifier: MIT */
/* A hidden denial that re-admits paths beneath it: each one bound back into
 * the cover, nothing above the denial frozen.  The agent's scope: the home
 * directory denied, the project in it re-admitted.  Each act is shown
 * working without a scope first; expanded, the same scope freezes the
 * directories above the denial (the trap the binds are for). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "tests/hide.h"

static char proj[4400], notes[4400];

/* The home directory denied, its project and a file of notes re-admitted. */
static void scope_home(sbx_scopeattr_t *s, int flags)
{
	snprintf(proj, sizeof(proj), "%s/proj", home);
	snprintf(notes, sizeof(notes), "%s/notes", home);
	mkdir(proj, 0755);
	write_file(join(proj, "src"), "src\n", 0644);
	write_file(notes, "notes\n", 0644);
	scope_deny(s, home, flags);
	ck_assert_int_eq(sbx_scopeattr_addallow(s, proj), 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(s, notes), 0);
}

/* Whether a path re-admitted beneath a hidden denial is bound back here:
 * not where open_tree(2) or move_mount(2) is missing (qemu-user 7), which
 * the library says, and expands; a SKIP line says so. */
static bool can_bind(const char *test)
{
	char dir[4600];
	sbx_scopeattr_t s;

	if (!can_hide(test))
		return false;
	snprintf(dir, sizeof(dir), "%s/probe", home);
	mkdir(dir, 0755);
	scope_deny(&s, home, 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, dir), 0);
	ck_assert_str_eq(VERDICT(&s, "/bin/sh", "-c", "echo ok"), "ok");
	sbx_scopeattr_destroy(&s);
	rmdir(dir);
	if (!strstr(said, "open_tree(2)"))
		return true;
	say_skip("SKIP %s: nothing is bound back here: %s\n", test, said);
	said[0] = '\0';
	return false;
}

START_TEST(test_hide_bind_readmitted)
{
	char cmd[16384], *out = NULL;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_bind(__func__))
		return;
	/* Expanded: the directory above the home is frozen. */
	scope_home(&s, SBX_SCOPE_EXPAND);
	WORKS(FSOP, "create", (char *)join(t.top, "fresh0"));
	ck_assert_str_eq(VERDICT(&s, FSOP, "create", (char *)join(t.top, "fresh1")), "EACCES");
	sbx_scopeattr_destroy(&s);

	/* Hidden, the re-admissions bound back in: nothing frozen. */
	scope_home(&s, 0);
	ck_assert_str_eq(VERDICT(&s, FSOP, "create", (char *)join(t.top, "fresh2")), "ok");
	outcome(1, 0);
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", (char *)join(proj, "src")), "ok");
	ck_assert_str_eq(VERDICT(&s, FSOP, "create", (char *)join(proj, "made")), "ok");
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", notes), "ok");
	ck_assert_str_eq(VERDICT(&s, FSOP, "write", notes), "ok");
	/* The rest of the home is out of reach, by name and from the project. */
	WORKS(FSOP, "read", key);
	REFUSED(&s, FSOP, "read", key);
	snprintf(cmd, sizeof(cmd), "cd '%s' && cat ../.ssh/id; ls -a ..; echo done", proj);
	ck_assert_str_eq(verdict_of(&s, ARGV("/bin/sh", "-c", cmd), false, &out), "done");
	/* Root lists the way in the cover; another user, nothing (mode 0111). */
	ck_assert_msg(!strstr(out, "\n.ssh\n") &&
	                      strstr(out, geteuid() ? "Permission denied" : "\nproj\n"),
	              "the cover shows other than the way:\n%s", out);
	free(out);
	/* The project cannot be renamed away, nor the cover written. */
	snprintf(cmd, sizeof(cmd), "mv '%s' '%s/moved' && echo ok", proj, home);
	ck_assert_str_ne(VERDICT(&s, "/bin/sh", "-c", cmd), "ok");
	REFUSED(&s, FSOP, "create", (char *)join(home, "planted"));
	secret_intact();
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* The working directory in the project: entered again through the binds,
 * where ".." meets the cover, in the project and two levels beneath the
 * denial (where ".." from the caller's tree meets the directory between,
 * no cover: an outside attack read it); the spawn hides, not expands. */
START_TEST(test_hide_bind_cwd_inside)
{
	sbx_scopeattr_t s;
	char *out = NULL;

	REQUIRE_LANDLOCK();
	if (!can_bind(__func__))
		return;
	scope_home(&s, 0);
	ck_assert_int_eq(run_scoped_cwd(NULL, proj, ARGV(FSOP, "read", "../.ssh/id"), &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "ok"));
	free(out);
	ck_assert_int_eq(run_scoped_cwd(&s, proj, ARGV(FSOP, "read", "../.ssh/id"), &out), 1);
	ck_assert_msg(!strstr(out, SECRET), "ESCAPE: from the project: %s", out);
	free(out);
	outcome(1, 0);
	ck_assert_int_eq(run_scoped_cwd(&s, proj, ARGV(FSOP, "read", "src"), &out), 0);
	free(out);
	outcome(1, 0);
	secret_intact();
	sbx_scopeattr_destroy(&s);

	/* Two levels down: home/src/deep re-admitted, home/src/other not. */
	char deep[4600], other[4600];

	snprintf(deep, sizeof(deep), "%s/src", home);
	mkdir(deep, 0755);
	snprintf(other, sizeof(other), "%s/src/other", home);
	mkdir(other, 0755);
	write_file(join(other, "key"), SECRET "\n", 0600);
	snprintf(deep, sizeof(deep), "%s/src/deep", home);
	mkdir(deep, 0755);
	scope_deny(&s, home, 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, deep), 0);
	ck_assert_int_eq(run_scoped_cwd(NULL, deep, ARGV(FSOP, "read", "../other/key"), &out), 0);
	free(out);
	ck_assert_int_eq(run_scoped_cwd(&s, deep, ARGV(FSOP, "read", "../other/key"), &out), 1);
	ck_assert_msg(!strstr(out, SECRET), "ESCAPE: from two levels down: %s", out);
	free(out);
	outcome(1, 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A file of the denial named as a path bound back, " (deleted)" after it,
 * as /proc shows a removed file: held (an O_PATH descriptor the command
 * reopens), it does not pass for the bound path (an outside attack read
 * it so); the spawn expands. */
START_TEST(test_hide_bind_deleted_name)
{
	char named[4600], link[64];
	sbx_scopeattr_t s;
	int fd;

	REQUIRE_LANDLOCK();
	if (!can_bind(__func__))
		return;
	scope_home(&s, 0);
	/* As the re-admitted directory, then as the re-admitted file. */
	for (int i = 0; i < 2; i++) {
		snprintf(named, sizeof(named), "%s (deleted)", i ? notes : proj);
		write_file(named, SECRET "\n", 0600);
		ck_assert_int_ge(fd = open(named, O_PATH), 0);
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		WORKS(FSOP, "read", link);
		REFUSED(&s, FSOP, "read", link);
		outcome(0, 1);
		close(fd);
	}
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* What cannot be bound back keeps the denial expanded, and says why: a
 * read-only path beneath it. */
START_TEST(test_hide_bind_readonly_expands)
{
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	snprintf(proj, sizeof(proj), "%s/proj", home);
	mkdir(proj, 0755);
	scope_deny(&s, home, 0);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, proj), 0);
	REFUSED(&s, FSOP, "read", key);
	outcome(0, 1);
	ck_assert_ptr_nonnull(strstr(said, "read-only"));
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A denial beneath a hidden one, not there: the cover above takes it away
 * with the rest, and nothing above the hidden denial freezes (expanded, it
 * froze the home: the command could create nothing there). */
START_TEST(test_hide_denial_beneath_absent)
{
	char inner[4600], made[4600];
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	snprintf(inner, sizeof(inner), "%s/not-there", ssh);
	snprintf(made, sizeof(made), "%s/made", home);
	scope_deny(&s, ssh, 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, inner), 0);
	ck_assert_str_eq(VERDICT(&s, FSOP, "create", made), "ok");
	outcome(1, 0);
	REFUSED(&s, FSOP, "read", key);
	REFUSED(&s, FSOP, "create", inner);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* How many mounts the child's table shows at path (the pins above copy
 * each one beneath them). */
static int mounted_at(const sbx_scopeattr_t *s, const char *path)
{
	char *out = NULL, point[4700];
	int n = 0;

	verdict_of(s, ARGV("/bin/cat", "/proc/self/mountinfo"), false, &out);
	snprintf(point, sizeof(point), " %s ", path);
	for (char *p = out; (p = strstr(p, point)); p++)
		n++;
	free(out);
	return n;
}

/* Up to 16 paths bound back; the 17th expands the denial, and says so.
 * Two nested denials that re-admit one path bind it once. */
START_TEST(test_hide_bind_limit)
{
	char dir[4600], inner[4600];
	sbx_scopeattr_t s;
	int once;

	REQUIRE_LANDLOCK();
	if (!can_bind(__func__))
		return;
	scope_deny(&s, home, 0);
	for (int i = 0; i < 17; i++) {
		snprintf(dir, sizeof(dir), "%s/p%02d", home, i);
		ck_assert_int_eq(mkdir(dir, 0755), 0);
		if (i < 16)
			ck_assert_int_eq(sbx_scopeattr_addallow(&s, dir), 0);
	}
	REFUSED(&s, FSOP, "read", key);
	outcome(1, 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, dir), 0);
	REFUSED(&s, FSOP, "read", key);
	outcome(0, 1);
	ck_assert_ptr_nonnull(strstr(said, "more than 16"));
	sbx_scopeattr_destroy(&s);

	snprintf(dir, sizeof(dir), "%s/p00", home);
	snprintf(inner, sizeof(inner), "%s/p00/in", home);
	ck_assert_int_eq(mkdir(inner, 0755), 0);
	scope_deny(&s, home, 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, inner), 0);
	once = mounted_at(&s, inner);
	ck_assert_int_ge(once, 1);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, dir), 0);
	ck_assert_int_eq(mounted_at(&s, inner), once);
	outcome(2, 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* The mount calls a cover is made with refused by a filter of the caller's
 * (whatever it answers): the covers go by their paths, as before those
 * calls, and the binds with them.  Each is first shown refused. */
static void calls_refused(long nr, int err)
{
	sbx_scopeattr_t s;

	seccomp_fail(nr, err);
	ck_assert_int_eq(syscall(nr, -1, NULL, 0, 0, 0), -1);
	ck_assert_int_eq(errno, err);
	scope_home(&s, 0);
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", (char *)join(proj, "src")), "ok");
	outcome(1, 0);
	ck_assert_str_eq(VERDICT(&s, FSOP, "create", (char *)join(proj, "made")), "ok");
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", notes), "ok");
	REFUSED(&s, FSOP, "read", key);
	REFUSED(&s, FSOP, "create", (char *)join(home, "planted"));
	secret_intact();
	sbx_scopeattr_destroy(&s);
}

/* The cover made read-only after its binds: by its path. */
START_TEST(test_hide_bind_setattr_refused)
{
	REQUIRE_LANDLOCK();
	if (can_bind(__func__) && filters_here(__func__))
		calls_refused(SYS_mount_setattr, EPERM);
}
END_TEST

/* No cover made detached: each by its path, the binds too. */
START_TEST(test_hide_bind_fsopen_refused)
{
	REQUIRE_LANDLOCK();
	if (can_bind(__func__) && filters_here(__func__))
		calls_refused(SYS_fsopen, EACCES);
}
END_TEST

Suite *suite_hide_bind(void)
{
	Suite *su = suite_create("hide-bind");
	TCase *tc = tcase_create("bind");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_hide_bind_readmitted);
	tcase_add_test(tc, test_hide_bind_cwd_inside);
	tcase_add_test(tc, test_hide_bind_readonly_expands);
	tcase_add_test(tc, test_hide_bind_limit);
	tcase_add_test(tc, test_hide_bind_deleted_name);
	tcase_add_test(tc, test_hide_denial_beneath_absent);
	tcase_add_test(tc, test_hide_bind_setattr_refused);
	tcase_add_test(tc, test_hide_bind_fsopen_refused);
	suite_add_tcase(su, tc);
	return su;
}
