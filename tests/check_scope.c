/* SPDX-License-Identifier: MIT */
/* The scope object: its API, errors, and compile-once snapshots. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"

START_TEST(test_api_errors)
{
	sbx_scopeattr_t s;
	int v;

	errno = 99;
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, NULL), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, ""), ENOENT);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, ""), ENOENT);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, NULL), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/nonexistent/but/fine"), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, 0x20000), EINVAL);
	/* Hiding demanded and refused at once: no way is left. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_HIDE | SBX_SCOPE_EXPAND), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_REQUIRE), 0);
	ck_assert_int_eq(sbx_scopeattr_getflags(&s, &v), 0);
	ck_assert_int_eq(v, SBX_SCOPE_REQUIRE);
	ck_assert_int_eq(sbx_scopeattr_setabi(&s, -1), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_setabi(&s, 10), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_setabi(&s, 3), 0);
	ck_assert_int_eq(sbx_scopeattr_getabi(&s, &v), 0);
	ck_assert_int_eq(v, 3);
	ck_assert_int_eq(sbx_scopeattr_setabi(&s, 0), 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(&s, NULL, NULL), 0);
	ck_assert_int_eq(errno, 99);
	ck_assert_int_eq(sbx_scopeattr_destroy(&s), 0);
	/* A destroyed scope is refused, not taken for "no scope". */
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/x"), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_getflags(&s, &v), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), EINVAL);
	char *argv[] = { "true", NULL };
	pid_t pid;
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, argv, environ), EINVAL);
	ck_assert_int_eq(errno, 99);
	ck_assert_str_eq(sbx_strerror(SBX_EREFUSED),
	                 "the scope's confinement is refused (Landlock refused the ruleset, or a "
	                 "control could not be applied): nothing runs under it");
	ck_assert_str_eq(sbx_strerror(ENOENT), "No such file or directory");
}
END_TEST

START_TEST(test_unresolvable_path)
{
	sbx_scopeattr_t s;
	char loop[64], *longpath = malloc(PATH_MAX + 64);

	/* Paths are resolved when they are added: one whose symlinks never
	 * end, or that is too long, is refused there, naming the path by the
	 * call that gave it, and the scope is left as it was. */
	snprintf(loop, sizeof(loop), "/tmp/sbxloop.%d", getpid());
	ck_assert_int_eq(symlink(loop, loop), 0);
	memset(longpath, 'a', PATH_MAX + 63);
	longpath[0] = '/';
	longpath[PATH_MAX + 63] = '\0';
	sbx_scopeattr_init(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, loop), ELOOP);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, join(loop, "below")), ELOOP);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, longpath), ENAMETOOLONG);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, ""), ENOENT);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	unlink(loop);
	sbx_scopeattr_destroy(&s);
	free(longpath);
}
END_TEST

static int run_fsop(const sbx_scopeattr_t *s, const char *op, const char *path)
{
	char *argv[] = { FSOP, (char *)op, (char *)path, NULL };

	return run_scoped(s, argv, NULL);
}

START_TEST(test_compile_once_snapshot)
{
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	char *top;
	char late[4096], denied[4096];

	REQUIRE_LANDLOCK();
	top = make_tmpdir();
	snprintf(denied, sizeof(denied), "%s/denied", top);
	snprintf(late, sizeof(late), "%s/late", top);
	mkdir(denied, 0755);
	sbx_scopeattr_init(&s);
	expand_way(&s);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	sbx_scopeattr_adddeny(&s, denied);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);

	/* Made after the snapshot, directly in an expanded directory: not in
	 * the snapshot, so unreachable ... */
	mkdir(late, 0755);
	ck_assert_int_eq(run_fsop(&s, "list", late), 1);
	ck_assert_int_eq(run_fsop(&s, "list", denied), 1);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_CONFINED);
	/* ... until the next compile. */
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	ck_assert_int_eq(run_fsop(&s, "list", late), 0);
	ck_assert_int_eq(run_fsop(&s, "list", denied), 1);

	/* Changing the scope discards the snapshot: spawns compile afresh. */
	rmdir(late);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, "/usr"), 0);
	mkdir(late, 0755);
	ck_assert_int_eq(run_fsop(&s, "list", late), 0);
	sbx_scopeattr_destroy(&s);
	rm_rf(top);
	free(top);
}
END_TEST

/* Counts the directories a spawn listed: none means it reused the last
 * compile. */
static int listed;

static void count_listings(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind == SBX_EVENT_EXPAND)
		listed++;
}

static int spawn_listing(const sbx_scopeattr_t *s, const char *op, const char *path, int *status)
{
	listed = 0;
	*status = run_fsop(s, op, path);
	return listed;
}

/* Spawns until one reuses the last compile (other processes may be
 * changing /tmp meanwhile); false if none did. */
static bool settle(const sbx_scopeattr_t *s, const char *probe)
{
	int status;

	for (int i = 0; i < 40; i++) {
		if (spawn_listing(s, "read", probe, &status) == 0)
			return true;
		usleep(100 * 1000);
	}
	return false;
}

