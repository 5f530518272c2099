/* SPDX-License-Identifier: MIT */
/* What a confined fsop says, for the suites of channels and second names
 * (check_channels.c, check_second_names.c): a scope denying one directory,
 * the helper run under it, and its answer read. */
#ifndef SBX_TESTS_READS_H
#define SBX_TESTS_READS_H

#include <stdbool.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"

/* A scope denying a directory of its own, under uid and gid 65534 when
 * nobody is set: the remedy the inventory names for these channels. */
void scope_for(sbx_scopeattr_t *s, const char *deny, bool nobody);
/* What fsop printed for op and arg under scope (its result and what it
 * read), malloc'd. */
char *fsop(const sbx_scopeattr_t *s, const char *op, const char *arg);
/* out (freed here) says what was read, or a denial. */
void assert_reads(char *out, const char *what);
void assert_refused(char *out);
/* check_second_names.c's tests, added to the channels suite's case. */
void second_names_tests(TCase *tc);

#endif /* SBX_TESTS_READS_H */
