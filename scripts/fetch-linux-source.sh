#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-linux-source.sh [SUITE]
#
# Debian's linux-source of SUITE's stock kernel version (default bookworm),
# unpacked once under $KTGEN_CACHE/linux-source/VERSION. Prints two lines:
# the source version and the tree's path. The debug and UML kernels are
# built from it, out of tree (O=), so one tree serves both.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}
suite=${1:-bookworm}

# shellcheck disable=SC1090
. "$("$here/fetch-kernel.sh" "$suite")"
series=${KVER%%.*}.$(echo "$KVER" | cut -d. -f2)
srcpkg=linux-source-$series
srcver=$(sed -n 's/.*linux-image-.*_\(.*\)_amd64.deb/\1/p' \
	< <(ls "$CACHE/kernels/$suite/$KABI/debs/") | head -n 1)
src=$CACHE/linux-source/$srcver
# The debug and UML kernels are built side by side (check.sh): one unpacks.
mkdir -p "$CACHE/linux-source"
exec 9>"$CACHE/linux-source/.lock"
flock 9
if [ ! -e "$src/.unpacked" ]; then
	debs=$CACHE/debs
	"$here/apt-suite.sh" "$suite" download "$debs" "$srcpkg=$srcver" >&2
	rm -rf "$src" "$src.x"
	mkdir -p "$src.x"
	dpkg -x "$debs/${srcpkg}_${srcver}_all.deb" "$src.x"
	mkdir -p "$src"
	tar -C "$src" --strip-components=1 -xaf "$src.x/usr/src/$srcpkg".tar.*
	rm -rf "$src.x"
	touch "$src/.unpacked"
fi
echo "$srcver"
echo "$src"
