#!/bin/sh
# SPDX-License-Identifier: MIT
# libsbxspawn-testing stays apart from libsbxspawn: it exports exactly its
# version script's sbx_testing_ symbols; libsbxspawn exports none of them
# and does not need it; its header stands alone (strict C99, and C++) and a
# program built against both libraries links and runs.
set -eu
lib="$top_builddir/lib/.libs/libsbxspawn.so"
tlib="$top_builddir/testing/.libs/libsbxspawn-testing.so"
map="$top_srcdir/lib/libsbxspawn.map"
tmap="$top_srcdir/testing/libsbxspawn-testing.map"
if [ ! -f "$tlib" ]; then
	echo "exports-testing: SKIP, libsbxspawn-testing is not built (no Check, or the portable build)"
	exit 77
fi
exports() {
	${NM:-nm} -D --defined-only "$1" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sed 's/@.*//' |
		grep -v '^SBXSPAWN' | sort -u
}
fail=0

want=$(grep -oE '\bsbx_[a-z0-9_]+' "$tmap" | sort -u)
have=$(exports "$tlib")
if [ "$want" != "$have" ]; then
	echo "exports-testing: libsbxspawn-testing's exports differ from $tmap:"
	printf '%s\n' "$want" > exports-testing.want
	printf '%s\n' "$have" > exports-testing.have
	diff exports-testing.want exports-testing.have || true
	rm -f exports-testing.want exports-testing.have
	fail=1
fi
if printf '%s\n' "$want" | grep -v '^sbx_testing_'; then
	echo "exports-testing: the names above are not sbx_testing_"
	fail=1
fi
if exports "$lib" | grep '^sbx_testing_'; then
	echo "exports-testing: libsbxspawn exports the testing names above"
	fail=1
fi
if grep -q 'sbx_testing_' "$map"; then
	echo "exports-testing: $map names testing symbols"
	fail=1
fi
if ${READELF:-readelf} -d "$lib" | grep -q 'NEEDED.*libsbxspawn-testing'; then
	echo "exports-testing: libsbxspawn needs libsbxspawn-testing at run time"
	fail=1
fi
[ "$fail" -eq 0 ]
echo "exports: libsbxspawn-testing $(printf '%s\n' "$have" | wc -l) symbols, all sbx_testing_," \
	"exactly its version script; libsbxspawn exports none and does not need it"

# The header, with Check's, alone.
inc="$top_srcdir/include"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'PROG'
#include <sbxspawn/testing.h>
#include <stdlib.h>
int main(void)
{
	sbx_testing_refusal_t r;
	int abi = -1;

	if (sbx_testing_landlock_abi(&abi) || abi < 0)
		return 1;
	if (sbx_testing_refusal_find("sbxspawn: x: not run: Landlock refused the ruleset: y: z\n",
	                             &r) != 0 || r.lines != 1)
		return 1;
	puts(sbx_testing_status_name(SBX_EXIT_REFUSED << 8));
	return sbx_testing_landlock_refuse(0, 1) == 22 ? 0 : 1;
}
PROG
# Check as configure found it (make check says), else as pkg-config does.
check_cflags=${CHECK_CFLAGS-$(pkg-config --cflags check 2>/dev/null || true)}
check_libs=${CHECK_LIBS-$(pkg-config --libs check 2>/dev/null || echo -lcheck)}
# shellcheck disable=SC2086
${CC:-cc} -std=c99 -pedantic -Wall -Wextra -Werror ${CFLAGS:-} $check_cflags -I"$inc" -c "$tmp/t.c" -o "$tmp/t.o"
echo "header: <sbxspawn/testing.h> compiles alone as C99 -pedantic -Werror"
# shellcheck disable=SC2086
${CC:-cc} ${CFLAGS:-} "$tmp/t.o" ${LDFLAGS:-} -L"$top_builddir/testing/.libs" -L"$top_builddir/lib/.libs" \
	-lsbxspawn-testing -lsbxspawn $check_libs -o "$tmp/t"
LD_LIBRARY_PATH="$top_builddir/testing/.libs:$top_builddir/lib/.libs" "$tmp/t" | grep -q 'exit 125'
echo "link: a C program links with both built libraries and runs"
if command -v "${CXX:-c++}" >/dev/null 2>&1; then
	cp "$tmp/t.c" "$tmp/t.cc"
	# shellcheck disable=SC2086
	${CXX:-c++} -std=c++11 -pedantic -Wall -Wextra -Werror ${CFLAGS:-} $check_cflags -I"$inc" \
		-c "$tmp/t.cc" -o "$tmp/tcc.o"
	echo "header: <sbxspawn/testing.h> compiles as C++11"
fi
