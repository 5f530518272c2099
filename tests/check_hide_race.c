/* SPDX-License-Identifier: MIT */
/* Hidden denials, continued (check_hide.c holds the cover): what the caller
 * changes in its descriptor table while a spawn looks at it.  The parent
 * looks before its clone, and the child makes its own table what was seen
 * (lib/child/holds.c): a descriptor put there meanwhile at a number the parent
 * saw free is closed at exec, and one the parent saw as another file makes
 * the child look at its table itself.  Each is first shown reading the key
 * without a scope. */
#include "config.h"

#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#ifdef HAVE_LINUX_IO_URING_H
#include <linux/io_uring.h>
#endif
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "tests/hide.h"

/* Whatever directory it inherits, the command reads .ssh/id beneath. */
#define READ_ANY "cat /proc/self/fd/*/.ssh/id 2>/dev/null; exit 0"

/* A directory the caller's own io_uring opens (no O_CLOEXEC) while a
 * spawn is made: the completion puts the descriptor in the table at the
 * return of whichever system call the caller's thread makes then, the
 * spawn's own among them, one thread or not.  The parent looks before its
 * clone, and the child makes its own table what was seen (holds.c): a
 * look of the parent's trusted alone let the command read the key in about
 * one spawn of twelve here. */
#ifdef HAVE_LINUX_IO_URING_H
struct uring {
	int fd;
	struct io_uring_params p;
	char *sq, *cq;
	struct io_uring_sqe *sqes;
};

static bool uring_make(struct uring *u)
{
	memset(u, 0, sizeof(*u));
	if ((u->fd = (int)syscall(SYS_io_uring_setup, 8, &u->p)) < 0)
		return false;
	u->sq = mmap(NULL, u->p.sq_off.array + u->p.sq_entries * sizeof(unsigned),
	             PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd, IORING_OFF_SQ_RING);
	u->cq = mmap(NULL, u->p.cq_off.cqes + u->p.cq_entries * sizeof(struct io_uring_cqe),
	             PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd, IORING_OFF_CQ_RING);
	u->sqes = mmap(NULL, u->p.sq_entries * sizeof(*u->sqes), PROT_READ | PROT_WRITE,
	               MAP_SHARED | MAP_POPULATE, u->fd, IORING_OFF_SQES);
	ck_assert(u->sq != MAP_FAILED && u->cq != MAP_FAILED && u->sqes != MAP_FAILED);
	return true;
}

static void uring_put(struct uring *u, struct io_uring_sqe sqe)
{
	unsigned *tail = (unsigned *)(u->sq + u->p.sq_off.tail), at = *tail;
	unsigned i = at & *(unsigned *)(u->sq + u->p.sq_off.ring_mask);

	u->sqes[i] = sqe;
	((unsigned *)(u->sq + u->p.sq_off.array))[i] = i;
	__atomic_store_n(tail, at + 1, __ATOMIC_RELEASE);
}

/* Waits for both, and closes what the open made. */
static void uring_reap(struct uring *u)
{
	unsigned *head = (unsigned *)(u->cq + u->p.cq_off.head);
	unsigned mask = *(unsigned *)(u->cq + u->p.cq_off.ring_mask);
	struct io_uring_cqe *cqes = (struct io_uring_cqe *)(u->cq + u->p.cq_off.cqes);

	ck_assert_int_ge(syscall(SYS_io_uring_enter, u->fd, 0, 2, IORING_ENTER_GETEVENTS, NULL, 0), 0);
	for (int n = 0; n < 2; n++) {
		struct io_uring_cqe *e = &cqes[*head & mask];

		if (e->user_data == 2 && e->res >= 0)
			close(e->res);
		__atomic_store_n(head, *head + 1, __ATOMIC_RELEASE);
	}
}

/* 200 spawns of argv under s, each beside an open of HOME (no O_CLOEXEC)
 * that a timer of 0 to 400 us starts. */
