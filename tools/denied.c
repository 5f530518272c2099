/* SPDX-License-Identifier: MIT */
/*
 * sbxrun --report-denials: the command run with its domain's denials
 * logged, sbxrun staying beside it to read the audit log (denials.c), and
 * what it was denied said afterwards, a line each, with why: the scope's
 * own explanation of the path.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "sbxspawn/sbxspawn.h"
#include "tools/denials.h"
#include "tools/lifetime.h"
#include "tools/procs.h"

extern char **environ;

static pid_t command_pid;

/* sbxrun stays, to read the log: the terminal's interrupt reaches the
 * command on its own, and what is sent to sbxrun alone is passed on.
 * Caught, not ignored, so that the command starts with its defaults. */
static void pass_on(int sig)
{
	if (command_pid > 0 && (sig == SIGTERM || sig == SIGHUP))
		kill(command_pid, sig);
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = pass_on };

	sigemptyset(&sa.sa_mask);
	for (int sig = 0, all[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP }; sig < 4; sig++)
		sigaction(all[sig], &sa, NULL);
}

/* Why pid's domain denied an access to path, in a few words, from the
 * scope's own explanation of the path. */
static void why_denied(const sbx_scopeattr_t *scope, const struct denial *dn, char *out,
                       size_t cap)
{
	sbx_explanation_t x;
	const char *why;

	out[0] = '\0';
	if (!dn->path || sbx_scopeattr_explain(scope, dn->object, &x))
		return;
	why = strstr(x.message, ": ") ? strstr(x.message, ": ") + 2 : x.message;
	if (x.reason == SBX_REASON_DENIED || x.reason == SBX_REASON_READONLY)
		snprintf(out, cap, "in the %s %s", x.reason == SBX_REASON_DENIED ? "denial"
		                                                                 : "read-only path",
		         x.rule);
	else if (x.reason == SBX_REASON_FROZEN)
		snprintf(out, cap, "frozen by %s, whatever is re-admitted%s", x.rule,
		         strstr(dn->rights, "read_dir") && !(x.access & SBX_ACCESS_LIST)
		         ? "; SBX_SCOPE_LISTABLE lists it" : "");
	else if (x.frozen)
		snprintf(out, cap, "its directory is frozen by %s", x.frozen);
	else if (x.reason == SBX_REASON_GRANTED || x.reason == SBX_REASON_READMITTED)
		/* The kernel denied what the scope grants: another layer did,
		 * one the command added itself (or one sbxrun runs under). */
		snprintf(out, cap, "not by the scope, which grants it (%s): by a Landlock layer "
		         "the command added itself, or one sbxrun runs under", why);
	else
		snprintf(out, cap, "%s", why);
}

/* "fs.read_file,fs.refer" as "read_file, refer". */
static void rights_words(const char *rights, char *out, size_t cap)
{
	size_t o = 0;

	for (const char *p = rights; *p && o + 3 < cap; p++) {
		if (!strncmp(p, "fs.", 3) && (p == rights || p[-1] == ','))
			p += 3;
		if (*p == ',') {
			out[o++] = ',';
			out[o++] = ' ';
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
}

static void report(struct denials *d, bool reading, const sbx_outcome_t *oc, pid_t pid,
                   const sbx_scopeattr_t *scope, void (*said)(const char *line),
                   void (*words)(const char *in, char *out, size_t cap))
{
	char worded[3 * 4096];
	unsigned left = d->left;
	char line[3 * 4096], rights[256], why[2 * 4096];
	struct denial *v;
	size_t n;

	if (!reading || oc->confinement == SBX_OUTCOME_UNCONFINED ||
	    !(oc->controls & SBX_SCOPE_LOG_DENIALS)) {
		snprintf(line, sizeof(line), "no denial report: %s",
		         !reading ? d->why
		         : oc->confinement == SBX_OUTCOME_UNCONFINED
		         ? "the command ran unconfined: nothing was denied"
		         : "this kernel logs nothing a program is denied after its exec (Landlock ABI 7 "
		           "does)");
		said(line);
		return;
	}
	v = denials_of(d, pid, &n);
	for (size_t i = 0; v && i < n; i++) {
		rights_words(v[i].rights, rights, sizeof(rights));
		why_denied(scope, &v[i], worded, sizeof(worded));
		words(worded, why, sizeof(why));
		if (v[i].count > 1)
			snprintf(line, sizeof(line), "denied %s: %s (%u times)%s%s", rights, v[i].object,
			         v[i].count, why[0] ? ": " : "", why);
		else
			snprintf(line, sizeof(line), "denied %s: %s%s%s", rights, v[i].object,
			         why[0] ? ": " : "", why);
		said(line);
	}
	if (v && !n)
		said(d->overflowed || d->lost_since ? "no access was denied that the log kept"
		                                    : "no access was denied");
	if (d->overflowed)
		said("the audit log lost records while the command ran: the report may miss some");
	if (d->lost_since) {
		snprintf(line, sizeof(line), "the kernel lost %u audit records while the command ran "
		         "(its backlog was full: auditctl -b raises the limit): the report may miss "
		         "some of them", d->lost_since);
		said(line);
	}
	if (d->why[0])
		said(d->why);
	if (left) {
		snprintf(line, sizeof(line), "%u process%s the command started still ran when it "
		         "ended: what %s denied after this report is not in it", left,
		         left == 1 ? "" : "es", left == 1 ? "it is" : "they are");
		said(line);
	}
	if (d->unplaced) {
		snprintf(line, sizeof(line), "%zu denial%s by Landlock layers of processes that ended "
		         "before the report could tell whose they were %s not in it", d->unplaced,
		         d->unplaced == 1 ? "" : "s", d->unplaced == 1 ? "is" : "are");
		said(line);
	}
	denials_free(d, v, n);
}

int denials_run(sbx_scopeattr_t *scope, char **argv, void (*said)(const char *line),
                void (*words)(const char *in, char *out, size_t cap), const struct lifetime *l,
                int *status, bool *timed_out)
{
	bool end_tree = !l->keep_tree;
	pid_t caller = getppid();
	struct denials d;
	bool reading = denials_open(&d) == 0;
	sbx_outcome_t oc;
	int flags = 0, err;

	sbx_scopeattr_getflags(scope, &flags);
	sbx_scopeattr_setflags(scope, flags | SBX_SCOPE_LOG_DENIALS);
	catch_signals();
	/* What the command leaves running becomes sbxrun's, to be counted
	 * where there is a report to count for, and ended unless kept. */
	d.end_tree = end_tree;
	d.timeout_ns = l->timeout_ns;
	if (reading || end_tree)
		lifetime_adopt();
	if (l->die_with_parent && denials_end_with_parent(caller)) {
		denials_free(&d, NULL, 0);
		return ESRCH;
	}
	err = sbx_posix_spawnp(&command_pid, argv[0], NULL, NULL, scope, argv, environ);
	sbx_outcome_get(&oc);
	if (err) {
		denials_free(&d, NULL, 0);
		return err;
	}
	if (reading) {
		*status = denials_wait(&d, command_pid);
	} else {
		*status = denials_wait_command(&d, command_pid, false);
		if (end_tree)
			lifetime_end_tree();
	}
	*timed_out = d.timed_out;
	report(&d, reading, &oc, command_pid, scope, said, words);
	return 0;
}
