/* SPDX-License-Identifier: MIT */
/* sbxrun's options: what they ask for (options.c), read from argv (argv.c). */
#ifndef SBX_TOOLS_OPTIONS_H
#define SBX_TOOLS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
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

/* One option: its name, how many arguments it takes (0, 1, or 2: joined
 * NAME=VALUE, as --setenv's), and what it does to the settings. */
struct sbxrun_option {
	const char *name;
	int takes_arg;
	int (*handle)(struct settings *set, const char *name, const char *arg);
};

/* The options, each a handler of options.c. */
extern const struct sbxrun_option sbxrun_options[];
extern const size_t sbxrun_noptions;

/* Applies the option at argv[i] (argv.c); the index of the argument after
 * those it used.  A name it cannot take ends sbxrun (sbxrun_fail). */
int sbxrun_option_at(struct settings *set, int argc, char **argv, int i);

/* Fills set from the options, or fails; the index of the command, argc
 * where there is none. */
int sbxrun_parse_options(struct settings *set, int argc, char **argv);
/* Adds flags to the scope's. */
int sbxrun_add_flags(sbx_scopeattr_t *scope, int flags);

#endif /* SBX_TOOLS_OPTIONS_H */
