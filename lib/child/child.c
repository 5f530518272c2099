/* SPDX-License-Identifier: MIT */
/*
 * The child, between clone and exec: the attributes, the file actions, the
 * ruleset, then exec.  It shares the parent's memory, so everything here is
 * async-signal-safe: raw system calls only, no malloc, stdio, locks,
 * strerror or getenv.  Everything it needs was prepared by the parent.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "compat/kernel.h"

#include "compat/landlock.h"
#include "lib/internal.h"
#include "lib/child.h"

CHILD static _Noreturn void child_exit(struct child *c, struct child_result res, int status)
{
	c->res = res;
	if (c->report_fd >= 0)
		(void)sys(SYS_write, c->report_fd, (long)&c->res, sizeof(c->res), 0);
	_exit(status);
}

CHILD static _Noreturn void child_fail(struct child *c, int stage, int action, int err)
{
	child_exit(c, (struct child_result){ .stage = stage, .action = action, .err = err }, 127);
}

/* The attribute steps, in glibc's order.  0 or -errno. */
CHILD static long apply_attributes(const struct child *c)
{
	long r = 0;
	int sched = c->flags & (POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER);

	if (sched == POSIX_SPAWN_SETSCHEDPARAM)
		r = sys(SYS_sched_setparam, 0, (long)&c->param, 0, 0);
	else if (sched)
		r = sys(SYS_sched_setscheduler, 0, c->policy, (long)&c->param, 0);
	if (r >= 0 && (c->flags & POSIX_SPAWN_SETSID))
		r = sys(SYS_setsid, 0, 0, 0, 0);
	if (r >= 0 && (c->flags & POSIX_SPAWN_SETPGROUP))
		r = sys(SYS_setpgid, 0, c->pgroup, 0, 0);
	/* The effective ids only, with raw calls: the C library's set*id
	 * wrappers would signal the parent's threads. */
	if (r >= 0 && (c->flags & POSIX_SPAWN_RESETIDS)) {
		r = sys(SYS_setresuid, -1, sys(SYS_getuid, 0, 0, 0, 0), -1, 0);
		if (r >= 0)
			r = sys(SYS_setresgid, -1, sys(SYS_getgid, 0, 0, 0, 0), -1, 0);
	}
	return r < 0 ? r : 0;
}

/* Whether action a makes a descriptor numbered fd, opening or duplicating
 * onto it: one of ours must leave that number first.  (An action that
 * otherwise names ours finds nothing there, as it would with posix_spawn:
 * file_action.) */
CHILD static bool makes(const struct sbx_file_action *a, int fd)
{
	return fd >= 0 && (a->kind == SBX_FA_OPEN || a->kind == SBX_FA_DUP2) && a->fd == fd;
}

CHILD static bool made_from(const struct child *c, int i, int fd)
{
	for (; i < c->fa->__used; i++)
		if (makes(&c->fa->__actions[i], fd))
			return true;
	return false;
}

/* Moves one of our own descriptors away before action i makes its number:
 * above every number the actions name, or where the limit leaves no room
 * there, to the lowest number no action from i on makes, or failing that
 * to the lowest free one (to move again when its turn comes).  So a
 * confined child needs one descriptor more than posix_spawn's only where
 * the actions fill every number.  Close-on-exec; 0 or -errno. */
CHILD static long move_away(const struct child *c, int i, int *fd)
{
	long moved = sys(SYS_fcntl, *fd, F_DUPFD_CLOEXEC, c->fd_floor, 0), spare = -1, next;

	for (long from = 0; moved < 0; from = next + 1) {
		if ((next = sys(SYS_fcntl, *fd, F_DUPFD_CLOEXEC, from, 0)) < 0) {
			if (spare < 0)
				return next;
			moved = spare;
		} else if (!made_from(c, i, (int)next)) {
			moved = next;
		} else if (spare < 0) {
			spare = next;
		} else {
			(void)sys(SYS_close, next, 0, 0, 0);
		}
	}
	if (spare >= 0 && spare != moved)
		(void)sys(SYS_close, spare, 0, 0, 0);
	(void)sys(SYS_close, *fd, 0, 0, 0);
	*fd = (int)moved;
	return 0;
}

CHILD static bool ours(const struct child *c, int fd)
{
	return fd >= 0 && (fd == c->cf.ruleset_fd || fd == c->report_fd);
}

/* close_range(2), or on a kernel before 5.9 the descriptors that
 * /proc/self/fd lists. */
