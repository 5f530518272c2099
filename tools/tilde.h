/* SPDX-License-Identifier: MIT */
/* A path option's "~" expanded as a shell expands it (tools/tilde.c). */
#ifndef SBX_TOOLS_TILDE_H
#define SBX_TOOLS_TILDE_H

#include <stddef.h>

/* arg with a leading "~" or "~user" expanded into out (cap bytes), as a
 * shell would at the start of a word: "~" and "~/..." name the home
 * directory ($HOME, else the password database's), "~user/..." that
 * user's.  Returns out, arg itself where it has no leading "~", or NULL
 * with why (cap bytes) saying why it cannot be expanded. */
const char *tilde_expand(const char *arg, char *out, size_t cap, char *why, size_t whycap);

#endif
