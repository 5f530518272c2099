/* SPDX-License-Identifier: MIT */
/* sbxrun's command as a child: its time, its signals, and its tree ended
 * with it (tools/lifetime.c). */
#ifndef SBX_TOOLS_LIFETIME_H
#define SBX_TOOLS_LIFETIME_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/* The exit statuses of timeout(1) and env(1). */
#define LIFETIME_TIMED_OUT 124
#define LIFETIME_FAILED 125
/* How long a tree has to end after SIGTERM, before SIGKILL. */
#define LIFETIME_GRACE_NS (2 * 1000000000LL)
/* The signal sbxrun gets when its caller ends (--die-with-parent). */
#define LIFETIME_PARENT_GONE (SIGRTMIN + 1)

struct lifetime {
	long long timeout_ns; /* 0: none */
	bool keep_tree;       /* what the command leaves running is left */
	bool die_with_parent; /* sbxrun's caller ending ends the command */
};

/* A duration as timeout(1) writes it: a number of seconds, a fraction
 * too, with s, m, h or d after it: 0 with *ns, or -1. */
int lifetime_duration(const char *arg, long long *ns);
/* CLOCK_MONOTONIC, in nanoseconds: the clock of every deadline here. */
long long lifetime_now_ns(void);
/* Makes sbxrun the subreaper of what it starts: 0, or the errno where it
 * cannot be (qemu-user refuses it): then what the command leaves running
 * is found only while its chain of parents holds. */
int lifetime_adopt(void);
/* Starts the command: 0 with *pid, or the errno.  mask is the signal mask
 * the command is to start with (sbxrun's own at its start). */
typedef int lifetime_start_fn(void *arg, const sigset_t *mask, pid_t *pid);
/* Starts the command with start(arg, ...) and waits for it, passing on the
 * signals sent to sbxrun; when its time is up (*timed_out), or when it
 * ends, every process of its tree is ended (unless l->keep_tree): 0 with
 * its wait status, or the errno of the start (ESRCH with
 * l->die_with_parent: the caller has ended already). */
int lifetime_run(const struct lifetime *l, lifetime_start_fn *start, void *arg, int *status,
                 bool *timed_out);
/* Ends every process that descends from sbxrun: SIGTERM, and after a
 * grace SIGKILL until none is left. */
void lifetime_end_tree(void);
/* sbxrun's exit for the command's wait status: 124 where it timed out, its
 * exit status, or (by raising it) the signal that ended it. */
int lifetime_exit(int status, bool timed_out);

#endif
