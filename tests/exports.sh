#!/bin/sh
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
