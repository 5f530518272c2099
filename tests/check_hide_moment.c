/* SPDX-License-Identifier: MIT */
/* Hidden denials at the child's moment: what another process changes in
 * the caller's files after the parent has looked and before the child's
 * covers stand.  A seccomp filter of the test's traps one system call of
 * the child's (SECCOMP_RET_USER_NOTIF), and a thread of the test's makes
 * the change while the child waits in that call: the moment is the
 * kernel's, not the clock's.  The change: .ssh renamed to .ssh.old, and an
 * empty .ssh made in its place. */
#include "config.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "compat/kernel.h"
#include "tests/hide.h"

/* Where filters_here() knows the architecture. */
#if defined(__x86_64__) || defined(__aarch64__)

static char old[4400]; /* where .ssh goes at the moment */

/* The change, made once: .ssh moved away and made again, empty. */
static void swap_ssh(void)
{
	ck_assert_int_eq(rename(ssh, old), 0);
	ck_assert_int_eq(mkdir(ssh, 0700), 0);
}

/* A system call trapped in this thread and its children, and the thread
 * that answers each one: the first met makes the change, every one goes
 * on as the child asked. */
struct moment {
	int listener, stop;
	atomic_int met;
	pthread_t thread;
};

static void *answer(void *arg)
{
	struct moment *m = arg;

	for (;;) {
		struct pollfd p[2] = { { m->listener, POLLIN, 0 }, { m->stop, POLLIN, 0 } };
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;

		if (poll(p, 2, -1) < 0 || p[1].revents)
			return NULL;
		memset(&req, 0, sizeof(req));
		if (ioctl(m->listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
			continue; /* the caller gone meanwhile */
		if (atomic_fetch_add(&m->met, 1) == 0)
			swap_ssh();
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		(void)ioctl(m->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}

/* A call of nr whose argument arg has a bit of mask set (arg -1: any). */
struct trap {
	long nr;
	int arg;
	unsigned mask;
};

#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))

/* Whether fd is a listener of seccomp's notifications. */
static bool listener(int fd)
{
	char link[64], name[64] = "";

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	return fd > 2 && readlink(link, name, sizeof(name) - 1) > 0 &&
	       !strcmp(name, "anon_inode:seccomp notify");
}

/* Traps a and b (b.nr 0: none) in this thread and its children; false
 * (said) where no filter was installed: a run that switches the library's
 * filters off (SBX_TEST_MUTATE=seccomp) fakes the test's too. */
static bool moment_arm(struct moment *m, struct trap a, struct trap b, const char *test)
{
	struct sock_filter filter[] = {
		LOAD(arch),
#if defined(__x86_64__)
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
#else
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_AARCH64, 1, 0),
#endif
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		LOAD(nr),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)a.nr, 0, 2),
		LOAD(args[a.arg < 0 ? 0 : a.arg]),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, a.mask, 3, 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)b.nr, 0, 3),
		LOAD(args[b.arg < 0 ? 0 : b.arg]),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, b.mask, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(filter) / sizeof(filter[0]), .filter = filter };

	/* Any value, 0 too, where any is asked: straight to the trap. */
	if (a.arg < 0)
		filter[4].jt = 5;
	if (b.nr && b.arg < 0)
		filter[7].jt = 2;
	memset(m, 0, sizeof(*m));
	ck_assert_int_ge(m->stop = eventfd(0, EFD_CLOEXEC), 0);
	ck_assert_int_eq(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	m->listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	                           SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	ck_assert_msg(m->listener >= 0, "seccomp(NEW_LISTENER): %s", strerror(errno));
	if (!listener(m->listener)) {
		say_skip("SKIP %s: the test's seccomp filter was not installed (%s)\n", test,
		         getenv("SBX_TEST_MUTATE") ? "SBX_TEST_MUTATE" : "seccomp(2) returned no listener");
		close(m->stop);
		return false;
	}
	fcntl(m->listener, F_SETFD, FD_CLOEXEC);
	ck_assert_int_eq(pthread_create(&m->thread, NULL, answer, m), 0);
	return true;
}

