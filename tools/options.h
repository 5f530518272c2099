/* SPDX-License-Identifier: MIT */
/* sbxrun's options (options.c): what they ask for, read from argv. */
#ifndef SBX_TOOLS_OPTIONS_H
#define SBX_TOOLS_OPTIONS_H

#include <stdbool.h>
#include <sys/types.h>

#include "sbxspawn/sbxspawn.h"

/* What the options ask for.  The scope holds most of it; the rest decides
 * what sbxrun does besides. */
struct settings {
	sbx_scopeattr_t scope;
	bool require;
	bool status;
	bool explain;
	bool report;
	bool quiet;
	bool uid_set, gid_set;
	uid_t uid;
	gid_t gid;
	/* --timeout, --keep-tree, --die-with-parent */
	long long timeout_ns;
	bool keep_tree, die_with_parent;
	/* The --deny paths not there (said once the options are read). */
	char *absent[8];
	int nabsent;
};

/* Fills set from the options, or fails; the index of the command, argc
 * where there is none. */
int sbxrun_parse_options(struct settings *set, int argc, char **argv);
/* Adds flags to the scope's. */
int sbxrun_add_flags(sbx_scopeattr_t *scope, int flags);

#endif /* SBX_TOOLS_OPTIONS_H */
