/* SPDX-License-Identifier: MIT */
/* Escapes: a confined child that wants the denied secret and tries every
 * road a program has to it.  Each attempt runs on the real kernel, must fail
 * with the errno the kernel gives for it, and must never show the secret.
 * The roads that do lead in are the documented limits: their tests assert
 * exactly how far they go.  A test failing with "ESCAPE" is a way in that
 * the library claims is closed.
 *
 * This file: the roads through paths.  check_escape_kernel.c: those
 * through the kernel's other interfaces.  attempts.c: what both share. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/attempts.h"


/* ---- symlinks ------------------------------------------------------------- */

/* A symlink beside the denial, made before the spawn, pointing into it:
 * Landlock checks where a path lands, not the name it was reached by. */
START_TEST(test_symlink_beside_before)
{
	char *link = in(t.projects, "link");

	REQUIRE_LANDLOCK();
	ck_assert_int_eq(symlink(t.other, link), 0);
	FAILS("EACCES", FSOP, "read", in(link, "secret"));
	FAILS("EACCES", FSOP, "list", link);
}
END_TEST

/* A symlink inside a granted directory, made before the spawn, going up
 * with ../ into the denial: mine is granted, but the target is not in it. */
START_TEST(test_symlink_up_before)
{
	char *up = in(t.mine, "up");

	REQUIRE_LANDLOCK();
	ck_assert_int_eq(symlink("../other/secret", up), 0);
	FAILS("EACCES", FSOP, "read", up);
}
END_TEST

/* The child makes its own symlink to the secret in a directory where it
 * may make symlinks: making it works, following it lands in the denial. */
START_TEST(test_symlink_granted_during)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "symlink-read", t.secret, in(t.mine, "ln"), "");
	SAW("symlink ok");
	SAW("open EACCES");
}
END_TEST

/* The same, relative and going up: mine/up -> ../other, then up/secret. */
START_TEST(test_symlink_up_during)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "symlink-read", "../other", in(t.mine, "up"), "secret");
	SAW("symlink ok");
}
END_TEST

/* A symlink beside the denial, made by the child: projects is an expanded
 * directory, frozen, so nothing at all can be made in it. */
START_TEST(test_symlink_beside_during)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "symlink-read", t.other, in(t.projects, "ln"), "secret");
	SAW("symlink EACCES");
	ck_assert_int_eq(access(in(t.projects, "ln"), F_OK), -1);
}
END_TEST

/* A symlink the child makes to plant a new file in the denial: creating
 * through it is creating in other, which is denied. */
START_TEST(test_symlink_plant_during)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "symlink-create", "../other/planted", in(t.mine, "plant"));
	SAW("symlink ok");
	ck_assert_int_eq(access(in(t.other, "planted"), F_OK), -1);
}
END_TEST

/* ---- magic links in /proc ------------------------------------------------ */

/* /proc/self/root is a magic link to the child's own root: a different
 * road to the same place, checked at the place. */
START_TEST(test_proc_self_root)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", FSOP, "read", fmt("/proc/self/root%s", t.secret));
}
END_TEST

/* The unconfined parent's root: following another process's magic link
 * takes a ptrace check, and Landlock refuses it for a process outside the
 * domain (and the place would be denied anyway). */
START_TEST(test_proc_parent_root)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", FSOP, "read", fmt("/proc/%d/root%s", (int)getpid(), t.secret));
}
END_TEST

/* The unconfined parent's working directory, just above the denial:
 * /proc/<parent>/cwd/other/secret. */
START_TEST(test_proc_parent_cwd)
{
	REQUIRE_LANDLOCK();
	ck_assert_int_eq(chdir(t.projects), 0);
	FAILS("EACCES", FSOP, "read", fmt("/proc/%d/cwd/other/secret", (int)getpid()));
	FAILS("EACCES", FSOP, "list", fmt("/proc/%d/cwd/other", (int)getpid()));
}
END_TEST

/* A descriptor the parent holds on the secret (close-on-exec, so not
 * inherited), reached through /proc/<parent>/fd: the same ptrace check. */
START_TEST(test_proc_parent_fd)
{
	int fd = open(t.secret, O_RDONLY | O_CLOEXEC);

	REQUIRE_LANDLOCK();
	ck_assert_int_ge(fd, 0);
	FAILS("EACCES", FSOP, "read", fmt("/proc/%d/fd/%d", (int)getpid(), fd));
	close(fd);
}
END_TEST

/* ---- descriptors ---------------------------------------------------------- */

/* A leaked descriptor on a granted directory, and openat(fd, "../other/
 * secret"): a descriptor is a starting point, not a grant; where the walk
 * ends is what is checked. */
