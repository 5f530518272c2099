/* SPDX-License-Identifier: MIT */
/* sbx_system: system(3) with a scope, as the C library's does it (glibc
 * 2.36 is the reference: tests/check_system.c runs both side by side), on
 * top of sbx_posix_spawn.  The one thing added is a status for a shell the
 * scope kept from running, which no command can have: -1. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/internal.h"

SBX__WITH_FORK_HANDLERS;

extern char **environ;

/* The status of a shell that exited 127, as wait(2) gives it (what
 * system(3) returns where the shell cannot be run). */
#define SHELL_NOT_RUN (127 << 8)

/* SIGINT and SIGQUIT are the process's, shared by threads: the first of
 * the calls running at once ignores them, the last gives back what the
 * first found.  A call of the C library's system(3) at the same time
 * keeps a count of its own, which this one cannot see. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned running;
static struct sigaction saved_int, saved_quit;

void sbx__system_atfork(enum sbx_fork_phase phase)
{
	if (phase == SBX_FORK_PREPARE)
		pthread_mutex_lock(&lock);
	else
		pthread_mutex_unlock(&lock);
}

/* Ignores them, and says which the shell must have back at their default
 * (those the caller did not ignore). */
static void ignore_begin(sigset_t *reset)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };

	sigemptyset(&ign.sa_mask);
	pthread_mutex_lock(&lock);
	if (running++ == 0) {
		sigaction(SIGINT, &ign, &saved_int);
		sigaction(SIGQUIT, &ign, &saved_quit);
	}
	sigemptyset(reset);
	if (saved_int.sa_handler != SIG_IGN)
		sigaddset(reset, SIGINT);
	if (saved_quit.sa_handler != SIG_IGN)
		sigaddset(reset, SIGQUIT);
	pthread_mutex_unlock(&lock);
}

static void ignore_end(void)
{
	pthread_mutex_lock(&lock);
	if (--running == 0) {
		sigaction(SIGINT, &saved_int, NULL);
		sigaction(SIGQUIT, &saved_quit, NULL);
	}
	pthread_mutex_unlock(&lock);
}

struct run {
	pid_t pid;
	sigset_t mask; /* the caller's */
};

/* A cancelled call ends its shell, for no one else would reap it, and
 * gives back what it changed. */
static void cancelled(void *arg)
{
	const struct run *r = arg;
	int state;

	kill(r->pid, SIGKILL);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
	while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
		;
	ignore_end();
	pthread_sigmask(SIG_SETMASK, &r->mask, NULL);
	pthread_setcancelstate(state, NULL);
}

/* Whether the failed spawn was the scope's doing: refused, or stopped
 * before any child was made (its compile, SBX_SCOPE_REQUIRE). */
static bool scope_stopped(int err, const sbx_scopeattr_t *scope)
{
	sbx_outcome_t o;

	if (err == SBX_EREFUSED)
		return true;
	return scope && !sbx_outcome_get(&o) && o.stage == SBX_STAGE_SETUP &&
	       o.confinement == SBX_OUTCOME_NONE;
}

static pid_t wait_for(struct run *r, int *status)
{
	pid_t got;

	pthread_cleanup_push(cancelled, r);
	/* waitpid is the cancellation point that system(3) has. */
	while ((got = waitpid(r->pid, status, 0)) < 0 && errno == EINTR)
		;
	pthread_cleanup_pop(0);
	return got;
}

/* The shell's wait status, or -1 / SHELL_NOT_RUN with *err. */
static int run(const char *command, const sbx_scopeattr_t *scope, int *err)
{
	/* argv[0] as system(3) names it; execve takes no const strings. */
	static char sh[] = "sh", dash_c[] = "-c";
	char *argv[] = { sh, dash_c, (char *)command, NULL };
	posix_spawnattr_t attr;
	struct run r;
	sigset_t chld, reset;
	int status = -1;

	ignore_begin(&reset);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, &r.mask);
	/* The shell gets the caller's mask, and its dispositions of SIGINT and
	 * SIGQUIT but where the caller ignored them. */
	*err = posix_spawnattr_init(&attr);
	if (!*err) {
		posix_spawnattr_setsigmask(&attr, &r.mask);
		posix_spawnattr_setsigdefault(&attr, &reset);
		posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
		*err = sbx_posix_spawn(&r.pid, "/bin/sh", NULL, &attr, scope, argv, environ);
		posix_spawnattr_destroy(&attr);
	}
	if (!*err) {
		if (wait_for(&r, &status) != r.pid) {
			*err = errno;
			status = -1;
		}
	} else {
		status = scope_stopped(*err, scope) ? -1 : SHELL_NOT_RUN;
	}
	ignore_end();
	pthread_sigmask(SIG_SETMASK, &r.mask, NULL);
	return status;
}

SBX_EXPORT int sbx_system(const char *command, const sbx_scopeattr_t *scope)
{
	int saved = errno, err = 0, status;

	/* Whether a shell can be run at all, here and under this scope (a
	 * chroot, a denial, may leave none). */
	if (!command)
		status = run("exit 0", scope, &err) == 0;
	else
		status = run(command, scope, &err);
	errno = err ? err : saved;
	return status;
}
