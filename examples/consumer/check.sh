#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds this consumer against a libsbxspawn installed under PREFIX, found
# only through pkg-config, checks that it runs and confines (linked with
# the shared library, and statically with pkg-config --static), and runs its
# Check suite, which provokes every outcome of a spawn with the installed
# libsbxspawn-testing.  With --system, against the one installed where
# pkg-config and the loader look by themselves (the Debian packages): no
# search path is set, and the loader must find both libraries on its own.
# Usage: check.sh PREFIX | check.sh --system
set -eu
case ${1:?usage: check.sh PREFIX | check.sh --system} in
--system) prefix= ;;
*) prefix=$(cd "$1" && pwd) ;;
esac
src=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src/configure.ac" "$src/Makefile.am" "$src/capture.h" "$src/capture.c" "$src/main.c" \
	"$src/check_capture.c" "$work/"
cd "$work"
if [ -n "$prefix" ]; then
	export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
	export LD_LIBRARY_PATH="$prefix/lib"
fi
pkg-config --exists --print-errors 'sbxspawn >= 0.5'
pkg-config --exists --print-errors 'sbxspawn-testing >= 0.1'
autoreconf -i >/dev/null 2>&1
./configure -q
make -s
make -s check_capture >/dev/null
if [ -z "$prefix" ]; then
	# Each library where pkg-config says it lies, found there by the
	# loader alone (which may name it /lib/..., the same directory on a
	# merged /usr).
	for pair in capture:libsbxspawn.so.1 check_capture:libsbxspawn.so.1 \
		check_capture:libsbxspawn-testing.so.0; do
		bin=${pair%%:*} lib=${pair#*:}
		got=$(ldd "./$bin" | awk -v lib="$lib" '$1 == lib { print $3 }')
		want=$(pkg-config --variable=libdir sbxspawn)/$lib
		if [ -z "$got" ] || [ "$(readlink -f "$got")" != "$(readlink -f "$want")" ]; then
			echo "consumer: $bin finds $lib at '${got:-nowhere}', not $want"
			exit 1
		fi
		echo "consumer: $bin loads $lib from $got by the loader's own search"
	done
fi
mkdir -p data/open data/closed
echo visible > data/open/f
echo hidden > data/closed/f
out=$(./capture cat data/open/f data/closed/f)
case $out in *visible*hidden*"[exit 0]"*) ;; *) echo "consumer: unconfined run wrong: $out"; exit 1 ;; esac
out=$(CAPTURE_DENY="$work/data/closed" ./capture cat data/open/f data/closed/f)
case $out in
*hidden*) echo "consumer: the denial did not hold: $out"; exit 1 ;;
*visible*"Permission denied"*"[exit 1]"* | *visible*"No such file or directory"*"[exit 1]"*) ;;
*) echo "consumer: confined run wrong: $out"; exit 1 ;;
esac
# A denial in the list beside an empty item, and a temporary directory of
# its own inside the denial, which the command writes in.
mkdir -p data/closed/tmp
out=$(CAPTURE_DENY=":$work/data/closed:" CAPTURE_TMPDIR="$work/data/closed/tmp" \
	./capture sh -c 'echo made > "$TMPDIR/f" && cat "$TMPDIR/f" data/closed/f')
case $out in
*hidden*) echo "consumer: the denial did not hold beside its TMPDIR: $out"; exit 1 ;;
*made*"Permission denied"*"[exit 1]"* | *made*"No such file or directory"*"[exit 1]"*) ;;
*) echo "consumer: the temporary directory was not granted: $out"; exit 1 ;;
esac
# A variable that cannot be applied is named, and nothing runs.
if out=$(CAPTURE_DENY="$work/data/closed" CAPTURE_TMPDIR="$work/none" ./capture true 2>&1); then
	echo "consumer: ran with a CAPTURE_TMPDIR that does not exist: $out"
	exit 1
fi
case $out in
*"CAPTURE_TMPDIR: $work/none: No such file or directory"*) ;;
*) echo "consumer: the variable that failed is not named: $out"; exit 1 ;;
esac
# CAPTURE_DENY set to nothing: the command runs as with posix_spawnp.
out=$(CAPTURE_DENY=:: ./capture cat data/closed/f)
case $out in *hidden*"[exit 0]"*) ;; *) echo "consumer: an empty CAPTURE_DENY confined: $out"; exit 1 ;; esac
echo "consumer: built with pkg-config against ${prefix:-the system's copy}, ran, and the denial held"
# Linked statically, as pkg-config --static says (libsbxspawn.a and what it
# needs after it), into a program that loads nothing: the denial holds the same.
# shellcheck disable=SC2046
${CC:-cc} -static -o capture-static main.c capture.c $(pkg-config --cflags sbxspawn) \
	$(pkg-config --static --libs sbxspawn)
if ldd ./capture-static >/dev/null 2>&1; then
	echo "consumer: capture-static loads shared libraries:"
	ldd ./capture-static
	exit 1
fi
out=$(CAPTURE_DENY="$work/data/closed" ./capture-static cat data/open/f data/closed/f)
case $out in
*hidden*) echo "consumer: the denial did not hold, statically linked: $out"; exit 1 ;;
*visible*"Permission denied"*"[exit 1]"* | *visible*"No such file or directory"*"[exit 1]"*) ;;
*) echo "consumer: confined run wrong, statically linked: $out"; exit 1 ;;
esac
echo "consumer: linked statically with pkg-config --static, ran, and the denial held"
if ! make -s check >/dev/null 2>&1; then
	cat check_capture.log test-suite.log 2>/dev/null || true
	echo "consumer: its Check suite failed"
	exit 1
fi
grep -h '^[0-9]*%: Checks' check_capture.log
grep -h '^SKIP' check_capture.log || true
echo "consumer: its Check suite passed against the installed sbxspawn-testing"
