/* SPDX-License-Identifier: MIT */
/* What sbxrun shares with the library's diagnostics: escaping names
 * (escape.c), and what the default logger prints (diag.c). */
#ifndef SBX_ESCAPE_H
#define SBX_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "sbxspawn/sbxspawn.h"

/* in, escaped into out (cap bytes, at most 4 per byte of in): a backslash,
 * newline, tab or return as \\, \n, \t, \r; another control character
 * (C1 too), a mark or override of direction, a line or paragraph
 * separator, or a byte that is not valid UTF-8, as \xHH, byte by byte. */
size_t sbx__escape(const char *in, char *out, size_t cap);

/* Whether the default logger prints ev: false for what no user must act
 * on (diag.c says which, and why).  Asked from inside a logger, for the
 * event it was called with. */
bool sbx__default_says(const sbx_event_t *ev);

#endif