CHILD static long close_range_compat(unsigned low, unsigned high)
{
	char buf[1024];
	long r = sys(SYS_close_range, low, high, 0, 0), n;
	int dir;

	/* ENOSYS: before 5.9; EPERM: a seccomp policy that predates it. */
	if (r != -ENOSYS && r != -EPERM)
		return r;
	dir = (int)sys(SYS_openat, AT_FDCWD, (long)"/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (dir < 0)
		return dir;
	while ((n = sys(SYS_getdents64, dir, (long)buf, sizeof(buf), 0)) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			unsigned fd = 0;
			const char *p = d->d_name;

			off += d->d_reclen;
			if (*p < '0' || *p > '9')
				continue;
			while (*p >= '0' && *p <= '9')
				fd = fd * 10 + (unsigned)(*p++ - '0');
			if (fd >= low && fd <= high && (int)fd != dir)
				(void)sys(SYS_close, fd, 0, 0, 0);
		}
	}
	(void)sys(SYS_close, dir, 0, 0, 0);
	return n < 0 ? n : 0;
}

/* closefrom(low) that spares our descriptors. */
CHILD static long close_from(const struct child *c, int low)
{
	int keep[2] = { c->cf.ruleset_fd, c->report_fd };
	long r;

	if (keep[0] > keep[1]) {
		int t = keep[0];
		keep[0] = keep[1];
		keep[1] = t;
	}
	for (int i = 0; i < 2; i++) {
		if (keep[i] < low)
			continue;
		if (keep[i] > low && (r = close_range_compat(low, keep[i] - 1)) < 0)
			return r;
		low = keep[i] + 1;
	}
	return close_range_compat(low, ~0U);
}

CHILD static bool fd_in_range(int fd)
{
	struct rlimit rl;

	return sys(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&rl) < 0 || (rlim_t)fd < rl.rlim_cur;
}

/* One file action, with glibc's semantics.  0 or -errno. */
CHILD static long file_action(const struct child *c, const struct sbx_file_action *a)
{
	long r, fd;
	pid_t pgid;

	switch (a->kind) {
	case SBX_FA_OPEN:
		/* POSIX: a descriptor already open there is closed first. */
		(void)sys(SYS_close, a->fd, 0, 0, 0);
		fd = sys(SYS_openat, AT_FDCWD, (long)a->path, a->oflag, a->mode);
		if (fd < 0 || fd == a->fd)
			return fd < 0 ? fd : 0;
		r = sys(SYS_dup3, fd, a->fd, 0, 0);
		if (r < 0)
			return r;
		return sys(SYS_close, fd, 0, 0, 0);
	case SBX_FA_CLOSE:
		/* Like glibc: an error counts only for a descriptor that is out
		 * of range (the limit may have dropped since it was added).
		 * Where ours is, the caller has nothing to close. */
		if (ours(c, a->fd))
			return 0;
		r = sys(SYS_close, a->fd, 0, 0, 0);
		return r < 0 && !fd_in_range(a->fd) ? r : 0;
	case SBX_FA_DUP2:
		if (ours(c, a->srcfd))
			return -EBADF;
		if (a->srcfd != a->fd) {
			r = sys(SYS_dup3, a->srcfd, a->fd, 0, 0);
			return r < 0 ? r : 0;
		}
		/* dup2(fd, fd) clears close-on-exec (Austin Group issue 411). */
		r = sys(SYS_fcntl, a->fd, F_GETFD, 0, 0);
		return r < 0 ? r : sys(SYS_fcntl, a->fd, F_SETFD, r & ~FD_CLOEXEC, 0);
	case SBX_FA_CHDIR:
		return sys(SYS_chdir, (long)a->path, 0, 0, 0);
	case SBX_FA_FCHDIR:
		return ours(c, a->fd) ? -EBADF : sys(SYS_fchdir, a->fd, 0, 0, 0);
	case SBX_FA_CLOSEFROM:
		return close_from(c, a->fd);
	case SBX_FA_TCSETPGRP:
		pgid = (c->flags & POSIX_SPAWN_SETPGROUP) && c->pgroup ? c->pgroup
		                                                       : (pid_t)sys(SYS_getpgid, 0, 0, 0, 0);
		return ours(c, a->fd) ? -EBADF : sys(SYS_ioctl, a->fd, TIOCSPGRP, (long)&pgid, 0);
	}
	return -EINVAL;
}

