/* SPDX-License-Identifier: MIT */
/* The denials that are refused (of "/", of the C runtime), and the second
 * names of a denial that are warned about (bind mounts, hard links, a moved
 * mount), each provoked on the real kernel; and the compile where the
 * mount table or /proc cannot be read, a forged line in a path, a reuse
 * after "..".  Part of the outcomes suite (check_outcomes.c). */
#include "config.h"

#include <dlfcn.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/recorder.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif


/* ---- denials refused, aliases warned ------------------------------------- */

START_TEST(test_ignored_denials)
{
	struct seen seen;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", "/etc/passwd", NULL };
	char *out, libc[4096];
	Dl_info info;

	REQUIRE_LANDLOCK();
	scope_make(&s, &seen, "/");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	free(out);
	ck_assert_int_eq(seen.count[SBX_EVENT_IGNORED_DENY], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_IGNORED_DENY], "/");
	sbx_scopeattr_destroy(&s);

	/* The directory that holds this process's C library (glibc's, or
	 * musl's, which is its loader too), where the loader found it. */
	ck_assert(dladdr((void *)&getpid, &info) && info.dli_fname);
	ck_assert_ptr_nonnull(realpath(info.dli_fname, libc));
	scope_make(&s, &seen, dirname(libc));
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	free(out);
	ck_assert_int_eq(seen.count[SBX_EVENT_IGNORED_DENY], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_IGNORED_DENY], libc);
	/* Re-admitted below the denial, the runtime is not in the way. */
	sbx_scopeattr_destroy(&s);
	scope_make(&s, &seen, "/usr");
	sbx_scopeattr_addallow(&s, libc);
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	free(out);
	ck_assert_int_eq(seen.count[SBX_EVENT_IGNORED_DENY], 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

START_TEST(test_bind_mount_alias)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", NULL, NULL };
	char beside[4096], up[4096], inside[4096], *out;

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	tree_make(&t);
	/* A second name of the denied directory beside it, one of its parent
	 * in an expanded directory above, and one inside a granted directory. */
	snprintf(beside, sizeof(beside), "%s/alias", t.projects);
	snprintf(up, sizeof(up), "%s/projects-again", t.top);
	snprintf(inside, sizeof(inside), "%s/mnt", t.mine);
	mkdir(beside, 0755);
	mkdir(up, 0755);
	mkdir(inside, 0755);
	ck_assert_int_eq(mount(t.other, beside, NULL, MS_BIND, NULL), 0);
	ck_assert_int_eq(mount(t.projects, up, NULL, MS_BIND, NULL), 0);
	ck_assert_int_eq(mount(t.other, inside, NULL, MS_BIND, NULL), 0);
	scope_make(&s, &seen, t.other);
	expand_way(&s);

	/* The denied name stays denied: a grant on a second name in an
	 * expanded directory would have landed on the same inode. */
	argv[2] = t.secret;
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	/* Those second names are not granted ... */
	argv[2] = (char *)join(beside, "secret");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	argv[2] = (char *)join(up, "other/secret");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	/* ... but one inside a granted directory reads it: the documented
	 * limit, which the compile reports, naming both names. */
	argv[2] = (char *)join(inside, "secret");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	free(out);
	ck_assert_int_ge(seen.count[SBX_EVENT_ALIAS], 3);
	ck_assert_str_eq(seen.path[SBX_EVENT_ALIAS], t.other);
	ck_assert_str_eq(seen.path2[SBX_EVENT_ALIAS], inside);
	sbx_scopeattr_destroy(&s);

	/* Denying every name closes it, quietly. */
	scope_make(&s, &seen, t.other);
	expand_way(&s);
	sbx_scopeattr_adddeny(&s, inside);
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	sbx_scopeattr_destroy(&s);
	umount(inside);
	umount(up);
	umount(beside);
	tree_free(&t);
}
END_TEST

