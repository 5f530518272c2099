#!/bin/sh
# SPDX-License-Identifier: MIT
# The library exports exactly the version script's sbx_ symbols, nothing else.
set -eu
lib="$top_builddir/lib/.libs/libsbxspawn.so"
map="$top_srcdir/lib/libsbxspawn.map"
want=$(grep -oE '\bsbx_[a-z0-9_]+' "$map" | sort -u)
have=$(${NM:-nm} -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sed 's/@.*//' | grep -v '^SBXSPAWN_' | sort -u)
if [ "$want" != "$have" ]; then
	echo "exported symbols differ from $map:"
	printf '%s\n' "$want" > exports.want
	printf '%s\n' "$have" > exports.have
	diff exports.want exports.have || true
	rm -f exports.want exports.have
	exit 1
fi
echo "exports: $(printf '%s\n' "$have" | wc -l) symbols, all sbx_, exactly the version script"

# The static library (where it is built): every symbol it defines for a
# program to link is the library's, sbx_; the public ones, sbx_ but not
# sbx__, are exactly the version script's.  The internal sbx__ ones are
# hidden in the shared library; an archive has no such thing.  What a
# sanitizer adds to instrumented objects is its own.
archive="$top_builddir/lib/.libs/libsbxspawn.a"
if [ ! -f "$archive" ]; then
	echo "exports: no libsbxspawn.a in this build (--disable-static)"
	exit 0
fi
defined=$(${NM:-nm} -g --defined-only "$archive" | awk 'NF == 3 {print $3}' |
	grep -vE '^_*(odr_)?(asan|ubsan|sanitizer)' | sort -u)
stray=$(printf '%s\n' "$defined" | grep -v '^sbx_' || true)
if [ -n "$stray" ]; then
	echo "exports: libsbxspawn.a defines names that are not the library's (sbx_):"
	printf '%s\n' "$stray"
	exit 1
fi
public=$(printf '%s\n' "$defined" | grep -v '^sbx__' || true)
if [ "$want" != "$public" ]; then
	echo "libsbxspawn.a's public symbols differ from $map:"
	printf '%s\n' "$want" > exports.want
	printf '%s\n' "$public" > exports.have
	diff exports.want exports.have || true
	rm -f exports.want exports.have
	exit 1
fi
echo "exports: libsbxspawn.a defines $(printf '%s\n' "$public" | wc -l) public symbols, exactly the" \
	"version script, and $(printf '%s\n' "$defined" | grep -c '^sbx__') internal ones, all sbx__"