static int moment_end(struct moment *m)
{
	uint64_t one = 1;

	ck_assert_int_eq(write(m->stop, &one, sizeof(one)), (ssize_t)sizeof(one));
	pthread_join(m->thread, NULL);
	close(m->stop);
	close(m->listener);
	return atomic_load(&m->met);
}

/* What every test here reads: the key where .ssh went, and where it was. */
static char *reader(void)
{
	static char cmd[9000];

	/* No redirection: its errors go where its output goes (run_scoped),
	 * and a shell saves a descriptor to redirect, which a table full at
	 * its limit (test_hide_denial_replaced_table_full) has not. */
	snprintf(cmd, sizeof(cmd), "cat '%s/id' '%s/id'; echo done", old, ssh);
	return cmd;
}

/* The scope, compiled, and the thread's probe asked, before anything is
 * trapped: the child's call is the first the filter meets. */
static bool ready(sbx_scopeattr_t *s, const char *test)
{
	char *out = NULL;

	if (landlock_abi() <= 0) {
		say_skip("SKIP %s: %s\n", test, no_landlock_why());
		return false;
	}
	if (!can_hide(test) || !filters_here(test))
		return false;
	snprintf(old, sizeof(old), "%s.old", ssh);
	/* The attack, without a scope: the key is read where it went. */
	swap_ssh();
	ck_assert_int_eq(run_scoped(NULL, ARGV("/bin/sh", "-c", reader()), &out), 0);
	ck_assert_msg(strstr(out, SECRET), "the control read nothing: %s", out);
	free(out);
	ck_assert_int_eq(rmdir(ssh), 0);
	ck_assert_int_eq(rename(old, ssh), 0);
	scope_deny(s, ssh, SBX_SCOPE_HIDE);
	ck_assert_int_eq(sbx_scopeattr_compile(s), 0);
	return true;
}