struct line {
	char buf[1024];
	size_t len;
};

CHILD static void put(struct line *l, const char *s)
{
	while (*s && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = *s++;
}

CHILD static void put_num(struct line *l, long n)
{
	char digits[24];
	int i = (int)sizeof(digits);

	digits[--i] = '\0';
	do
		digits[--i] = (char)('0' + n % 10);
	while ((n /= 10) && i > 1);
	put(l, digits + i);
}

/* The errors a refusal can carry, with what to do about them; a text
 * bound to one call (call) means that only there. */
static const struct {
	int err;
	const char *call;
	const char *text;
} refusal_texts[] = {
	{ E2BIG, "landlock_restrict_self", "16 Landlock domains are already stacked on this process" },
	{ E2BIG, "landlock_create_ruleset", "the ruleset's attributes are larger than this kernel knows" },
	{ ENOENT, "cgroup.procs", "the control group is gone" },
	{ ESRCH, "prctl(PR_SET_PDEATHSIG)", "the spawning process has ended" },
	{ EBUSY, "cgroup.procs", "the control group passes controllers to groups below it: no "
	                         "process may join it" },
	{ EPERM, NULL, "not permitted (no_new_privs could not be set, or a filter forbids Landlock)" },
	{ ENOMEM, NULL, "out of memory" },
	{ EMFILE, NULL, "too many open files" },
	{ ENFILE, NULL, "too many open files in the system" },
	{ EINVAL, NULL, "invalid argument" },
	{ EBADF, NULL, "bad ruleset descriptor" },
	{ ENOSYS, NULL, "function not implemented" },
	{ EOPNOTSUPP, NULL, "not supported by this kernel" },
	{ EACCES, NULL, "permission denied" },
};

CHILD static void put_error(struct line *l, int err, const char *call, bool landlock)
{
	if (err == EPERM && !landlock) {
		put(l, "not permitted");
		return;
	}
	for (size_t i = 0; i < sizeof(refusal_texts) / sizeof(refusal_texts[0]); i++)
		if (refusal_texts[i].err == err &&
		    (!refusal_texts[i].call || (call && !strcmp(refusal_texts[i].call, call)))) {
			put(l, refusal_texts[i].text);
			return;
		}
	put(l, "error ");
	put_num(l, err);
}

/* One line on fd 2, which is where the caller's file actions put it:
 * "sbxspawn: PROGRAM: not run: WHAT: CALL: WHY". */
CHILD static _Noreturn void child_refuse(struct child *c, struct refusal r, int err)
{
	struct line l = { .len = 0 };

	put(&l, c->speaker);
	put(&l, ": ");
	put(&l, c->shown);
	put(&l, ": not run: ");
	put(&l, r.what);
	put(&l, ": ");
	put(&l, r.call);
	put(&l, ": ");
	if (r.why)
		put(&l, r.why);
	else
		put_error(&l, err, r.call, !strncmp(r.what, "Landlock", 8));
	l.buf[l.len++] = '\n';
	(void)sys(SYS_write, 2, (long)l.buf, (long)l.len, 0);
	child_exit(c, (struct child_result){ .stage = SBX_STAGE_CONFINE, .action = -1, .err = err,
	                                     .refusal = r },
	           SBX_EXIT_REFUSED);
}

/* Why the covers could not be made, where the errno does not say it. */
CHILD static const char *hide_why(int err)
{
	return err == ESTALE ? "a hidden denial changed since the scope was compiled"
	       : err == EXDEV ? "a descriptor or the working directory it holds reaches a hidden "
	                        "denial past its cover"
	                      : NULL;
}

CHILD static void confine(struct child *c, bool user)
{
	const char *call = "";
	int ours[2] = { c->cf.ruleset_fd, c->report_fd };
	int err;

	if (c->died_err)
		child_refuse(c, (struct refusal){ SBX_REFUSED_APPLY, "prctl(PR_SET_PDEATHSIG)", NULL },
		             c->died_err);
	if (c->refused)
		child_refuse(c, c->refusal, c->refused);
	if (c->cf.hiding.covers &&
	    (err = sbx__hide_cover(&c->cf.hiding, user, ours, 2, c->fa, false, &call)))
		child_refuse(c, (struct refusal){ SBX_REFUSED_HIDE, call, hide_why(err) }, err);
	if ((err = sbx__confine(&c->cf, &call)))
		child_refuse(c, (struct refusal){ sbx__refused_by(call), call, NULL }, err);
	if (c->cf.ruleset_fd >= 0)
		(void)sys(SYS_close, c->cf.ruleset_fd, 0, 0, 0);
}

CHILD int sbx__child_main(void *arg)
{
	struct child *c = arg;
	const char *call = "";
	bool user = false;
	long r;
	int err;

	if (c->report_rfd >= 0)
		(void)sys(SYS_close, c->report_rfd, 0, 0, 0);
	/* From here on, a parent that ends takes the child with it (a request
	 * that failed is refused after the file actions, where fd 2 is the
	 * one the caller chose). */
	if (c->cf.die_with)
		c->died_err = sbx__die_with(c->cf.die_with, &call);
	/* A descriptor kept, or closed, by another thread since the list was
	 * made, and before this table was copied: the list is not this
	 * table's.  Nothing has run yet; the spawn starts again. */
	if (sbx__fds_changed(c->hidden_gen))
		child_exit(c, (struct child_result){ .stage = SBX_STAGE_SETUP, .action = -1,
		                                     .err = EAGAIN, .again = true },
		           127);
	sbx__reset_signals(c->flags, &c->sigdefault, c->alone ? &c->caught : NULL);
	/* The attribute's control group, where clone3 would have made the
	 * child (the scope's is joined with the confinement). */
	if (c->cgroup_fd >= 0 && (err = sbx__join_cgroup(c->cgroup_fd, &call)))
		child_fail(c, SBX_STAGE_ATTR, -1, err);
	r = apply_attributes(c);
	if (r < 0)
		child_fail(c, SBX_STAGE_ATTR, -1, (int)-r);
	/* No namespace of its own here, or the kept one not entered: nothing
	 * has been done that a start with every denial expanded (or in a
	 * namespace of its own) would do twice. */
	if (c->cf.hiding.kept && (err = sbx__hide_join(&c->cf.hiding, &user, &call)))
		child_exit(c, (struct child_result){ .action = -1, .err = err, .again = true,
		                                     .unkept = true, .refusal = { NULL, call, NULL } },
		           127);
	if (c->cf.hiding.covers && !c->cf.hiding.kept && (err = sbx__hide_enter(&user, &call)))
		child_exit(c, (struct child_result){ .action = -1, .err = err, .again = true,
		                                     .nohide = true, .refusal = { NULL, call, NULL } },
		           127);
	/* What it inherits is made what the parent saw, or looked at here,
	 * where nothing has been done yet that a start with the denials
	 * expanded would do twice (what the file actions make is looked at
	 * after them). */
	if (c->cf.hiding.covers &&
	    sbx__hide_inherited(&c->cf.hiding, c->fa, (int[]){ c->cf.ruleset_fd, c->report_fd }, 2,
	                        &c->seen, &r) == EXDEV)
		child_exit(c, (struct child_result){ .action = -1, .held = true, .held_fd = (int)r },
		           127);
	/* What the library keeps open is nothing a file action may see, but
	 * the ruleset this child applies. */
	for (size_t i = 0; i < c->nhidden; i++)
		if (c->hidden[i] != c->cf.ruleset_fd)
			(void)sys(SYS_close, c->hidden[i], 0, 0, 0);
	for (int i = 0; c->fa && i < c->fa->__used; i++) {
		const struct sbx_file_action *a = &c->fa->__actions[i];

		/* No number left for ours: the action cannot be made (EMFILE). */
		if ((makes(a, c->report_fd) && (r = move_away(c, i, &c->report_fd)) < 0) ||
		    (makes(a, c->cf.ruleset_fd) && (r = move_away(c, i, &c->cf.ruleset_fd)) < 0) ||
		    (r = file_action(c, a)) < 0)
			child_fail(c, SBX_STAGE_FILE_ACTION, i, (int)-r);
	}
	confine(c, user);
	/* Last, so that no signal is delivered before exec. */
	(void)sys(SYS_rt_sigprocmask, SIG_SETMASK,
	          (long)((c->flags & POSIX_SPAWN_SETSIGMASK) ? &c->sigmask : &c->oldmask), 0,
	          KERNEL_SIGSET_SIZE);
	if (c->search_path)
		err = sbx__exec_search(c->file, c->search_path, c->argv, c->envp);
	else
		err = (int)-sys(SYS_execve, (long)c->file, (long)c->argv, (long)c->envp, 0);
	child_fail(c, SBX_STAGE_EXEC, -1, err);
}
