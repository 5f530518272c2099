/* SPDX-License-Identifier: MIT */
/* What the suites of sbx_system share (check_system.c, check_system_calls.c):
 * the four ways a command is run each time (the C library's system(3),
 * sbx_system with no scope, with a fresh scope and with a compiled one,
 * each denying a directory the command never goes near), and the check
 * that they agree on the status and errno.  Each suite has its own copy
 * (static): Check runs every test in a process of its own. */
#ifndef SBX_TESTS_SYSTEM_H
#define SBX_TESTS_SYSTEM_H


#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

enum { LIBC, SBX_NULL, SBX_FRESH, SBX_COMPILED, WAYS };
static const char *const way_name[] = { "system(3)", "sbx_system, NULL scope",
	                                "sbx_system, a fresh scope",
	                                "sbx_system, a compiled scope" };

static sbx_scopeattr_t fresh, compiled;
static char *top, *unrelated;

static void scope_make(sbx_scopeattr_t *s)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(s, unrelated), 0);
	/* Nothing said but what stops a command: the privilege notice as root
	 * is not what these tests are about. */
	ck_assert_int_eq(sbx_scopeattr_setevents(s, SBX_EVENTS_QUIET), 0);
}

static void setup(void)
{
	/* What the environment ignored (nohup: SIGHUP; a background job of a
	 * shell without job control: SIGINT, SIGQUIT) is not these tests':
	 * system(3) hands the caller's dispositions on, and a command meant
	 * to die of SIGHUP would live. */
	for (int sig = 1; sig < 32; sig++) {
		struct sigaction sa;

		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			signal(sig, SIG_DFL);
	}
	top = make_tmpdir();
	unrelated = make_tmpdir();
	scope_make(&fresh);
	scope_make(&compiled);
	ck_assert_int_eq(sbx_scopeattr_compile(&compiled), 0);
}

static void teardown(void)
{
	sbx_scopeattr_destroy(&fresh);
	sbx_scopeattr_destroy(&compiled);
	rm_rf(unrelated);
	rm_rf(top);
	free(unrelated);
	free(top);
}

static int way(int w, const char *command)
{
	switch (w) {
	case LIBC:
		return system(command);
	case SBX_NULL:
		return sbx_system(command, NULL);
	case SBX_FRESH:
		return sbx_system(command, &fresh);
	default:
		return sbx_system(command, &compiled);
	}
}

struct result {
	int status, err;
};

/* The way the others are held to: glibc's system(3), the reference.
 * Another C library's differs where glibc chose (musl: -1 for a shell not
 * run, no cleanup of a cancelled call), and is left out there, said. */
static int ref;

#ifdef __GLIBC__
#define REFERENCE() (ref = LIBC)
#else
#define REFERENCE()                                                                      \
	(ref = SBX_NULL,                                                                 \
	 say_skip("SKIP %s (system(3)): this C library's system(3) is not the "     \
	         "reference, glibc's: the sbx_system ways are held to each other\n", __func__))
#endif

/* Runs command every way and asserts they agree; the C library's result. */
static __attribute__((unused)) struct result agree(const char *command)
{
	struct result r[WAYS];

	for (int w = ref; w < WAYS; w++) {
		errno = 0;
		r[w].status = way(w, command);
		r[w].err = errno;
	}
	for (int w = ref + 1; w < WAYS; w++)
		ck_assert_msg(r[w].status == r[ref].status && r[w].err == r[ref].err,
		              "%s: %s gave status %#x, errno %d; %s %#x, errno %d",
		              command ? command : "NULL", way_name[w], (unsigned)r[w].status,
		              r[w].err, way_name[ref], (unsigned)r[ref].status, r[ref].err);
	return r[ref];
}

/* The caller's signals: SIGINT counted as caught, SIGCHLD too. */
static volatile sig_atomic_t interrupts, children;

static void on_int(int sig)
{
	(void)sig;
	interrupts++;
}

static __attribute__((unused)) void on_chld(int sig)
{
	(void)sig;
	children++;
}

static void handle(int sig, void (*fn)(int))
{
	struct sigaction sa = { .sa_handler = fn };

	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(sig, &sa, NULL), 0);
}

static void (*disposition(int sig))(int)
{
	struct sigaction sa;

	ck_assert_int_eq(sigaction(sig, NULL, &sa), 0);
	return sa.sa_handler;
}

#endif