START_TEST(test_leaked_granted_dirfd)
{
	int fd = leak(t.mine, O_RDONLY | O_DIRECTORY);
	char num[16];

	REQUIRE_LANDLOCK();
	snprintf(num, sizeof(num), "%d", fd);
	/* It did reach the child. */
	ck_assert_str_eq(attempt(ESCAPE, "openat", num, "file"), "ok");
	FAILS("EACCES", ESCAPE, "openat", num, "../other/secret");
	close(fd);
}
END_TEST

/* A leaked descriptor on the denied directory itself, used as a name:
 * /proc/self/fd/N/secret, fchdir into it, openat beneath it.  Each is a new
 * open of a file in the denial, and each is checked. */
START_TEST(test_leaked_denied_dirfd_opens)
{
	int fd = leak(t.other, O_RDONLY | O_DIRECTORY);
	char num[16];

	REQUIRE_LANDLOCK();
	snprintf(num, sizeof(num), "%d", fd);
	FAILS("EACCES", FSOP, "read", fmt("/proc/self/fd/%d/secret", fd));
	FAILS("EACCES", ESCAPE, "openat", num, "secret");
	FAILS("EACCES", ESCAPE, "fchdir-read", num, "secret");
	SAW("fchdir ok");
	close(fd);
}
END_TEST

/* The documented limit: open descriptors are not rechecked.  The same
 * leaked descriptor on the denied directory still lists it (names, not
 * contents), and a leaked descriptor on the secret still reads it. */
START_TEST(test_limit_leaked_descriptors)
{
	int dfd = leak(t.other, O_RDONLY | O_DIRECTORY);
	int ffd = leak(t.secret, O_RDONLY);
	char num[16];

	REQUIRE_LANDLOCK();
	snprintf(num, sizeof(num), "%d", dfd);
	ck_assert_str_eq(attempt(ESCAPE, "fd-list", num), "ok");
	SAW("entry secret");
	snprintf(num, sizeof(num), "%d", ffd);
	ck_assert_str_eq(run(&s, NULL, ARGV(ESCAPE, "fd-read", num), true), "ok");
	ck_assert_ptr_nonnull(strstr(out, SECRET));
	close(dfd);
	close(ffd);
}
END_TEST

/* The inherited read descriptor on the secret, reopened through /dev/fd:
 * a reopen is a new open of the file where it lies, checked like any, for
 * writing and for reading alike. */
START_TEST(test_devfd_reopen)
{
	int fd = leak(t.secret, O_RDONLY);

	REQUIRE_LANDLOCK();
	FAILS("EACCES", FSOP, "write", fmt("/dev/fd/%d", fd));
	FAILS("EACCES", FSOP, "read", fmt("/dev/fd/%d", fd));
	secret_intact();
	close(fd);
}
END_TEST

/* ---- relative paths and working directories -------------------------------- */

/* From a working directory in a granted sibling, up and across. */
START_TEST(test_dotdot_from_sibling)
{
	REQUIRE_LANDLOCK();
	ck_assert_str_eq(attempt_in(t.mine, FSOP, "read", "file"), "ok");
	expect(attempt_in(t.mine, FSOP, "read", "../other/secret"), "EACCES");
	expect(attempt_in(t.mine, FSOP, "read", "./../mine/../other/./secret"), "EACCES");
	expect(attempt_in(t.mine, FSOP, "list", "../other"), "EACCES");
}
END_TEST

/* A chdir file action into the denial: it runs before the ruleset, and
 * chdir is not mediated anyway, so the child starts inside other; still,
 * every open there is checked. */
START_TEST(test_cwd_action_inside)
{
	REQUIRE_LANDLOCK();
	expect(attempt_in(t.other, ESCAPE, "cwd-list"), "EACCES");
	SAW(fmt("cwd %s", t.other));
	expect(attempt_in(t.other, FSOP, "read", "secret"), "EACCES");
	expect(attempt_in(t.other, FSOP, "read", "./secret"), "EACCES");
}
END_TEST

/* The child itself chdirs into the denial, confined: allowed, useless. */
START_TEST(test_chdir_inside)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "chdir-read", t.other, "secret");
	SAW("chdir ok");
}
END_TEST

/* ---- rename, link, exchange ------------------------------------------------ */

/* Into the denial: a file of ours moved in would be a way to plant. */
START_TEST(test_rename_into)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", FSOP, "rename", in(t.mine, "file"), in(t.other, "file"));
	ck_assert_int_eq(access(in(t.other, "file"), F_OK), -1);
}
END_TEST

/* Out of the denial: the secret moved to where reading is granted. */
START_TEST(test_rename_out)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", FSOP, "rename", t.secret, in(t.mine, "stolen"));
	FAILS("EACCES", FSOP, "rename", t.other, in(t.mine, "stolen"));
	secret_intact();
}
END_TEST

/* A hard link into the denial. */
START_TEST(test_link_into)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", FSOP, "link", in(t.mine, "file"), in(t.other, "planted"));
	ck_assert_int_eq(access(in(t.other, "planted"), F_OK), -1);
}
END_TEST

