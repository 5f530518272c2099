/* SPDX-License-Identifier: MIT */
/* The escape helper's io_uring attempts (escape.c): IORING_OP_OPENAT,
 * _RENAMEAT and a fixed-file install on a denied path, inline, through an
 * io-wq worker or a kernel thread submitting (SQPOLL), on a ring set up
 * by hand. */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#ifdef HAVE_LINUX_IO_URING_H
#include <linux/io_uring.h>
#endif
#ifdef HAVE_LINUX_OPENAT2_H
#include <linux/openat2.h>
#endif
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "compat/compat.h"
#include "tests/helpers/steps.h"

#ifdef HAVE_LINUX_IO_URING_H

struct ring {
	int fd;
	struct io_uring_params p;
	unsigned char *sq, *cq;
	struct io_uring_sqe *sqes;
};

static int ring_setup(struct ring *r, unsigned flags)
{
	size_t sqsz, cqsz;

	memset(r, 0, sizeof(*r));
	r->p.flags = flags;
	r->p.sq_thread_idle = 1000;
	r->fd = (int)syscall(SYS_io_uring_setup, 4, &r->p);
	if (r->fd < 0)
		return -1;
	sqsz = r->p.sq_off.array + r->p.sq_entries * sizeof(unsigned);
	cqsz = r->p.cq_off.cqes + r->p.cq_entries * sizeof(struct io_uring_cqe);
	if (r->p.features & IORING_FEAT_SINGLE_MMAP)
		sqsz = cqsz = sqsz > cqsz ? sqsz : cqsz;
	r->sq = mmap(NULL, sqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
	             IORING_OFF_SQ_RING);
	r->cq = (r->p.features & IORING_FEAT_SINGLE_MMAP)
	                ? r->sq
	                : mmap(NULL, cqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
	                       IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, r->p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
	               MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (r->sq == MAP_FAILED || r->cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -1;
	return 0;
}

/* Submits one entry and waits for its completion; returns its result. */
static int ring_run(struct ring *r, const struct io_uring_sqe *sqe)
{
	unsigned *tail = (unsigned *)(r->sq + r->p.sq_off.tail);
	unsigned *array = (unsigned *)(r->sq + r->p.sq_off.array);
	unsigned mask = *(unsigned *)(r->sq + r->p.sq_off.ring_mask);
	unsigned *head = (unsigned *)(r->cq + r->p.cq_off.head);
	unsigned cmask = *(unsigned *)(r->cq + r->p.cq_off.ring_mask);
	struct io_uring_cqe *cqes = (struct io_uring_cqe *)(r->cq + r->p.cq_off.cqes);
	unsigned t = *tail, h;
	unsigned enter = IORING_ENTER_GETEVENTS;
	int res;

	r->sqes[t & mask] = *sqe;
	array[t & mask] = t & mask;
	__atomic_store_n(tail, t + 1, __ATOMIC_RELEASE);
	if (r->p.flags & IORING_SETUP_SQPOLL)
		enter |= IORING_ENTER_SQ_WAKEUP;
	if (syscall(SYS_io_uring_enter, r->fd, 1, 1, enter, NULL, 0) < 0)
		return -errno;
	h = __atomic_load_n(head, __ATOMIC_ACQUIRE);
	res = cqes[h & cmask].res;
	__atomic_store_n(head, h + 1, __ATOMIC_RELEASE);
	return res;
}

/* uring-openat PATH MODE: MODE "inline", "async" (an io-wq worker does the
 * open) or "sqpoll" (a kernel thread submits it). */
int uring_openat(char **a)
{
	struct ring r;
	struct io_uring_sqe sqe = { .opcode = IORING_OP_OPENAT, .fd = AT_FDCWD,
	                            .addr = (uintptr_t)a[0], .open_flags = O_RDONLY };
	int res;

	if (!strcmp(a[1], "async"))
		sqe.flags = IOSQE_ASYNC;
	if (ring_setup(&r, !strcmp(a[1], "sqpoll") ? IORING_SETUP_SQPOLL : 0) < 0) {
		printf("unavailable %s\n", name(errno));
		return 3;
	}
	res = ring_run(&r, &sqe);
	errno = res < 0 ? -res : 0;
	return open_and_dump("openat", res < 0 ? -1 : res);
}

/* uring-install RING REL: a file RING (an io_uring this process inherits,
 * made with 4 entries) holds registered at index 0, installed as a
 * descriptor of this process (IORING_OP_FIXED_FD_INSTALL), and REL read
 * from it.  The ring's layout is learned from one made here alike. */
int uring_install(char **a)
{
	struct ring mine, r;
	struct io_uring_sqe sqe = { .opcode = 54 /* IORING_OP_FIXED_FD_INSTALL */,
	                            .flags = IOSQE_FIXED_FILE, .fd = 0 };
	int res;

	if (ring_setup(&mine, 0) < 0) {
		printf("unavailable %s\n", name(errno));
		return 3;
	}
	r = mine;
	r.fd = atoi(a[0]);
	r.sq = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, IORING_OFF_SQ_RING);
	r.cq = (r.p.features & IORING_FEAT_SINGLE_MMAP)
	               ? r.sq
	               : mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, IORING_OFF_CQ_RING);
	r.sqes = mmap(NULL, r.p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
	              MAP_SHARED, r.fd, IORING_OFF_SQES);
	if (r.sq == MAP_FAILED || r.cq == MAP_FAILED || r.sqes == MAP_FAILED)
		return verdict(step("mmap", -1));
	if ((res = ring_run(&r, &sqe)) < 0) {
		errno = -res;
		return verdict(step("install", -1));
	}
	return open_and_dump("openat", openat(res, a[1], O_RDONLY));
}

/* uring-renameat OLD NEW */
int uring_renameat(char **a)
{
	struct ring r;
	struct io_uring_sqe sqe = { .opcode = IORING_OP_RENAMEAT, .fd = AT_FDCWD,
	                            .addr = (uintptr_t)a[0], .len = (unsigned)AT_FDCWD,
	                            .addr2 = (uintptr_t)a[1] };
	int res;

	if (ring_setup(&r, 0) < 0) {
		printf("unavailable %s\n", name(errno));
		return 3;
	}
	res = ring_run(&r, &sqe);
	errno = res < 0 ? -res : 0;
	return verdict(step("renameat", res < 0 ? -1 : 0));
}
#else
/* Without the kernel's <linux/io_uring.h> (Debian's musl-gcc sees none),
 * no ring: the tests skip, saying so. */
int uring_openat(char **a)
{
	(void)a;
	printf("unavailable (the helper was built without <linux/io_uring.h>)\n");
	return 3;
}

int uring_renameat(char **a)
{
	return uring_openat(a);
}

int uring_install(char **a)
{
	return uring_openat(a);
}
#endif
