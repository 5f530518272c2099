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
#include "tools/sbxrun.h"

/* One line on stderr, "sbxrun: " and the message, whatever the names in
 * it (a path given to an option, the command): escaped as the library's
 * events are, so that no name makes a second line. */
static __attribute__((format(printf, 1, 0))) void say_v(const char *fmt, va_list ap)
{
	char raw[4096], line[4 * sizeof(raw)];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	sbx__escape(raw, line, sizeof(line));
	fprintf(stderr, "sbxrun: %s\n", line);
}

void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_v(fmt, ap);
	va_end(ap);
}

void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_v(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'sbxrun --help' for more information.\n");
	exit(EXIT_FAILED);
}


/* The library names its own calls and flags as remedies; the user of this
 * command typed options: each named as the option that does it. */
static const struct {
	const char *library, *option;
} said_as[] = {
	{ "SBX_SCOPE_STRICT", "--strict" },
	{ "SBX_SCOPE_REQUIRE", "--require" },
	{ "SBX_SCOPE_LISTABLE", "--listable" },
	{ "SBX_SCOPE_DROP_CAPS", "--drop-caps" },
	{ "SBX_SCOPE_SHARE_KEYRINGS", "--share-keyrings" },
	{ "SBX_SCOPE_TUNE_PROCESSES", "--tune-processes" },
	{ "SBX_SCOPE_HIDE", "--hide" },
	{ "SBX_SCOPE_EXPAND", "--expand" },
	{ "SBX_SCOPE_LOG_DENIALS", "--log-denials" },
	{ "sbx_scopeattr_setids(3)", "--uid/--gid" },
	{ "sbx_scopeattr_setids", "--uid/--gid" },
	{ "sbx_scopeattr_settmpdir(3)", "--tmpdir DIR" },
	{ "sbx_scopeattr_explain(3)", "--explain PATH" },
};

/* m, with the library's names of calls and flags said as the options that
 * do them, in one line: "sbxrun: ", or another head. */
void as_options(const char *m, char *line, size_t cap)
{
	size_t len = 0;

	while (*m && len < cap - 32) {
		size_t i, n = sizeof(said_as) / sizeof(said_as[0]);

		for (i = 0; i < n && strncmp(m, said_as[i].library, strlen(said_as[i].library)); i++)
			;
		if (i < n) {
			len += (size_t)snprintf(line + len, cap - len, "%s", said_as[i].option);
			m += strlen(said_as[i].library);
		} else {
			line[len++] = *m++;
		}
	}
	line[len] = '\0';
}

void print_said(FILE *f, const char *head, const char *m)
{
	/* Written whole, in one line: stderr is unbuffered. */
	char line[20000];

	as_options(m, line, sizeof(line));
	fprintf(f, "%s%s\n", head, line);
}

void logger(const sbx_event_t *ev, void *arg)
{
	const struct settings *set = arg;

	/* What the library's default logger prints, and the privilege notice
	 * too: a user of sbxrun can act on it (--uid, --drop-caps).  Not an
	 * item that could not be added: sbxrun says that itself, naming the
	 * option (--tmpdir DIR: ...). */
	if ((!sbx__default_says(ev) && ev->kind != SBX_EVENT_PRIVILEGED) ||
	    ev->kind == SBX_EVENT_LIST ||
	    (set->quiet && ev->kind != SBX_EVENT_REFUSED && ev->kind != SBX_EVENT_FAILED))
		return;
	print_said(stderr, "sbxrun: ", ev->message);
}


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
		say("%s: not run: %s has no Landlock and --require was given", argv[0],
		    SBX_BUILD_LANDLOCK ? "this kernel" : "this build (portable)");
		return EXIT_FAILED;
	}
	/* A scope that could not be compiled is sbxrun's failure; an exec
	 * that failed is the command's, as env(1) tells them apart. */
	if (sbx_outcome_get(&outcome) == 0 && outcome.stage != SBX_STAGE_EXEC) {
		say("%s: not run: the scope could not be compiled: %s", argv[0], sbx_strerror(err));
		return EXIT_FAILED;
	}
	if ((err == EACCES || err == ENOENT) && program && (denial = refusing_denial(scope, program)))
		say("%s: %s: %s is in the denial %s", argv[0], sbx_strerror(err), program, denial);
	else
		say("%s: %s", argv[0], sbx_strerror(err));
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

/* A tree sbxrun ends is one whose confined command cannot signal sbxrun:
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
		add_flags(scope, SBX_SCOPE_NO_SIGNAL);
#else
	(void)set;
	(void)scope;
#endif
}

#if SBX_BUILD_LANDLOCK
/* What the forked child of run_child does: today's sbxrun. */
struct command {
	sbx_scopeattr_t *scope;
	char **argv;
};

static int become(void *arg)
{
	struct command *c = arg;

	return run(c->scope, c->argv);
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
	err = lifetime_run(&l, become, &c, &status, &timed_out);

	if (err == ESRCH && set->die_with_parent) {
		say("%s: not run: sbxrun's caller has ended (--die-with-parent)", argv[0]);
		return EXIT_FAILED;
	}
	if (err) {
		say("%s: not run: fork: %s", argv[0], strerror(err));
		return EXIT_FAILED;
	}
	return lifetime_exit(status, timed_out);
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
	char program[PATH_MAX];
	bool timed_out = false;
	int status = 0, err = denials_run(scope, argv, said_line, as_options, &l, &status, &timed_out);

	if (err == ESRCH && set->die_with_parent) {
		say("%s: not run: sbxrun's caller has ended (--die-with-parent)", argv[0]);
		return EXIT_FAILED;
	}
	if (err)
		return not_run(scope, refusing_locate(scope, argv[0], program, sizeof(program)) ? program : NULL,
		               argv, err);
	return timed_out ? LIFETIME_TIMED_OUT
	       : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
#else
	(void)set;
	say("%s", "no denial report: this build confines nothing (portable)");
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
			say("%s: %s", *paths, sbx_strerror(err));
			status = EXIT_FAILED;
			continue;
		}
		strcat(shown, ": ");
		print_said(stdout, shown, x.message);
	}
	return status;
}

int main(int argc, char **argv)
{
	/* Static: alive until exit, whichever way sbxrun leaves. */
	static struct settings set;
	int command = parse_options(&set, argc, argv);

	if (set.status)
		return sbxrun_status(set.require);
	if (set.explain && command >= argc)
		fail("%s", "--explain needs a path");
	if (set.explain)
		return explain(&set.scope, argv + command);
	if (command >= argc)
		fail("%s", "no command given");
	if (set.keep_tree && !set.timeout_ns && !set.die_with_parent && !set.report)
		return run(&set.scope, argv + command);
	guard_tree(&set, &set.scope);
	if (set.report)
		return run_reporting(&set, &set.scope, argv + command);
	return run_child(&set, &set.scope, argv + command);
}

