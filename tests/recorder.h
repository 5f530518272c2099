/* SPDX-License-Identifier: MIT */
/* A logger that keeps what the library tells it, and acts on the world at
 * a chosen moment of a compile (recorder.c): the outcome suites provoke
 * each event with it (check_outcomes.c, check_dropped.c, check_aliases.c). */
#ifndef SBX_TESTS_RECORDER_H
#define SBX_TESTS_RECORDER_H

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"

/* A logger that keeps what it is told. */
struct seen {
	int count[16];
	char path[16][4096];
	char path2[16][4096];
	int error[16];
	/* With remove set: on the EXPAND event of `when', rmdir `remove' (and
	 * put a file in its place when replace is set). */
	const char *when, *remove;
	int replace;
	const char *move_to; /* rename `remove' there instead */
	/* On the EXPAND event of `when': exchange `swap' with `swap_with', or
	 * bind-mount `bind' onto `bind_onto'. */
	const char *swap, *swap_with, *bind, *bind_onto;
};

/* The logger: each kind's count, last paths and error kept in *arg (a
 * struct seen), and the world changed as the struct asks. */
void record(const sbx_event_t *ev, void *arg);
/* s initialised with record logging into *seen (cleared), denying deny
 * (when not NULL). */
void scope_make(sbx_scopeattr_t *s, struct seen *seen, const char *deny);
/* check_dropped.c's and check_aliases.c's tests, added to the suite's case. */
void dropped_tests(TCase *tc);
void aliases_tests(TCase *tc);

#endif /* SBX_TESTS_RECORDER_H */
