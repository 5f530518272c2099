/* SPDX-License-Identifier: MIT */
/* What sbxrun knows and says of itself without running anything
 * (about.c): its controls, --help's text, the build, --status. */
#ifndef SBX_TOOLS_ABOUT_H
#define SBX_TOOLS_ABOUT_H

#include <stddef.h>

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

/* --help's text. */
extern const char sbxrun_usage[];
/* Which build this is: Landlock or portable, the C library, the host. */
void sbxrun_print_build(void);
/* --status: what this kernel and build enforce; its exit status. */
int sbxrun_status(int require);

#endif /* SBX_TOOLS_ABOUT_H */
