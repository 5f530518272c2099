/* SPDX-License-Identifier: MIT */
/*
 * sbxrun's command as a child, and the tree it starts ended with it.
 *
 * The command is spawned by the library, killed by the kernel if sbxrun
 * ends first (SBX_SCOPE_DIE_WITH_PARENT); its refusals and failures are
 * said as sbxrun says them, its exit statuses are sbxrun's.
 * sbxrun stays as the command's parent and the subreaper of everything
 * the command starts (PR_SET_CHILD_SUBREAPER): a process that calls
 * setsid(2) and forks twice still has sbxrun for an ancestor, for its
 * parent's end makes it sbxrun's child.  When the command ends, or its
 * time is up, every process that descends from sbxrun is sent SIGTERM
 * (and SIGCONT, for a stopped one to act on it); what still runs after
 * the grace is sent SIGKILL, round after round, until sbxrun has no child
 * left.  Each is signalled through a pidfd opened before its descent is
 * checked: a pid reused meanwhile is no descendant, and is left alone.
 *
 * Signals: a terminal's interrupt, quit and stop reach the command on
 * their own (it is in sbxrun's process group); what another process sends
 * sbxrun alone is passed on to the command, and no signal but SIGKILL
 * ends sbxrun before its tree.  A command a signal ended ends sbxrun by
 * the same signal, as if sbxrun had been the command.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "tools/lifetime.h"
#include "tools/procs.h"

#define PARENT_GONE LIFETIME_PARENT_GONE

/* The signals sbxrun leaves as they are: faults, which are its own, and
 * job control, which stops it with the command. */
static const int own[] = { SIGKILL, SIGSTOP, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS,
	                   SIGTSTP, SIGTTIN, SIGTTOU };

/* Every other signal is waited for: none ends sbxrun and leaves the tree
 * (SIGALRM, SIGPIPE, SIGXCPU, real-time signals, ...). */
static void waited_for(sigset_t *set)
{
	sigfillset(set);
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		sigdelset(set, own[i]);
}

int lifetime_duration(const char *arg, long long *ns)
{
	static const struct {
		char suffix;
		double seconds;
	} units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 } };
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || !(v >= 0) || (*arg < '0' || *arg > '9'))
		return -1;
	for (size_t i = 0; *end && i < sizeof(units) / sizeof(units[0]); i++)
		if (*end == units[i].suffix && !end[1]) {
			v *= units[i].seconds;
			end++;
		}
	if (*end || v > 100 * 365 * 86400.0)
		return -1;
	*ns = (long long)(v * 1e9);
	if (v > 0 && *ns == 0)
		*ns = 1;
	return 0;
}

long long lifetime_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Waits for a signal of set until deadline (-1: none): the signal, or 0
 * when the time is up. */
static int next_signal(const sigset_t *set, long long deadline, siginfo_t *si)
{
	for (;;) {
		long long left = deadline < 0 ? 3600 * 1000000000LL : deadline - lifetime_now_ns();
		struct timespec ts = { left / 1000000000LL, left % 1000000000LL };
		int sig;

		if (left <= 0)
			return 0;
		if ((sig = sigtimedwait(set, si, &ts)) > 0)
			return sig;
		if (errno != EAGAIN && errno != EINTR)
			return 0;
		if (errno == EAGAIN && deadline >= 0 && lifetime_now_ns() >= deadline)
			return 0;
	}
}

/* Sends sig to the n processes of fds (SIGCONT too after SIGTERM, for a
 * stopped one to act on it), and closes them. */
static void signal_held(int *fds, size_t n, int sig)
{
	for (size_t i = 0; i < n; i++) {
		if (syscall(SYS_pidfd_send_signal, fds[i], sig, NULL, 0) == 0 && sig == SIGTERM)
			syscall(SYS_pidfd_send_signal, fds[i], SIGCONT, NULL, 0);
		close(fds[i]);
	}
}

/* Sends sig to every process that descends from sbxrun.  A pass finds
 * its processes before it signals them, in batches of HELD: a parent
 * killed first would hand its children to init, out of reach where
 * sbxrun cannot be their subreaper (qemu-user); the bound keeps the
 * descriptors /proc is read with free. */
#define HELD 256
static void signal_tree(int sig)
{
	int fds[HELD];
	size_t n = 0;
	struct dirent *e;
	DIR *proc = opendir("/proc");

	while (proc && (e = readdir(proc))) {
		pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);
		int fd;

		if (pid <= 0 || (fd = (int)syscall(SYS_pidfd_open, pid, 0)) < 0)
			continue;
		/* Whatever its state: "Z" is also a process whose first
		 * thread ended while others run. */
		if (procs_descends(pid) != 1) {
			close(fd);
			continue;
		}
		fds[n++] = fd;
		if (n == HELD) {
			signal_held(fds, n, sig);
			n = 0;
		}
	}
	signal_held(fds, n, sig);
	if (proc)
		closedir(proc);
}