/* A hard link out of the denial: a second name in a granted directory is
 * exactly the limit the child must not be able to make for itself.  The
 * kernel says EXDEV: the link would give the file rights it lacks where it
 * is (Landlock's answer to a reparenting that widens access). */
START_TEST(test_link_out)
{
	REQUIRE_LANDLOCK();
	FAILS("EXDEV", FSOP, "link", t.secret, in(t.mine, "stolen"));
	ck_assert_int_eq(access(in(t.mine, "stolen"), F_OK), -1);
}
END_TEST

/* renameat2(RENAME_EXCHANGE): both directions in one call, the secret for
 * a file of ours. */
START_TEST(test_exchange_files)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "exchange", in(t.mine, "file"), t.secret);
	FAILS("EACCES", ESCAPE, "exchange", t.secret, in(t.mine, "file"));
	secret_intact();
}
END_TEST

/* Exchanging the denied directory with a granted sibling: both live in
 * projects, an expanded directory where nothing may be removed or made. */
START_TEST(test_exchange_dirs)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "exchange", t.mine, t.other);
	secret_intact();
}
END_TEST

/* ---- execution -------------------------------------------------------------- */

/* A program inside the denial: executing it needs EXECUTE there. */
START_TEST(test_exec_inside)
{
	char *prog = in(t.other, "true");

	REQUIRE_LANDLOCK();
	copy_file("/bin/true", prog, 0755);
	FAILS("EACCES", FSOP, "exec", prog);
}
END_TEST

/* The same program through an O_PATH descriptor and execveat: O_PATH opens
 * nothing, the exec is checked where the file lies. */
START_TEST(test_exec_opath)
{
	char *prog = in(t.other, "true");

	REQUIRE_LANDLOCK();
	copy_file("/bin/true", prog, 0755);
	FAILS("EACCES", ESCAPE, "opath-exec", prog);
	SAW("opath ok");
}
END_TEST

/* The same program handed to the dynamic loader, which maps it itself:
 * the loader must open it for reading, which is denied. */
START_TEST(test_exec_loader)
{
#if defined(__x86_64__)
	char *loader = "/lib64/ld-linux-x86-64.so.2";
#elif defined(__aarch64__)
	char *loader = "/lib/ld-linux-aarch64.so.1";
#else
	char *loader = "";
#endif
	char *prog = in(t.other, "true");
	char *o = NULL;

	REQUIRE_LANDLOCK();
	if (access(loader, X_OK)) {
		say_skip("SKIP %s: no dynamic loader known here\n", __func__);
		return;
	}
	copy_file("/bin/true", prog, 0755);
	ck_assert_int_eq(run_scoped(NULL, ARGV(loader, prog), &o), 0);
	free(o);
	ck_assert_int_ne(run_scoped(&s, ARGV(loader, prog), &o), 0);
	ck_assert_msg(strstr(o, "Permission denied") || (hid() && strstr(o, "No such file")),
	              "loader: %s", o);
	free(o);
}
END_TEST

Suite *suite_escape(void)
{
	Suite *su = suite_create("escape");
	/* Each attempt, and whether it runs against the denial hidden too: not
	 * what the expanded way alone has (a frozen directory, and its
	 * documented limits: inotify's names, chmod, hard links in a listed
	 * directory), whose hidden answers check_hide.c holds. */
	const struct attempt_case attempts[] = {
		{ test_symlink_beside_before, true },
		{ test_symlink_up_before, true },
		{ test_symlink_granted_during, true },
		{ test_symlink_up_during, true },
		{ test_symlink_beside_during, false },
		{ test_symlink_plant_during, true },
		{ test_proc_self_root, true },
		{ test_proc_parent_root, true },
		{ test_proc_parent_cwd, true },
		{ test_proc_parent_fd, true },
		{ test_leaked_granted_dirfd, true },
		{ test_leaked_denied_dirfd_opens, true },
		{ test_limit_leaked_descriptors, false },
		{ test_devfd_reopen, true },
		{ test_dotdot_from_sibling, true },
		{ test_cwd_action_inside, true },
		{ test_chdir_inside, true },
		{ test_rename_into, true },
		{ test_rename_out, true },
		{ test_link_into, true },
		{ test_link_out, true },
		{ test_exchange_files, true },
		{ test_exchange_dirs, true },
		{ test_exec_inside, true },
		{ test_exec_opath, true },
		{ test_exec_loader, true },
	};
	TCase *tc = tcase_create("attempts"), *hc = tcase_create("attempts-hidden");

	untimed(tc);
	untimed(hc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_checked_fixture(hc, setup_hidden, teardown);
	add_attempts(tc, hc, attempts, sizeof(attempts) / sizeof(attempts[0]));
	escape_kernel_attempts(tc, hc);
	suite_add_tcase(su, tc);
	suite_add_tcase(su, hc);
	suite_add_tcase(su, tcase_escape_world());
	return su;
}
