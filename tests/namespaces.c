/* SPDX-License-Identifier: MIT */
/* The suites' namespaces (tests/common.h): a mount namespace of a test's
 * own, plain or inside a user namespace of its own, and why where neither
 * can be made; /proc hidden and shown again. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <ftw.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "tests/common.h"

static const char *errno_name(int err)
{
	switch (err) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case EUSERS: return "EUSERS";
	case ENOMEM: return "ENOMEM";
	case ENOSYS: return "ENOSYS";
	case ENOENT: return "ENOENT";
	default: return "E?";
	}
}

/* The first line of a file under /proc, or false where it cannot be read. */
static bool proc_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	bool ok = f && fgets(buf, (int)size, f);

	if (f)
		fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* What governs user namespaces here, appended to why: the sysctls that
 * limit them (where the kernel has them), a seccomp filter on this
 * process; and unless one of these, or the error itself (explained),
 * accounts for the refusal, what else may. */
static void userns_limits(char *why, size_t size, bool explained)
{
	static const struct {
		const char *path, *name, *forbids;
	} knobs[] = {
		{ "/proc/sys/kernel/unprivileged_userns_clone", "kernel.unprivileged_userns_clone", "0" },
		{ "/proc/sys/user/max_user_namespaces", "user.max_user_namespaces", "0" },
		{ "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
		  "kernel.apparmor_restrict_unprivileged_userns", "1" },
	};
	char value[256], line[256];
	bool forbidden = explained;
	size_t n = strlen(why);
	FILE *f;

	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]) && n < size; i++)
		if (proc_line(knobs[i].path, value, sizeof(value))) {
			forbidden |= !strcmp(value, knobs[i].forbids);
			n += (size_t)snprintf(why + n, size - n, "; %s = %s", knobs[i].name, value);
		}
	if ((f = fopen("/proc/self/status", "re"))) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "Seccomp:", 8) && atoi(line + 8) != 0 && n < size) {
				forbidden = true;
				n += (size_t)snprintf(why + n, size - n, "; a seccomp filter is on this "
				                      "process (a container's?), which may refuse it");
			}
		fclose(f);
	}
	if (!forbidden && n < size)
		snprintf(why + n, size - n, "; no sysctl or seccomp filter here forbids it: a "
		         "security module, a chroot or a container may");
}

/* Writes one line to a file of /proc/self; 0 or the error number. */
static int proc_write(const char *path, const char *line)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

/* Into a user namespace and a mount namespace of this process's own, its
 * uid and gid mapped onto themselves; or false, and why says why not. */
/* Into a user namespace and a mount namespace of this process's own, its
 * uid and gid seen there as inner_uid and inner_gid (themselves, or 0);
 * 0, or the errno with *step naming the step that failed. */
static int unshare_mapped(unsigned long inner_uid, unsigned long inner_gid, const char **step)
{
	char uid_map[64], gid_map[64];
	int err = 0;

	snprintf(uid_map, sizeof(uid_map), "%lu %lu 1\n", inner_uid, (unsigned long)geteuid());
	snprintf(gid_map, sizeof(gid_map), "%lu %lu 1\n", inner_gid, (unsigned long)getegid());
	*step = "unshare(CLONE_NEWUSER|CLONE_NEWNS)";
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
		err = errno;
	else if ((err = proc_write("/proc/self/uid_map", uid_map)))
		*step = "writing /proc/self/uid_map";
	else if ((err = proc_write("/proc/self/setgroups", "deny\n")))
		*step = "writing /proc/self/setgroups";
	else if ((err = proc_write("/proc/self/gid_map", gid_map)))
		*step = "writing /proc/self/gid_map";
	return err;
}

/* Into a user namespace and a mount namespace of this process's own, its
 * uid and gid mapped onto themselves; or false, and why says why not. */
