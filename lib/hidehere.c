/* SPDX-License-Identifier: MIT */
/*
 * Whether a child of this process can hide denials (hide.c chooses which):
 * not where the scope or the environment asks for expansion, nor once a
 * child found its namespace refused (user namespaces off, a seccomp filter,
 * a security module, a Landlock domain the caller runs in): every later
 * spawn expands then.  And the probe that asks a child first
 * (sbx_scopeattr_compile(3), sbxrun --status).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "lib/hiding.h"
#include "lib/confine.h"

/* What a child of this process met making the namespace: 0 nothing yet,
 * else the errno, and the step. */
static atomic_int refused_err;
static const char *_Atomic refused_call;

void sbx__hide_refused(int err, const char *call)
{
	atomic_store(&refused_call, call);
	atomic_store(&refused_err, err);
}

bool sbx__hide_unavailable(const struct sbx_scope *scope, char *why, size_t size)
{
	int err = atomic_load(&refused_err);

	if (scope && (scope->flags & SBX_SCOPE_EXPAND))
		snprintf(why, size, "SBX_SCOPE_EXPAND asks for it");
	else if (secure_getenv("SBXSPAWN_EXPAND"))
		snprintf(why, size, "SBXSPAWN_EXPAND is set");
	else if (err)
		snprintf(why, size, "no mount namespace of the child's own here (%s: %s)",
		         atomic_load(&refused_call), strerror(err));
	else
		return false;
	return true;
}

static _Thread_local bool probed_here;

/* A child that makes the namespace and exits: whether one of this process
 * could hide a denial now (why not, in why).  It says the step that failed
 * through a pipe (a fork child's strings are the parent's, at the same
 * addresses). */
bool sbx__hide_probe(char *why, size_t size)
{
	struct { int err; const char *call; } r = { 0, "fork" };
	int p[2], status = 0;
	pid_t pid;
	bool user, answered = false;

	if (sbx__hide_unavailable(NULL, why, size))
		return false;
	/* Asked once per thread (a Landlock domain is a thread's): a child
	 * that could not, since, has said so (sbx__hide_refused). */
	if (probed_here) {
		snprintf(why, size, "%s", geteuid() ? "a user namespace and a mount namespace of the "
		                                    "child's own" : "a mount namespace of the child's own");
		return true;
	}
	if (!sbx__seccomp_supported() || !sbx__seccomp_kernel()) {
		snprintf(why, size, "no seccomp filter can be installed here");
		return false;
	}
	if (pipe2(p, O_CLOEXEC)) {
		snprintf(why, size, "pipe: %s", strerror(errno));
		return false;
	}
	/* No exit signal: a caller's SIGCHLD handler never hears of a child
	 * it did not ask for (it is waited for with __WALL alone). */
	pid = (pid_t)syscall(SYS_clone, 0, 0, NULL, NULL, 0);
	if (pid == 0) {
		r.err = sbx__hide_enter(&user, &r.call);
		(void)!write(p[1], &r, sizeof(r));
		_exit(0);
	}
	close(p[1]);
	if (pid < 0) {
		r.err = errno;
	} else {
		ssize_t n;

		while ((n = read(p[0], &r, sizeof(r))) < 0 && errno == EINTR)
			;
		if (n != (ssize_t)sizeof(r))
			r = (typeof(r)){ ECHILD, "the probe" };
		else
			answered = true;
	}
	close(p[0]);
	while (pid > 0 && waitpid(pid, &status, __WALL) < 0 && errno == EINTR)
		;
	/* The child's answer holds for the process; a probe that could not be
	 * made (no process to spare) for this question alone. */
	if (r.err && answered)
		sbx__hide_refused(r.err, r.call);
	if (r.err)
		snprintf(why, size, "%s: %s", r.call, strerror(r.err));
	else
		probed_here = true;
	if (!r.err)
		snprintf(why, size, "%s", geteuid() ? "a user namespace and a mount namespace of the "
		                                      "child's own" : "a mount namespace of the child's own");
	return !r.err;
}
