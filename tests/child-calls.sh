#!/bin/sh
# SPDX-License-Identifier: MIT
# The code a child runs between clone and exec calls the C library for
# nothing that can take a lock or allocate: a child copied from a threaded
# parent (the fork fallback) finds a lock another thread held copied held,
# and waits for it forever with every signal blocked; one that shares the
# parent's memory takes the parent's lock.  (musl's sigaction(3) takes a
# lock for SIGABRT that fork(2) in another thread holds: the reason for this
# check.)
#
# That code is every function marked CHILD (lib/confine.h), which the
# compiler puts in the section .text.sbx_child of whichever object holds it
# (the PATH search in exec.c, a check in fds.c, child.c and confine.c).
# What that section refers to, in every object of the library, must be:
# code of that section too, data, a sanitizer's hook, or one of the C
# library's functions below.  A static function left unmarked shows as a
# reference to another code section: it fails too.
set -eu
allowed='__errno_location __libc_current_sigrtmin __libc_current_sigrtmax _exit syscall
sigismember strcmp strncmp strlen strnlen memcpy memset memmove __stack_chk_fail
__stack_chk_guard _GLOBAL_OFFSET_TABLE_'
# The library's objects, one folder of lib/ per stage; libtool keeps the
# shared build's in each folder's .libs.
objs=$(ls "$top_builddir"/lib/*/.libs/libsbxspawn_core_la-*.o 2>/dev/null ||
	ls "$top_builddir"/lib/*/libsbxspawn_core_la-*.o 2>/dev/null || true)
if [ -z "$objs" ] || ! ${OBJDUMP:-objdump} -t $objs 2>/dev/null | grep -q 'sbx_child'; then
	echo "child-calls: SKIP, no code of a child in this build (the portable build has none)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Where each symbol the library defines lives: "name section".
${OBJDUMP:-objdump} -t $objs | awk '$0 ~ /^[0-9a-f]+ / && $NF !~ /^\./ {
	for (i = 2; i < NF; i++) if ($i ~ /^[.*]/) { if ($i != "*UND*") print $NF, $i; break } }' |
	sort -u > "$tmp/defined"

status=0
n=0
for obj in $objs; do
	${OBJDUMP:-objdump} -h "$obj" | grep -q '\.text\.sbx_child' || continue
	dir=${obj%/*}
	dir=${dir%/.libs}
	unit=${dir##*/}/$(basename "$obj" .o | sed 's/^libsbxspawn_core_la-//')
	${OBJDUMP:-objdump} -r -j .text.sbx_child "$obj" | awk 'NF == 3 && $1 ~ /^[0-9a-f]+$/ {
		sub(/[-+]0x[0-9a-f]+$/, "", $3); print $3 }' | sort -u > "$tmp/refs"
	while read -r sym; do
		n=$((n + 1))
		case $sym in
		.text.sbx_child | .rodata* | .data* | .bss* | .tbss* | .tdata* | .LC*) continue ;;
		.text*) echo "child-calls: lib/$unit.c: code of the child calls a function of $sym not marked CHILD"
			status=1; continue ;;
		__asan_* | __ubsan_* | __tsan_* | __sanitizer_* | __msan_*) continue ;;
		esac
		section=$(awk -v s="$sym" '$1 == s { print $2; exit }' "$tmp/defined")
		case $section in
		"") case " $(echo $allowed) " in
		    *" $sym "*) ;;
		    *) echo "child-calls: lib/$unit.c: code of the child calls $sym, which a child between clone and exec must not"
		       status=1 ;;
		    esac ;;
		.text.sbx_child | .rodata* | .data* | .bss* | .tbss* | .tdata*) ;;
		*) echo "child-calls: lib/$unit.c: code of the child calls $sym ($section), which is not marked CHILD"
		   status=1 ;;
		esac
	done < "$tmp/refs"
	echo "child-calls: lib/$unit.c: its code of the child checked ($(wc -l < "$tmp/refs") references)"
done
[ "$n" -gt 0 ] || { echo "child-calls: no reference read: the check read nothing"; exit 1; }
exit $status
