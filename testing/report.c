/* SPDX-License-Identifier: MIT */
/*
 * Reading what a spawn left behind: the refusal line a refused child
 * writes, the dropped grants of the calling thread's outcome, and names
 * for the library's numbers that make a failed assertion read plainly.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sbxspawn/testing.h"
#include "testing/internal.h"

/* The child's words (lib/child/child.c): "sbxspawn: PROGRAM: not run: WHAT:
 * CALL: REASON", WHAT saying who refused ("Landlock refused the
 * ruleset"); sbxrun, which runs no child of its own, says the same after
 * its own name.  The parent's event about a child's refusal reads
 * "PROGRAM: not run: WHAT (CALL: REASON)", and is not a refusal line. */
static const char *const refusal_heads[] = { "sbxspawn: ", "sbxrun: " };
#define REFUSAL_MARK ": not run: "

/* Copies at most size - 1 bytes of [from, to) into dst, terminated. */
static void copy(char *dst, size_t size, const char *from, const char *to)
{
	size_t n = (size_t)(to - from);

	if (n > size - 1)
		n = size - 1;
	memcpy(dst, from, n);
	dst[n] = '\0';
}

/* The first ": " in [from, end), or NULL. */
static const char *separator(const char *from, const char *end)
{
	const char *sep = strstr(from, ": ");

	return sep && sep < end ? sep : NULL;
}

/* Whether [line, end) is a refusal line; if so and r is not NULL, fills it. */
static bool refusal_line(const char *line, const char *end, sbx_testing_refusal_t *r)
{
	const char *mark, *what, *call, *reason, *program = NULL;

	for (size_t i = 0; i < sizeof(refusal_heads) / sizeof(refusal_heads[0]); i++)
		if (!strncmp(line, refusal_heads[i], strlen(refusal_heads[i])))
			program = line + strlen(refusal_heads[i]);
	if (!program || !(mark = strstr(program, REFUSAL_MARK)) || mark >= end)
		return false;
	what = mark + strlen(REFUSAL_MARK);
	if (!(call = separator(what, end)) || !(reason = separator(call + 2, end)))
		return false;
	if (r) {
		copy(r->program, sizeof(r->program), program, mark);
		copy(r->what, sizeof(r->what), what, call);
		copy(r->call, sizeof(r->call), call + 2, reason);
		copy(r->reason, sizeof(r->reason), reason + 2, end);
	}
	return true;
}

SBX_TESTING_EXPORT int sbx_testing_refusal_find(const char *restrict text,
                                                sbx_testing_refusal_t *restrict refusal)
{
	SBX_TESTING_KEEP_ERRNO;
	sbx_testing_refusal_t r = { .lines = 0 };

	if (!text || !refusal)
		return EINVAL;
	/* Only whole lines: the last may lack its newline. */
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');

		if (!end)
			end = line + strlen(line);
		if (refusal_line(line, end, r.lines ? NULL : &r))
			r.lines++;
		line = *end ? end + 1 : end;
	}
	*refusal = r;
	return r.lines ? 0 : ENOENT;
}

SBX_TESTING_EXPORT int sbx_testing_dropped_find(const char *path)
{
	SBX_TESTING_KEEP_ERRNO;
	char resolved[PATH_MAX];
	sbx_outcome_t o;
	int err;

	if (!path)
		return EINVAL;
	if ((err = sbx_outcome_get(&o)))
		return err;
	/* The library names what it dropped by the resolved path: the
	 * caller's words may be relative or go through a link. */
	if (!realpath(path, resolved))
		resolved[0] = '\0';
	for (unsigned i = 0; i < o.dropped; i++)
		if (!strcmp(o.dropped_paths[i], path) || !strcmp(o.dropped_paths[i], resolved))
			return 0;
	return ENOENT;
}

/* Room for the names that are not constant: four, so that one assertion
 * can name both sides and still be one of two in a message. */
static __thread char ring[4][160];
static __thread unsigned ring_next;

static char *ring_slot(void)
{
	return ring[ring_next++ % 4];
}

SBX_TESTING_EXPORT const char *sbx_testing_confinement_name(int confinement)
{
	static const char *const names[] = {
		[SBX_OUTCOME_NONE] = "SBX_OUTCOME_NONE",
		[SBX_OUTCOME_CONFINED] = "SBX_OUTCOME_CONFINED",
		[SBX_OUTCOME_NARROWED] = "SBX_OUTCOME_NARROWED",
		[SBX_OUTCOME_UNCONFINED] = "SBX_OUTCOME_UNCONFINED",
		[SBX_OUTCOME_REFUSED] = "SBX_OUTCOME_REFUSED",
	};
	SBX_TESTING_KEEP_ERRNO;
	char *s;

	if (confinement >= 0 && confinement < (int)(sizeof(names) / sizeof(names[0])))
		return names[confinement];
	s = ring_slot();
	snprintf(s, sizeof(ring[0]), "confinement %d (unknown)", confinement);
	return s;
}

SBX_TESTING_EXPORT const char *sbx_testing_stage_name(int stage)
{
	static const char *const names[] = {
		[SBX_STAGE_NONE] = "SBX_STAGE_NONE",
		[SBX_STAGE_SETUP] = "SBX_STAGE_SETUP",
		[SBX_STAGE_ATTR] = "SBX_STAGE_ATTR",
		[SBX_STAGE_FILE_ACTION] = "SBX_STAGE_FILE_ACTION",
		[SBX_STAGE_CONFINE] = "SBX_STAGE_CONFINE",
		[SBX_STAGE_EXEC] = "SBX_STAGE_EXEC",
	};
	SBX_TESTING_KEEP_ERRNO;
	char *s;

	if (stage >= 0 && stage < (int)(sizeof(names) / sizeof(names[0])))
		return names[stage];
	s = ring_slot();
	snprintf(s, sizeof(ring[0]), "stage %d (unknown)", stage);
	return s;
}

/* What the exit statuses a launcher uses say, after env(1). */
static const char *exit_meaning(int code)
{
	switch (code) {
	case SBX_EXIT_REFUSED:
		return " (SBX_EXIT_REFUSED: not run, the confinement was refused)";
	case 126:
		return " (found, but could not be executed)";
	case 127:
		return " (not found)";
	default:
		return "";
	}
}

SBX_TESTING_EXPORT const char *sbx_testing_status_name(int status)
{
	SBX_TESTING_KEEP_ERRNO;
	char *s = ring_slot();

	if (WIFEXITED(status))
		snprintf(s, sizeof(ring[0]), "exit %d%s", WEXITSTATUS(status),
		         exit_meaning(WEXITSTATUS(status)));
	else if (WIFSIGNALED(status))
		snprintf(s, sizeof(ring[0]), "killed by signal %d (%s)%s", WTERMSIG(status),
		         strsignal(WTERMSIG(status)), WCOREDUMP(status) ? ", core dumped" : "");
	else if (WIFSTOPPED(status))
		snprintf(s, sizeof(ring[0]), "stopped by signal %d (%s)", WSTOPSIG(status),
		         strsignal(WSTOPSIG(status)));
	else
		snprintf(s, sizeof(ring[0]), "wait status %#x", (unsigned)status);
	return s;
}
