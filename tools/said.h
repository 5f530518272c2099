/* SPDX-License-Identifier: MIT */
/* What sbxrun says, and its own exit statuses (said.c). */
#ifndef SBX_TOOLS_SAID_H
#define SBX_TOOLS_SAID_H

#include <stddef.h>
#include <stdio.h>

#define EXIT_FAILED 125
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127

/* One line on stderr, "sbxrun: " and the message, its names escaped;
 * sbxrun_fail says it, and how to get help, and exits 125. */
__attribute__((format(printf, 1, 2))) void sbxrun_say(const char *fmt, ...);
_Noreturn __attribute__((format(printf, 1, 2))) void sbxrun_fail(const char *fmt, ...);
/* m, with the library's names of calls and flags said as the options
 * that do them, in one line; and that line printed after head. */
void sbxrun_as_options(const char *m, char *line, size_t cap);
void sbxrun_print_said(FILE *f, const char *head, const char *m);

#endif /* SBX_TOOLS_SAID_H */