static void open_meanwhile(struct uring *u, sbx_scopeattr_t *s, char **argv)
{
	struct __kernel_timespec ts = { 0 };
	unsigned seed = 12345;

	for (int round = 0; round < 200; round++) {
		seed = seed * 1103515245u + 12345u;
		ts.tv_nsec = (long)(seed >> 8) % 400 * 1000;
		uring_put(u, (struct io_uring_sqe){ .opcode = IORING_OP_TIMEOUT, .addr = (uintptr_t)&ts,
		                                    .len = 1, .flags = IOSQE_IO_LINK, .user_data = 1,
		                                    .timeout_flags = IORING_TIMEOUT_ETIME_SUCCESS });
		uring_put(u, (struct io_uring_sqe){ .opcode = IORING_OP_OPENAT, .fd = AT_FDCWD,
		                                    .addr = (uintptr_t)home,
		                                    .open_flags = O_RDONLY | O_DIRECTORY, .user_data = 2 });
		ck_assert_int_eq(syscall(SYS_io_uring_enter, u->fd, 2, 0, 0, NULL, 0), 2);
		verdict_of(s, argv, false, NULL); /* never the secret */
		uring_reap(u);
	}
}

START_TEST(test_hide_held_opened_meanwhile)
{
	char *argv[] = { "/bin/sh", "-c", READ_ANY, NULL };
	sbx_scopeattr_t s;
	struct uring u;
	int dir;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	if (!uring_make(&u)) {
		say_skip("SKIP %s: no io_uring here (%s)\n", __func__, strerror(errno));
		return;
	}
	/* The control: through a directory it inherits, the command reads it. */
	ck_assert_int_ge(dir = open(home, O_RDONLY | O_DIRECTORY), 0);
	ck_assert_ptr_nonnull(strstr(verdict_of(NULL, argv, true, NULL), SECRET));
	close(dir);
	scope_deny(&s, ssh, 0);
	open_meanwhile(&u, &s, argv);
	sbx_scopeattr_destroy(&s);
	close(u.fd);
}
END_TEST
#endif

/* A thread of the caller's swaps one number between a harmless file and
 * what (dup2(2) replaces it whole) while 200 spawns are made: a directory
 * of HOME, or the key itself.  The parent judges one copy of what it finds
 * there and lists that file; the child, holding something else, looks at
 * its own table.  Without the copy, the parent could list the key's inode
 * and judge the harmless file's name. */
struct swap {
	int at, file, what;
	atomic_bool stop;
};

static void *swapper(void *arg)
{
	struct swap *w = arg;

	while (!atomic_load(&w->stop)) {
		dup2(w->what, w->at);
		dup2(w->file, w->at);
	}
	return NULL;
}

static void swap_meanwhile(const char *what, int flags)
{
	char cmd[128], *argv[] = { "/bin/sh", "-c", cmd, NULL };
	struct swap w;
	sbx_scopeattr_t s;
	pthread_t th;

	ck_assert_int_ge(w.file = open("/dev/null", O_RDONLY | O_CLOEXEC), 0);
	ck_assert_int_ge(w.what = open(what, flags | O_CLOEXEC), 0);
	ck_assert_int_ge(w.at = dup(w.file), 0);
	snprintf(cmd, sizeof(cmd), "cat /proc/self/fd/*/.ssh/id /proc/self/fd/%d 2>/dev/null; exit 0",
	         w.at);
	/* The control: with it at that number, the command reads the key. */
	ck_assert_int_eq(dup2(w.what, w.at), w.at);
	ck_assert_ptr_nonnull(strstr(verdict_of(NULL, argv, true, NULL), SECRET));
	ck_assert_int_eq(dup2(w.file, w.at), w.at);
	scope_deny(&s, ssh, 0);
	atomic_init(&w.stop, false);
	ck_assert_int_eq(pthread_create(&th, NULL, swapper, &w), 0);
	for (int round = 0; round < 200; round++)
		verdict_of(&s, argv, false, NULL); /* never the secret */
	atomic_store(&w.stop, true);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	sbx_scopeattr_destroy(&s);
	close(w.at);
	close(w.what);
	close(w.file);
}

