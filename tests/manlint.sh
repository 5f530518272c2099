#!/bin/sh
# SPDX-License-Identifier: MIT
# The manual pages: every exported function has one, every page formats
# without a single groff warning, their sections are the usual ones in the
# usual order, the synopses are the header's own prototypes, and the
# examples compile.  Two libraries: libsbxspawn, and libsbxspawn-testing
# (<sbxspawn/testing.h>, whose Check assertions are macros with pages of
# their own).
set -eu
man="${top_srcdir:?the test environment sets it}/man"
maps="$top_srcdir/lib/libsbxspawn.map $top_srcdir/testing/libsbxspawn-testing.map"
hdrs="$top_srcdir/include/sbxspawn/sbxspawn.h $top_srcdir/include/sbxspawn/testing.h"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
warnings=0

warn() {
	printf 'manlint: %s\n' "$*"
	warnings=$((warnings + 1))
}

# Reports each line of file $2 as a warning about page $1.
warn_lines() {
	while IFS= read -r line; do
		warn "$1: $line"
	done < "$2"
}

# The source lines of section $2 (".SH NAME" ... next ".SH") of page $1.
section() {
	awk -v want="$2" '
		/^\.SH / { name = substr($0, 5); gsub(/"/, "", name); inside = (name == want); next }
		inside' "$man/$1"
}

# ---------------------------------------------------------------------------
# Every exported function has man3/<name>.3, and every man3 page is one.
# ---------------------------------------------------------------------------
# shellcheck disable=SC2086
syms=$(grep -hoE '\bsbx_[a-z0-9_]+' $maps | sort -u)
for sym in $syms; do
	[ -f "$man/man3/$sym.3" ] || warn "$sym is exported but has no man/man3/$sym.3"
done
# The function-like macros of the headers: a page each, like a function.
# shellcheck disable=SC2086
macros=$(grep -hoE '^#define sbx_[a-z0-9_]+\(' $hdrs | sed 's/^#define //; s/($//' | sort -u)
for m in $macros; do
	[ -f "$man/man3/$m.3" ] || warn "$m is a macro of the headers but has no man/man3/$m.3"
done
pages=$(cd "$man" && for f in man[1-9]/*.[1-9]; do [ ! -f "$f" ] || echo "$f"; done | sort)

# Every page is installed and shipped: listed in man/Makefile.inc.
listed=$(grep -oE 'man/man[1-9]/[^ ]+\.[1-9]' "$man/Makefile.inc" | sed 's,^man/,,' | sort -u)
for page in $pages; do
	printf '%s\n' "$listed" | grep -qxF "$page" || warn "$page is not in dist_man_MANS (man/Makefile.inc)"
done
for page in $listed; do
	[ -f "$man/$page" ] || warn "man/Makefile.inc lists $page, which does not exist"
done
for page in $pages; do
	case $page in
	man3/*)
		name=${page#man3/}
		printf '%s\n' "$syms" "$macros" | grep -qx "${name%.3}" ||
			warn "$page: ${name%.3} is not an exported function or a macro of the headers"
		;;
	esac
done

# The README and HACKING.md send readers to pages: each is here.
for doc in README.md HACKING.md; do
	for ref in $(grep -oE '\bsbx[a-z0-9_-]*\([1-9]\)' "$top_srcdir/$doc" | sort -u); do
		page=${ref%(*}
		sect=${ref#*(}
		sect=${sect%)}
		[ -f "$man/man$sect/$page.$sect" ] || warn "$doc refers to $ref, which is not here"
	done
done

if ! command -v groff >/dev/null 2>&1; then
	echo "manlint: SKIP formatting checks, no groff (Debian: groff-base)"
	[ "$warnings" -eq 0 ] || exit 1
	exit 77
fi

# ---------------------------------------------------------------------------
# The header's declarations, one a line, blanks normalised.
# ---------------------------------------------------------------------------
normalise='{
	gsub(/[ \t\n]+/, " "); gsub(/\( /, "("); gsub(/ \)/, ")"); gsub(/ ,/, ",");
	gsub(/ \[/, "["); sub(/^ /, ""); sub(/ $/, "")
}'
# Continued lines joined first, so that a macro's body goes with its #define.
# shellcheck disable=SC2086
cat $hdrs | sed -e :a -e '/\\$/N; s/\\\n/ /; ta' | grep -v '^[[:space:]]*#' |
	sed 's/SBX_RESTRICT/restrict/g' | awk '
	{ text = text " " $0 }
	END {
		while ((i = index(text, "/*")) > 0) {
			rest = substr(text, i + 2)
			text = substr(text, 1, i - 1) " " substr(rest, index(rest, "*/") + 2)
		}
		n = split(text, items, /[;{}]/)
		for (k = 1; k <= n; k++)
			print items[k]
	}' | awk "$normalise"' /\(/ && /sbx_/' > "$tmp/header.decls"

# shellcheck disable=SC2086
{
	grep -h '^#define SBX_' $hdrs | sed 's,/\*.*\*/,,'
	# A function-like macro as a synopsis shows it: its name and parameters.
	grep -hoE '^#define sbx_[a-z0-9_]+\([^)]*\)' $hdrs
} | awk "$normalise"'{ print }' > "$tmp/header.defines"

# The declarations in a formatted SYNOPSIS (stdin), likewise.
synopsis_decls() {
	grep -v '^ *#' | awk '
	{ text = text " " $0 }
	END { n = split(text, items, /;/); for (k = 1; k <= n; k++) print items[k] }' |
		awk "$normalise"' /\(/'
}

# ---------------------------------------------------------------------------
# Each page.
# ---------------------------------------------------------------------------
order='NAME|LIBRARY|SYNOPSIS|CONFIGURATION|DESCRIPTION|OPTIONS|EXIT STATUS|RETURN VALUE|ERRORS|ENVIRONMENT|FILES|ATTRIBUTES|VERSIONS|STANDARDS|HISTORY|NOTES|CAVEATS|BUGS|EXAMPLES|AUTHORS|REPORTING BUGS|COPYRIGHT|SEE ALSO'
npages=0
nexamples=0
nocheck=0
for page in $pages; do
	npages=$((npages + 1))
	base=${page##*/}
	sect=${base##*.}
	name=${base%.*}

	# An alias: one line naming a full page that lists this name.
	if head -n 1 "$man/$page" | grep -q '^\.so '; then
		target=$(sed -n '1s/^\.so //p' "$man/$page")
		if [ "$(wc -l < "$man/$page")" -ne 1 ]; then
			warn "$page: an alias page is the one line .so $target"
		elif [ ! -f "$man/$target" ] || head -n 1 "$man/$target" | grep -q '^\.so '; then
			warn "$page: .so $target: no such full page"
		elif ! section "$target" NAME | grep -qE "^(.*, )?$name(,| \\\\-)"; then
			warn "$page: $target does not list $name in its NAME section"
		fi
		continue
	fi

	# Source hygiene, outside no-fill blocks.
	awk -v page="$page" '
		/[ \t]$/ { print "line " NR ": trailing blank" }
		/\t/ { print "line " NR ": a tab" }
		/^\.(EX|nf)/ { nofill = 1 }
		/^\.(EE|fi)/ { nofill = 0 }
		!nofill && /^$/ { print "line " NR ": an empty line (use .PP)" }
		!nofill && /^ / { print "line " NR ": a line starting with a blank" }
	' "$man/$page" > "$tmp/hygiene"
	warn_lines "$page" "$tmp/hygiene"

	# .TH names this page, in this section.
	th=$(grep -m 1 '^\.TH ' "$man/$page" | awk '{ print $2, $3 }')
	[ "$th" = "$name $sect" ] || warn "$page: .TH says \"$th\", not \"$name $sect\""
	# The footer's version is configure.ac's, filled in by the build (man/Makefile.inc).
	footer=$(grep -m 1 '^\.TH ' "$man/$page" | cut -d'"' -f2)
	[ "$footer" = "libsbxspawn @PACKAGE_VERSION@" ] ||
		warn "$page: the .TH footer is \"$footer\", not \"libsbxspawn @PACKAGE_VERSION@\""

	# The sections: known ones, in the usual order, the required ones there.
	grep '^\.SH ' "$man/$page" | sed 's/^\.SH //; s/"//g' > "$tmp/sections"
	awk -v order="$order" -v page="$page" '
		BEGIN { n = split(order, known, "|"); for (k = 1; k <= n; k++) rank[known[k]] = k }
		!($0 in rank) { print "unknown section " $0; next }
		rank[$0] <= last { print "section " $0 " out of order" }
		{ last = rank[$0] }' "$tmp/sections" > "$tmp/order"
	warn_lines "$page" "$tmp/order"
	case $sect in
	1) required='NAME SYNOPSIS DESCRIPTION OPTIONS EXIT_STATUS EXAMPLES SEE_ALSO' ;;
	3) required='NAME LIBRARY SYNOPSIS DESCRIPTION RETURN_VALUE ERRORS EXAMPLES SEE_ALSO' ;;
	*) required='NAME DESCRIPTION SEE_ALSO' ;;
	esac
	for s in $required; do
		grep -qx "$(printf '%s' "$s" | tr _ ' ')" "$tmp/sections" ||
			warn "$page: no $(printf '%s' "$s" | tr _ ' ') section"
	done

	# NAME: one line, "name[, name]... \- what it does", this page's name first.
	section "$page" NAME > "$tmp/name"
	if [ "$(wc -l < "$tmp/name")" -ne 1 ] ||
	   ! grep -qE "^$name(, [a-z0-9_]+)* \\\\- [a-z]" "$tmp/name"; then
		warn "$page: NAME is not the one line \"${name}[, other]... \\- description\""
	fi

	# Pages referred to as this project's exist.
	grep -oE '^\.BR +sbx([a-z0-9_-]|\\-)* +\([1-9]\)' "$man/$page" |
		sed -E 's/^\.BR +//; s/ +\(/ /; s/\)//; s/\\-/-/g' | sort -u > "$tmp/refs"
	while read -r ref rsect; do
		[ -f "$man/man$rsect/$ref.$rsect" ] || warn "$page: refers to $ref($rsect), which is not here"
	done < "$tmp/refs"

	# Formatted for the usual devices, not one warning.  A first line
	# '\" t asks for tbl, as man(1) reads it.
	pre=
	[ "$(head -n 1 "$man/$page")" != "'\\\" t" ] || pre=-t
	for dev in ps utf8 ascii; do
		(cd "$man" && groff $pre -man -T"$dev" -ww -z -rCHECKSTYLE=3 "$page") > "$tmp/groff" 2>&1 || true
		warn_lines "$page (-T$dev)" "$tmp/groff"
	done

	# Fits a terminal of 80 columns.
	(cd "$man" && groff $pre -man -Tascii -P-cbou "$page") 2>/dev/null |
		awk 'length > 80 { print "formatted line " NR " is " length " columns wide" }' > "$tmp/width"
	warn_lines "$page" "$tmp/width"

	# What the indexer of apropos(1) makes of it.
	if command -v lexgrog >/dev/null 2>&1 && ! lexgrog "$man/$page" >/dev/null 2>&1; then
		warn "$page: lexgrog cannot parse its NAME section"
	fi

	[ "$sect" = 3 ] || continue

	# The synopsis declares exactly what the header declares.
	(cd "$man" && groff -man -Tutf8 -P-cbou "$page") 2>/dev/null |
		awk '/^[^ ]/ { inside = ($0 == "SYNOPSIS"); next } inside' > "$tmp/formatted"
	case $name in
	sbx_testing_* | sbx_ck_*) want_hdr=testing.h ;;
	*) want_hdr=sbxspawn.h ;;
	esac
	grep -q "^ *#include <sbxspawn/$want_hdr>\$" "$tmp/formatted" ||
		warn "$page: the SYNOPSIS does not include <sbxspawn/$want_hdr>"
	synopsis_decls < "$tmp/formatted" > "$tmp/synopsis"
	grep '^ *#define' "$tmp/formatted" | awk "$normalise"'{ print }' >> "$tmp/synopsis" || true
	while IFS= read -r decl; do
		grep -qxF "$decl" "$tmp/header.decls" "$tmp/header.defines" ||
			warn "$page: not in the header: $decl"
	done < "$tmp/synopsis"
	for fn in $(section "$page" NAME | sed 's/ \\-.*//; s/,/ /g'); do
		grep -qE "(^|[ *])$fn\\(" "$tmp/synopsis" ||
			warn "$page: $fn is named but not declared in the SYNOPSIS"
	done

	# Each C program in EXAMPLES compiles, warnings as errors.  Formatted
	# with "\-" as the ASCII hyphen and everything else as a terminal shows
	# it, so that a "-" or "'" not written "\-" or "\(aq" breaks the build.
	section "$page" EXAMPLES | awk -v out="$tmp/example" '
		/^\.EX/ { n++; file = out n ".roff"; print ".char \\- \\N'"'"'45'"'"'\n.nf" > file; next }
		/^\.EE/ { close(file); file = ""; next }
		file != "" { print > file }'
	found=0
	skipped=0
	for roff in "$tmp"/example*.roff; do
		[ -f "$roff" ] || continue
		c=${roff%.roff}.c
		groff -Tutf8 -P-cbou "$roff" 2>/dev/null | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' > "$c"
		rm -f "$roff"
		grep -q '^#include' "$c" || continue # a shell session, not a program
		# Check's header where configure found no Check for this compiler:
		# counted, and said at the end (make check fails on that anyway).
		if [ -n "${SBX_NO_CHECK:-}" ] && grep -q '^#include <sbxspawn/testing.h>' "$c"; then
			skipped=$((skipped + 1))
			continue
		fi
		found=$((found + 1))
		# shellcheck disable=SC2086
		if ! ${CC:-cc} -Wall -Wextra -Werror ${CHECK_CFLAGS:-} -I"$top_srcdir/include" -c "$c" -o "$tmp/example.o" \
			> "$tmp/cc" 2>&1; then
			warn "$page: its example does not compile:"
			sed 's/^/    /' "$tmp/cc"
		fi
	done
	[ "$found" -gt 0 ] || [ "$skipped" -gt 0 ] || warn "$page: EXAMPLES holds no C program"
	nocheck=$((nocheck + skipped))
	nexamples=$((nexamples + found))
done

nsyms=$(printf '%s\n' "$syms" | wc -l)
nmacros=$(printf '%s\n' "$macros" | grep -c . || true)
echo "manlint: $npages pages, $warnings warnings ($nsyms exported functions and $nmacros macros" \
	"with a page; $nexamples examples compiled)"
[ "$nocheck" -eq 0 ] ||
	echo "manlint: $nocheck examples of libsbxspawn-testing not compiled: no Check for $CC"
[ "$warnings" -eq 0 ]
