#!/bin/sh
# SPDX-License-Identifier: MIT
# Every file of the project says its license, MIT, on its first lines
# ("SPDX-License-Identifier: MIT" in the file's own comment syntax: line 1,
# or line 2 after a #! line or a manual page's '\" t), so that a new file
# must too.  The files are git's (what is tracked, and what is new and not
# ignored) where the source tree is a git checkout, else the release
# tarball's, less what the autotools generated in it.  Left out, each for
# its reason: LICENSE (the text itself), NEWS (plain prose), what dpkg
# parses in its own format (debian/changelog, debian/copyright, which
# states the license, debian/source/format), what a tool of the project
# generated and is committed (debian/*.symbols, abi/*.abi), the fuzzer's
# binary corpus, and a manual page that is the one line ".so <page>" (an
# alias, which the man lint holds to that line).
set -eu
src=${top_srcdir:?the test environment sets it}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

srcabs=$(cd "$src" && pwd -P)
buildabs=$(cd "${top_builddir:?}" && pwd -P)
top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null || true)
if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$srcabs" ]; then
	from="git's files"
	git -C "$src" ls-files --cached --others --exclude-standard > "$tmp/all"
elif [ "$srcabs" = "$buildabs" ]; then
	# Built in place without git: the tree holds what the build made.
	echo "spdx: SKIP, not a git checkout and built in place: the project's files cannot be told from the build's"
	exit 77
else
	# The tarball's tree, less a build directory inside it (distcheck
	# builds in _build/sub) and what the autotools generated.
	from="the release tarball's files"
	prune=.none
	case $buildabs/ in "$srcabs"/*) prune=${buildabs#"$srcabs"/} ;; esac
	(cd "$src" && find . -path "./$prune" -prune -o -type f -print | sed 's,^\./,,') |
		grep -vxE 'configure|aclocal\.m4|config\.h\.in|(.*/)?Makefile\.in|build-aux/.*|m4/(libtool|lt[a-z~_]*)\.m4' \
		> "$tmp/all" || true
fi

n=0
missing=0
while IFS= read -r f; do
	[ -f "$src/$f" ] || continue # deleted, not yet committed
	case $f in
	LICENSE | NEWS | debian/changelog | debian/copyright | debian/source/format) continue ;;
	debian/*.symbols | abi/*.abi | tests/fuzz/corpus/*) continue ;;
	man/man[1-9]/*.[1-9])
		if [ "$(wc -l < "$src/$f")" -le 1 ] && head -n 1 "$src/$f" | grep -q '^\.so '; then
			continue
		fi
		;;
	esac
	n=$((n + 1))
	if ! head -n 2 "$src/$f" | grep -q 'SPDX-License-Identifier: MIT'; then
		echo "spdx: $f does not say SPDX-License-Identifier: MIT on its first lines"
		missing=$((missing + 1))
	fi
done < "$tmp/all"
[ "$n" -gt 0 ] || { echo "spdx: no file found in $src"; exit 1; }
if [ "$missing" -gt 0 ]; then
	echo "spdx: $missing of $n files without the license line (add it in the file's own comment syntax)"
	exit 1
fi
echo "spdx: $n files, each says SPDX-License-Identifier: MIT ($from)"
