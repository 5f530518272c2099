/* SPDX-License-Identifier: MIT */
/*
 * sbxrun: start COMMAND under a scope, for programs that cannot be
 * relinked; when it ends, or its time is up, end every process it started
 * (tools/lifetime.c).  With --keep-tree alone, confine this process and
 * become COMMAND: the pid stays the same.  Exit statuses follow env(1)
 * and timeout(1): 124 when COMMAND timed out, 125 when sbxrun itself
 * fails, 126 when COMMAND cannot be executed, 127 when it is not found;
 * else COMMAND's own, or the signal that ended it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if SBX_BUILD_LANDLOCK
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "compat/kernel.h"
#include "compat/landlock.h"
#endif
#include "lib/escape.h"
#include "lib/internal.h"
#include "sbxspawn/sbxspawn.h"
#include "tools/refusing.h"
#include "tools/rlimit.h"
#include "tools/tilde.h"
#if SBX_BUILD_LANDLOCK
#include <sys/wait.h>

#include "tools/denials.h"
#include "tools/lifetime.h"
#endif


extern char **environ;
#include "tools/about.h"
#include "tools/options.h"
#include "tools/said.h"


/* ---- main ------------------------------------------------------------------ */

/* Why argv[0] did not run (err, and the outcome of the try), said, as
 * sbxrun's exit status. */
static int not_run(const sbx_scopeattr_t *scope, const char *program, char **argv, int err)
{
	const char *denial;
	sbx_outcome_t outcome;

	if (err == SBX_EREFUSED)
		return EXIT_FAILED; /* reported already, through the logger */
	if (err == ENOTSUP) {
		sbxrun_say("%s: not run: %s has no Landlock and --require was given", argv[0],
		    SBX_BUILD_LANDLOCK ? "this kernel" : "this build (portable)");
		return EXIT_FAILED;
	}
	/* A scope that could not be compiled is sbxrun's failure; an exec
	 * that failed is the command's, as env(1) tells them apart. */
	if (sbx_outcome_get(&outcome) == 0 && outcome.stage != SBX_STAGE_EXEC) {
		sbxrun_say("%s: not run: the scope could not be compiled: %s", argv[0], sbx_strerror(err));
		return EXIT_FAILED;
	}
	if ((err == EACCES || err == ENOENT) && program && (denial = refusing_denial(scope, program)))
		sbxrun_say("%s: %s: %s is in the denial %s", argv[0], sbx_strerror(err), program, denial);
	else
		sbxrun_say("%s: %s", argv[0], sbx_strerror(err));
	return err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
}

/* Becomes argv[0]; only a failure returns, as sbxrun's exit status. */
static int run(sbx_scopeattr_t *scope, char **argv)
{
	char program[PATH_MAX];
	bool found = refusing_locate(scope, argv[0], program, sizeof(program));

	return not_run(scope, found ? program : NULL, argv, sbx_execvpe(argv[0], scope, argv, environ));
}

#if SBX_BUILD_LANDLOCK
/* A line of the denial report: the names in it are the audit log's, which
 * the command chose (a carriage return, a terminal's escape sequence, a
 * line of the report's own): escaped. */
static void said_line(const char *line)
{
	char shown[4 * 3 * 4096 + 1];

	/* As it is: not through print_said, whose option names would
	 * rewrite a name that holds a library's (a file SBX_SCOPE_HIDE). */
	sbx__escape(line, shown, sizeof(shown));
	fprintf(stderr, "sbxrun: %s\n", shown);
}
#endif

/* sbxrun as the command's parent.  A tree sbxrun ends is one whose
 * confined command cannot signal sbxrun:
 * one that could kill or stop it would leave its tree running.  Where
 * Landlock scopes signals (ABI 6, and no lower cap), the command signals
 * nothing outside its domain (--no-signal); below, it can, as sbxrun(1)
 * says.  A command with no scope at all is not confined, and stays so
 * (nothing said of a boundary it does not have). */
static void guard_tree(const struct settings *set, sbx_scopeattr_t *scope)
{
#if SBX_BUILD_LANDLOCK
	long abi = sbx_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	int cap = 0, empty = 1;

	sbx_scopeattr_getabi(scope, &cap);
	sbx_scopeattr_isempty(scope, &empty);
	if (!set->keep_tree && !empty && abi >= 6 && (!cap || cap >= 6))
		sbxrun_add_flags(scope, SBX_SCOPE_NO_SIGNAL);
	/* The command is sbxrun's child from here on: it dies with sbxrun,
	 * and its end is waited for (a SIGCHLD the caller ignored would have
	 * the kernel reap it unheard). */
	sbxrun_add_flags(scope, SBX_SCOPE_DIE_WITH_PARENT);
	signal(SIGCHLD, SIG_DFL);
#else
	(void)set;
	(void)scope;
#endif
}

