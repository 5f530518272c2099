/* SPDX-License-Identifier: MIT */
/* One escape attempt against a denied path, made the way a program that
 * wants out would make it.  Every step prints "STEP ok" or "STEP ERRNO";
 * the last line is the verdict: "ok" when the attempt went through, else
 * the errno of the step that failed.  Whatever a read obtains goes to
 * stderr, so a leak shows up in the output the test inspects. */
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

#ifndef HAVE_LINUX_OPENAT2_H
/* openat2(2)'s argument, where the kernel's headers are not at hand. */
struct open_how {
	uint64_t flags, mode, resolve;
};
#define RESOLVE_NO_XDEV 0x01
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS 0x04
#define RESOLVE_BENEATH 0x08
#define RESOLVE_IN_ROOT 0x10
#endif
/* glibc's headers have these, musl's not: the kernel's values. */
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif

extern char **environ;

/* ---- names: symlinks, descriptors, directories ---------------------------- */

/* symlink TARGET LINK, then read LINK/REST (REST may be empty). */
static int symlink_read(char **a)
{
	char path[4096];

	if (step("symlink", symlink(a[0], a[1])) < 0)
		return verdict(-1);
	snprintf(path, sizeof(path), "%s%s%s", a[1], a[2][0] ? "/" : "", a[2]);
	return open_and_dump("open", open(path, O_RDONLY));
}

/* symlink TARGET LINK, then create through LINK (without O_EXCL, which
 * would refuse to follow it). */
static int symlink_create(char **a)
{
	if (step("symlink", symlink(a[0], a[1])) < 0)
		return verdict(-1);
	return verdict(step("create", open(a[1], O_WRONLY | O_CREAT, 0644)));
}

static int openat_fd(char **a)
{
	return open_and_dump("openat", openat(atoi(a[0]), a[1], O_RDONLY));
}

/* Writes through an inherited directory descriptor, or reopens an
 * inherited descriptor for writing through /proc (a read-only path's
 * seal is a mount neither lookup crosses). */
static int openat_write(char **a)
{
	int fd = openat(atoi(a[0]), a[1], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	return verdict(fd < 0 ? -1 : write(fd, "x", 1));
}

static int fd_reopen_write(char **a)
{
	char via[64];
	int fd;

	snprintf(via, sizeof(via), "/proc/self/fd/%s", a[0]);
	fd = open(via, O_WRONLY | O_APPEND | O_CLOEXEC);
	return verdict(fd < 0 ? -1 : write(fd, "x", 1));
}

/* Reads an inherited descriptor as it is, without opening anything. */
static int fd_read(char **a)
{
	return verdict(dump(atoi(a[0])));
}

/* Lists an inherited directory descriptor, names to stderr. */
static int fd_list(char **a)
{
	DIR *d = fdopendir(dup(atoi(a[0])));
	struct dirent *e;

	if (step("fdopendir", d ? 0 : -1) < 0)
		return verdict(-1);
	while ((e = readdir(d)))
		fprintf(stderr, "entry %s\n", e->d_name);
	closedir(d);
	return verdict(0);
}

/* fchdir FD, then open NAME. */
static int fchdir_read(char **a)
{
	if (step("fchdir", fchdir(atoi(a[0]))) < 0)
		return verdict(-1);
	return open_and_dump("open", open(a[1], O_RDONLY));
}

/* chdir DIR, then open NAME relative to it. */
static int chdir_read(char **a)
{
	if (step("chdir", chdir(a[0])) < 0)
		return verdict(-1);
	return open_and_dump("open", open(a[1], O_RDONLY));
}

/* Prints the working directory, then lists ".": where a file action put us. */
static int cwd_list(char **a)
{
	char cwd[4096];

	(void)a;
	if (step("getcwd", getcwd(cwd, sizeof(cwd)) ? 0 : -1) < 0)
		return verdict(-1);
	printf("cwd %s\n", cwd);
	return verdict(step("opendir", opendir(".") ? 0 : -1));
}

static int exchange(char **a)
{
	return verdict(step("renameat2", syscall(SYS_renameat2, AT_FDCWD, a[0], AT_FDCWD, a[1],
	                                         RENAME_EXCHANGE)));
}

/* ---- opening differently -------------------------------------------------- */

/* An O_PATH descriptor is not an open for reading; reopening it through
 * /proc/self/fd is. */
static int opath_reopen(char **a)
{
	char via[64];
	int fd = open(a[0], O_PATH);

	if (step("opath", fd) < 0)
		return verdict(-1);
	snprintf(via, sizeof(via), "/proc/self/fd/%d", fd);
	return open_and_dump("reopen", open(via, O_RDONLY));
}

/* Executes PATH through an O_PATH descriptor. */
static int opath_exec(char **a)
{
	char *argv[] = { a[0], NULL };
	int fd = open(a[0], O_PATH);

	if (step("opath", fd) < 0)
		return verdict(-1);
	return verdict(step("execveat", syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH)));
}

