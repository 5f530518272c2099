/* SPDX-License-Identifier: MIT */
/*
 * The spawn engine's parent side (the child's is in child.c).
 *
 * The child is created with clone(CLONE_VM|CLONE_VFORK) on a stack of its
 * own: it shares the parent's memory, so its cost does not grow with the
 * parent's heap, and the parent sleeps until it has exec'd or exited.  Between
 * clone and exec the child makes raw system calls only: no malloc, stdio,
 * locks, strerror or getenv.  Everything it needs is prepared here first.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "compat/landlock.h"
#include "internal.h"
#include "lib/child.h"

SBX__WITH_FORK_HANDLERS;

/* Every flag glibc 2.36 knows, and 2.39's control group where the C
 * library has it; any other bit is EINVAL. */
#if HAVE_DECL_POSIX_SPAWNATTR_GETCGROUP_NP
#define CGROUP_FLAG POSIX_SPAWN_SETCGROUP
#else
#define CGROUP_FLAG 0
#endif
#define KNOWN_FLAGS (POSIX_SPAWN_RESETIDS | POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |  \
		     POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSCHEDPARAM |                    \
		     POSIX_SPAWN_SETSCHEDULER | POSIX_SPAWN_USEVFORK | POSIX_SPAWN_SETSID |  \
		     CGROUP_FLAG)

/* Whether clone(CLONE_VM) shares memory here: emulators such as qemu-user
 * break it.  Learnt once per process: from its first child, which asks
 * the kernel (kcmp) before it does anything, and ends at once where the
 * answer is not yes; else from a probe (vm_clone_works). */
static atomic_int vm_clone_state; /* 0 unknown, 1 works, -1 broken */

CHILD static int probe_child(void *arg)
{
	*(volatile int *)arg = 1;
	_exit(0);
}

static int vm_clone_works(void *stack_top)
{
	int state = atomic_load_explicit(&vm_clone_state, memory_order_relaxed);

	if (state == 0) {
		volatile int shared = 0;
		pid_t pid;

		/* No exit signal: a caller's SIGCHLD handler never hears of a
		 * child it did not ask for, and its waitpid(-1) never reaps it
		 * (a clone child is waited for with __WALL alone). */
		if (secure_getenv("SBXSPAWN_FORCE_FORK"))
			pid = -1;
		else
			pid = clone(probe_child, stack_top, CLONE_VM | CLONE_VFORK, (void *)&shared);
		if (pid > 0)
			while (syscall(SYS_wait4, pid, NULL, __WALL, NULL) < 0 && errno == EINTR)
				;
		/* A clone that failed (a process limit, memory) proves nothing:
		 * ask again next time, and use the fallback this time. */
		if (pid < 0 && !secure_getenv("SBXSPAWN_FORCE_FORK"))
			return 0;
		state = shared ? 1 : -1;
		atomic_store_explicit(&vm_clone_state, state, memory_order_relaxed);
	}
	return state > 0;
}

static int run_child_vm(struct child *c, void *stack_top)
{
	return clone(sbx__child_main, stack_top,
	             CLONE_VM | CLONE_VFORK | SIGCHLD | (c->pidfd && !c->pidfd_late ? CLONE_PIDFD : 0),
	             c, c->pidfd);
}

/* The fallback: a copy of the parent, reporting through a close-on-exec
 * pipe whose end-of-file means exec succeeded. */
static pid_t run_child_fork(struct child *c)
{
	int p[2];
	pid_t pid;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	c->report_fd = p[1];
	c->report_rfd = p[0];
	/* A raw fork: no atfork handlers run, as with posix_spawn.  The
	 * parent's tid pointer is the third argument on every architecture
	 * the library knows: where CLONE_PIDFD puts the pidfd. */
	pid = (pid_t)syscall(SYS_clone, SIGCHLD | (c->pidfd && !c->pidfd_late ? CLONE_PIDFD : 0), 0,
	                     c->pidfd, NULL, 0);
	if (pid == 0)
		sbx__child_main(c);
	close(p[1]);
	c->report_fd = c->report_rfd = -1;
	if (pid > 0) {
		while ((n = read(p[0], &c->res, sizeof(c->res))) < 0 && errno == EINTR)
			;
		if (n != (ssize_t)sizeof(c->res))
			c->res.stage = 0;
	}
	close(p[0]);
	return pid;
}

