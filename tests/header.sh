#!/bin/sh
# SPDX-License-Identifier: MIT
# The public header stands alone (strict C99, and C++), and a program built
# against it links with the built library and runs.
set -eu
inc="$top_srcdir/include"
libdir="$top_builddir/lib/.libs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/h.c" <<'PROG'
#include <sbxspawn/sbxspawn.h>
#include <stdio.h>
int main(void)
{
	sbx_scopeattr_t s;
	sbx_file_actions_t f;
	sbx_outcome_t o;
	int flags = -1;

	if (sbx_scopeattr_init(&s) || sbx_file_actions_init(&f) ||
	    sbx_scopeattr_adddeny(&s, "/nonexistent") || sbx_scopeattr_getflags(&s, &flags) ||
	    sbx_outcome_get(&o) || flags != 0)
		return 1;
	sbx_file_actions_destroy(&f);
	sbx_scopeattr_destroy(&s);
	puts(sbx_strerror(SBX_EREFUSED));
	return 0;
}
PROG
# shellcheck disable=SC2086
${CC:-cc} -std=c99 -pedantic -Wall -Wextra -Werror ${CFLAGS:-} -I"$inc" -c "$tmp/h.c" -o "$tmp/h.o"
echo "header: compiles alone as C99 -pedantic -Werror"
# With the build's own flags: a sanitizer build needs its runtime linked in.
# shellcheck disable=SC2086
${CC:-cc} ${CFLAGS:-} "$tmp/h.o" ${LDFLAGS:-} -L"$libdir" -lsbxspawn -o "$tmp/h"
LD_LIBRARY_PATH="$libdir" "$tmp/h" > "$tmp/out"
grep -q 'Landlock refused the ruleset' "$tmp/out"
echo "link: a C program links with the built library and runs"
# What a compiler builds for, machine and C library: a C++ compiler for
# another than the C compiler's (no musl C++ compiler beside musl-gcc, no
# cross C++ compiler in a cross build) cannot link with this library.
target_of() {
	lang=$1
	shift
	"$@" -dumpmachine
	printf '#include <limits.h>\n#ifdef __GLIBC__\nlibc=glibc\n#else\nlibc=other\n#endif\n' |
		"$@" -E -x "$lang" - 2>/dev/null | grep '^libc='
}
# shellcheck disable=SC2086
if command -v "${CXX:-c++}" >/dev/null 2>&1 &&
	[ "$(target_of c ${CC:-cc})" != "$(target_of c++ ${CXX:-c++})" ]; then
	echo "header: SKIP C++ check, the C++ compiler builds for another machine or C library than $CC"
	exit 77
elif command -v "${CXX:-c++}" >/dev/null 2>&1; then
	cp "$tmp/h.c" "$tmp/h.cc"
	# shellcheck disable=SC2086
	${CXX:-c++} -std=c++11 -pedantic -Wall -Wextra -Werror ${CFLAGS:-} -I"$inc" "$tmp/h.cc" \
		${LDFLAGS:-} -L"$libdir" -lsbxspawn -o "$tmp/hxx"
	LD_LIBRARY_PATH="$libdir" "$tmp/hxx" > /dev/null
	echo "header: compiles, links and runs as C++11"
else
	echo "header: SKIP C++ check, no C++ compiler"
	exit 77
fi
