/* SPDX-License-Identifier: MIT */
/* Channels that are not paths, as the inventory of sbxspawn(7) lists them:
 * set-user-ID programs and POSIX message queues, closed by default, and
 * System V IPC, not mediated: shown open to a confined child, so that the
 * page changes the day it closes, beside the remedy the page names.  The
 * second names of a denial (images, inner mounts): check_second_names.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <mqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/reads.h"

#define NUDGE HELPER_DIR "/nudge"

/* Not mediated: a System V segment of the caller's user is reachable by
 * key, whatever the scope; another uid closes it (mode 0600). */
START_TEST(test_limit_sysv_ipc)
{
	char *deny = make_tmpdir(), arg[32];
	sbx_scopeattr_t s;
	key_t key;
	int id = -1;
	char *p;

	REQUIRE_LANDLOCK();
	/* A key of this run's own: one a run that stopped before its
	 * IPC_RMID left (a failing test does, a mutation's run among them),
	 * under a pid now taken again, is passed over. */
	for (int i = 0; id < 0 && i < 256; i++) {
		key = (key_t)(0x5b000000 | ((getpid() ^ (i << 16)) & 0xffffff));
		id = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600);
		ck_assert_msg(id >= 0 || errno == EEXIST, "shmget: %s", strerror(errno));
	}
	ck_assert_int_ge(id, 0);
	p = shmat(id, NULL, 0);
	ck_assert_ptr_ne(p, (void *)-1);
	strcpy(p, "the-secret");
	snprintf(arg, sizeof(arg), "%#x", (unsigned)key);
	scope_for(&s, deny, false);
	assert_reads(fsop(&s, "sysv-shm", arg), "the-secret");
	sbx_scopeattr_destroy(&s);
	if (nobody_can_run(FSOP, __func__, "under another uid")) {
		scope_for(&s, deny, true);
		assert_refused(fsop(&s, "sysv-shm", arg));
		sbx_scopeattr_destroy(&s);
	}
	shmdt(p);
	shmctl(id, IPC_RMID, NULL);
	rm_rf(deny);
	free(deny);
}
END_TEST

/* Closed by default, twice: a POSIX message queue is opened by name, through
 * the kernel's own mount of the queues, which no rule grants, so a Landlock
 * domain that handles reading refuses it; and the seccomp filter refuses
 * mq_open(3) first where the scope names no mqueue mount (the caller's own
 * children, with no scope, read it).  Either alone keeps it closed: neither
 * mutation breaks this test (tests/mutations), and each layer is shown
 * alone by test_mqueue_mounts (Landlock: the queue by path) and
 * test_mqueue_by_name (the filter: an unlink no hook sees). */
/* A queue's name of this test's own: the pid and the clock, for a run
 * that stopped before its mq_unlink (a failing test does) leaves its
 * queue, maybe another user's, under a name a later pid would take. */
static void queue_name(char *out, size_t cap, const char *what)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	snprintf(out, cap, "/sbxtest-%s%ld-%lx", what, (long)getpid(),
	         (unsigned long)(t.tv_sec * 1000000000L + t.tv_nsec));
}

START_TEST(test_posix_mqueue_closed)
{
	struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = 64 };
	char *deny = make_tmpdir(), name[64];
	sbx_scopeattr_t s;
	mqd_t q;

	REQUIRE_LANDLOCK();
	queue_name(name, sizeof(name), "");
	q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
	if (q == (mqd_t)-1 && (errno == ENOSYS || errno == ENOENT)) {
		say_skip("SKIP %s: no POSIX message queues here (%s)\n", __func__,
		        strerror(errno));
		goto out;
	}
	ck_assert_int_ne(q, (mqd_t)-1);
	ck_assert_int_eq(mq_send(q, "the-secret", 10, 0), 0);
	assert_reads(fsop(NULL, "mqueue", name), "the-secret");
	ck_assert_int_eq(mq_send(q, "the-secret", 10, 0), 0);
	scope_for(&s, deny, false);
	assert_refused(fsop(&s, "mqueue", name));
	sbx_scopeattr_destroy(&s);
	mq_close(q);
	mq_unlink(name);
out:
	rm_rf(deny);
	free(deny);
}
END_TEST