static uint64_t resolve_flags(const char *s)
{
	uint64_t f = 0;

	if (strstr(s, "beneath"))
		f |= RESOLVE_BENEATH;
	if (strstr(s, "in-root"))
		f |= RESOLVE_IN_ROOT;
	if (strstr(s, "no-symlinks"))
		f |= RESOLVE_NO_SYMLINKS;
	if (strstr(s, "no-magiclinks"))
		f |= RESOLVE_NO_MAGICLINKS;
	if (strstr(s, "no-xdev"))
		f |= RESOLVE_NO_XDEV;
	return f;
}

/* openat2 DIR PATH FLAGS, DIR "-" for the working directory. */
static int openat2_read(char **a)
{
	struct open_how how = { .flags = O_RDONLY, .resolve = resolve_flags(a[2]) };
	int dir = strcmp(a[0], "-") ? open(a[0], O_PATH | O_DIRECTORY) : AT_FDCWD;

	if (dir != AT_FDCWD && step("dir", dir) < 0)
		return verdict(-1);
	return open_and_dump("openat2", (int)syscall(SYS_openat2, dir, a[1], &how, sizeof(how)));
}

/* ---- file handles ----------------------------------------------------------- */

struct handle {
	struct file_handle h;
	unsigned char bytes[MAX_HANDLE_SZ];
};

/* open_by_handle_at with a descriptor on MOUNTDIR as the mount (a real
 * open: the call takes no O_PATH descriptor). */
static int handle_open(const char *mountdir, struct handle *h)
{
	int mfd = open(mountdir, O_RDONLY | O_DIRECTORY);

	if (step("mountfd", mfd) < 0)
		return verdict(-1);
	return open_and_dump("open_by_handle_at", (int)syscall(SYS_open_by_handle_at, mfd, &h->h,
	                                                       O_RDONLY));
}

/* handle PATH MOUNTDIR: makes the handle, then opens it. */
static int handle_make_open(char **a)
{
	struct handle h = { .h.handle_bytes = MAX_HANDLE_SZ };
	int mnt;

	if (step("name_to_handle_at", name_to_handle_at(AT_FDCWD, a[0], &h.h, &mnt, 0)) < 0)
		return verdict(-1);
	return handle_open(a[1], &h);
}

/* handle-hex MOUNTDIR TYPE HEX: opens a handle someone else made. */
static int handle_hex(char **a)
{
	struct handle h = { .h.handle_type = atoi(a[1]) };
	size_t n = strlen(a[2]) / 2;

	if (n > MAX_HANDLE_SZ)
		return verdict((errno = EINVAL, -1));
	for (size_t i = 0; i < n; i++)
		sscanf(a[2] + 2 * i, "%2hhx", &h.bytes[i]);
	h.h.handle_bytes = (unsigned)n;
	return handle_open(a[0], &h);
}

/* ---- namespaces and mounts -------------------------------------------------- */

/* A user namespace of our own makes us root there, with CAP_SYS_ADMIN
 * over a mount namespace of our own: the classic way to mount without
 * privilege. */
static long own_namespaces(void)
{
	return step("unshare", unshare(CLONE_NEWUSER | CLONE_NEWNS));
}

