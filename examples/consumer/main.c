/* SPDX-License-Identifier: MIT */
/* capture [-i FILE] COMMAND [ARG]...: runs a command with its output
 * captured through a pipe, and prints what it said and how it ended.
 * Its scope comes from libsbxspawn's environment convention under the
 * prefix CAPTURE: directories named in CAPTURE_DENY (colon-separated) are
 * out of the command's reach; CAPTURE_TMPDIR is a directory of its own for
 * temporary files, granted (its TMPDIR); CAPTURE_REQUIRE=1 refuses to run
 * it unconfined where the kernel has no Landlock; CAPTURE_ALLOW,
 * CAPTURE_READONLY, CAPTURE_LISTABLE, CAPTURE_STRICT and CAPTURE_QUIET as
 * sbx_scopeattr_readenv(3) says.  Exit statuses: capture.h.
 *
 * It used to call posix_spawnp; MIGRATION.diff is that change. */
#include <string.h>

#include "capture.h"

int main(int argc, char **argv)
{
	struct capture_options opt = { .env = NULL, .input = NULL };
	int first = 1;

	if (argc > 2 && !strcmp(argv[1], "-i")) {
		opt.input = argv[2];
		first = 3;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: capture [-i FILE] COMMAND [ARG]...\n");
		return CAPTURE_BAD_INPUT;
	}
	return capture_run(argv + first, &opt, stdout, stderr);
}