/* The child made the way this process makes them: the first with its
 * proof that it shares our memory, which saves the probe a process. */
static pid_t clone_child(struct child *c, void *stack_top)
{
	pid_t pid;

	if (!atomic_load_explicit(&vm_clone_state, memory_order_relaxed) &&
	    !secure_getenv("SBXSPAWN_FORCE_FORK")) {
		c->vm_unsure = true;
		c->vm_proved = false;
		pid = run_child_vm(c, stack_top);
		c->vm_unsure = false;
		if (pid < 0 || c->vm_proved) {
			if (pid > 0)
				atomic_store_explicit(&vm_clone_state, 1, memory_order_relaxed);
			return pid;
		}
		/* Unproved: it has ended, or ends now, having done nothing. */
		while (syscall(SYS_wait4, pid, NULL, 0, NULL) < 0 && errno == EINTR)
			;
		if (c->pidfd && !c->pidfd_late) {
			close(*c->pidfd);
			*c->pidfd = -1;
		}
	}
	return vm_clone_works(stack_top) ? run_child_vm(c, stack_top) : run_child_fork(c);
}

/* Reads the attribute object through its getters; EINVAL for a flag
 * this library does not know. */
static int read_attributes(struct child *c, const posix_spawnattr_t *attr)
{
	int err;

	if (!attr)
		return 0;
	if (posix_spawnattr_getflags(attr, &c->flags) || posix_spawnattr_getpgroup(attr, &c->pgroup) ||
	    posix_spawnattr_getsigdefault(attr, &c->sigdefault) ||
	    posix_spawnattr_getsigmask(attr, &c->sigmask))
		return EINVAL;
#ifdef __GLIBC__
	/* glibc never lets a mask block its own two (32, 33: cancellation,
	 * set*id across threads), its posix_spawn's included; the child
	 * sets the mask with a raw call, so they are taken out here. */
	((unsigned long *)(void *)&c->sigmask)[0] &= ~(3UL << 31);
#endif
	if ((unsigned short)c->flags & ~(unsigned)KNOWN_FLAGS)
		return EINVAL;
	err = posix_spawnattr_getschedpolicy(attr, &c->policy);
	if (!err)
		err = posix_spawnattr_getschedparam(attr, &c->param);
	/* A C library that keeps no scheduling there (musl: ENOSYS) ignores
	 * the flags that would apply it, and so does its posix_spawn. */
	if (err == ENOSYS)
		c->flags &= (short)~(POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER);
	else if (err)
		return EINVAL;
#if HAVE_DECL_POSIX_SPAWNATTR_GETCGROUP_NP
	if ((c->flags & POSIX_SPAWN_SETCGROUP) && posix_spawnattr_getcgroup_np(attr, &c->cgroup_fd))
		return EINVAL;
#endif
	return 0;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* The ruleset a spawn with this scope applies, in the child's record. */
static int prepare_scope(struct child *c, const struct sbx_scope *scope, bool expand,
                         struct sbx_ruleset **rs)
{
	int err = sbx__scope_get(scope, false, expand, rs);

	if (err)
		return err;
	if ((*rs)->confinement == SBX_OUTCOME_REFUSED) {
		c->refused = (*rs)->error;
		c->refusal = (*rs)->refusal;
	}
	c->cf = sbx__confinement(scope, *rs);
	return 0;
}

/* The ruleset compiled again, its denials expanded, for a spawn whose
 * first compile hid them: what that one said of the paths is not said twice. */
static int prepare_again(struct child *c, const struct sbx_scope *scope, bool expand,
                         struct sbx_ruleset **rs)
{
	unsigned was = sbx__events_mute(SBX__SAID_OF_PATHS);
	int err = prepare_scope(c, scope, expand, rs);

	sbx__events_mute(was);
	return err;
}

/* Whether a spawn looks at the caller's descriptors before its clone:
 * only once a child of this process found one it inherits reaching a
 * hidden denial (the child looks at its own table, the exact one, and
 * then the spawn starts it again: so a caller that keeps one open pays
 * that once, and every other caller never looks twice). */
static atomic_bool held_seen;

/* The ruleset for a spawn that would hold, from before its namespace,
 * something that reaches a hidden denial (held.c): one that expands every
 * denial; under SBX_SCOPE_HIDE, EINVAL. */
static int prepare_held(struct child *c, const struct sbx_scope *scope,
                        const sbx_file_actions_t *fa, struct sbx_ruleset **rs)
{
	char what[PATH_MAX + 64];
	bool inherited = atomic_load(&held_seen);
	int held;

	if (!(*rs)->ncovers ||
	    !(held = sbx__held_reaches(*rs, fa, inherited, what, sizeof(what)))) {
		if (inherited && (*rs)->ncovers)
			atomic_store(&held_seen, false);
		return 0;
	}
	if (held < 0)
		return -held;
	sbx__hide_event(scope, *rs, what);
	if (scope->flags & SBX_SCOPE_HIDE)
		return EINVAL;
	sbx__scope_put(*rs);
	*rs = NULL;
	return prepare_again(c, scope, true, rs);
}

/* A child that did nothing, for what says: it is started again with every
 * denial expanded (under SBX_SCOPE_HIDE, EINVAL); expand: for this spawn
 * alone (else the scope's compile is stale now, sbx__hide_current, and is
 * made again, expanded, and kept). */
static int restart_expanded(struct child *c, const struct sbx_scope *scope,
                            const sbx_file_actions_t *fa, struct sbx_ruleset **rs, bool expand,
                            const char *what)
{
	int err;

	c->res = (struct child_result){ 0 };
	sbx__hide_event(scope, *rs, what);
	if (scope->flags & SBX_SCOPE_HIDE)
		return EINVAL;
	sbx__scope_put(*rs);
	*rs = NULL;
	if (!(err = prepare_again(c, scope, expand, rs)))
		sbx__announce_frozen(scope, *rs, c->envp, fa);
	return err;
}

/* A child that inherits a descriptor reaching a hidden denial; the next
 * spawns look at the caller's table first. */
static int prepare_inherited(struct child *c, const struct sbx_scope *scope,
                             const sbx_file_actions_t *fa, struct sbx_ruleset **rs)
{
	char what[PATH_MAX + 64];

	atomic_store(&held_seen, true);
	sbx__held_say(c->res.held_fd, what, sizeof(what));
	return restart_expanded(c, scope, fa, rs, true, what);
}

/* A child that found no namespace for itself; from now on every spawn of
 * this process expands its denials. */
static int prepare_refused(struct child *c, const struct sbx_scope *scope,
                           const sbx_file_actions_t *fa, struct sbx_ruleset **rs)
{
	char what[128];

	sbx__hide_refused(c->res.err, c->res.refusal.call);
	snprintf(what, sizeof(what), "no mount namespace of its own (%s: %s)",
	         c->res.refusal.call, strerror(c->res.err));
	return restart_expanded(c, scope, fa, rs, false, what);
}

/* The child's stacks: a few are kept for the next spawns, for a new
 * mapping costs a spawn three system calls, its first pages' faults, and
 * its unmapping a flush of every processor's view of the caller's memory.
 * A stack is free again once clone() has returned: the child has exec'd
 * or exited by then (CLONE_VFORK).  Taken and given back with an atomic
 * exchange each, so that threads spawning at once never share one; under
 * an address sanitizer, whose bookkeeping of a stack a child abandons
 * mid-call is not to be trusted twice, none is kept. */
#define SPARE_STACKS 4
static char *_Atomic spare_stacks[SPARE_STACKS];

static char *stack_take(size_t size, size_t page)
{
	char *stack;
	int err;

	for (int i = 0; i < SPARE_STACKS; i++)
		if ((stack = atomic_exchange(&spare_stacks[i], NULL)))
			return stack;
	/* The stack grows down onto a guard page: an overflow faults instead
	 * of writing the parent's memory. */
	stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return NULL;
	if (mprotect(stack, page, PROT_NONE)) {
		err = errno;
		munmap(stack, size);
		errno = err;
		return NULL;
	}
	return stack;
}

static void stack_give(char *stack, size_t size)
{
#if !defined(__SANITIZE_ADDRESS__)
	for (int i = 0; i < SPARE_STACKS; i++) {
		char *none = NULL;

		if (atomic_compare_exchange_strong(&spare_stacks[i], &none, stack))
			return;
	}
#endif
	munmap(stack, size);
}

/* Creates the child on a stack of its own and waits for it to exec or
 * fail: its pid, or -1 with errno. */
static pid_t start_child(struct child *c)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = CHILD_STACK + page;
	sigset_t all;
	char *stack;
	pid_t pid;
	int err;

	if (!(stack = stack_take(size, page)))
		return -1;
	/* Raw: the C library's sigprocmask would keep its own signals open. */
	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &c->oldmask, KERNEL_SIGSET_SIZE);
	pid = clone_child(c, stack + size);
	/* A clone that knows no CLONE_PIDFD (qemu-user 7 says EINVAL): made
	 * without it, the pidfd opened at once, every signal still blocked,
	 * before a handler of the caller's can reap the child.  (Another of
	 * its threads waiting for any child could: a kernel with CLONE_PIDFD
	 * leaves no such moment.) */
	if (pid < 0 && errno == EINVAL && c->pidfd && !c->pidfd_late) {
		c->pidfd_late = true;
		pid = clone_child(c, stack + size);
	}
	if (pid > 0 && c->pidfd_late && !c->res.stage && !c->res.again && !c->res.held &&
	    (*c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) < 0) {
		err = errno;
		kill(pid, SIGKILL);
		while (syscall(SYS_wait4, pid, NULL, 0, NULL) < 0 && errno == EINTR)
			;
		pid = -1;
		errno = err;
	}
	err = errno;
	/* A child that failed before its exec, or is to start again, has
	 * exited: reaped while every signal is blocked, so that a SIGCHLD
	 * handler of the caller's never reaps it first (its pid free again,
	 * to be reused before this wait). */
	if (pid > 0 && (c->res.stage || c->res.again || c->res.held)) {
		while (syscall(SYS_wait4, pid, NULL, 0, NULL) < 0 && errno == EINTR)
			;
		if (c->pidfd) {
			close(*c->pidfd);
			*c->pidfd = -1;
		}
	}
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &c->oldmask, NULL, KERNEL_SIGSET_SIZE);
	stack_give(stack, size);
	errno = err;
	return pid;
}

