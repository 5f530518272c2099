/* SPDX-License-Identifier: MIT */
/* Hidden denials, continued (check_hide.c holds the cover): the ways are
 * chosen as documented, and fall back where no namespace can be made; a
 * second name is covered too; the child differs from an expanded one only
 * where sbx_posix_spawn(3) says; explained, and nested. */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "tests/hide.h"

/* ---- 5. choosing the way ---------------------------------------------------- */

START_TEST(test_hide_ways)
{
	sbx_scopeattr_t s;
	char missing[4400], *out;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	snprintf(missing, sizeof(missing), "%s/missing", home);
	/* Forced either way. */
	scope_deny(&s, ssh, SBX_SCOPE_EXPAND);
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", key), "EACCES");
	outcome(0, 1);
	sbx_scopeattr_destroy(&s);
	scope_deny(&s, ssh, SBX_SCOPE_HIDE);
	REFUSED(&s, FSOP, "read", key);
	outcome(1, 0);
	/* A path that is not there: no cover sits on it; expanded by
	 * default, refused where hiding is demanded. */
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, missing), 0);
	ck_assert_int_eq(run_scoped(&s, ARGV(FSOP, "read", key), NULL), -1000 - EINVAL);
	ck_assert_ptr_nonnull(strstr(said, "does not exist"));
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, 0), 0);
	REFUSED(&s, FSOP, "read", key);
	outcome(1, 1);
	ck_assert_str_eq(VERDICT(&s, FSOP, "create", missing), "EACCES");
	sbx_scopeattr_destroy(&s);
	/* /proc, which the child reads to check what it holds: expanded. */
	scope_deny(&s, "/proc", 0);
	/* cat, not a helper of the suite's, whose sanitizer (in CI's ASan
	 * build) finds no /proc at its exit and leaves before its verdict. */
	verdict_of(&s, ARGV("/bin/cat", "/proc/self/status"), false, &out);
	ck_assert_msg(strstr(out, "Permission denied"), "%s", out);
	free(out);
	outcome(0, 1);
	sbx_scopeattr_destroy(&s);
	/* Logged denials are Landlock's: expanded. */
	scope_deny(&s, ssh, SBX_SCOPE_LOG_DENIALS);
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", key), "EACCES");
	outcome(0, 1);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* Where no child can make its namespace (here: unshare(2) refused by a
 * filter, as a container's may): every spawn expands, said once; demanded,
 * hiding fails, at the compile too. */
START_TEST(test_hide_unavailable)
{
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	seccomp_fail(SYS_unshare, EPERM);
	scope_deny(&s, ssh, 0);
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", key), "EACCES");
	outcome(0, 1);
	/* SBXSPAWN_EXPAND (CI runs the suite so once): no child tries, and
	 * the expansion the user asked for is not said at each spawn. */
	ck_assert_msg(getenv("SBXSPAWN_EXPAND") ? said[0] == '\0'
	                                        : strstr(said, "unshare") || strstr(said, "mount namespace"),
	              "%s", said);
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", key), "EACCES");
	outcome(0, 1);
	sbx_scopeattr_destroy(&s);
	scope_deny(&s, ssh, SBX_SCOPE_HIDE);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), EINVAL);
	ck_assert_int_eq(run_scoped(&s, ARGV(FSOP, "read", key), NULL), -1000 - EINVAL);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* sbx_execve from a thread refused a namespace (a filter of that thread's
 * alone): the refusal is on record for the process, as a spawn's child's
 * is, so that a later spawn does not try and fail the same way; its exec
 * failing, the caller goes on. */
static void *exec_refused(void *arg)
{
	sbx_scopeattr_t *s = arg;
	static int err;

	seccomp_fail(SYS_unshare, EPERM);
	err = sbx_execve("/nonexistent/sbxspawn", s, ARGV("x"), environ);
	return &err;
}