START_TEST(test_hard_link_alias)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", NULL, NULL };
	char denied[4096], beside[4096], inside[4096], *out;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	/* A denied file with a second name beside it (in the expanded
	 * directory) and one in a granted directory, made before the spawn. */
	snprintf(denied, sizeof(denied), "%s/key", t.projects);
	snprintf(beside, sizeof(beside), "%s/key-link", t.projects);
	snprintf(inside, sizeof(inside), "%s/key-link", t.mine);
	write_file(denied, "the-key\n", 0644);
	ck_assert_int_eq(link(denied, beside), 0);
	ck_assert_int_eq(link(denied, inside), 0);
	scope_make(&s, &seen, denied);
	argv[2] = denied;
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	argv[2] = beside;
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	ck_assert_int_ge(seen.count[SBX_EVENT_ALIAS], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_ALIAS], denied);
	/* The limit: a hard link in a granted directory is a second name
	 * nothing looks for. */
	argv[2] = inside;
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	free(out);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_alias_directory_expanded)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", NULL, NULL };
	char sub[4096], alias[4096], *out;

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	tree_make(&t);
	snprintf(sub, sizeof(sub), "%s/sub", t.other);
	snprintf(alias, sizeof(alias), "%s/x", t.mine);
	mkdir(sub, 0755);
	mkdir(alias, 0755);
	write_file(join(sub, "key"), "the-key\n", 0644);
	ck_assert_int_eq(mount(sub, alias, NULL, MS_BIND, NULL), 0);
	/* Denying something below the second name makes the compile list it:
	 * its entries are inodes of the denied directory and must not be
	 * granted, whichever name they are reached by. */
	scope_make(&s, &seen, t.other);
	sbx_scopeattr_adddeny(&s, join(alias, "nonexistent"));
	argv[2] = (char *)join(sub, "key");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	ck_assert_ptr_null(strstr(out, "the-key"));
	free(out);
	argv[2] = (char *)join(alias, "key");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	ck_assert_int_ge(seen.count[SBX_EVENT_ALIAS], 1);
	sbx_scopeattr_destroy(&s);
	umount2(alias, MNT_DETACH);
	tree_free(&t);
}
END_TEST

START_TEST(test_alias_moved_mount)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", NULL, NULL };
	char sub[4096], staging[4096], x[4096], *out;

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	tree_make(&t);
	snprintf(sub, sizeof(sub), "%s/sub", t.other);
	snprintf(staging, sizeof(staging), "%s/staging", t.top);
	snprintf(x, sizeof(x), "%s/x", t.projects);
	mkdir(sub, 0755);
	mkdir(staging, 0755);
	mkdir(x, 0755);
	write_file(join(sub, "key"), "the-key\n", 0644);
	/* A bind made first, moved on top of a mount made later: the mount
	 * table lists them by age, not by which one is seen. */
	ck_assert_int_eq(mount(sub, staging, NULL, MS_BIND, NULL), 0);
	ck_assert_int_eq(mount("none", x, "tmpfs", 0, NULL), 0);
	ck_assert_int_eq(mount(staging, x, NULL, MS_MOVE, NULL), 0);
	scope_make(&s, &seen, t.other);
	argv[2] = (char *)join(sub, "key");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	ck_assert_ptr_null(strstr(out, "the-key"));
	free(out);
	argv[2] = (char *)join(x, "key");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	free(out);
	sbx_scopeattr_destroy(&s);
	umount2(x, MNT_DETACH);
	umount2(x, MNT_DETACH);
	tree_free(&t);
}
END_TEST

START_TEST(test_no_mount_table)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", NULL, NULL };
	pid_t pid;

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	tree_make(&t);
	argv[2] = t.secret;
	scope_make(&s, &seen, t.other);
	/* Without /proc no second name can be told apart: the spawn fails,
	 * it does not grant blind. */
	hide_proc();
	ck_assert_int_eq(sbx_posix_spawn(&pid, FSOP, NULL, NULL, &s, argv, environ), ENOENT);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	/* Back, for whatever reads it at exit (a leak checker does). */
	show_proc();
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* Without /proc, a scope that restricts nothing needs no mount table: it
 * re-admits, and nothing is denied that a second name could show. */
START_TEST(test_allow_only_without_proc)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	/* Not a helper of ours: one built with a sanitizer reads /proc as it
	 * starts. */
	char *argv[] = { "/bin/cat", NULL, NULL };
	sbx_outcome_t oc;
	pid_t pid;

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	tree_make(&t);
	argv[1] = t.secret;
	scope_make(&s, &seen, NULL);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, t.other), 0);
	hide_proc();
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/cat", NULL, NULL, &s, argv, environ), 0);
	ck_assert_int_eq(WEXITSTATUS(wait_status(pid)), 0);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_CONFINED);
	show_proc();
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* A name holding a newline and what looks like a line of the library's own
 * must not forge a second line: every event is one line, its names
 * escaped (and bytes that are no text, too). */
