/* SPDX-License-Identifier: MIT */
/* What the spawn engine's parent (spawn.c) prepares and its child
 * (child.c) reads: one record, shared through CLONE_VM. */
#ifndef SBX_CHILD_H
#define SBX_CHILD_H

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <spawn.h>
#include <sys/types.h>
#include <unistd.h>

#include "sbxspawn/sbxspawn.h"
#include "lib/internal.h"

#define CHILD_STACK (64 * 1024)
#define KERNEL_SIGSET_SIZE (_NSIG / 8)

#include "lib/confine.h"

/* What the child reports: where it failed and why. */
struct child_result {
	int stage; /* enum sbx_stage; 0 while it has not failed */
	int action;
	int err;
	struct refusal refusal; /* at SBX_STAGE_CONFINE: what refused it (the
	                         * strings are the parent's, at the same
	                         * addresses in a forked child) */
	bool again;             /* not started: the hidden list was stale */
	bool nohide;            /* not started: no namespace could be made
	                         * (err, and refusal.call: the step) */
	bool unkept;            /* not started: the kept namespace would not
	                         * serve (err, refusal.call) */
	bool held;              /* not started: it inherits held_fd, which
	                         * reaches a hidden denial past its cover */
	int held_fd;
};

/* The record the parent prepares and the child reads (and, with CLONE_VM,
 * writes its result into). */
struct child {
	const char *file;        /* the program, or the name to look up */
	char shown[512];         /* file, escaped for the refusal line */
	const char *speaker;     /* the line's first word */
	const char *search_path; /* PATH for the lookup; NULL: exec file as it is */
	char *const *argv;
	char *const *envp;
	const sbx_file_actions_t *fa;

	short flags;
	int cgroup_fd;            /* the attribute's (glibc 2.39), joined first; -1: none */
	pid_t pgroup;
	sigset_t sigdefault;
	sigset_t sigmask;
	int policy;
	struct sched_param param;
	sigset_t oldmask;

	struct confinement cf;    /* applied after the file actions */
	int refused;              /* errno of a ruleset the parent could not build */
	int died_err;             /* errno of the parent-death request (cf.die_with) */
	struct refusal refusal;   /* and what refused it, */
	char what[320], why[768]; /* said in the scope's words (refusal's what and why point here) */
	int fd_floor;             /* our descriptors move to at least this */
	int *pidfd;               /* sbx_pidfd_spawn: where clone puts the pidfd; else NULL */
	bool pidfd_late;          /* clone knows no CLONE_PIDFD: pidfd_open after it */
	int report_fd;            /* fork fallback: a pipe to the parent; else -1 */
	int report_rfd;           /* and the parent's end of it, closed first */
	const int *hidden;        /* the library's own descriptors an action could name */
	size_t nhidden;           /* (closed before the file actions run) */
	unsigned hidden_gen;      /* the generation they were listed at (fds.c) */
	bool alone;               /* the parent was its process's one thread, */
	uint64_t caught;          /* and these are the signals it catches */
	struct seen seen;         /* where it hides: what the parent saw it inherits */

	struct child_result res;
};



/* The child's first step (signals.c): every signal it catches reset to
 * its default, and those of sigdefault under POSIX_SPAWN_SETSIGDEF;
 * caught: the signals it catches, where the parent knows (else NULL: it
 * reads them itself). */
void sbx__reset_signals(short flags, const sigset_t *sigdefault, const uint64_t *caught);

/* Whether the calling process has this one thread (signals.c), and then
 * the signals it catches in *caught; called with every signal blocked. */
bool sbx__parent_alone(uint64_t *caught);

/* Runs fn(arg) in a child made to answer a question (clone.c): one that
 * shares this process's memory and ends, clone(CLONE_VM|CLONE_VFORK|flags)
 * on a stack of its own of size bytes above a guard page, with the signals
 * a program may block blocked while it runs (no handler of the caller's
 * runs in it) and no exit signal (a caller's SIGCHLD handler never hears
 * of it, nor does its waitpid(-1) reap it: it is waited for with __WALL
 * alone).  0 once it has ended, its wait status in *status (-1: another
 * thread of the caller's reaped it first), or the errno of the step *call
 * names (mmap, clone: then it never ran).  Under valgrind, whose vfork is a
 * fork, it runs in a copy, and what it answers through memory is lost;
 * qemu-user refuses such a clone (EINVAL). */
#define ASK_STACK (16 * 1024)
int sbx__ask_child(int (*fn)(void *), void *arg, int flags, size_t size, int *status,
                   const char **call);

/* Whether a clone(CLONE_VM) child was found to share this process's
 * memory (clone.c; not under qemu-user or valgrind, whose vfork is a
 * fork, nor before the first spawn's probe): a namespace is kept only
 * then (hidens.c). */
bool sbx__vm_clone_shares(void);
/* Creates the child (clone.c) and waits for it to exec or fail: its pid,
 * or -1 with errno; a child that failed or is to start again is reaped.
 * 0: none was started, for the parent found a descriptor the child would
 * inherit reaching a hidden denial (c->res.held). */
pid_t sbx__start_child(struct child *c);

/* The child: everything from clone to exec.  Returns only through _exit. */
int sbx__child_main(void *arg);

#endif /* SBX_CHILD_H */
