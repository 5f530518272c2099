/* SPDX-License-Identifier: MIT */
/*
 * How the spawn engine makes its child: clone(CLONE_VM|CLONE_VFORK) on a
 * stack of its own, so that its cost does not grow with the parent's heap
 * and the parent sleeps until the child has exec'd or exited; where an
 * emulator breaks CLONE_VM (qemu-user's vfork is a fork), a copy of the
 * parent that reports through a pipe.  Which way works is learnt once per
 * process, from a probe that starts no process a caller hears of.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "lib/internal.h"
#include "lib/child.h"

/* Whether clone(CLONE_VM) shares memory here: emulators such as qemu-user
 * and valgrind break it (their vfork is a fork).  Learnt once per process
 * from a probe (vm_shared); -1 where the fallback is asked for
 * (SBXSPAWN_FORCE_FORK). */
static atomic_int vm_clone_state; /* 0 unknown, 1 works, -1 broken or forced */

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

int sbx__ask_child(int (*fn)(void *), void *arg, int flags, size_t size, int *status,
                   const char **call)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = size + page;
	sigset_t all, old;
	char *stack;
	pid_t pid;
	int err = 0;

	*call = "mmap";
	/* Its lowest page a guard: an overflow faults instead of writing
	 * the parent's memory. */
	stack = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return errno;
	if (mprotect(stack, page, PROT_NONE)) {
		err = errno;
		munmap(stack, len);
		return err;
	}
	/* Every signal but the C library's own two, which it sends to the
	 * caller's threads by their ids, never to this child. */
	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &old, KERNEL_SIGSET_SIZE);
	*call = "clone";
	if ((pid = clone(fn, stack + len, CLONE_VM | CLONE_VFORK | flags, arg)) < 0)
		err = errno;
	/* Reaped first by another thread of the caller's (a waitid(P_ALL)
	 * with __WALL): it has ended all the same, its status unknown. */
	while (pid > 0 && syscall(SYS_wait4, pid, status, __WALL, NULL) < 0)
		if (errno != EINTR) {
			*status = -1;
			break;
		}
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, KERNEL_SIGSET_SIZE);
	munmap(stack, len);
	return err;
}

CHILD static int probe_child(void *arg)
{
	*(volatile int *)arg = 1;
	_exit(0);
}

/* Whether a clone(CLONE_VM) child shares our memory, asked of a child that
 * does nothing else (sbx__ask_child).  Learnt for good. */
static bool vm_shared(void)
{
	volatile int shared = 0;
	const char *call;
	int status;

	/* A child that could not be made (a process limit, memory) proves
	 * nothing: asked again next time, the fallback this time. */
	if (sbx__ask_child(probe_child, (void *)&shared, 0, ASK_STACK, &status, &call))
		return false;
	atomic_store_explicit(&vm_clone_state, shared ? 1 : -1, memory_order_relaxed);
	return shared;
}

bool sbx__vm_clone_shares(void)
{
	return atomic_load_explicit(&vm_clone_state, memory_order_relaxed) > 0;
}

/* The child made the way this process makes them: vfork-like where a
 * probe found that a clone shares our memory, else the fallback. */
static pid_t clone_child(struct child *c, void *stack_top)
{
	int state = atomic_load_explicit(&vm_clone_state, memory_order_relaxed);

	if (state == 0 && secure_getenv("SBXSPAWN_FORCE_FORK"))
		atomic_store_explicit(&vm_clone_state, state = -1, memory_order_relaxed);
	if (state == 0)
		state = vm_shared() ? 1 : -1;
	return state > 0 ? run_child_vm(c, stack_top) : run_child_fork(c);
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

pid_t sbx__start_child(struct child *c)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = CHILD_STACK + page;
	sigset_t all;
	char *stack;
	long held;
	pid_t pid;
	int err;

	if (!(stack = stack_take(size, page)))
		return -1;
	/* Every signal a program may block (sigfillset leaves out the C
	 * library's own two, which go to the caller's threads by their ids),
	 * the old mask in the kernel's form the child sets again. */
	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &c->oldmask, KERNEL_SIGSET_SIZE);
	/* Which signals the child catches, read here where the parent is
	 * alone: the child's own /proc entries would be made anew for it
	 * (signals.c). */
	c->alone = sbx__parent_alone(&c->caught);
	/* And what it inherits, where it hides: looked at here, in /proc
	 * entries that stay (the child's would be made anew for it); the
	 * child makes its table what was seen (holds.c).  One that reaches
	 * a denial: no child. */
	if (c->cf.hiding.covers &&
	    sbx__hide_look(&c->cf.hiding, c->fa, (int[]){ c->cf.ruleset_fd, c->report_fd }, 2,
	                   &c->seen, &held) == EXDEV) {
		c->res = (struct child_result){ .action = -1, .held = true, .held_fd = (int)held };
		syscall(SYS_rt_sigprocmask, SIG_SETMASK, &c->oldmask, NULL, KERNEL_SIGSET_SIZE);
		stack_give(stack, size);
		return 0;
	}
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