/* What the spawn tells the logger and records for sbx_outcome_get(). */
static void report(const struct sbx_scope *scope, const struct child *c,
                   const struct sbx_ruleset *rs, const char *file, int err, int privilege)
{
	if (c->res.stage == SBX_STAGE_CONFINE)
		sbx__refused_event(scope, file, c->res.err, &c->res.refusal, true);
	sbx__outcome_record(c->res.stage == SBX_STAGE_CONFINE ? SBX_OUTCOME_REFUSED
	                    : rs                              ? rs->confinement
	                                                      : SBX_OUTCOME_NONE,
	                    rs, c->res.stage ? c->res.stage : (err ? SBX_STAGE_SETUP : 0),
	                    c->res.stage == SBX_STAGE_FILE_ACTION ? c->res.action : -1,
	                    c->res.stage ? c->res.err : err, privilege);
}

/* Starts the child with the library's descriptors it must close listed:
 * again where one was kept or closed meanwhile (fds.c).  0 with *pid, or
 * the errno. */
static int start_hiding(struct child *c, pid_t *pid)
{
	int *hidden, err;

	do {
		if ((err = sbx__fds_hide(c->fd_floor, &hidden, &c->nhidden, &c->hidden_gen)))
			return err;
		c->hidden = hidden;
		c->res = (struct child_result){ 0 };
		*pid = start_child(c);
		err = *pid < 0 ? errno : 0;
		free(hidden);
	} while (*pid > 0 && c->res.again && !c->res.nohide);
	return err;
}