/* The verdict of one act of the nudge helper under scope, its output in
 * *said (malloc'd). */
static const char *nudge(const sbx_scopeattr_t *s, const char *act, const char *arg, char **said)
{
	char *argv[] = { NUDGE, (char *)act, (char *)arg, NULL }, *nl;

	run_scoped(s, argv, said);
	ck_assert_ptr_nonnull(*said);
	while ((nl = strrchr(*said, '\n')) && !nl[1])
		*nl = '\0';
	return (nl = strrchr(*said, '\n')) ? nl + 1 : *said;
}

#define MQ_READS(scope, act, arg)                                                          \
	do {                                                                               \
		char *said_;                                                               \
		ck_assert_str_eq(nudge(scope, act, arg, &said_), "ok");                    \
		ck_assert_msg(strstr(said_, "message: the-secret"), "%s %s: %s", act, arg, said_); \
		free(said_);                                                               \
	} while (0)
#define MQ_REFUSED(scope, act, arg)                                                      \
	do {                                                                             \
		char *said_;                                                             \
		ck_assert(denied_verdict(nudge(scope, act, arg, &said_)));               \
		ck_assert_msg(!strstr(said_, "the-secret"), "%s %s: %s", act, arg, said_); \
		free(said_);                                                             \
	} while (0)

/* An mqueue filesystem mounted where a scope would grant it: in a directory
 * the compile lists (beside a denial), or inside a directory granted whole.
 * Its queues reached by path, or by mq_open(3) through the kernel's own
 * mount, which a grant of the same root opens: both closed (kernelfs.c),
 * unless the scope names the mount point. */
static void mqueue_at(const char *point, const char *deny, const char *name)
{
	char path[4300];
	sbx_scopeattr_t s;

	ck_assert_int_eq(mount("mqueue", point, "mqueue", 0, NULL), 0);
	snprintf(path, sizeof(path), "%s%s", point, name);
	/* The control: each road works without a scope. */
	MQ_READS(NULL, "mq-path", path);
	MQ_READS(NULL, "mq-open", name);
	scope_for(&s, deny, false);
	MQ_REFUSED(&s, "mq-path", path);
	MQ_REFUSED(&s, "mq-open", name);
	/* Named, it is the scope's own: a re-admitted mount grants its
	 * queues, by path and by name (the same root). */
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, point), 0);
	MQ_READS(&s, "mq-open", name);
	MQ_READS(&s, "mq-path", path);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(umount2(point, MNT_DETACH), 0);
}

/* A test's own queues (an IPC namespace of its own, in a mount namespace
 * of its own), a tree, and a queue holding the secret: false, said, where
 * they cannot be had. */
static bool queue_of_own(const char *test, struct tree *t, char *name, size_t cap, mqd_t *q)
{
	struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = 64 };

	if (private_mounts(test) == MOUNT_NS_NONE)
		return false;
	if (unshare(CLONE_NEWIPC)) {
		say_skip("SKIP %s: unshare(CLONE_NEWIPC): %s\n", test, strerror(errno));
		return false;
	}
	tree_make(t);
	queue_name(name, cap, "");
	*q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
	ck_assert_int_ne(*q, (mqd_t)-1);
	ck_assert_int_eq(mq_send(*q, "the-secret", 10, 0), 0);
	return true;
}

/* An mqueue filesystem mounted at point, or false, said. */
static bool mqueue_mounted(const char *test, const char *point)
{
	if (!mount("mqueue", point, "mqueue", 0, NULL))
		return true;
	say_skip("SKIP %s: mounting an mqueue filesystem: %s\n", test, strerror(errno));
	return false;
}

static void queue_free(struct tree *t, const char *name, mqd_t q)
{
	mq_close(q);
	mq_unlink(name);
	tree_free(t);
}

START_TEST(test_mqueue_mounts)
{
	char beside[4200], inside[4200], name[64];
	struct tree t;
	mqd_t q;

	REQUIRE_LANDLOCK();
	if (!queue_of_own(__func__, &t, name, sizeof(name), &q))
		return;
	snprintf(beside, sizeof(beside), "%s/mq", t.projects);
	snprintf(inside, sizeof(inside), "%s/mq", t.mine);
	ck_assert_int_eq(mkdir(beside, 0755), 0);
	ck_assert_int_eq(mkdir(inside, 0755), 0);
	if (mqueue_mounted(__func__, beside)) {
		ck_assert_int_eq(umount2(beside, MNT_DETACH), 0);
		mqueue_at(beside, t.other, name);
		mqueue_at(inside, t.other, name);
	}
	queue_free(&t, name, q);
}
END_TEST

