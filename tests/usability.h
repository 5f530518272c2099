/* SPDX-License-Identifier: MIT */
/* What the usability suite's files share (usability.c): check_usability.c
 * the traps users meet, check_busy.c a busy directory. */
#ifndef SBX_TESTS_USABILITY_H
#define SBX_TESTS_USABILITY_H

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define NESTED HELPER_DIR "/nested"
#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"
#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

/* The tree each test works in (usability_setup makes it). */
extern struct tree ut;

/* What the logger saw. */
struct usability_seen {
	int kind[16];
	char path[16][4096], path2[16][4096], text[16][4096];
	int error[16];
};
extern struct usability_seen noted;

void usability_logger(const sbx_event_t *ev, void *arg);
/* The fixture: noted cleared, the tree made; then freed. */
void usability_setup(void);
void usability_teardown(void);
/* s initialised with flags, logging to usability_logger. */
void scope_with(sbx_scopeattr_t *s, int flags);
/* Runs argv under scope: its exit status, its output in *out (kept until
 * the next call). */
int run_under(const sbx_scopeattr_t *s, char *const argv[], const char **out);
/* A formatted string in a static ring of buffers. */
char *fmt_cmd(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* check_busy.c's tests, added to the suite's case. */
void busy_tests(TCase *tc);

#endif /* SBX_TESTS_USABILITY_H */
