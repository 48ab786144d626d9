#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh FILE...: the kernel's checkpatch.pl --strict --no-tree, taken
# from Debian bookworm's linux-source package and cached under
# $KTGEN_CACHE/checkpatch.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}
dir=$CACHE/checkpatch

if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	pkg=linux-source-6.1
	ver=$("$here/apt-suite.sh" bookworm version $pkg)
	"$here/apt-suite.sh" bookworm download "$CACHE/debs" "$pkg=$ver" >&2
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	dpkg -x "$CACHE/debs/${pkg}_${ver}_all.deb" "$tmp"
	mkdir -p "$dir"
	tar -C "$dir" --strip-components=1 -xaf "$tmp"/usr/src/$pkg.tar.* \
		--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi
exec perl "$dir/scripts/checkpatch.pl" --strict --no-tree --terse --show-types -f "$@"
