/* SPDX-License-Identifier: MIT */
/* What the controls suite's files share (check_controls.c,
 * check_privilege.c): a logger of the controls downgraded, a scope with
 * flags, and what a copy of fsop says under it. */
#ifndef SBX_TESTS_CONTROLS_H
#define SBX_TESTS_CONTROLS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"

struct seen {
	int downgraded;
	char name[256];    /* the control, the last event's path */
	char message[512]; /* and why it is not enforced in full */
};

static inline void record(const sbx_event_t *ev, void *arg)
{
	struct seen *s = arg;

	if (ev->kind == SBX_EVENT_DOWNGRADED) {
		s->downgraded++;
		snprintf(s->name, sizeof(s->name), "%s", ev->path);
		snprintf(s->message, sizeof(s->message), "%s", ev->message);
	}
}

static inline void scope_make(sbx_scopeattr_t *s, struct seen *seen, int flags)
{
	memset(seen, 0, sizeof(*seen));
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(s, record, seen), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(s, flags), 0);
}

/* What prog, a copy of fsop, says of one operation. */
static inline const char *fs_prog(const sbx_scopeattr_t *scope, const char *prog,
                                  const char *op, const char *a)
{
	static char verdict[64];
	char *argv[] = { (char *)prog, (char *)op, (char *)a, NULL };
	char *out = NULL;
	int status = run_scoped(scope, argv, &out);

	ck_assert_msg(status == 0 || status == 1, "fsop %s %s: status %d: %s", op, a ? a : "",
	              status, out ? out : "");
	/* The verdict is the last line ("read" prints the file before it). */
	while (*out && out[strlen(out) - 1] == '\n')
		out[strlen(out) - 1] = '\0';
	snprintf(verdict, sizeof(verdict), "%s", strrchr(out, '\n') ? strrchr(out, '\n') + 1 : out);
	free(out);
	return verdict;
}

static inline const char *fs(const sbx_scopeattr_t *scope, const char *op, const char *a)
{
	return fs_prog(scope, FSOP, op, a);
}

/* check_privilege.c's tests, added to the controls suite's case. */
void privilege_tests(TCase *tc);

#endif /* SBX_TESTS_CONTROLS_H */
