#!/bin/sh
# SPDX-License-Identifier: MIT
# The ABI of the built libraries against the baselines committed in abi/
# (abidiff): a change that breaks a program built against the
# baseline (a function removed, a parameter or return type changed, a
# public type's layout changed) fails, with abidiff's report; functions
# added are compatible, listed, and pass.  Types the public headers do not
# define (the library's own, behind its opaque pointers) do not count.
#
#   abi/check.sh            compare (make check-abi)
#   abi/check.sh --update   write the baselines from the built libraries
#                           (make update-abi), at a release
set -eu
: "${top_srcdir:?run through make check-abi}" "${top_builddir:?run through make check-abi}"
headers="$top_srcdir/include/sbxspawn"
update=no
case ${1-} in
'') ;;
--update) update=yes ;;
*) echo "usage: abi/check.sh [--update]" >&2; exit 2 ;;
esac
for tool in abidw abidiff; do
	command -v "$tool" >/dev/null 2>&1 ||
		{ echo "abi: no $tool (Debian: apt-get install abigail-tools)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

status=0
# library, its built shared object, its baseline
for lib in libsbxspawn:lib/.libs/libsbxspawn.so libsbxspawn-testing:testing/.libs/libsbxspawn-testing.so; do
	name=${lib%%:*}
	so=$top_builddir/${lib#*:}
	base=$top_srcdir/abi/$name.abi
	if [ ! -f "$so" ]; then
		echo "abi: $name is not built here (the portable build, or no Check): not compared"
		continue
	fi
	# Without debug information abidiff sees symbols alone, not types.
	if ! LC_ALL=C readelf -S "$so" | grep -q '\.debug_info'; then
		echo "abi: $so has no debug information: configure with CFLAGS holding -g" >&2
		exit 1
	fi
	if [ "$update" = yes ]; then
		# Locations are kept (file names only): abidiff tells a public
		# type from a private one by the header that defines it.
		abidw --headers-dir "$headers" --drop-private-types --drop-undefined-syms \
			--no-corpus-path --no-comp-dir-path --short-locs --type-id-style hash \
			--out-file "$base" "$so"
		echo "abi: $base written from $so"
		continue
	fi
	rc=0
	abidiff --headers-dir2 "$headers" --drop-private-types "$base" "$so" > "$tmp/report" 2>&1 || rc=$?
	# abidiff's status is a bit field: 1 an error, 2 a usage error, 4 an
	# ABI change, 8 an incompatible one (a function removed).  Bit 4
	# alone may be additions, or a changed type or signature: asked
	# again without the additions, a change that remains is a break.
	if [ $((rc & 3)) -ne 0 ]; then
		cat "$tmp/report"
		echo "abi: abidiff failed on $so (status $rc)" >&2
		exit 1
	elif [ "$rc" -eq 0 ]; then
		echo "abi: $name: the same ABI as abi/$name.abi"
		continue
	fi
	rest=0
	abidiff --no-added-syms --headers-dir2 "$headers" --drop-private-types "$base" "$so" \
		> /dev/null 2>&1 || rest=$?
	cat "$tmp/report"
	if [ $((rc & 8)) -ne 0 ] || [ "$rest" -ne 0 ]; then
		echo "abi: $name: INCOMPATIBLE with abi/$name.abi (the report above): a program built" \
			"against the baseline may break. Undo the change, or make a new soname (HACKING.md," \
			"The interface) and refresh the baseline (make update-abi)"
		status=1
	else
		echo "abi: $name: compatible with abi/$name.abi, functions added (above); the release" \
			"that ships them refreshes the baseline (make update-abi)"
	fi
done
exit "$status"
