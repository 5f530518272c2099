/* SPDX-License-Identifier: MIT */
/* What the usability suite's tests share (usability.h): the tree, a logger
 * that keeps what it hears, a command run under a scope. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/usability.h"

struct tree ut;

struct usability_seen noted;

void usability_logger(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind < 16) {
		noted.kind[ev->kind]++;
		snprintf(noted.path[ev->kind], sizeof(noted.path[0]), "%s", ev->path ? ev->path : "");
		snprintf(noted.path2[ev->kind], sizeof(noted.path2[0]), "%s", ev->path2 ? ev->path2 : "");
		snprintf(noted.text[ev->kind], sizeof(noted.text[0]), "%s", ev->message);
		noted.error[ev->kind] = ev->error;
	}
}

void usability_setup(void)
{
	memset(&noted, 0, sizeof(noted));
	tree_make(&ut);
}

void usability_teardown(void)
{
	tree_free(&ut);
}

void scope_with(sbx_scopeattr_t *s, int flags)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	sbx_scopeattr_setlogger(s, usability_logger, NULL);
	ck_assert_int_eq(sbx_scopeattr_setflags(s, flags), 0);
}

/* Runs argv under scope: its exit status, its output in *out (kept until
 * the next call). */
int run_under(const sbx_scopeattr_t *s, char *const argv[], const char **out)
{
	static char *last;

	free(last);
	last = NULL;
	return run_scoped(s, argv, out ? &last : NULL) + (out ? (*out = last, 0) : 0);
}

/* A formatted string in a static ring of buffers. */
char *fmt_cmd(const char *f, ...)
{
	static char ring[8][8192];
	static int next;
	char *b = ring[next++ % 8];
	va_list ap;

	va_start(ap, f);
	vsnprintf(b, sizeof(ring[0]), f, ap);
	va_end(ap);
	return b;
}