#if SBX_BUILD_LANDLOCK
/* The command run_child starts. */
struct command {
	sbx_scopeattr_t *scope;
	char **argv;
};

/* The command spawned (lifetime_start_fn): its signal mask sbxrun's at
 * its start, dying with sbxrun. */
static int start(void *arg, const sigset_t *mask, pid_t *pid)
{
	struct command *c = arg;
	posix_spawnattr_t attr;
	int err;

	if ((err = posix_spawnattr_init(&attr)))
		return err;
	if (!(err = posix_spawnattr_setsigmask(&attr, mask)) &&
	    !(err = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK)))
		err = sbx_posix_spawnp(pid, c->argv[0], NULL, &attr, c->scope, c->argv, environ);
	posix_spawnattr_destroy(&attr);
	return err;
}

#endif

#if SBX_BUILD_LANDLOCK
/* Why the command, to be sbxrun's child, did not start (err), said, as
 * sbxrun's exit status. */
static int not_started(const struct settings *set, sbx_scopeattr_t *scope, char **argv, int err)
{
	char program[PATH_MAX];

	if (err == ESRCH && set->die_with_parent) {
		sbxrun_say("%s: not run: sbxrun's caller has ended (--die-with-parent)", argv[0]);
		return EXIT_FAILED;
	}
	return not_run(scope, refusing_locate(scope, argv[0], program, sizeof(program)) ? program : NULL,
	               argv, err);
}
#endif

/* argv[0] in a child of sbxrun's, its tree ended with it (unless kept),
 * its time limited; sbxrun's exit is the command's (tools/lifetime.c). */
static int run_child(const struct settings *set, sbx_scopeattr_t *scope, char **argv)
{
#if SBX_BUILD_LANDLOCK
	struct lifetime l = { set->timeout_ns, set->keep_tree, set->die_with_parent };
	struct command c = { scope, argv };
	bool timed_out;
	int status = 0, err;

	/* Where sbxrun cannot adopt (qemu-user refuses it), what outlives
	 * its parent is not found: said in sbxrun(1), not in the command's
	 * output. */
	if (!set->keep_tree)
		lifetime_adopt();
	err = lifetime_run(&l, start, &c, &status, &timed_out);
	return err ? not_started(set, scope, argv, err) : lifetime_exit(status, timed_out);
#else
	(void)set;
	return run(scope, argv);
#endif
}

/* --report-denials: argv[0] as a child, and what it was denied after it
 * ends; its exit status, or a shell's for one a signal ended (128 + N). */
static int run_reporting(const struct settings *set, sbx_scopeattr_t *scope, char **argv)
{
#if SBX_BUILD_LANDLOCK
	struct lifetime l = { set->timeout_ns, set->keep_tree, set->die_with_parent };
	bool timed_out = false;
	int status = 0, err = denials_run(scope, argv, said_line, sbxrun_as_options, &l, &status, &timed_out);

	if (err)
		return not_started(set, scope, argv, err);
	return timed_out ? LIFETIME_TIMED_OUT
	       : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
#else
	(void)set;
	sbxrun_say("%s", "no denial report: this build confines nothing (portable)");
	return run(scope, argv);
#endif
}

/* --explain: one line a path, on standard output; 125 where one could not
 * be explained (said on standard error). */
static int explain(sbx_scopeattr_t *scope, char **paths)
{
	int status = 0;

	for (; *paths; paths++) {
		sbx_explanation_t x;
		char shown[4 * 4096 + 4];
		int err = sbx_scopeattr_explain(scope, *paths, &x);

		sbx__escape(*paths, shown, sizeof(shown) - 2);
		if (err) {
			sbxrun_say("%s: %s", *paths, sbx_strerror(err));
			status = EXIT_FAILED;
			continue;
		}
		strcat(shown, ": ");
		sbxrun_print_said(stdout, shown, x.message);
	}
	return status;
}

int main(int argc, char **argv)
{
	/* Static: alive until exit, whichever way sbxrun leaves. */
	static struct settings set;
	int command = sbxrun_parse_options(&set, argc, argv);

	if (set.status)
		return sbxrun_status(set.require);
	if (set.explain && command >= argc)
		sbxrun_fail("%s", "--explain needs a path");
	if (set.explain)
		return explain(&set.scope, argv + command);
	if (command >= argc)
		sbxrun_fail("%s", "no command given");
	if (set.keep_tree && !set.timeout_ns && !set.die_with_parent && !set.report)
		return run(&set.scope, argv + command);
	guard_tree(&set, &set.scope);
	if (set.report)
		return run_reporting(&set, &set.scope, argv + command);
	return run_child(&set, &set.scope, argv + command);
}

