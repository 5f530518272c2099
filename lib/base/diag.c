/* SPDX-License-Identifier: MIT */
/* Diagnostics: events to the caller's logger, the default logger, error
 * descriptions, and the per-thread outcome of the last spawn. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/switches.h"

void sbx__restore_errno(const int *saved)
{
	errno = *saved;
}

int sbx__disable_cancel(void)
{
	int old = PTHREAD_CANCEL_ENABLE;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	return old;
}

void sbx__restore_cancel(const int *old)
{
	int ignored;

	pthread_setcancelstate(*old, &ignored);
}

void *sbx__grow(void *v, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 8;

	if (need <= *cap)
		return v;
	while (n < need)
		n *= 2;
	if (!(v = realloc(v, n * size)))
		return NULL;
	*cap = n;
	return v;
}

SBX_EXPORT const char *sbx_strerror(int err)
{
	SBX_KEEP_ERRNO;

	if (err == SBX_EREFUSED)
		/* Said after a spawn, and after sbx_scopeattr_compile() too, which
		 * runs nothing: words true of both. */
		return "the scope's confinement is refused (Landlock refused the ruleset, or a control "
		       "could not be applied): nothing runs under it";
	return strerror(err);
}

SBX_EXPORT const char *sbx_outcome_name(int confinement)
{
	static const char *const names[] = {
		[SBX_OUTCOME_NONE] = "none",         [SBX_OUTCOME_CONFINED] = "confined",
		[SBX_OUTCOME_NARROWED] = "narrowed", [SBX_OUTCOME_UNCONFINED] = "unconfined",
		[SBX_OUTCOME_REFUSED] = "refused",
	};

	if (confinement < 0 || (size_t)confinement >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[confinement];
}

SBX_EXPORT const char *sbx_stage_name(int stage)
{
	static const char *const names[] = {
		[SBX_STAGE_NONE] = "none",     [SBX_STAGE_SETUP] = "setup",
		[SBX_STAGE_ATTR] = "attribute", [SBX_STAGE_FILE_ACTION] = "file action",
		[SBX_STAGE_CONFINE] = "confinement", [SBX_STAGE_EXEC] = "exec",
	};

	if (stage < 0 || (size_t)stage >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[stage];
}

/* What the default logger prints, and why.  It prints what a user must act
 * on: a command that did not run (a refusal, a failed compile, a list, a
 * variable or a temporary directory that could not be applied), a path of
 * the scope not applied or a control not enforced, a grant dropped for
 * good, a directory the command works in frozen, Landlock absent.  Not:
 * the debug event; a grant dropped because its entry vanished or changed
 * while the scope was compiled, and their summary, where the next spawn
 * lists that directory again (what vanished was never the command's); a
 * refusal the child has said already, on its own standard error; and the
 * privilege notice, which is about the caller (run as root), not the
 * scope, and whose remedy is the calling program's (sbx_scopeattr_setids):
 * the outcome records it and sbxrun, whose user can act, says it.  Each
 * such event still reaches a logger of the caller's. */
static _Thread_local bool quiet_default;

bool sbx__default_says(const sbx_event_t *ev)
{
	if (ev->kind == SBX_EVENT_EXPAND || ev->kind == SBX_EVENT_PRIVILEGED ||
	    (ev->kind == SBX_EVENT_DROPPED && (ev->error == ENOENT || ev->error == ESTALE)))
		return false;
	return !quiet_default;
}

/* Whether a person reads standard error: a terminal with a type.  A
 * program reading a pseudo-terminal to test what it prints there has its
 * TERM empty, unset or "dumb" (no features of a terminal), as have an
 * editor's buffer and a script's expect session. */
static bool person_reads(void)
{
	const char *term = getenv("TERM");

	return isatty(STDERR_FILENO) && term && *term && strcmp(term, "dumb") != 0;
}

SBX_EXPORT void sbx_logger_default(const sbx_event_t *ev, void *arg)
{
	SBX_KEEP_ERRNO;

	(void)arg;
	if (!sbx__default_says(ev))
		return;
	/* Advice about a directory the scope freezes is for a person, at a
	 * terminal: where standard error is a pipe or a file, or a terminal
	 * of no type (a tool's output test drives a pseudo-terminal with TERM
	 * empty or dumb, and compares what it reads with a stock build's), it
	 * is left out.  Outcomes (refusals, failures, dropped grants, Landlock
	 * absent) are said wherever it goes.  sbx_logger_default(3) says why. */
	if (ev->kind == SBX_EVENT_FROZEN && !person_reads())
		return;
	/* One write, so that lines from concurrent spawns do not interleave. */
	char line[4 * 4096 + 16];
	int n = snprintf(line, sizeof(line), "sbxspawn: %s\n", ev->message);

	if (n > (int)sizeof(line) - 1) {
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	if (n > 0)
		fwrite(line, 1, (size_t)n, stderr);
}

/* The kinds this thread's events leave unsaid (sbx__events_mute). */
static _Thread_local unsigned muted;

unsigned sbx__events_mute(unsigned kinds)
{
	unsigned was = muted;

	muted = kinds;
	return was;
}

/* The muted kinds whose text is kept, and where (sbx__events_keep). */
static _Thread_local unsigned kept_kinds;
static _Thread_local char *kept_text;
static _Thread_local size_t kept_size;

void sbx__events_keep(unsigned kinds, char *buf, size_t size)
{
	kept_kinds = buf && size ? kinds : 0;
	kept_text = buf;
	kept_size = size;
}

/* Whether the switch named at text (within whole) is an enclosing scope's
 * (a nested scope's remedy), which its own launcher or program sets: not
 * this scope's variable. */
static bool enclosing(const char *whole, const char *text)
{
	static const char word[] = "enclosing scope";
	const char *from = text - whole > 48 ? text - 48 : whole;

	for (; from + sizeof(word) - 1 <= text; from++)
		if (!strncmp(from, word, sizeof(word) - 1))
			return true;
	return false;
}

/* text with the library's names of the switches written as the variables
 * of prefix that set them (SBX_SCOPE_LISTABLE: PREFIX_LISTABLE), and its
 * temporary directory's call as PREFIX_TMPDIR, into out: what a scope read
 * from the environment says (sbx_scopeattr_readenv(3)). */
static void as_variables(const char *prefix, const char *text, char *out, size_t cap)
{
	static const char flag[] = "SBX_SCOPE_", tmpdir[] = "sbx_scopeattr_settmpdir(3)";
#define NAME(name, flag) name,
	static const char *const switches[] = { SBX__SWITCHES(NAME) };
#undef NAME
	const size_t n = sizeof(switches) / sizeof(switches[0]);
	const char *whole = text;
	size_t len = 0, i;

	/* What does not fit is cut, at a character the text had. */
	while (*text && len + 1 < cap) {
		for (i = 0; i < n; i++)
			if (!strncmp(text, flag, sizeof(flag) - 1) &&
			    !strncmp(text + sizeof(flag) - 1, switches[i], strlen(switches[i])) &&
			    !enclosing(whole, text))
				break;
		if (i < n && len + strlen(prefix) + strlen(switches[i]) + 2 < cap) {
			len += (size_t)snprintf(out + len, cap - len, "%s_%s", prefix, switches[i]);
			text += sizeof(flag) - 1 + strlen(switches[i]);
		} else if (!strncmp(text, tmpdir, sizeof(tmpdir) - 1) &&
		           len + strlen(prefix) + 8 < cap) {
			len += (size_t)snprintf(out + len, cap - len, "%s_TMPDIR", prefix);
			text += sizeof(tmpdir) - 1;
		} else if (i < n || !strncmp(text, tmpdir, sizeof(tmpdir) - 1)) {
			break; /* no room for the name whole */
		} else {
			out[len++] = *text++;
		}
	}
	out[len] = '\0';
}

void sbx__scope_words(const struct sbx_scope *scope, const char *text, char *out, size_t cap)
{
	if (scope && scope->env_prefix[0])
		as_variables(scope->env_prefix, text, out, cap);
	else if (scope && scope->words)
		scope->words(text, out, cap);
	else
		snprintf(out, cap, "%s", text);
}

static void deliver(const struct sbx_scope *scope, int kind, bool quiet, int err,
                    const char *path, const char *path2, const char *fmt, va_list ap)
{
	char raw[4096], words[sizeof(raw)], message[4 * sizeof(raw)];
	sbx_logger_t logger = scope && scope->logger ? scope->logger : sbx_logger_default;
	bool was = quiet_default;
	unsigned mute = muted;

	if (kind > 0 && kind < 32 && (muted & kept_kinds & SBX_EVENT_BIT(kind))) {
		vsnprintf(kept_text, kept_size, fmt, ap);
		return;
	}
	if (!sbx__wants(scope, kind) || (kind > 0 && kind < 32 && (muted & SBX_EVENT_BIT(kind))))
		return;
	vsnprintf(raw, sizeof(raw), fmt, ap);
	/* A scope read from the environment speaks of its variables, which
	 * are what its user sets, not of the C library's names; within the
	 * 4095 bytes sbx_scopeattr_setlogger(3) promises before escaping. */
	if (scope && scope->env_prefix[0])
		as_variables(scope->env_prefix, raw, words, sizeof(words));
	/* One line, whatever the names in it: a name may hold a newline, an
	 * escape sequence, bytes that are no text (the text around them has
	 * none of these). */
	sbx__escape(scope && scope->env_prefix[0] ? words : raw, message, sizeof(message));
	quiet_default = quiet;
	muted = 0; /* what a logger itself calls says all it says */
	logger(&(sbx_event_t){ .kind = kind, .error = err, .path = path, .path2 = path2,
	                       .message = message },
	       scope ? scope->logger_arg : NULL);
	muted = mute;
	quiet_default = was;
}

void sbx__event(const struct sbx_scope *scope, int kind, int err, const char *path,
                const char *path2, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	deliver(scope, kind, false, err, path, path2, fmt, ap);
	va_end(ap);
}

void sbx__event_quiet(const struct sbx_scope *scope, int kind, int err, const char *path,
                      const char *path2, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	deliver(scope, kind, true, err, path, path2, fmt, ap);
	va_end(ap);
}

bool sbx__wants(const struct sbx_scope *scope, int kind)
{
	return !scope || kind < 0 || kind > 31 || (scope->events & SBX_EVENT_BIT(kind));
}

void sbx__refused_event(const struct sbx_scope *scope, const char *file, int err,
                        const struct refusal *r, bool child_said)
{
	/* Where the child wrote its line, that line is the one the user reads
	 * (where its standard error goes): the event is for loggers that keep
	 * data, and the default logger does not say it a second time. */
	(child_said ? sbx__event_quiet : sbx__event)(
		scope, SBX_EVENT_REFUSED, err, file, NULL,
		child_said ? "%s: not run: %s (%s: %s)" : "%s: not run: %s: %s: %s", file,
		r->what ? r->what : SBX_REFUSED_LANDLOCK, r->call ? r->call : "landlock",
		r->why ? r->why : strerror(err));
}

/* ---- once per process (internal.h) ------------------------------------ */

static pthread_mutex_t once_lock = PTHREAD_MUTEX_INITIALIZER;

/* init(arg) run once, by the first caller; the others wait for it. */
static void once_with(atomic_bool *done, void (*init)(void *), void *arg)
{
	if (atomic_load_explicit(done, memory_order_acquire))
		return;
	pthread_mutex_lock(&once_lock);
	if (!atomic_load_explicit(done, memory_order_relaxed)) {
		init(arg);
		atomic_store_explicit(done, true, memory_order_release);
	}
	pthread_mutex_unlock(&once_lock);
}

struct plain_init {
	void (*fn)(void);
};

static void run_plain(void *arg)
{
	((struct plain_init *)arg)->fn();
}

void sbx__once(atomic_bool *done, void (*init)(void))
{
	struct plain_init p = { init };

	once_with(done, run_plain, &p);
}

static void make_key(void *arg)
{
	struct sbx_thread_slot *slot = arg;

	slot->made = pthread_key_create(&slot->key, slot->destroy ? slot->destroy : free) == 0;
}

void *sbx__thread_slot(struct sbx_thread_slot *slot)
{
	void *p;

	once_with(&slot->tried, make_key, slot);
	if (!slot->made)
		return NULL;
	if (!(p = pthread_getspecific(slot->key)) && (p = calloc(1, slot->size)) &&
	    pthread_setspecific(slot->key, p)) {
		free(p);
		p = NULL;
	}
	return p;
}

void sbx__once_atfork(enum sbx_fork_phase phase)
{
	if (phase == SBX_FORK_PREPARE)
		pthread_mutex_lock(&once_lock);
	else
		pthread_mutex_unlock(&once_lock);
}

/* ---- the outcome of the last spawn of each thread -------------------- */

struct outcome_slot {
	sbx_outcome_t out;
	char **dropped; /* owned */
};

static void free_dropped(struct outcome_slot *slot)
{
	for (unsigned i = 0; slot->dropped && i < slot->out.dropped; i++)
		free(slot->dropped[i]);
	free(slot->dropped);
	slot->dropped = NULL;
}

static void slot_free(void *p)
{
	free_dropped(p);
	free(p);
}

static struct sbx_thread_slot outcomes = { .size = sizeof(struct outcome_slot), .destroy = slot_free };

void sbx__outcome_record(int confinement, const struct sbx_ruleset *rs, int stage, int action,
                         int error, int privilege)
{
	SBX_KEEP_ERRNO;
	struct outcome_slot *slot = sbx__thread_slot(&outcomes);
	/* A compile narrowed only by a busy directory, listed again since: what
	 * it dropped is judged afresh, and it grants what a new compile would. */
	bool healed = rs && confinement == SBX_OUTCOME_NARROWED && !rs->lasting_drops &&
	              !rs->snapshot && atomic_load(&rs->nunsettled) == 0;

	if (!slot)
		return;
	free_dropped(slot);
	if (healed)
		confinement = SBX_OUTCOME_CONFINED;
	slot->out = (sbx_outcome_t){ .confinement = confinement, .stage = stage,
	                             .action = action, .error = error, .privilege = privilege };
	slot->out.kernel_abi = sbx__landlock_abi();
	if (slot->out.kernel_abi < 0)
		slot->out.kernel_abi = 0;
	if (rs) {
		slot->out.abi = rs->fd >= 0 ? rs->abi : 0;
		slot->out.controls = rs->confinement != SBX_OUTCOME_REFUSED ? rs->controls : 0;
		slot->out.rules = rs->rules;
		slot->out.hidden = rs->confinement != SBX_OUTCOME_REFUSED ? rs->nhidden : 0;
		slot->out.expanded = rs->confinement != SBX_OUTCOME_REFUSED ? rs->nexpanded : 0;
		if (!healed && rs->ndropped &&
		    (slot->dropped = calloc(rs->ndropped + 1, sizeof(char *)))) {
			while (slot->out.dropped < rs->ndropped &&
			       (slot->dropped[slot->out.dropped] = strdup(rs->dropped[slot->out.dropped])))
				slot->out.dropped++;
		}
	}
	slot->out.dropped_paths = (const char *const *)slot->dropped;
}

SBX_EXPORT int sbx_outcome_get(sbx_outcome_t *outcome)
{
	SBX_KEEP_ERRNO;
	struct outcome_slot *slot = sbx__thread_slot(&outcomes);

	if (!slot)
		return ENOMEM;
	*outcome = slot->out;
	return 0;
}