/* userns-bind SRC DST READ: bind SRC on DST, then read READ. */
static int userns_bind(char **a)
{
	long r;
	int err;

	if (own_namespaces() < 0)
		return verdict(-1);
	/* Private first, so nothing could ever propagate out of here. */
	r = step("private", mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	if (r == 0)
		r = step("bind", mount(a[0], a[1], NULL, MS_BIND, NULL));
	err = errno;
	/* Whatever happened, try the read: it is the question. */
	if (try_read("open", open(a[2], O_RDONLY)) >= 0)
		return verdict(0);
	errno = err;
	return verdict(r);
}

/* userns-open-tree SRC NAME: a detached copy of SRC's mount (the new mount
 * interface, no mount(2) at all), then NAME opened beneath it. */
static int userns_open_tree(char **a)
{
	int tree;

	if (own_namespaces() < 0)
		return verdict(-1);
	tree = (int)syscall(SYS_open_tree, AT_FDCWD, a[0], OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (step("open_tree", tree) < 0)
		return verdict(-1);
	return open_and_dump("openat", openat(tree, a[1], O_RDONLY));
}

/* ---- other processes -------------------------------------------------------- */

/* Attached with PTRACE_SEIZE, which stops nothing: PTRACE_ATTACH's SIGSTOP,
 * left pending by a detach before the stop, stopped the process for good
 * once the attach worked (the test's own control does it to its process).
 * Its exit detaches it. */
static int do_ptrace(char **a)
{
	pid_t pid = (pid_t)atoi(a[0]);

	return verdict(step("attach", ptrace(PTRACE_SEIZE, pid, NULL, NULL)));
}

/* pidfd-getfd PID FD: a copy of another process's descriptor. */
static int pidfd_getfd(char **a)
{
	int pidfd = (int)syscall(SYS_pidfd_open, atoi(a[0]), 0);

	if (step("pidfd_open", pidfd) < 0)
		return verdict(-1);
	return open_and_dump("pidfd_getfd", (int)syscall(SYS_pidfd_getfd, pidfd, atoi(a[1]), 0));
}

/* vm-read PID ADDRESS LENGTH: another process's memory. */
static int vm_read(char **a)
{
	char buf[256] = "";
	size_t len = strtoul(a[2], NULL, 0);
	struct iovec local = { buf, len < sizeof(buf) ? len : sizeof(buf) - 1 };
	struct iovec remote = { (void *)strtoul(a[1], NULL, 0), local.iov_len };
	ssize_t n = syscall(SYS_process_vm_readv, atoi(a[0]), &local, 1, &remote, 1, 0);

	if (step("process_vm_readv", n) >= 0)
		fprintf(stderr, "%s", buf);
	return verdict(n);
}

/* ---- devices and metadata --------------------------------------------------- */

/* mknod PATH c|b: a /dev/null (or a ram disk) of our own. */
static int do_mknod(char **a)
{
	mode_t type = a[1][0] == 'b' ? S_IFBLK : S_IFCHR;
	dev_t dev = a[1][0] == 'b' ? makedev(1, 0) : makedev(1, 3);

	return verdict(step("mknod", mknod(a[0], type | 0666, dev)));
}

static int do_chmod(char **a)
{
	return verdict(step("chmod", chmod(a[0], (mode_t)strtoul(a[1], NULL, 8))));
}

/* An inotify watch on a denied directory: the name of the first entry
 * created there (the test creates them until this ends), then an attempt
 * to read it. */
static int watch_names(char **a)
{
	char buf[4096] __attribute__((aligned(8))), path[8192];
	struct pollfd pfd = { .fd = inotify_init1(IN_CLOEXEC), .events = POLLIN };
	const struct inotify_event *ev = (const struct inotify_event *)buf;

	if (step("inotify_add_watch", inotify_add_watch(pfd.fd, a[0], IN_CREATE)) < 0)
		return 1;
	int fd, r = poll(&pfd, 1, -1);

	if (r != 1) {
		printf("poll %s\n", name(errno));
		return 1;
	}
	if (read(pfd.fd, buf, sizeof(buf)) < (ssize_t)sizeof(*ev) || !ev->len)
		return verdict(-1);
	printf("event %s\n", ev->name);
	snprintf(path, sizeof(path), "%s/%s", a[0], ev->name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return verdict(-1);
	return verdict(dump(fd));
}

static const struct op {
	const char *name;
	int nargs;
	int (*fn)(char **a);
} ops[] = {
	{ "symlink-read", 3, symlink_read },
	{ "symlink-create", 2, symlink_create },
	{ "openat", 2, openat_fd },
	{ "openat-write", 2, openat_write },
	{ "fd-reopen-write", 1, fd_reopen_write },
	{ "fd-read", 1, fd_read },
	{ "fd-list", 1, fd_list },
	{ "fchdir-read", 2, fchdir_read },
	{ "chdir-read", 2, chdir_read },
	{ "cwd-list", 0, cwd_list },
	{ "exchange", 2, exchange },
	{ "opath-reopen", 1, opath_reopen },
	{ "opath-exec", 1, opath_exec },
	{ "openat2", 3, openat2_read },
	{ "handle", 2, handle_make_open },
	{ "handle-hex", 3, handle_hex },
	{ "userns-bind", 3, userns_bind },
	{ "userns-open-tree", 2, userns_open_tree },
	{ "ptrace", 1, do_ptrace },
	{ "pidfd-getfd", 2, pidfd_getfd },
	{ "vm-read", 3, vm_read },
	{ "uring-openat", 2, uring_openat },
	{ "uring-renameat", 2, uring_renameat },
	{ "uring-install", 2, uring_install },
	{ "mknod", 2, do_mknod },
	{ "chmod", 2, do_chmod },
	{ "inotify", 1, watch_names },
};

int main(int argc, char **argv)
{
	for (size_t i = 0; argc > 1 && i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (strcmp(argv[1], ops[i].name))
			continue;
		if (argc - 2 != ops[i].nargs) {
			fprintf(stderr, "escape %s: %d arguments\n", ops[i].name, ops[i].nargs);
			return 2;
		}
		return ops[i].fn(argv + 2);
	}
	fprintf(stderr, "escape: unknown operation %s\n", argc > 1 ? argv[1] : "");
	return 2;
}
