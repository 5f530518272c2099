/* SPDX-License-Identifier: MIT */
/* Escaping names (escape.c): the library's, and sbxrun's. */
#ifndef SBX_ESCAPE_H
#define SBX_ESCAPE_H

#include <stddef.h>

/* in, escaped into out (cap bytes, at most 4 per byte of in): a backslash,
 * newline, tab or return as \\, \n, \t, \r; another control character, or a
 * byte that is not valid UTF-8, as \xHH. */
size_t sbx__escape(const char *in, char *out, size_t cap);

#endif
