#!/bin/sh
# Builds this consumer against a libsbxspawn installed under PREFIX, found
# only through pkg-config, checks that it runs and confines, and runs its
# Check suite, which provokes every outcome of a spawn with the installed
# libsbxspawn-testing.
# Usage: check.sh PREFIX
set -eu
prefix=$(cd "${1:?usage: check.sh PREFIX}" && pwd)
src=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src/configure.ac" "$src/Makefile.am" "$src/capture.h" "$src/capture.c" "$src/main.c" \
	"$src/check_capture.c" "$work/"
cd "$work"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
export LD_LIBRARY_PATH="$prefix/lib"
pkg-config --exists --print-errors 'sbxspawn >= 0.3'
pkg-config --exists --print-errors 'sbxspawn-testing >= 0.1'
autoreconf -i >/dev/null 2>&1
./configure -q
make -s
mkdir -p data/open data/closed
echo visible > data/open/f
echo hidden > data/closed/f
out=$(./capture cat data/open/f data/closed/f)
case $out in *visible*hidden*"[exit 0]"*) ;; *) echo "consumer: unconfined run wrong: $out"; exit 1 ;; esac
out=$(CAPTURE_DENY="$work/data/closed" ./capture cat data/open/f data/closed/f)
case $out in
*hidden*) echo "consumer: the denial did not hold: $out"; exit 1 ;;
*visible*"Permission denied"*"[exit 1]"*) ;;
*) echo "consumer: confined run wrong: $out"; exit 1 ;;
esac
# A denial in the list beside an empty item, and a temporary directory of
# its own inside the denial, which the command writes in.
mkdir -p data/closed/tmp
out=$(CAPTURE_DENY=":$work/data/closed:" CAPTURE_TMPDIR="$work/data/closed/tmp" \
	./capture sh -c 'echo made > "$TMPDIR/f" && cat "$TMPDIR/f" data/closed/f')
case $out in
*hidden*) echo "consumer: the denial did not hold beside its TMPDIR: $out"; exit 1 ;;
*made*"Permission denied"*"[exit 1]"*) ;;
*) echo "consumer: the temporary directory was not granted: $out"; exit 1 ;;
esac
echo "consumer: built with pkg-config against $prefix, ran, and the denial held"
if ! make -s check >/dev/null 2>&1; then
	cat check_capture.log test-suite.log 2>/dev/null || true
	echo "consumer: its Check suite failed"
	exit 1
fi
grep -h '^[0-9]*%: Checks' check_capture.log
grep -h '^SKIP' check_capture.log || true
echo "consumer: its Check suite passed against the installed sbxspawn-testing"
