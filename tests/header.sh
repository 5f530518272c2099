#!/bin/sh
# The public header stands alone: strict C99, and C++.
set -eu
inc="$top_srcdir/include"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#include <sbxspawn/sbxspawn.h>\nint main(void) { sbx_scopeattr_t s; sbx_file_actions_t f; (void)s; (void)f; return 0; }\n' > "$tmp/h.c"
${CC:-cc} -std=c99 -pedantic -Wall -Wextra -Werror -I"$inc" -c "$tmp/h.c" -o "$tmp/h.o"
echo "header: compiles alone as C99 -pedantic -Werror"
if command -v "${CXX:-c++}" >/dev/null 2>&1; then
	cp "$tmp/h.c" "$tmp/h.cc"
	${CXX:-c++} -std=c++11 -pedantic -Wall -Wextra -Werror -I"$inc" -c "$tmp/h.cc" -o "$tmp/hxx.o"
	echo "header: compiles as C++11"
else
	echo "header: SKIP C++ check, no C++ compiler"
	exit 77
fi
