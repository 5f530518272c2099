/* SPDX-License-Identifier: MIT */
/* What a child can do to the process that started it and to what that
 * process holds, beyond paths: one act a run, named by the first argument,
 * its verdict on the last line ("ok", or the errno's name).  The tests run
 * each act unconfined first, where it must work (the control), then
 * confined; the caller checks its own state after each.
 *
 *   prlimit WHO RESOURCE SOFT   set the soft limit of WHO ("parent" or "self")
 *   nice WHICH WHO DELTA        setpriority: WHICH process, group or user
 *   affinity WHO                sched_setaffinity: the first CPU it may use
 *   batch WHO                   sched_setscheduler: SCHED_BATCH
 *   attr WHO                    sched_setattr: SCHED_BATCH
 *   idle-io WHO                 ioprio_set: the idle class
 *   key-read ID / key-update ID TEXT     keyctl on a key the caller made
 *   write-proc FILE TEXT        write /proc/PARENT/FILE
 *   read-proc FILE              read /proc/PARENT/FILE, printed
 *   winsize                     TIOCSWINSZ on descriptor 0
 *   perf WHO                    perf_event_open: a task-clock counter on WHO
 *   clone-parent                clone(2) with CLONE_PARENT: a sibling that
 *                               exits at once, its pid printed ("sibling: N")
 *   clone3                      clone3(2) ("clone3: ok" or its errno), then
 *                               posix_spawn(3) of sh, waited for: the verdict
 *   mount-ro PATH / mount-rw PATH   mount_setattr(2) on the mount at PATH
 *   mq-path PATH / mq-open NAME a message queue by path, or by mq_open(3):
 *                               receive one message, print it, send it back
 *   mq-unlink NAME              mq_unlink(3)
 *   mq-create NAME              mq_open(3) with O_CREAT | O_EXCL, mode 0666
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "compat/compat.h"

#define KEYCTL_UPDATE 2
#define KEYCTL_READ 11
#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_CLASS_IDLE 3
#ifndef CLONE_PARENT
#define CLONE_PARENT 0x00008000
#endif
#define NR_CLONE3 435
#define NR_MOUNT_SETATTR 442
#define MOUNT_ATTR_RDONLY_ 0x1

static int verdict(long r)
{
	const char *n = strerrorname_np(errno);

	if (r < 0)
		printf("%s\n", n ? n : "E?");
	else
		printf("ok\n");
	return r < 0;
}

static pid_t who(const char *w)
{
	return !strcmp(w, "parent") ? getppid() : 0;
}

static int resource(const char *name)
{
	return !strcmp(name, "fsize") ? RLIMIT_FSIZE : !strcmp(name, "core") ? RLIMIT_CORE
	                                                                      : RLIMIT_NOFILE;
}

static int set_limit(char **a)
{
	struct rlimit old, rl;
	pid_t p = who(a[0]);

	if (prlimit(p, resource(a[1]), NULL, &old) < 0)
		return verdict(-1);
	rl = (struct rlimit){ strtoull(a[2], NULL, 10), old.rlim_max };
	return verdict(prlimit(p, resource(a[1]), &rl, NULL));
}

static int renice(char **a)
{
	int which = !strcmp(a[0], "group") ? PRIO_PGRP : !strcmp(a[0], "user") ? PRIO_USER
	                                                                       : PRIO_PROCESS;
	id_t id = which == PRIO_PROCESS ? (id_t)who(a[1]) : 0;
	int now;

	errno = 0;
	now = getpriority(which, id);
	if (now == -1 && errno)
		return verdict(-1);
	return verdict(setpriority(which, id, now + atoi(a[2])));
}

static int pin(char **a)
{
	cpu_set_t set, one;

	if (sched_getaffinity(who(a[0]), sizeof(set), &set) < 0)
		return verdict(-1);
	CPU_ZERO(&one);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set)) {
			CPU_SET(cpu, &one);
			break;
		}
	return verdict(sched_setaffinity(who(a[0]), sizeof(one), &one));
}

static int batch(char **a)
{
	struct sched_param sp = { 0 };

	/* Raw: musl's sched_setscheduler says ENOSYS. */
	return verdict(syscall(SYS_sched_setscheduler, who(a[0]), SCHED_BATCH, &sp));
}