/* Whether this kernel makes pid file descriptors (pidfd_open, Linux 5.3):
 * asked at each pidfd spawn, for a filter may say no to it any time. */
static bool pidfds_made(void)
{
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	if (fd >= 0)
		close(fd);
	return fd >= 0 || errno != ENOSYS;
}

int sbx__spawn(pid_t *restrict pidp, int *pidfdp, const char *file, int search,
                 const sbx_file_actions_t *fa, const posix_spawnattr_t *restrict attr,
                 const sbx_scopeattr_t *restrict scopeattr, char *const argv[restrict],
                 char *const envp[restrict])
{
	SBX_KEEP_ERRNO;
	SBX_NO_CANCEL;
	const struct sbx_scope *scope = scopeattr ? scopeattr->__scope : NULL;
	int pidfd = -1;
	struct child c = { .file = file, .argv = argv, .envp = envp, .fa = fa, .cgroup_fd = -1,
	                   .cf = { .cgroup_fd = -1, .ruleset_fd = -1 }, .report_fd = -1, .report_rfd = -1,
	                   .pidfd = pidfdp ? &pidfd : NULL };
	struct sbx_ruleset *rs = NULL;
	char default_path[256], **env_copy = NULL;
	int privilege = 0;
	pid_t pid = -1;
	int err;

	if ((err = read_attributes(&c, attr)))
		goto out;
	if (pidfdp && !pidfds_made()) {
		err = ENOSYS;
		goto out;
	}
	/* An empty name is looked up nowhere: the child runs its attributes
	 * and file actions, then exec fails (ENOENT), as with posix_spawnp. */
	if (search && *file && !strchr(file, '/'))
		c.search_path = sbx__search_path(default_path, sizeof(default_path));
	if (scopeattr && !scope) {
		err = EINVAL; /* not initialised, or destroyed */
		goto out;
	}
	if (scope && ((err = prepare_scope(&c, scope, false, &rs)) ||
	              (err = prepare_held(&c, scope, fa, &rs))))
		goto out;
	if (scope) {
		if ((err = sbx__scope_env(scope, envp, &c.envp, &env_copy)))
			goto out;
		privilege = sbx__privilege_kept(scope, c.flags);
		sbx__announce_frozen(scope, rs, c.envp, fa);
	}
	sbx__escape(file, c.shown, sizeof(c.shown));
	c.speaker = scope && scope->speaker ? scope->speaker : "sbxspawn";
	c.fd_floor = max_int(sbx__file_actions_maxfd(fa), 2) + 1;
	while (!(err = start_hiding(&c, &pid)) && pid > 0 && (c.res.nohide || c.res.held))
		if ((err = (c.res.held ? prepare_inherited : prepare_refused)(&c, scope, fa, &rs)))
			break;
	if (err)
		goto out;
	if (pid > 0 && c.res.stage) {
		/* It failed before exec, and was reaped (start_child). */
		err = c.res.stage == SBX_STAGE_CONFINE ? SBX_EREFUSED : c.res.err;
	} else if (pid > 0 && pidfdp) {
		*pidfdp = pidfd;
		pidfd = -1;
	} else if (pid > 0 && pidp) {
		*pidp = pid;
	}
out:
	if (pidfd >= 0)
		close(pidfd);
	report(scope, &c, rs, file, err, privilege);
	sbx__scope_put(rs);
	free(env_copy);
	return err;
}
