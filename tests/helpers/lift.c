/* SPDX-License-Identifier: MIT */
/* Attempts to lift a cover (a mount over a denied path, lib/child/cover.c), or to
 * look past it: one per run, each step's result on stderr as "STEP ok" or
 * "STEP ERRNO", what was read on stdout, then the verdict (the last
 * step's).  The tests run each unconfined beside a cover of their own
 * first (it works), then confined (it must not). */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/compat.h"
#include "compat/kernel.h"

static int step(const char *what, long r)
{
	int err = errno;

	fprintf(stderr, "%s %s\n", what, r < 0 ? strerrorname_np(err) : "ok");
	errno = err;
	return r < 0 ? -1 : 0;
}

static int verdict(int r)
{
	printf("%s\n", r < 0 ? strerrorname_np(errno) : "ok");
	return r < 0;
}

/* Reads what fd holds to stdout, before its verdict. */
static int dump(const char *what, int fd)
{
	char buf[256];
	ssize_t n;

	if (step(what, fd) < 0)
		return verdict(-1);
	n = read(fd, buf, sizeof(buf) - 1);
	if (step("read", n) < 0)
		return verdict(-1);
	buf[n] = '\0';
	printf("%s", buf);
	return verdict(0);
}

/* umount DIR FILE: the cover taken away, then FILE read. */
static int lift_umount(char **a)
{
	if (step("umount", umount2(a[0], MNT_DETACH)) < 0)
		return verdict(-1);
	return dump("open", open(a[1], O_RDONLY | O_CLOEXEC));
}

/* mount-over DIR: a tmpfs of the child's over the cover. */
static int mount_over(char **a)
{
	return verdict(step("mount", mount("lift", a[0], "tmpfs", 0, NULL)));
}

/* userns-umount DIR FILE: a user namespace and a mount namespace of its
 * own, root there, then the same. */
static int userns_umount(char **a)
{
	if (step("unshare", unshare(CLONE_NEWUSER | CLONE_NEWNS)) < 0)
		return verdict(-1);
	return lift_umount(a);
}

/* setns-read NSFILE FILE: into the mount namespace NSFILE names (the
 * caller's, through /proc), then FILE read there. */
static int setns_read(char **a)
{
	int ns = open(a[0], O_RDONLY | O_CLOEXEC);

	if (step("open", ns) < 0 || step("setns", setns(ns, CLONE_NEWNS)) < 0)
		return verdict(-1);
	return dump("open", open(a[1], O_RDONLY | O_CLOEXEC));
}

/* open-tree-read DIR REL: a copy of DIR's mount without what is mounted on
 * it (no AT_RECURSIVE), then REL opened beneath it. */
static int open_tree_read(char **a)
{
	int tree = (int)syscall(SYS_open_tree, AT_FDCWD, a[0], SBX_OPEN_TREE_CLONE | O_CLOEXEC);

	if (step("open_tree", tree) < 0)
		return verdict(-1);
	return dump("openat", openat(tree, a[1], O_RDONLY | O_CLOEXEC));
}

/* open-tree-attr-read DIR REL: the same through open_tree_attr(2) (Linux
 * 6.15), which takes mount attributes too. */
static int open_tree_attr_read(char **a)
{
	int tree = (int)syscall(467, AT_FDCWD, a[0], SBX_OPEN_TREE_CLONE | O_CLOEXEC, NULL, 0);

	if (step("open_tree_attr", tree) < 0)
		return verdict(-1);
	return dump("openat", openat(tree, a[1], O_RDONLY | O_CLOEXEC));
}

/* fanotify: a notification group, whose filesystem marks hand over every
 * open of a file there as a descriptor. */
static int do_fanotify(char **a)
{
	(void)a;
	return verdict(step("fanotify_init", syscall(SYS_fanotify_init, 0 /* FAN_CLASS_NOTIF */,
	                                             O_RDONLY | O_CLOEXEC)));
}

/* fsopen TYPE: a filesystem context, the first step of a mount made anew. */
static int do_fsopen(char **a)
{
	return verdict(step("fsopen", syscall(SYS_fsopen, a[0], SBX_FSOPEN_CLOEXEC)));
}

static const struct {
	const char *name;
	int nargs;
	int (*run)(char **a);
} ops[] = {
	{ "umount", 2, lift_umount },
	{ "mount-over", 1, mount_over },
	{ "userns-umount", 2, userns_umount },
	{ "setns-read", 2, setns_read },
	{ "open-tree-read", 2, open_tree_read },
	{ "fsopen", 1, do_fsopen },
	{ "open-tree-attr-read", 2, open_tree_attr_read },
	{ "fanotify", 0, do_fanotify },
};

int main(int argc, char **argv)
{
	for (size_t i = 0; argc > 1 && i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(argv[1], ops[i].name) && argc == ops[i].nargs + 2) {
			int r = ops[i].run(argv + 2);

			fflush(stdout);
			return r;
		}
	fprintf(stderr, "usage: lift OP ARGS...\n");
	return 2;
}
