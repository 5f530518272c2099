/* SPDX-License-Identifier: MIT */
/* sbxrun's parts: its options (options.c), what it says of itself
 * without running anything (about.c: --help, --status), and the run with
 * the words it says (sbxrun.c). */
#ifndef SBX_TOOLS_SBXRUN_H
#define SBX_TOOLS_SBXRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "sbxspawn/sbxspawn.h"

#define EXIT_FAILED 125
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127

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

/* The controls that are flags, each an option of its own: the flag, and
 * the Landlock ABI it needs (0: a seccomp filter, x86_64 and aarch64; -1:
 * none). */
struct control_option {
	const char *option;
	int flag;
	int abi;
};
extern const struct control_option sbxrun_controls[];
extern const size_t sbxrun_ncontrols;

/* --help's text (about.c). */
extern const char sbxrun_usage[];
/* Which build this is: Landlock or portable, the C library, the host. */
void sbxrun_print_build(void);
/* --status: what this kernel and build enforce; its exit status. */
int sbxrun_status(int require);

/* Fills set from the options, or fails; the index of the command, argc
 * where there is none (options.c). */
int parse_options(struct settings *set, int argc, char **argv);
/* Adds flags to the scope's. */
int add_flags(sbx_scopeattr_t *scope, int flags);

/* One line on stderr, "sbxrun: " and the message, its names escaped
 * (sbxrun.c); fail says it, and how to get help, and exits 125. */
__attribute__((format(printf, 1, 2))) void say(const char *fmt, ...);
_Noreturn __attribute__((format(printf, 1, 2))) void fail(const char *fmt, ...);
/* m, with the library's names of calls and flags said as the options
 * that do them, in one line. */
void as_options(const char *m, char *line, size_t cap);
void print_said(FILE *f, const char *head, const char *m);
/* The scope's logger: what a user of sbxrun must read. */
void logger(const sbx_event_t *ev, void *arg);

#endif /* SBX_TOOLS_SBXRUN_H */