START_TEST(test_hide_exec_refusal_kept)
{
	sbx_scopeattr_t s, hide;
	pthread_t th;
	void *err;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__) || !filters_here(__func__))
		return;
	scope_deny(&hide, ssh, SBX_SCOPE_HIDE);
	/* The control: this process hides, before the exec. */
	ck_assert_str_eq(VERDICT(&hide, "/bin/sh", "-c", "echo ok"), "ok");
	outcome(1, 0);
	scope_deny(&s, ssh, 0);
	ck_assert_int_eq(pthread_create(&th, NULL, exec_refused, &s), 0);
	ck_assert_int_eq(pthread_join(th, &err), 0);
	ck_assert_int_eq(*(int *)err, ENOENT);
	ck_assert_msg(strstr(said, "unshare"), "the exec's expansion, unsaid: %s", said);
	ck_assert_int_eq(run_scoped(&hide, ARGV("/bin/sh", "-c", "echo ok"), NULL), -1000 - EINVAL);
	sbx_scopeattr_destroy(&s);
	sbx_scopeattr_destroy(&hide);
}
END_TEST

/* Where the child cannot hide, the spawn compiles again expanded: what the
 * first compile said of the paths (a denial of / it does not apply) is
 * said once, by sbx_posix_spawn and by sbx_execve.  Each event is a byte
 * down a pipe: the exec path's logger runs in a child that then execs. */
static int ignored_pipe = -1;

static void count_ignored(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind == SBX_EVENT_IGNORED_DENY && write(ignored_pipe, "i", 1) != 1)
		abort();
}

static int ignored_said(int fd)
{
	char buf[16];
	ssize_t n;
	int count = 0;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		count += (int)n;
	return count;
}

START_TEST(test_hide_unavailable_said_once)
{
	char *argv[] = { FSOP, "read", key, NULL };
	sbx_scopeattr_t s;
	int p[2], status;
	pid_t pid;

	REQUIRE_LANDLOCK();
	seccomp_fail(SYS_unshare, EPERM);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
	ignored_pipe = p[1];
	scope_deny(&s, ssh, 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/"), 0);
	sbx_scopeattr_setlogger(&s, count_ignored, NULL);
	ck_assert_int_eq(run_scoped(&s, argv, NULL), 1);
	ck_assert_int_eq(ignored_said(p[0]), 1);
	outcome(0, 1);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		sbx_execve(argv[0], &s, argv, environ);
		_exit(100);
	}
	status = wait_status(pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "sbx_execve: status %#x", status);
	ck_assert_int_eq(ignored_said(p[0]), 1);
	close(p[0]);
	close(p[1]);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A second name of the denial (a bind mount made before the spawn): the
 * denial is expanded, and the second name, beneath a granted directory,
 * covered too. */
START_TEST(test_hide_second_name_covered)
{
	char alias[4400];
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__) || private_mounts(__func__) == MOUNT_NS_NONE)
		return;
	snprintf(alias, sizeof(alias), "%s/alias", t.mine);
	ck_assert_int_eq(mkdir(alias, 0755), 0);
	ck_assert_int_eq(mount(ssh, alias, NULL, MS_BIND, NULL), 0);
	WORKS(FSOP, "read", (char *)join(alias, "id"));
	scope_deny(&s, ssh, 0);
	REFUSED(&s, FSOP, "read", (char *)join(alias, "id"));
	REFUSED(&s, FSOP, "read", key);
	outcome(1, 1);
	ck_assert_ptr_nonnull(strstr(said, "another mount shows"));
	sbx_scopeattr_destroy(&s);
	umount2(alias, MNT_DETACH);
}
END_TEST

/* ---- 6. what the child sees differently --------------------------------------- */

