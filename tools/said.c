/* SPDX-License-Identifier: MIT */
/*
 * What sbxrun says: one line each on stderr, "sbxrun: " first, every name
 * in it escaped, and the library's names of its calls and flags said as
 * the options that do them.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "tools/said.h"

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

void sbxrun_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_v(fmt, ap);
	va_end(ap);
}

void sbxrun_fail(const char *fmt, ...)
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
void sbxrun_as_options(const char *m, char *line, size_t cap)
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

void sbxrun_print_said(FILE *f, const char *head, const char *m)
{
	/* Written whole, in one line: stderr is unbuffered. */
	char line[20000];

	sbxrun_as_options(m, line, sizeof(line));
	fprintf(f, "%s%s\n", head, line);
}
