#!/bin/sh
# SPDX-License-Identifier: MIT
# One version, configure.ac's (AC_INIT): what reads it is made from it
# (sbxspawn.pc, the manual pages' footers, sbxrun --version); what cannot
# be is held to it here: debian/changelog (dpkg reads it before configure
# runs), the header's SBX_VERSION_MAJOR and SBX_VERSION_MINOR, and NEWS,
# whose first entry is this version's.
set -eu
want=${PACKAGE_VERSION:?the test environment sets it}
fail=0
bad() {
	echo "version: $*"
	fail=1
}

# NEWS: its first entry is "<version> (<date>)".
news=$(grep -m 1 -E '^[0-9]+\.[0-9]+\.[0-9]+ ' "$top_srcdir/NEWS" | cut -d' ' -f1)
[ "$news" = "$want" ] || bad "NEWS's first entry is '$news', not $want: say what $want changes"

# The header: major and minor.
hdr=$top_srcdir/include/sbxspawn/sbxspawn.h
major=$(sed -n 's/^#define SBX_VERSION_MAJOR \([0-9]*\)$/\1/p' "$hdr")
minor=$(sed -n 's/^#define SBX_VERSION_MINOR \([0-9]*\)$/\1/p' "$hdr")
[ "$major.$minor" = "$(echo "$want" | cut -d. -f1-2)" ] ||
	bad "sbxspawn.h says SBX_VERSION_MAJOR.MINOR $major.$minor, configure.ac $want"

# debian/changelog, where the tree has it (the release tarball does not):
# a native package, so its version is the upstream one.
if [ -f "$top_srcdir/debian/changelog" ]; then
	deb=$(sed -n '1s/^libsbxspawn (\([^)]*\)).*/\1/p' "$top_srcdir/debian/changelog")
	[ "$deb" = "$want" ] ||
		bad "debian/changelog's top entry is '$deb', not $want: add an entry (dch -v $want)"
else
	echo "version: no debian/ in this tree (the release tarball), its changelog not compared"
fi

# What the build made from it.
pc=$(sed -n 's/^Version: //p' "$top_builddir/pkgconfig/sbxspawn.pc")
[ "$pc" = "$want" ] || bad "sbxspawn.pc says Version: $pc"
run=$("$top_builddir/tools/sbxrun" --version | head -n 1)
[ "$run" = "sbxrun (libsbxspawn) $want" ] || bad "sbxrun --version says '$run'"
for page in "$top_builddir"/man/man*/*.man; do
	[ -f "$page" ] || continue
	grep -q '^\.so ' "$page" && continue
	grep -q "^\\.TH .* \"libsbxspawn $want\"\$" "$page" || bad "$page: its .TH footer is not libsbxspawn $want"
done
[ "$fail" -eq 0 ] || exit 1
echo "version: $want in configure.ac, NEWS, sbxspawn.h, debian/changelog, sbxspawn.pc, sbxrun --version" \
	"and the manual pages"