START_TEST(test_fresh_reuse_is_exact)
{
	struct tree t;
	sbx_scopeattr_t s;
	char elsewhere[64], linkpath[128], late[4096];
	int status;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	sbx_scopeattr_init(&s);
	expand_way(&s);
	sbx_scopeattr_setlogger(&s, count_listings, NULL);
	sbx_scopeattr_adddeny(&s, t.other);
	/* Reused while nothing it read has changed ... */
	ck_assert_msg(settle(&s, t.secret), "a compile was never reused");
	/* ... and not once an expanded directory changes. */
	snprintf(late, sizeof(late), "%s/late", t.projects);
	mkdir(late, 0755);
	ck_assert_int_gt(spawn_listing(&s, "list", late, &status), 0);
	ck_assert_int_eq(status, 0);
	/* A file granted there that gets a second name inside the denial
	 * changes no directory the compile read: the compile is reused, and
	 * the new name reaches the file's content, which the child could read
	 * by its granted name all along (a new compile would refuse the file
	 * for its two names; reuse grants nothing that was not granted). */
	ck_assert_msg(settle(&s, t.secret), "a compile was never reused");
	ck_assert_int_eq(link(join(t.projects, "README"), join(t.other, "readme")), 0);
	ck_assert_int_eq(spawn_listing(&s, "read", join(t.other, "readme"), &status), 0);
	ck_assert_int_eq(status, 0);
	ck_assert_int_eq(spawn_listing(&s, "read", t.secret, &status), 0);
	ck_assert_int_eq(status, 1);
	unlink(join(t.other, "readme"));

	/* A denial configured through a symlink outside the tree names what
	 * the link pointed to when it was added: retargeting the link later
	 * (as a child that may write there could) changes nothing. */
	snprintf(elsewhere, sizeof(elsewhere), "/tmp/sbxlinkdir.%d", getpid());
	mkdir(elsewhere, 0755);
	snprintf(linkpath, sizeof(linkpath), "%s/l", elsewhere);
	ck_assert_int_eq(symlink(t.third, linkpath), 0);
	sbx_scopeattr_destroy(&s);
	sbx_scopeattr_init(&s);
	expand_way(&s);
	sbx_scopeattr_setlogger(&s, count_listings, NULL);
	sbx_scopeattr_adddeny(&s, linkpath);
	ck_assert_msg(settle(&s, join(t.mine, "file")), "a compile was never reused");
	ck_assert_int_eq(run_fsop(&s, "list", t.third), 1);
	unlink(linkpath);
	ck_assert_int_eq(symlink(t.mine, linkpath), 0);
	ck_assert_int_eq(run_fsop(&s, "list", t.third), 1);
	ck_assert_int_eq(run_fsop(&s, "list", t.mine), 0);
	unlink(linkpath);
	rmdir(elsewhere);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_fresh_reuse_sees_mounts)
{
	struct tree t;
	sbx_scopeattr_t s;
	char *src;
	int status;

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	src = make_tmpdir();
	tree_make(&t);
	write_file(join(src, "mounted"), "m\n", 0644);
	sbx_scopeattr_init(&s);
	expand_way(&s);
	sbx_scopeattr_setlogger(&s, count_listings, NULL);
	sbx_scopeattr_adddeny(&s, t.other);
	ck_assert_msg(settle(&s, join(t.third, "file")), "a compile was never reused");
	/* A mount over a granted entry changes nothing a stat of the expanded
	 * directories would see; the mount table says it. */
	ck_assert_int_eq(mount(src, t.third, NULL, MS_BIND, NULL), 0);
	ck_assert_int_gt(spawn_listing(&s, "read", join(t.third, "mounted"), &status), 0);
	ck_assert_int_eq(status, 0);
	umount(t.third);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
	rm_rf(src);
	free(src);
}
END_TEST

START_TEST(test_default_logger_line)
{
	sbx_event_t ev = { .kind = SBX_EVENT_DROPPED, .error = EMLINK, .path = "/x",
	                   .message = "/x stays unreachable" };
	char buf[256] = { 0 };
	int p[2], saved = dup(2);

	/* Through fd 2: a C library's stderr need not be assignable (musl). */
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(dup2(p[1], 2), 2);
	close(p[1]);
	sbx_logger_default(&ev, NULL);
	ev.kind = SBX_EVENT_EXPAND; /* debug: not printed */
	sbx_logger_default(&ev, NULL);
	/* One entry that vanished while compiling: said in the one line of
	 * SBX_EVENT_VANISHED instead. */
	ev = (sbx_event_t){ .kind = SBX_EVENT_DROPPED, .error = ENOENT, .path = "/y",
	                    .message = "/y stays unreachable" };
	sbx_logger_default(&ev, NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ck_assert_int_ge(read(p[0], buf, sizeof(buf) - 1), 0);
	close(p[0]);
	ck_assert_str_eq(buf, "sbxspawn: /x stays unreachable\n");
}
END_TEST

Suite *suite_scope(void)
{
	Suite *s = suite_create("scope");
	TCase *tc = tcase_create("api");

	untimed(tc);
	tcase_add_test(tc, test_api_errors);
	tcase_add_test(tc, test_unresolvable_path);
	tcase_add_test(tc, test_compile_once_snapshot);
	tcase_add_test(tc, test_fresh_reuse_is_exact);
	tcase_add_test(tc, test_fresh_reuse_sees_mounts);
	tcase_add_test(tc, test_default_logger_line);
	suite_add_tcase(s, tc);
	return s;
}
