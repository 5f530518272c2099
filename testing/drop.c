/* SPDX-License-Identifier: MIT */
/*
 * A dropped grant, named: the kernel refuses landlock_add_rule for the
 * rules on one file, and only those.  A seccomp filter cannot see which
 * file a rule is about (the descriptor is inside a struct the call points
 * to), so the filter hands every landlock_add_rule to a thread of the
 * calling process through a user notification; the thread reads the rule,
 * looks at the file behind its descriptor, and answers: the error, or "go
 * on" to the kernel.  Processes started afterwards inherit the filter, and
 * the same thread answers for them.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "compat/landlock.h"
#include "sbxspawn/testing.h"
#include "testing/internal.h"

/* One file whose rules are refused, by identity: whatever name the
 * library reaches it by. */
struct target {
	dev_t dev;
	ino_t ino;
	int err;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct target *targets;
static size_t ntargets;
static int listener = -1;

/* The error for a rule on the file open as descriptor fd of process pid,
 * or 0. */
static int verdict(pid_t pid, int fd)
{
	char path[64];
	struct stat st;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%ld/fd/%d", (long)pid, fd);
	if (stat(path, &st))
		return 0;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < ntargets && !err; i++)
		if (targets[i].dev == st.st_dev && targets[i].ino == st.st_ino)
			err = targets[i].err;
	pthread_mutex_unlock(&lock);
	return err;
}

/* What to answer to one notification: an error, or 0 to let it through. */
static int judge(int fd, const struct seccomp_notif *req)
{
	struct sbx_landlock_path_beneath_attr pb;
	struct iovec here = { &pb, sizeof(pb) };
	struct iovec there = { (void *)(uintptr_t)req->data.args[2], sizeof(pb) };
	int err;

	if (req->data.args[1] != LANDLOCK_RULE_PATH_BENEATH)
		return 0; /* a network port: nothing of the filesystem */
	if (process_vm_readv(req->pid, &here, 1, &there, 1, 0) != (ssize_t)sizeof(pb))
		return 0; /* a bad pointer: the kernel will say EFAULT itself */
	err = verdict(req->pid, pb.parent_fd);
	/* The process may have died and its pid been reused between the
	 * notification and the reads: then this answer is about no one. */
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id))
		return 0;
	return err;
}

static void *answer(void *arg)
{
	int fd = (int)(intptr_t)arg;

	for (;;) {
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;
		int err;

		/* The kernel wants it zeroed. */
		memset(&req, 0, sizeof(req));
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req)) {
			if (errno == EINTR || errno == ENOENT)
				continue; /* interrupted, or the caller died meanwhile */
			return NULL;
		}
		err = judge(fd, &req);
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		if (err)
			resp.error = -err;
		else
			resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		/* ENOENT: the caller died meanwhile; nothing to do. */
		(void)ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}

/* The filter and the thread that answers for it, once per process. */
static int start(void)
{
	const long add_rule = __NR_landlock_add_rule;
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t thread;
	int fd, err;

	/* The thread first: under its own filter it would answer nothing,
	 * and a landlock_add_rule of its own would wait forever. */
	if ((err = sbx__testing_filter(&add_rule, 1, SECCOMP_RET_USER_NOTIF, 1, &fd)))
		return err;
	/* No signal of the test's is ever delivered to it. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (!(err = pthread_attr_init(&attr))) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		err = pthread_create(&thread, &attr, answer, (void *)(intptr_t)fd);
		pthread_attr_destroy(&attr);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		/* The filter stays: every rule would wait for an answer that
		 * never comes.  Closing the listener makes them fail instead. */
		close(fd);
		return err;
	}
	listener = fd;
	return 0;
}

SBX_TESTING_EXPORT int sbx_testing_grant_drop(const char *path, int err)
{
	SBX_TESTING_KEEP_ERRNO;
	struct target *grown;
	struct stat st;
	int r = 0;

	if (!path || err <= 0 || err > 4095)
		return EINVAL;
	if (stat(path, &st))
		return errno;
	if ((r = sbx__testing_forked()) || (r = sbx__testing_need_landlock()))
		return r;
	pthread_mutex_lock(&lock);
	if (!(grown = realloc(targets, (ntargets + 1) * sizeof(*targets)))) {
		r = ENOMEM;
	} else {
		targets = grown;
		if (listener < 0)
			r = start();
		if (!r)
			targets[ntargets++] = (struct target){ .dev = st.st_dev, .ino = st.st_ino,
			                                       .err = err };
	}
	pthread_mutex_unlock(&lock);
	return r;
}
