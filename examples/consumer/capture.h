/* SPDX-License-Identifier: MIT */
/* capture: runs a command with its output captured through a pipe, and
 * prints what it said and how it ended, inside a filesystem boundary. */
#ifndef CAPTURE_H
#define CAPTURE_H

#include <stdio.h>

/* capture's exit statuses, after env(1): 125, 126 and 127 are its own,
 * any other status of the command is printed, not passed on.  125: not
 * run, because the sandbox was refused, or required and absent, or
 * capture itself failed. */
#define CAPTURE_RAN 0           /* the command ran; "[exit N]" tells how it ended */
#define CAPTURE_BAD_INPUT 2     /* bad usage, or the input file cannot be opened */
#define CAPTURE_NOT_RUN 125     /* not run (see above) */
#define CAPTURE_CANNOT_EXEC 126 /* found, but could not be executed */
#define CAPTURE_NOT_FOUND 127   /* not found */

struct capture_options {
	/* The environment the scope is read from: CAPTURE_DENY, CAPTURE_TMPDIR,
	 * CAPTURE_REQUIRE and the rest of libsbxspawn's convention
	 * (sbx_scopeattr_readenv(3)); NULL: capture's own. */
	char *const *env;
	const char *input; /* a file for the command's standard input, or NULL */
};

/* Runs argv; what the command says goes to out, capture's own messages to
 * err.  Returns the status capture exits with. */
int capture_run(char *const argv[], const struct capture_options *opt, FILE *out, FILE *err);

#endif
