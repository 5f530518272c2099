#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-mutants: each mutant of tests/mutants/*.mutant is one line of
# the library changed as a careless edit would change it, a grant one right
# too wide or a name printed with a control character in it, and the tests
# that must fail with it.  In a copy of the sources (git's files), built
# once, each mutant is applied, the library built again, the suites it
# names run, and put back.  Each test it names must fail: one that passes,
# or says SKIP, shows nothing of the library, and fails the run; so does a
# mutant whose line is not in its file once (the code moved: update it).
set -u
src=$(cd "${top_srcdir:-.}" && pwd)
if ! git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	echo "mutants: SKIP, not a git checkout: the sources to copy cannot be told from the build's"
	exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/sbxmutants.XXXXXX")
trap 'rm -rf "$work"' EXIT
git -C "$src" ls-files -z | (cd "$src" && xargs -0 cp --parents -t "$work")
cd "$work" || exit 1
{ ./autogen.sh && ./configure && make -j"$(nproc)" check TESTS=; } > build.log 2>&1 ||
	{ tail -n 30 build.log; echo "mutants: the copy does not build"; exit 1; }
status=0
for m in "$src"/tests/mutants/*.mutant; do
	name=$(basename "$m" .mutant)
	file=$(sed -n 's/^file //p' "$m")
	FROM=$(sed -n 's/^from //p' "$m") TO=$(sed -n 's/^to //p' "$m")
	export FROM TO
	if [ "$(grep -cF -- "$FROM" "$file")" != 1 ]; then
		echo "mutants: $name: '$FROM' is not in $file once: update the mutant"
		status=1
		continue
	fi
	cp "$file" "$file.orig"
	perl -pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/' "$file"
	if ! make -j"$(nproc)" check TESTS= > "$name.build.log" 2>&1; then
		tail -n 20 "$name.build.log"
		echo "mutants: $name does not build"
		status=1
	else
		: > "$name.log"
		for suite in $(sed -n 's/^suite //p' "$m"); do
			CK_RUN_SUITE=$suite tests/watchdog tests/check_sbxspawn >> "$name.log" 2>&1
		done
		broke=0
		for t in $(sed -n 's/^kills //p' "$m"); do
			if grep -qE "^[^:]+:[0-9]+:[FE]:[^:]*:$t:" "$name.log"; then
				broke=$((broke + 1))
			elif grep -q "^SKIP $t" "$name.log"; then
				echo "mutants: $name: $t says SKIP, so it shows nothing: $(grep -m1 "^SKIP $t" "$name.log" | cut -c1-160)"
				status=1
			else
				echo "mutants: $name: $t passes with the mutant: it does not show the library at work"
				status=1
			fi
		done
		echo "mutants: $name: $broke of $(sed -n 's/^kills //p' "$m" | wc -w) tests broke"
	fi
	# Put back newer than the mutant's objects: else make keeps them,
	# and every later mutant runs with this one built in.
	mv "$file.orig" "$file"
	touch "$file"
done
exit $status
