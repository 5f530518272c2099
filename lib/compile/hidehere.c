/* SPDX-License-Identifier: MIT */
/*
 * Whether a child of this process can hide denials (hide.c chooses which):
 * not where the scope or the environment asks for expansion, nor once a
 * child found its namespace refused (user namespaces off, a seccomp filter,
 * a security module, a Landlock domain the caller runs in): every later
 * spawn expands then.  And the probe that asks a child first
 * (sbx_scopeattr_compile(3), sbxrun --status, an explanation).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/hiding.h"
#include "lib/confine.h"
#include "lib/child.h"

/* What a child of this process met making the namespace: 0 nothing yet,
 * else the errno, and the step. */
static atomic_int refused_err;
static const char *_Atomic refused_call;

void sbx__hide_refused(int err, const char *call)
{
	atomic_store(&refused_call, call);
	atomic_store(&refused_err, err);
}

bool sbx__hide_refusal_lasts(int err)
{
	return err != EMFILE && err != ENFILE && err != ENOMEM && err != EAGAIN;
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

struct asked {
	int fd; /* the pipe's end the child writes its answer to */
};

struct answer {
	int err;
	const char *call; /* a string of the library's: the same address in a copy */
};

/* The child: the namespace made, as a spawn's child makes it, and what it
 * met said through the pipe (a copy of the caller, where an emulator's
 * clone copies instead of sharing, writes it there too). */
CHILD static int ask_hiding(void *arg)
{
	const struct asked *a = arg;
	struct answer r = { 0, "unshare" };
	bool user;

	r.err = sbx__hide_enter(&user, &r.call);
	(void)sys(SYS_write, a->fd, (long)&r, sizeof(r), 0);
	_exit(0);
}

/* A child that makes the namespace and exits: whether one of this thread
 * could hide a denial now: 1 one did, 0 one was refused it (why not, in
 * why), -1 none could be asked, or it did not answer (why): not known, as
 * a probe proves nothing that could not be made, and a spawn's child
 * finds it out for itself.  Made as a spawn's child is (clone.c): sharing
 * the caller's memory, on a stack of its own, with no exit signal (a
 * caller's SIGCHLD handler never hears of it, and it is waited for with
 * __WALL alone), every signal blocked while it runs.  Where record, an
 * answer holds for the process (a refusal) or the thread (a namespace
 * made), and is asked once; else it is asked afresh and kept by no one
 * (an explanation's: what a spawn now would meet). */
int sbx__hide_probe(char *why, size_t size, bool record)
{
	struct answer r = { 0, NULL };
	struct asked a;
	int p[2], status, err;
	ssize_t n = 0;

	if (sbx__hide_unavailable(NULL, why, size))
		return 0;
	/* A child that could not, since, has said so (sbx__hide_refused). */
	if (record && probed_here) {
		snprintf(why, size, "%s", geteuid() ? "a user namespace and a mount namespace of the "
		                                    "child's own" : "a mount namespace of the child's own");
		return 1;
	}
	if (!sbx__seccomp_supported() || !sbx__seccomp_kernel()) {
		snprintf(why, size, "no seccomp filter can be installed here");
		return 0;
	}
	if (pipe2(p, O_CLOEXEC)) {
		snprintf(why, size, "not known: pipe: %s", strerror(errno));
		return -1;
	}
	/* The answer, a few bytes, waits in the pipe for the child's end. */
	a.fd = p[1];
	err = sbx__ask_child(ask_hiding, &a, 0, CHILD_STACK, &status, &r.call);
	close(p[1]);
	while (!err && (n = read(p[0], &r, sizeof(r))) < 0 && errno == EINTR)
		;
	close(p[0]);
	if (err || n != (ssize_t)sizeof(r)) {
		snprintf(why, size, "not known: %s", err ? r.call : "the probe did not answer");
		if (err)
			snprintf(why + strlen(why), size - strlen(why), ": %s", strerror(err));
		return -1;
	}
	if (r.err) {
		if (record && sbx__hide_refusal_lasts(r.err))
			sbx__hide_refused(r.err, r.call);
		snprintf(why, size, "%s%s: %s", sbx__hide_refusal_lasts(r.err) ? "" : "not known: ",
		         r.call, strerror(r.err));
		return sbx__hide_refusal_lasts(r.err) ? 0 : -1;
	}
	if (record)
		probed_here = true;
	snprintf(why, size, "%s", geteuid() ? "a user namespace and a mount namespace of the "
	                                    "child's own" : "a mount namespace of the child's own");
	return 1;
}