/* struct sched_attr as the kernel reads it (its first version, 48 bytes). */
struct attr {
	unsigned size, policy;
	unsigned long long flags;
	int nice;
	unsigned priority;
	unsigned long long runtime, deadline, period;
};

static int set_attr(char **a)
{
	struct attr at = { .size = sizeof(at), .policy = SCHED_BATCH };

	/* The target's own nice value kept: a lower one is a privilege (a
	 * regular user's suite under nice -n 19 would be refused). */
	errno = 0;
	at.nice = getpriority(PRIO_PROCESS, (id_t)who(a[0]));
	if (errno)
		return verdict(-1);
	return verdict(syscall(SYS_sched_setattr, who(a[0]), &at, 0));
}

static int idle_io(char **a)
{
	return verdict(syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, who(a[0]),
	                       IOPRIO_CLASS_IDLE << 13));
}

static int key_read(char **a)
{
	char buf[256] = "";
	long n = syscall(SYS_keyctl, KEYCTL_READ, atol(a[0]), buf, sizeof(buf) - 1, 0);

	if (n >= 0)
		printf("key: %.*s\n", (int)n, buf);
	return verdict(n);
}

static int key_update(char **a)
{
	return verdict(syscall(SYS_keyctl, KEYCTL_UPDATE, atol(a[0]), a[1], strlen(a[1]), 0));
}

static int write_proc(char **a)
{
	char path[64];
	int fd;
	long r;

	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)getppid(), a[0]);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return verdict(-1);
	r = write(fd, a[1], strlen(a[1]));
	close(fd);
	return verdict(r);
}

static int read_proc(char **a)
{
	char path[64], buf[4096];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)getppid(), a[0]);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return verdict(-1);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0' || buf[i] == '\n')
			buf[i] = ' ';
	if (n > 0)
		printf("read: %.*s\n", (int)n, buf);
	return verdict(n);
}

static int winsize(char **a)
{
	struct winsize ws;

	(void)a;
	if (ioctl(0, TIOCGWINSZ, &ws) < 0)
		return verdict(-1);
	ws.ws_col++;
	return verdict(ioctl(0, TIOCSWINSZ, &ws));
}

/* One message received, printed and sent back, from queue q. */
static int queue(mqd_t q)
{
	char msg[8192];
	ssize_t n;

	if (q == (mqd_t)-1)
		return verdict(-1);
	n = mq_receive(q, msg, sizeof(msg), NULL);
	if (n >= 0) {
		printf("message: %.*s\n", (int)n, msg);
		n = mq_send(q, msg, (size_t)n, 0);
	}
	return verdict(n);
}

static int mq_path(char **a)
{
	/* A queue's file, opened as a file, is the queue's descriptor. */
	return queue((mqd_t)open(a[0], O_RDWR | O_NONBLOCK | O_CLOEXEC));
}

static int mq_name(char **a)
{
	return queue(mq_open(a[0], O_RDWR | O_NONBLOCK));
}

/* struct perf_event_attr's first version (64 bytes): a software counter of
 * the task's clock, user space only (perf_event_paranoid 2 allows it on a
 * process one may trace). */
struct perf_attr {
	uint32_t type, size;
	uint64_t config, sample_period, sample_type, read_format, flags;
	uint32_t wakeup_events, bp_type;
	uint64_t bp_addr;
};

static int perf(char **a)
{
	struct perf_attr at = { .type = 1 /* PERF_TYPE_SOFTWARE */, .size = sizeof(at),
		                .config = 1 /* PERF_COUNT_SW_TASK_CLOCK */,
		                .flags = (1ULL << 5) | (1ULL << 6) /* exclude_kernel, _hv */ };
	long fd = syscall(SYS_perf_event_open, &at, who(a[0]), -1, -1, 0UL);

	if (fd >= 0)
		close((int)fd);
	return verdict(fd);
}

