#!/bin/sh
# SPDX-License-Identifier: MIT
# The test driver of make check (automake's driver interface): runs one
# test program and says its result, as automake's own driver does, and,
# for a Check suite (whose runner ends with "checks: N ran, F failed; S of
# them said SKIP"), one result per check, so that the summary make check
# prints counts each check that passed, failed, or said SKIP, and each
# SKIP line is shown with its reason.
#
#   driver.sh --test-name NAME --log-file LOG --trs-file TRS
#             [--color-tests yes|no] [--expect-failure yes|no]
#             [--enable-hard-errors yes|no] [--] PROGRAM [ARG]...

name= log= trs= color=no expect=no hard=yes
while [ $# -gt 0 ]; do
	case $1 in
	--test-name) name=$2; shift 2 ;;
	--log-file) log=$2; shift 2 ;;
	--trs-file) trs=$2; shift 2 ;;
	--color-tests) color=$2; shift 2 ;;
	--expect-failure) expect=$2; shift 2 ;;
	--enable-hard-errors) hard=$2; shift 2 ;;
	--collect-skipped-logs) shift 2 ;;
	--) shift; break ;;
	-*) echo "driver.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ -z "$name" ] || [ -z "$log" ] || [ -z "$trs" ] || [ $# -eq 0 ]; then
	echo "driver.sh: needs --test-name, --log-file, --trs-file and a program" >&2
	exit 2
fi
if [ "$color" = yes ]; then
	red=$(printf '\033[0;31m') grn=$(printf '\033[0;32m') blu=$(printf '\033[1;34m')
	mgn=$(printf '\033[0;35m') lgn=$(printf '\033[1;32m') std=$(printf '\033[m')
else
	red= grn= blu= mgn= lgn= std=
fi
trap 'rm -f "$log" "$trs"; exit 130' INT
trap 'rm -f "$log" "$trs"; exit 143' TERM

: > "$log"
"$@" >> "$log" 2>&1
status=$?
[ "$hard" = no ] && [ $status -eq 99 ] && status=1
case $status:$expect in
0:yes) res=XPASS col=$red again=yes ;;
0:*) res=PASS col=$grn again=no ;;
77:*) res=SKIP col=$blu again=no ;;
99:*) res=ERROR col=$mgn again=yes ;;
*:yes) res=XFAIL col=$lgn again=no ;;
*) res=FAIL col=$red again=yes ;;
esac
echo "$res $name (exit status: $status)" >> "$log"

# A Check suite's own count, where its runner printed one.
counts=$(sed -n 's/^checks: \([0-9]*\) ran, \([0-9]*\) failed; \([0-9]*\) of them said SKIP.*/\1 \2 \3/p' "$log" | tail -n 1)
{
	if [ -n "$counts" ] && { [ "$res" = PASS ] || [ "$res" = FAIL ]; }; then
		set -- $counts
		ran=$1 failed=$2 skipped=$3
		passed=$((ran - failed - skipped))
		[ "$res" = FAIL ] && [ "$failed" -eq 0 ] && failed=1 passed=$((passed - 1))
		[ "$passed" -lt 0 ] && passed=0
		i=0; while [ $i -lt "$passed" ]; do echo ":test-result: PASS"; i=$((i + 1)); done
		i=0; while [ $i -lt "$skipped" ]; do echo ":test-result: SKIP"; i=$((i + 1)); done
		i=0; while [ $i -lt "$failed" ]; do echo ":test-result: FAIL"; i=$((i + 1)); done
	else
		echo ":test-result: $res"
	fi
	echo ":global-test-result: $res"
	echo ":recheck: $again"
	if [ "$res" = PASS ]; then echo ":copy-in-global-log: no"; else echo ":copy-in-global-log: yes"; fi
} > "$trs"

if [ -n "$counts" ]; then
	set -- $counts
	echo "${col}${res}${std}: $name ($1 checks, $2 failed, $3 said SKIP)"
	# Each SKIP line once, with its reason (the log holds them all).
	grep '^SKIP ' "$log" | grep -vF "SKIP $name (exit status: " | sort -u | while IFS= read -r line; do
		echo "${blu}SKIP${std}: $name: ${line#SKIP }"
	done
else
	echo "${col}${res}${std}: $name"
fi
exit 0
