/* SPDX-License-Identifier: MIT */
/* What the said suite's files share (said.c): check_said.c hears the
 * default logger, check_said_places.c the directories where users are
 * hit and the caller's words. */
#ifndef SBX_TESTS_SAID_H
#define SBX_TESTS_SAID_H

#include <stdbool.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"
#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

/* The tree each test works in (said_setup makes it). */
extern struct tree said_t;

/* What reached the scope's logger, by kind; the default logger hears it
 * too, where forward is set. */
struct said_seen {
	int count[32];
	char path[32][4096], path2[32][4096], text[32][4096];
	int error[32];
	bool forward;
};
extern struct said_seen heard;

void said_logger(const sbx_event_t *ev, void *arg);
/* The fixture: heard cleared, the tree made; then freed. */
void said_setup(void);
void said_teardown(void);
/* s initialised, logging to said_logger. */
void scope_new(sbx_scopeattr_t *s);
/* This process's fd 2, caught in a file until said() gives it back with
 * what was written there (children spawned meanwhile write there too). */
void catch_stderr(void);
const char *said(void);
/* How many lines of text hold needle. */
int lines_with(const char *text, const char *needle);
/* argv spawned under s and waited for: its wait status, or -1000 - the
 * spawn's error. */
int spawn_wait(const sbx_scopeattr_t *s, char *const argv[]);
/* check_said_places.c's tests, added to the suite's case. */
void said_places_tests(TCase *tc);

#endif /* SBX_TESTS_SAID_H */