static int clone_parent(char **a)
{
	long r;

	(void)a;
	r = syscall(SYS_clone, (unsigned long)(CLONE_PARENT | SIGCHLD), 0UL, 0UL, 0UL, 0UL);
	if (r == 0)
		_exit(0);
	if (r > 0)
		printf("sibling: %ld\n", r);
	return verdict(r);
}

/* struct clone_args's first version (64 bytes). */
struct clone_args_ {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

static int clone3_then_spawn(char **a)
{
	struct clone_args_ ca = { .exit_signal = SIGCHLD };
	static char sh[] = "sh", c[] = "-c", code[] = "exit 0";
	char *argv[] = { sh, c, code, NULL };
	const char *n;
	pid_t pid;
	long r;
	int st, err;

	(void)a;
	r = syscall(NR_CLONE3, &ca, sizeof(ca));
	if (r == 0)
		_exit(0);
	n = r < 0 ? strerrorname_np(errno) : "ok";
	printf("clone3: %s\n", n ? n : "E?");
	if (r > 0)
		waitpid((pid_t)r, &st, 0);
	if ((err = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, NULL))) {
		errno = err;
		return verdict(-1);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		errno = ECHILD;
		return verdict(-1);
	}
	return verdict(0);
}

/* struct mount_attr (32 bytes). */
struct mount_attr_ {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

static int mount_attr(const char *path, bool readonly)
{
	struct mount_attr_ ma = { .attr_set = readonly ? MOUNT_ATTR_RDONLY_ : 0,
		                  .attr_clr = readonly ? 0 : MOUNT_ATTR_RDONLY_ };

	return verdict(syscall(NR_MOUNT_SETATTR, AT_FDCWD, path, 0U, &ma, sizeof(ma)));
}

static int mount_ro(char **a)
{
	return mount_attr(a[0], true);
}

static int mount_rw(char **a)
{
	return mount_attr(a[0], false);
}

static int mq_remove(char **a)
{
	return verdict(mq_unlink(a[0]));
}

static int mq_create(char **a)
{
	mqd_t q = mq_open(a[0], O_CREAT | O_EXCL | O_RDWR, 0666, NULL);

	if (q != (mqd_t)-1)
		mq_close(q);
	return verdict(q == (mqd_t)-1 ? -1 : 0);
}

static const struct {
	const char *name;
	int nargs;
	int (*act)(char **);
} acts[] = {
	{ "prlimit", 3, set_limit },   { "nice", 3, renice },         { "affinity", 1, pin },
	{ "batch", 1, batch },         { "attr", 1, set_attr },       { "idle-io", 1, idle_io },
	{ "key-read", 1, key_read },   { "key-update", 2, key_update },
	{ "write-proc", 2, write_proc }, { "read-proc", 1, read_proc }, { "winsize", 0, winsize },
	{ "mq-path", 1, mq_path },     { "mq-open", 1, mq_name },
	{ "mq-unlink", 1, mq_remove }, { "mq-create", 1, mq_create },
	{ "perf", 1, perf },           { "clone-parent", 0, clone_parent },
	{ "clone3", 0, clone3_then_spawn }, { "mount-ro", 1, mount_ro }, { "mount-rw", 1, mount_rw },
};

int main(int argc, char **argv)
{
	for (size_t i = 0; argc > 1 && i < sizeof(acts) / sizeof(acts[0]); i++)
		if (!strcmp(argv[1], acts[i].name) && argc - 2 == acts[i].nargs) {
			setvbuf(stdout, NULL, _IOLBF, 0);
			return acts[i].act(argv + 2);
		}
	fprintf(stderr, "nudge: unknown act or wrong arguments\n");
	return 2;
}