START_TEST(test_hide_differences)
{
	char cmd[9000], *out, want[64];
	sbx_scopeattr_t s;
	pid_t pid;
	int fd = memfd_create("out", MFD_CLOEXEC);
	sbx_file_actions_t fa;
	char buf[64] = "";

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	scope_deny(&s, ssh, 0);
	/* The mount table shows the cover. */
	snprintf(cmd, sizeof(cmd), "grep -F ' %s ' /proc/self/mountinfo", ssh);
	verdict_of(&s, ARGV("/bin/sh", "-c", cmd), false, &out);
	ck_assert_msg(strstr(out, "tmpfs"), "%s", out);
	free(out);
	/* The ids: the child's own as the caller's; another user's, as
	 * root's files, shown as the overflow id inside a user namespace. */
	snprintf(want, sizeof(want), "%u %u %s", (unsigned)geteuid(), (unsigned)getegid(),
	         geteuid() ? "65534" : "0");
	ck_assert_str_eq(VERDICT(&s, "/bin/sh", "-c", "echo $(id -u) $(id -g) $(stat -c %u /)"), want);
	/* The pid is the one returned; a signal ends it as it would. */
	sbx_file_actions_init(&fa);
	sbx_file_actions_adddup2(&fa, fd, 1);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/sh", &fa, NULL, &s,
	                                 ARGV("sh", "-c", "echo $$; kill -TERM $$"), environ), 0);
	ck_assert_int_eq(wait_status(pid), SIGTERM);
	ck_assert_int_gt(pread(fd, buf, sizeof(buf) - 1, 0), 0);
	ck_assert_int_eq(atoi(buf), pid);
	sbx_file_actions_destroy(&fa);
	close(fd);
	outcome(1, 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A set-user-ID program gains nothing either way (no_new_privs). */
START_TEST(test_hide_setuid)
{
	char prog[4400], cmd[9000];
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (geteuid() != 0) {
		say_skip("SKIP %s: making a set-user-ID program of root's needs root\n", __func__);
		return;
	}
	if (!can_hide(__func__))
		return;
	snprintf(prog, sizeof(prog), "%s/id", t.top);
	snprintf(cmd, sizeof(cmd), "cp /usr/bin/id '%s' && chmod 4755 '%s'", prog, prog);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(chmod(t.top, 0755), 0);
	if (!nobody_can_run(prog, __func__, "as uid 65534"))
		return;
	for (int way = 0; way < 2; way++) {
		scope_deny(&s, ssh, way ? SBX_SCOPE_EXPAND : 0);
		ck_assert_int_eq(sbx_scopeattr_setids(&s, 65534, 65534), 0);
		ck_assert_str_eq(VERDICT(&s, prog, "-u"), "65534");
		outcome(way ? 0 : 1, way ? 1 : 0);
		sbx_scopeattr_destroy(&s);
	}
}
END_TEST

/* ---- 7. explained, nested ------------------------------------------------------ */

START_TEST(test_hide_explained)
{
	sbx_scopeattr_t s;
	sbx_explanation_t x;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	scope_deny(&s, ssh, 0);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, key, &x), 0);
	ck_assert_int_eq(x.reason, SBX_REASON_DENIED);
	ck_assert_int_eq(x.access, 0);
	ck_assert_msg(strstr(x.message, "hidden"), "%s", x.message);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, join(home, "new"), &x), 0);
	ck_assert_int_eq(x.reason, SBX_REASON_GRANTED);
	ck_assert(x.access & SBX_ACCESS_CREATE || !x.exists);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, home, &x), 0);
	ck_assert_msg(!(x.access & SBX_ACCESS_UNLINK) && (x.access & SBX_ACCESS_CREATE) &&
	                      strstr(x.message, "mount point"), "%s", x.message);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A scope inside a hidden one: its child cannot mount (the outer Landlock
 * domain), so it expands; nothing above the outer denial froze, so the
 * inner walk lists what it needs. */
START_TEST(test_hide_nested)
{
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	scope_deny(&s, ssh, 0);
	ck_assert_str_eq(VERDICT(&s, NESTED, "-d", t.other, FSOP, "read", (char *)join(t.mine, "file")),
	                 "ok");
	/* The outer denial hidden: nothing above it frozen. */
	outcome(1, 0);
	ck_assert_str_eq(VERDICT(&s, NESTED, "-d", t.other, FSOP, "read", t.secret), "EACCES");
	REFUSED(&s, NESTED, "-d", t.other, FSOP, "read", key);
	sbx_scopeattr_destroy(&s);
}
END_TEST

Suite *suite_hide_ways(void)
{
	Suite *su = suite_create("hide-ways");
	TCase *tc = tcase_create("ways");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_hide_ways);
	tcase_add_test(tc, test_hide_unavailable);
	tcase_add_test(tc, test_hide_exec_refusal_kept);
	tcase_add_test(tc, test_hide_unavailable_said_once);
	tcase_add_test(tc, test_hide_second_name_covered);
	tcase_add_test(tc, test_hide_differences);
	tcase_add_test(tc, test_hide_setuid);
	tcase_add_test(tc, test_hide_explained);
	tcase_add_test(tc, test_hide_nested);
	suite_add_tcase(su, tc);
	return su;
}