/* An mqueue mount made after a scope's first spawn is closed to the next
 * as to a scope made after it: a scope that restricts no path (its only
 * denial one the library leaves out) is compiled again, not kept, for an
 * mqueue mount changes what it gives (kernelfs.c). */
START_TEST(test_mqueue_mounted_after_a_spawn)
{
	char point[4200], path[4300], name[64], *said;
	sbx_scopeattr_t s;
	struct tree t;
	mqd_t q;

	REQUIRE_LANDLOCK();
	if (!queue_of_own(__func__, &t, name, sizeof(name), &q))
		return;
	snprintf(point, sizeof(point), "%s/mq", t.mine);
	ck_assert_int_eq(mkdir(point, 0755), 0);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(&s, quiet, NULL), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/"), 0);
	nudge(&s, "mq-path", point, &said);
	free(said);
	if (mqueue_mounted(__func__, point)) {
		snprintf(path, sizeof(path), "%s%s", point, name);
		MQ_READS(NULL, "mq-path", path);
		MQ_REFUSED(&s, "mq-path", path);
		ck_assert_int_eq(umount2(point, MNT_DETACH), 0);
	}
	sbx_scopeattr_destroy(&s);
	queue_free(&t, name, q);
}
END_TEST

static bool queue_exists(const char *name)
{
	mqd_t q = mq_open(name, O_RDONLY);

	if (q == (mqd_t)-1) {
		ck_assert_msg(errno == ENOENT, "mq_open %s: %s", name, strerror(errno));
		return false;
	}
	mq_close(q);
	return true;
}

static void queue_make(const char *name)
{
	struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = 64 };
	mqd_t q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);

	ck_assert_msg(q != (mqd_t)-1, "mq_open %s: %s", name, strerror(errno));
	mq_close(q);
}

/* Queues by name, which no path rule sees: a child of the caller's user
 * removes the caller's queue (mq_unlink passes no Landlock hook) and makes
 * one in its name (mq_open makes the queue before the kernel's own mount
 * refuses the open).  Refused by the filter unless the scope names an
 * mqueue mount; named, they are the child's again.  In an IPC namespace of
 * the test's own where it may make one. */
START_TEST(test_mqueue_by_name)
{
	char name[64], planted[64], point[4200];
	enum mount_ns ns;
	sbx_scopeattr_t s;
	struct tree t;
	char *said;

	REQUIRE_LANDLOCK();
	/* Where no namespace can be made (a regular user), the names are the
	 * test's own all the same. */
	if (unshare(CLONE_NEWIPC))
		ck_assert_int_eq(errno, EPERM);
	queue_name(name, sizeof(name), "");
	queue_name(planted, sizeof(planted), "planted-");
	tree_make(&t);
	queue_make(name);
	/* The controls: both work without a scope. */
	ck_assert_str_eq(nudge(NULL, "mq-unlink", name, &said), "ok");
	free(said);
	ck_assert(!queue_exists(name));
	queue_make(name);
	ck_assert_str_eq(nudge(NULL, "mq-create", planted, &said), "ok");
	free(said);
	ck_assert(queue_exists(planted));
	ck_assert_int_eq(mq_unlink(planted), 0);
	/* Scoped: neither, and nothing made. */
	scope_for(&s, t.other, false);
	ck_assert_str_eq(nudge(&s, "mq-unlink", name, &said), "EACCES");
	free(said);
	ck_assert(queue_exists(name));
	ck_assert_str_eq(nudge(&s, "mq-create", planted, &said), "EACCES");
	free(said);
	ck_assert(!queue_exists(planted));
	/* An mqueue mount the scope names (not denied): the queues are the
	 * child's, by name too. */
	snprintf(point, sizeof(point), "%s/mq", t.mine);
	ck_assert_int_eq(mkdir(point, 0755), 0);
	/* In a user namespace, an mqueue filesystem is its IPC namespace's:
	 * one of the test's own, where the queue is made again. */
	ns = private_mounts(__func__);
	if (ns == MOUNT_NS_USER) {
		ck_assert_int_eq(mq_unlink(name), 0);
		ck_assert_int_eq(unshare(CLONE_NEWIPC), 0);
		queue_make(name);
	}
	if (ns == MOUNT_NS_NONE || mount("mqueue", point, "mqueue", 0, NULL)) {
		say_skip("SKIP %s (named): no mqueue filesystem of the test's own can be mounted "
		        "here\n", __func__);
	} else {
		ck_assert_int_eq(sbx_scopeattr_addallow(&s, point), 0);
		ck_assert_str_eq(nudge(&s, "mq-unlink", name, &said), "ok");
		free(said);
		ck_assert(!queue_exists(name));
		umount2(point, MNT_DETACH);
	}
	sbx_scopeattr_destroy(&s);
	mq_unlink(name);
	tree_free(&t);
}
END_TEST