/* The command, and its wait status once it has ended. */
static pid_t command = -1;
static int command_status;
static bool command_ended;

/* Every child that ended, the command's status kept. */
static void reap(void)
{
	pid_t got;
	int st;

	while ((got = waitpid(-1, &st, WNOHANG)) > 0 || (got < 0 && errno == EINTR))
		if (got == command) {
			command_status = st;
			command_ended = true;
		}
}

/* Waits, until deadline (-1: none), for the command to end. */
static bool command_ends(const sigset_t *set, long long deadline)
{
	siginfo_t si;

	reap();
	while (!command_ended && next_signal(set, deadline, &si))
		reap();
	return command_ended;
}

/* Whether no process of the tree is left: sbxrun has no child, every one
 * that ended reaped.  As the subreaper of the tree, that is the whole of
 * it: a process whose parent ends is made sbxrun's child before that
 * parent can be reaped, so a live descendant always has a live ancestor
 * among sbxrun's children. */
static bool tree_gone(void)
{
	siginfo_t si;

	reap();
	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 && errno == ECHILD;
}

void lifetime_end_tree(void)
{
	sigset_t chld;
	siginfo_t si;
	long long deadline = lifetime_now_ns() + LIFETIME_GRACE_NS;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	if (tree_gone())
		return;
	signal_tree(SIGTERM);
	while (!tree_gone() && next_signal(&chld, deadline, &si))
		;
	/* What is left, and what it forks meanwhile, round after round,
	 * until sbxrun has no child: a chain of processes that fork and end
	 * faster than a pass over /proc is caught as it passes through
	 * sbxrun's children, and sbxrun does not end before it. */
	while (!tree_gone()) {
		signal_tree(SIGKILL);
		next_signal(&chld, lifetime_now_ns() + 20 * 1000000LL, &si);
	}
}

/* The command's exit, made sbxrun's: its status, or its signal. */
int lifetime_exit(int status, bool timed_out)
{
	if (timed_out)
		return LIFETIME_TIMED_OUT;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct rlimit no_core = { 0, 0 };
		sigset_t one;

		/* Ended by it as the command was, without a core of sbxrun's. */
		setrlimit(RLIMIT_CORE, &no_core);
		signal(sig, SIG_DFL);
		sigemptyset(&one);
		sigaddset(&one, sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(sig);
		return 128 + sig;
	}
	return LIFETIME_FAILED;
}

/* A signal another process sent sbxrun goes on to the command; not the
 * terminal's (they reach the command's process group already), nor those
 * the kernel sent sbxrun for its own doing (SIGPIPE). */
static bool passes_on(int sig, const siginfo_t *si)
{
	return sig != SIGCHLD && sig != PARENT_GONE && si->si_code != SI_KERNEL &&
	       !(si->si_code == SI_USER && si->si_pid == getpid());
}

int lifetime_adopt(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) ? errno : 0;
}

int lifetime_run(const struct lifetime *l, lifetime_start_fn *start, void *arg, int *status,
                 bool *timed_out)
{
	sigset_t wait_for, before, chld;
	long long deadline = l->timeout_ns > 0 ? lifetime_now_ns() + l->timeout_ns : -1;
	pid_t caller = getppid();
	siginfo_t si;
	int sig, err;

	*timed_out = false;
	waited_for(&wait_for);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &wait_for, &before);
	/* Its caller may have ended before this: then nothing runs. */
	if (l->die_with_parent && (prctl(PR_SET_PDEATHSIG, PARENT_GONE, 0, 0, 0) || getppid() != caller))
		return ESRCH;
	/* The command, with the mask sbxrun started with (no handler was
	 * set), ended by the kernel if sbxrun ends first (a command that may
	 * signal sbxrun can kill it), whatever its tree does. */
	if ((err = start(arg, &before, &command))) {
		sigprocmask(SIG_SETMASK, &before, NULL);
		return err;
	}
	while (!command_ended) {
		sig = next_signal(&wait_for, deadline, &si);
		if (sig == SIGCHLD) {
			reap();
		} else if (sig == 0 || sig == PARENT_GONE) {
			/* Time is up, or no one waits any more: the command
			 * (and its tree) asked to end, then made to. */
			*timed_out = sig == 0;
			if (!l->keep_tree) {
				lifetime_end_tree();
			} else {
				kill(command, SIGTERM);
				kill(command, SIGCONT);
				if (!command_ends(&chld, lifetime_now_ns() + LIFETIME_GRACE_NS))
					kill(command, SIGKILL);
			}
			command_ends(&chld, -1);
		} else if (passes_on(sig, &si)) {
			kill(command, sig);
		}
	}
	if (!l->keep_tree)
		lifetime_end_tree();
	*status = command_status;
	return 0;
}