/* The lowest descriptor free in this process. */
static int lowest_free(void)
{
	int fd = fcntl(0, F_DUPFD_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	close(fd);
	return fd;
}

/* The scope's spawn of reader() with the change made at the trapped call
 * (a, or b), the caller's soft RLIMIT_NOFILE left room descriptors above
 * those open (0: as it is), and a call short (short.nr 0: none) saying
 * short.arg's errno (a filter of the test's): the trap met that often, the
 * spawn refused (SBX_EREFUSED) with a line saying why, the key read
 * nowhere. */
static void refused_at(struct trap a, struct trap b, int room, struct trap short_of, int met,
                       const char *why, const char *test)
{
	struct moment m;
	struct rlimit rl;
	sbx_scopeattr_t s;
	char *out = NULL;
	int status;

	if (!ready(&s, test))
		return;
	if (short_of.nr)
		seccomp_fail(short_of.nr, short_of.arg);
	if (moment_arm(&m, a, b, test)) {
		ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
		if (room)
			rl.rlim_cur = (rlim_t)lowest_free() + (rlim_t)room;
		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
		status = run_scoped(&s, ARGV("/bin/sh", "-c", reader()), &out);
		ck_assert_int_eq(moment_end(&m), met);
		ck_assert_msg(!strstr(out, SECRET), "ESCAPE: the key read where it went:\n%s", out);
		ck_assert_msg(status == -1000 - SBX_EREFUSED && strstr(out, why), "status %d:\n%s",
		              status, out);
		free(out);
	}
	sbx_scopeattr_destroy(&s);
}

/* The change made again, there. */
#define CHANGED "changed since the scope was compiled"
/* At the call that puts the cover in place, either way the library has:
 * mount(2) by the path (its flags), move_mount(2) onto a descriptor. */
#define AT_COVER (struct trap){ SYS_mount, 3, MS_NOEXEC }, \
	         (struct trap){ SYS_move_mount, 4, SBX_MOVE_MOUNT_T_EMPTY_PATH }
/* No call short. */
#define NONE (struct trap){ 0, 0, 0 }

/* The change where the child makes its namespace: after the parent's look
 * at the denials, before the child's covers.  The child finds .ssh another
 * directory than the compile's and runs nothing (its line says why); a
 * cover on the new .ssh would leave the key readable where it went. */
START_TEST(test_hide_denial_replaced_before_cover)
{
	refused_at((struct trap){ SYS_unshare, -1, 0 }, (struct trap){ 0, 0, 0 }, 0, NONE, 1, CHANGED,
	           __func__);
}
END_TEST

/* The change at the cover's own mount, after the child's last look at
 * .ssh: at mount(2) by the path (its flags), or at move_mount(2) onto a
 * descriptor, either way the library has.  By the path, the cover would
 * go on the new .ssh; onto the descriptor, it goes with the key, and the
 * path that leads elsewhere now refuses the spawn. */
START_TEST(test_hide_denial_replaced_at_cover)
{
	refused_at(AT_COVER, 0, NONE, 1, CHANGED, __func__);
}
END_TEST


/* The caller's table full at its soft limit, as another process of its
 * user can make it (prlimit(2)): two descriptors left, one for the
 * output's file, one for the child (a user namespace's maps).  The child
 * raises its limit for the covers, and the change at the cover's mount is
 * found as above: a cover is never made by its path for want of a
 * descriptor, the window that would open. */
START_TEST(test_hide_denial_replaced_table_full)
{
	refused_at(AT_COVER, 2, NONE, 1, CHANGED, __func__);
}
END_TEST

/* No descriptor to be had for a cover, even with the limit raised (a
 * filter of the test's says EMFILE to fsopen(2), the call of a directory's
 * cover): refused, EMFILE, and nothing mounted by the path, where the
 * change at that mount would leave the key uncovered where it went. */
START_TEST(test_hide_cover_no_room)
{
	refused_at(AT_COVER, 0, (struct trap){ SYS_fsopen, EMFILE, 0 }, 0, "too many open files",
	           __func__);
}
END_TEST

/* No memory for a cover (a filter of the test's says ENOMEM to fsopen(2)),
 * which another process of the caller's could bring about as it can a
 * full table: refused, ENOMEM, never covered by its path. */
START_TEST(test_hide_cover_no_memory)
{
	refused_at(AT_COVER, 0, (struct trap){ SYS_fsopen, ENOMEM, 0 }, 0, "out of memory",
	           __func__);
}
END_TEST

/* The soft limit a child raised for its covers is put back before the
 * command runs: the command starts with the caller's, as posix_spawn(3)
 * has it.  Nothing trapped, nothing changed: a spawn that hides. */
START_TEST(test_hide_limit_put_back)
{
	sbx_scopeattr_t s;
	struct rlimit rl;
	char *out = NULL, want[64];

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	scope_deny(&s, ssh, SBX_SCOPE_HIDE);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = (rlim_t)lowest_free() + 2;
	ck_assert_msg(rl.rlim_cur < rl.rlim_max, "no room above the soft limit to raise it into");
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	snprintf(want, sizeof(want), "%lu\n", (unsigned long)rl.rlim_cur);
	ck_assert_int_eq(run_scoped(&s, ARGV("/bin/sh", "-c", "ulimit -Sn"), &out), 0);
	ck_assert_str_eq(out, want);
	outcome(1, 0);
	free(out);
	sbx_scopeattr_destroy(&s);
}
END_TEST

#endif

Suite *suite_hide_moment(void)
{
	Suite *su = suite_create("hide-moment");
	TCase *tc = tcase_create("moment");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
#if defined(__x86_64__) || defined(__aarch64__)
	tcase_add_test(tc, test_hide_denial_replaced_before_cover);
	tcase_add_test(tc, test_hide_denial_replaced_at_cover);
	tcase_add_test(tc, test_hide_denial_replaced_table_full);
	tcase_add_test(tc, test_hide_cover_no_room);
	tcase_add_test(tc, test_hide_cover_no_memory);
	tcase_add_test(tc, test_hide_limit_put_back);
#endif
	suite_add_tcase(su, tc);
	return su;
}