/* The second names the compile said: what (path) is also reachable where
 * (path2), and whether one said the pair looked for. */
/* Whether test may mount, in a namespace of its own (as another user, in
 * a user namespace of its own: tmpfs, bind and overlay mounts work there);
 * a loop device needs root.  Else SKIP says why. */

static char *regain_unconfined(const char *prog, const char *file)
{
	char buf[256];
	int p[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(p[1], 1);
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(3);
		execl(prog, prog, "regain-openw", file, (char *)NULL);
		_exit(4);
	}
	close(p[1]);
	while ((n = read(p[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	return strdup(buf);
}

/* Closed by default: a set-user-ID-root program run by a confined child
 * gains nothing (no_new_privs), under another uid too. */
START_TEST(test_setuid_program_gains_nothing)
{
	char *dir, *deny, prog[4096], file[4096], *out;
	struct statvfs vfs;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (geteuid() != 0) {
		say_skip("SKIP %s: needs root, to make a set-user-ID-root program\n",
		        __func__);
		return;
	}
	dir = make_tmpdir();
	deny = make_tmpdir();
	ck_assert_int_eq(chmod(dir, 0755), 0);
	if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)) {
		say_skip("SKIP %s: %s is on a nosuid mount\n", __func__, dir);
		goto out;
	}
	snprintf(prog, sizeof(prog), "%s/fsop", dir);
	snprintf(file, sizeof(file), "%s/root-only", dir);
	write_file(file, "root's only\n", 0600);
	{
		char *cp[] = { "/bin/cp", FSOP, prog, NULL };
		ck_assert_int_eq(run_scoped(NULL, cp, NULL), 0);
	}
	ck_assert_int_eq(chown(prog, 0, 0), 0);
	ck_assert_int_eq(chmod(prog, 04755), 0);
	if (!nobody_can_run(prog, __func__, "a set-user-ID program"))
		goto out;
	out = regain_unconfined(prog, file);
	ck_assert_msg(strstr(out, "ok"), "the set-user-ID copy did not work unconfined: %s", out);
	free(out);
	scope_for(&s, deny, true);
	{
		char *argv[] = { prog, "regain-openw", file, NULL };
		char *said = NULL;

		run_scoped(&s, argv, &said);
		ck_assert_msg(said && strstr(said, "EPERM"), "the confined copy said: %s", said);
		free(said);
	}
	sbx_scopeattr_destroy(&s);
out:
	rm_rf(dir);
	rm_rf(deny);
	free(dir);
	free(deny);
}
END_TEST

Suite *suite_channels(void)
{
	Suite *s = suite_create("channels");
	TCase *tc = tcase_create("channels");

	untimed(tc);
	tcase_add_test(tc, test_setuid_program_gains_nothing);
	tcase_add_test(tc, test_limit_sysv_ipc);
	tcase_add_test(tc, test_posix_mqueue_closed);
	tcase_add_test(tc, test_mqueue_mounts);
	tcase_add_test(tc, test_mqueue_mounted_after_a_spawn);
	tcase_add_test(tc, test_mqueue_by_name);
	second_names_tests(tc);
	suite_add_tcase(s, tc);
	return s;
}
