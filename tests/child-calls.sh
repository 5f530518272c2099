#!/bin/sh
# SPDX-License-Identifier: MIT
# The code a child runs between clone and exec (child.c, confine.c) calls
# the C library for nothing that can take a lock or allocate: a child
# copied from a threaded parent (the fork fallback) finds a lock another
# thread held copied held, and waits for it forever with every signal
# blocked; one that shares the parent's memory takes the parent's lock.
# (musl's sigaction(3) takes a lock for SIGABRT that fork(2) in another
# thread holds: the reason for this check.)  Sanitizer hooks aside.
set -eu
allowed='__errno_location __libc_current_sigrtmin __libc_current_sigrtmax _exit syscall
sigismember strcmp strncmp strlen memcpy memset memmove __stack_chk_fail __stack_chk_guard'
status=0
for unit in child confine; do
	obj=
	for o in "$top_builddir/lib/.libs/libsbxspawn_core_la-$unit.o" "$top_builddir/lib/libsbxspawn_core_la-$unit.o"; do
		[ -f "$o" ] && obj=$o && break
	done
	if [ -z "$obj" ]; then
		echo "child-calls: SKIP, no object for lib/$unit.c in this build (the portable build has none)"
		exit 77
	fi
	calls=$(${NM:-nm} -u "$obj" | awk '{print $NF}' | sed 's/@.*//' |
		grep -v '^sbx__' | grep -vE '^__(asan|ubsan|tsan|sanitizer|msan)_' |
		grep -v '^_GLOBAL_OFFSET_TABLE_$' | sort -u)
	for sym in $calls; do
		case " $(echo $allowed) " in
		*" $sym "*) ;;
		*) echo "child-calls: lib/$unit.c calls $sym, which a child between clone and exec must not"; status=1 ;;
		esac
	done
	echo "child-calls: lib/$unit.c: $(echo $calls | wc -w) calls into the C library, each lock-free and allocation-free"
done
exit $status