static bool enter_userns(char *why, size_t size)
{
	const char *step, *hint = "";
	int err = unshare_mapped(geteuid(), getegid(), &step);

	if (!err)
		return true;
	if (err == EINVAL && !strncmp(step, "unshare", 7))
		hint = ", the process has threads";
	else if (err == ENOSPC)
		hint = ", as many user namespaces as allowed exist already";
	else if (err == EUSERS)
		hint = ", 32 user namespaces deep already";
	snprintf(why, size, "unshare(CLONE_NEWNS): EPERM, and no user namespace either: %s: %s "
	         "(%s)%s", step, errno_name(err), strerror(err), hint);
	userns_limits(why, size, *hint);
	return false;
}

bool userns_attack_runs(const char *test)
{
	char why[2048] = "";
	const char *w;
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	if ((pid = fork()) == 0) {
		if (!enter_userns(why, sizeof(why)))
			(void)!write(p[1], why, strlen(why));
		_exit(0);
	}
	ck_assert_int_gt(pid, 0);
	close(p[1]);
	(void)!read(p[0], why, sizeof(why) - 1);
	close(p[0]);
	wait_status(pid);
	if (!why[0])
		return true;
	w = strstr(why, "no user namespace");
	say_skip("SKIP %s: the attack fails without the library too: %s\n", test, w ? w : why);
	return false;
}

/* private_mounts, or MOUNT_NS_NONE and why not. */
static enum mount_ns enter_private(char *why, size_t size)
{
	enum mount_ns ns = MOUNT_NS_PLAIN;
	int err;

	if (unshare(CLONE_NEWNS) != 0) {
		if ((err = errno) != EPERM) {
			snprintf(why, size, "unshare(CLONE_NEWNS): %s (%s)", errno_name(err),
			         strerror(err));
			return MOUNT_NS_NONE;
		}
		if (!enter_userns(why, size))
			return MOUNT_NS_NONE;
		ns = MOUNT_NS_USER;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
		return ns;
	err = errno;
	snprintf(why, size, "mount(\"/\", MS_REC|MS_PRIVATE)%s: %s (%s)",
	         ns == MOUNT_NS_USER ? " in a user namespace of its own" : "", errno_name(err),
	         strerror(err));
	if (ns == MOUNT_NS_USER)
		userns_limits(why, size, false);
	return MOUNT_NS_NONE;
}

enum mount_ns private_mounts(const char *test)
{
	char why[2048];
	enum mount_ns ns = enter_private(why, sizeof(why));

	if (ns == MOUNT_NS_NONE)
		say_skip("SKIP %s: cannot make a mount namespace here: %s\n", test, why);
	return ns;
}

bool mounts_moved(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI };

	return poll(&p, 1, 0) > 0 && (p.revents & (POLLPRI | POLLERR));
}

enum mount_ns private_mounts_if_can(void)
{
	char why[2048];

	return enter_private(why, sizeof(why));
}

bool root_mounts(const char *test)
{
	const char *step;
	char why[512];
	int err;

	if (geteuid() == 0)
		return private_mounts(test) == MOUNT_NS_PLAIN;
	if (!(err = unshare_mapped(0, 0, &step)) && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		err = errno, step = "mount(\"/\", MS_REC|MS_PRIVATE)";
	if (!err)
		return true;
	snprintf(why, sizeof(why), "%s: %s (%s)", step, errno_name(err), strerror(err));
	say_skip("SKIP %s: cannot be root in a user namespace of its own here: %s\n", test, why);
	return false;
}

void hide_proc(void)
{
	/* Not unmounted: in a user namespace, a mount that came from the
	 * outer namespace may only be covered. */
	ck_assert_int_eq(mount("none", "/proc", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
	                       "size=4k"), 0);
	ck_assert_int_eq(access("/proc/self", F_OK), -1);
}

void show_proc(void)
{
	ck_assert_int_eq(umount2("/proc", MNT_DETACH), 0);
	ck_assert_int_eq(access("/proc/self/mountinfo", R_OK), 0);
}