START_TEST(test_hide_held_swapped_meanwhile)
{
	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	swap_meanwhile(home, O_RDONLY | O_DIRECTORY);
	swap_meanwhile(key, O_RDONLY);
}
END_TEST

/* What the command inherits when nothing races: what posix_spawn(3)'s
 * command inherits, hidden or not.  The descriptors left open past exec
 * at scattered numbers: 5 (the parent lists them), then 40 (more than it
 * lists: the child looks itself). */
static char *listed_by_glibc(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	int fd = memfd_create("out", MFD_CLOEXEC);
	char *out, *nl;
	pid_t pid;

	ck_assert_int_ge(fd, 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, 1);
	posix_spawn_file_actions_adddup2(&fa, fd, 2);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	ck_assert_int_eq(posix_spawn(&pid, argv[0], &fa, NULL, argv, environ), 0);
	ck_assert_int_eq(wait_status(pid), 0);
	posix_spawn_file_actions_destroy(&fa);
	out = slurp_fd(fd);
	close(fd);
	while ((nl = strrchr(out, '\n')) && !nl[1])
		*nl = '\0'; /* as verdict_of leaves it */
	return out;
}

START_TEST(test_hide_inherits_as_posix_spawn)
{
	char *argv[] = { "/bin/ls", "/proc/self/fd", NULL }, *glibc, *ours;
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	sbx_scopeattr_t s;
	sbx_outcome_t oc;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	ck_assert_int_ge(null, 0);
	scope_deny(&s, ssh, 0);
	for (int n = 0, want = 5; want <= 40; want += 35) {
		for (; n < want; n++)
			ck_assert_int_eq(dup2(null, 40 + 13 * n), 40 + 13 * n);
		glibc = listed_by_glibc(argv);
		verdict_of(&s, argv, false, &ours);
		ck_assert_int_eq(sbx_outcome_get(&oc), 0);
		ck_assert_msg(oc.hidden == 1 && oc.expanded == 0, "hidden %u, expanded %u", oc.hidden,
		              oc.expanded);
		ck_assert_str_eq(ours, glibc);
		free(glibc);
		free(ours);
	}
	for (int n = 0; n < 40; n++)
		close(40 + 13 * n);
	close(null);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* Whether another process sees a write lock on fd's file. */
static bool locked(int fd)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };

		_exit(fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type == F_WRLCK ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The caller's POSIX record lock on a file the command inherits outlives
 * a hidden spawn, as it outlives posix_spawn: the parent's look at the
 * descriptor closes nothing that names the file (the kernel drops every
 * such lock of a process at the close of any of its descriptors of the
 * file: the control). */
START_TEST(test_hide_look_keeps_locks)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char path[4400];
	sbx_scopeattr_t s;
	int fd;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	snprintf(path, sizeof(path), "%s/lock", home);
	ck_assert_int_ge(fd = open(path, O_RDWR | O_CREAT, 0600), 0);
	ck_assert_int_eq(fcntl(fd, F_SETLK, &fl), 0);
	ck_assert(locked(fd));
	close(dup(fd));
	ck_assert(!locked(fd)); /* the control: a close of a copy drops it */
	ck_assert_int_eq(fcntl(fd, F_SETLK, &fl), 0);
	scope_deny(&s, ssh, 0);
	ck_assert_str_eq(VERDICT(&s, "/bin/sh", "-c", "echo ok"), "ok");
	outcome(1, 0);
	ck_assert_msg(locked(fd), "the hidden spawn dropped the caller's lock");
	sbx_scopeattr_destroy(&s);
	close(fd);
}
END_TEST

Suite *suite_hide_race(void)
{
	Suite *su = suite_create("hide-race");
	TCase *tc = tcase_create("race");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
#ifdef HAVE_LINUX_IO_URING_H
	tcase_add_test(tc, test_hide_held_opened_meanwhile);
#endif
	tcase_add_test(tc, test_hide_held_swapped_meanwhile);
	tcase_add_test(tc, test_hide_inherits_as_posix_spawn);
	tcase_add_test(tc, test_hide_look_keeps_locks);
	suite_add_tcase(su, tc);
	return su;
}