START_TEST(test_forged_log_line)
{
	struct tree t;
	sbx_scopeattr_t s;
	char forged[4096], bad[4096], *argv[] = { "true", NULL }, buf[65536];
	int fd = memfd_create("stderr", 0), saved = dup(2), lines = 0;
	ssize_t n;
	pid_t pid;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	/* Hard-linked (so that the compile says it stays unreachable). */
	snprintf(forged, sizeof(forged), "%s/x\nsbxspawn: forged \033[2J", t.projects);
	snprintf(bad, sizeof(bad), "%s/\xff\xfe", t.projects);
	write_file(forged, "x\n", 0644);
	ck_assert_int_eq(link(forged, join(t.mine, "l1")), 0);
	ck_assert_int_eq(link(forged, bad), 0);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0); /* the default logger */
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	dup2(fd, 2);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, argv, environ), 0);
	dup2(saved, 2);
	wait_status(pid);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	for (char *p = buf; *p; p = strchr(p, '\n') + 1) {
		ck_assert_msg(!strncmp(p, "sbxspawn: ", 10), "a line not the library's: %s", p);
		ck_assert_msg(strncmp(p, "sbxspawn: forged", 16), "a forged line: %s", buf);
		lines += strstr(p, "stay unreachable") && strstr(p, "stay unreachable") < strchr(p, '\n');
	}
	/* The two said in one line (the names in it escaped as in any). */
	ck_assert_int_eq(lines, 1);
	ck_assert_ptr_nonnull(strstr(buf, "2 entries of "));
	ck_assert_ptr_nonnull(strstr(buf, "x\\nsbxspawn: forged \\x1b[2J"));
	ck_assert_ptr_nonnull(strstr(buf, "\\xff\\xfe"));
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_reuse_after_dotdot)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", NULL, NULL };
	char via[4096], y[4096], elsewhere[4096], *out;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	/* deny T/x/y/../../projects/other: resolved when added, through the
	 * real directories T/x/y, to T/projects/other. */
	snprintf(y, sizeof(y), "%s/x/y", t.top);
	mkdir(join(t.top, "x"), 0755);
	mkdir(y, 0755);
	snprintf(via, sizeof(via), "%s/../../projects/other", y);
	scope_make(&s, &seen, via);
	argv[2] = t.secret;
	for (int i = 0; i < 10; i++) {
		ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
		free(out);
	}
	/* y becomes a symlink: the same words would now name another
	 * directory, but the scope names what they named when it was made. */
	snprintf(elsewhere, sizeof(elsewhere), "%s/e/f", t.third);
	mkdir(join(t.third, "e"), 0755);
	mkdir(elsewhere, 0755);
	mkdir(join(t.third, "projects"), 0755);
	mkdir(join(join(t.third, "projects"), "other"), 0755);
	write_file(join(join(join(t.third, "projects"), "other"), "key"), "moved-key\n", 0644);
	rmdir(y);
	ck_assert_int_eq(symlink(elsewhere, y), 0);
	ck_assert_int_eq(run_scoped(&s, argv, &out), 1);
	ck_assert_ptr_null(strstr(out, "the-secret"));
	free(out);
	argv[2] = (char *)join(join(join(t.third, "projects"), "other"), "key");
	ck_assert_int_eq(run_scoped(&s, argv, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "moved-key"));
	free(out);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

void aliases_tests(TCase *tc)
{
	tcase_add_test(tc, test_ignored_denials);
	tcase_add_test(tc, test_bind_mount_alias);
	tcase_add_test(tc, test_hard_link_alias);
	tcase_add_test(tc, test_alias_directory_expanded);
	tcase_add_test(tc, test_alias_moved_mount);
	tcase_add_test(tc, test_no_mount_table);
	tcase_add_test(tc, test_reuse_after_dotdot);
	tcase_add_test(tc, test_allow_only_without_proc);
	tcase_add_test(tc, test_forged_log_line);
}
