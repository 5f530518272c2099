#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the bench, then plots its compile scaling where gnuplot is installed.
# Usage: run.sh BENCH GNUPLOT_SCRIPT OUTDIR
# BENCH_QUICK=1, BENCH_ROUNDS=N, BENCH_ONLY=... and BENCH_TMPDIR=DIR go
# through to BENCH.
set -e
bench=$1
script=$2
out=$3

# The bench removes its fixture (up to 100,000 files) when it ends; this
# removes it too when the bench is interrupted or killed.
parent=${BENCH_TMPDIR:-/var/tmp}
test -w "$parent" || parent=/tmp
fixture=$(mktemp -d "$parent/sbxbench-run.XXXXXX")
trap 'rm -rf "$fixture"' EXIT
trap 'exit 130' HUP INT TERM

BENCH_TMPDIR=$fixture "$bench" --csv "$out/results.csv"

# The plot is a convenience: no gnuplot, or no figures, is no failure.
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "gnuplot not installed: no plot of compile scaling"
elif ! grep -q '^compile,' "$out/results.csv" 2>/dev/null; then
	echo "no compile figures in $out/results.csv: no plot"
elif gnuplot -e "csv='$out/results.csv'; png='$out/compile.png'" "$script"; then
	echo "plot of compile scaling written to $out/compile.png"
else
	echo "gnuplot failed: no plot of compile scaling"
fi
