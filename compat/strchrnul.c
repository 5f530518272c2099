/* SPDX-License-Identifier: MIT */
/* strchrnul(3) for a C library without it (macOS before 15.4, ...). */
#include "config.h"

#include <string.h>

#include "compat/compat.h"

char *strchrnul(const char *s, int c)
{
	while (*s && *s != (char)c)
		s++;
	return (char *)s;
}
