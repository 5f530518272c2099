#!/bin/sh
# SPDX-License-Identifier: MIT
# The suite against a library that protects nothing: run with Landlock
# switched off underneath it (landlock_restrict_self returns 0 and does
# nothing), then with the library's seccomp filters switched off (seccomp's
# SET_MODE_FILTER of a program returns 0), then with a hidden denial's
# covers switched off (the library's mounts return 0), each by a filter of
# the runner's own (tests/runner.c, SBX_TEST_MUTATE).  Every test listed for
# that mutation in tests/mutations must fail: one that passes passes for a
# reason that is not the library, and one that says SKIP shows nothing (so
# it fails the run too).  And every test that fails must be listed: a new test whose
# subject is that protection joins the list, any other failure is a fault
# of its own.
#
#   make check-mutation      (as root, as CI runs it: some tests need it)
set -u
list=${top_srcdir:?}/tests/mutations
prog=${top_builddir:?}/tests/check_sbxspawn
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

for m in landlock seccomp hide; do
	SBX_TEST_MUTATE=$m "$prog" > "$tmp/$m.log" 2>&1
	if ! grep -q "^MUTATION: $m switched off" "$tmp/$m.log"; then
		echo "mutation: $m: the suite did not run with it switched off:"
		tail -n 5 "$tmp/$m.log"
		status=1
		continue
	fi
	# Check's lines: FILE:LINE:P|F|E:TCASE:TEST:ITERATION: message.
	grep -E '^[^:]+:[0-9]+:[FE]:' "$tmp/$m.log" | cut -d: -f5 | sort -u > "$tmp/failed"
	grep -E '^[^:]+:[0-9]+:P:' "$tmp/$m.log" | cut -d: -f5 | sort -u > "$tmp/passed"
	sed -n 's/^SKIP \([a-z0-9_]*\).*/\1/p' "$tmp/$m.log" | sed 's/_fn$//' | sort -u > "$tmp/skipped"
	awk -v m="$m" '$1 == m { print $2 }' "$list" | sort -u > "$tmp/listed"
	broke=0
	skipped=0
	while read -r t; do
		if grep -qx "$t" "$tmp/failed"; then
			broke=$((broke + 1))
		elif grep -qx "$t" "$tmp/skipped"; then
			# A SKIP shows nothing of the library: run where the
			# test can tell (as root, as CI does), or unlist it.
			skipped=$((skipped + 1))
			echo "mutation: $m: $t says SKIP here, so it cannot show the library at work:" \
				"$(grep -m1 "^SKIP ${t}" "$tmp/$m.log" | cut -c1-160)"
			status=1
		elif grep -qx "$t" "$tmp/passed"; then
			echo "mutation: $m: $t passes with $m switched off: it does not show the library at work"
			status=1
		else
			echo "mutation: $m: $t is listed, and the suite has no such test (renamed? take it out)"
			status=1
		fi
	done < "$tmp/listed"
	# With the covers switched off, every hidden spawn is refused: the
	# child looks for its covers (test_hide_cover_checked).  Tests that
	# spawn fail there for that reason, whatever their subject: only the
	# listed ones (the hiding's own, and the escape attempts against a
	# hidden denial) are held to failing.
	while [ "$m" != hide ] && read -r t; do
		if ! grep -qx "$t" "$tmp/listed"; then
			echo "mutation: $m: $t fails with $m switched off and is not listed in tests/mutations:" \
				"add it if its subject is $m, else it fails for a reason of its own:"
			grep -E "^[^:]+:[0-9]+:[FE]:[^:]*:$t:" "$tmp/$m.log" | head -n 1 | cut -c1-240
			status=1
		fi
	done < "$tmp/failed"
	echo "mutation: $m switched off: $(wc -l < "$tmp/listed") tests listed, $broke broke, $skipped said SKIP"
done
exit $status
