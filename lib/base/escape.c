/* SPDX-License-Identifier: MIT */
/*
 * Names as data: every path an event or a refusal line carries is escaped
 * so that a line stays one line and says only what it says (a name may
 * hold a newline, an escape sequence for the terminal, bytes that are no
 * text).  Shared with sbxrun, whose own messages name paths too.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/escape.h"

/* The length of the valid UTF-8 sequence at s that is not a control
 * character (C1 included), or 0. */
static size_t printable_utf8(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
	           : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	uint32_t c = n == 1 ? s[0] : n == 2 ? s[0] & 0x1fU : n == 3 ? s[0] & 0x0fU : s[0] & 0x07U;

	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3fU);
	}
	/* Overlong forms, surrogates, beyond Unicode, and controls. */
	if (!n || (n == 2 && c < 0x80) || (n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff || c < 0x20 || (c >= 0x7f && c < 0xa0))
		return 0;
	/* What turns a line around or breaks it on a terminal: the marks and
	 * overrides of direction (U+200E, U+200F, U+202A..U+202E,
	 * U+2066..U+2069) and the line and paragraph separators (U+2028,
	 * U+2029). */
	if ((c >= 0x200e && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069))
		return 0;
	return n;
}

size_t sbx__escape(const char *in, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)in;
	size_t len = 0, n;

	for (; *s && len + 5 < cap; s += n ? n : 1) {
		if (*s == '\\' || *s == '\n' || *s == '\t' || *s == '\r') {
			out[len++] = '\\';
			out[len++] = *s == '\n' ? 'n' : *s == '\t' ? 't' : *s == '\r' ? 'r' : '\\';
			n = 1;
		} else if ((n = printable_utf8(s))) {
			memcpy(out + len, s, n);
			len += n;
		} else {
			out[len++] = '\\';
			out[len++] = 'x';
			out[len++] = hex[*s >> 4];
			out[len++] = hex[*s & 15];
		}
	}
	out[len] = '\0';
	return len;
}
