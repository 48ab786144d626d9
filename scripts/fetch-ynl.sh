#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-ynl.sh: the kernel's YNL code generator and netlink schemas, taken
# from Debian trixie's linux-source-6.12 and cached under $KTGEN_CACHE/ynl.
# Prints the folder holding tools/net/ynl and Documentation/netlink.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}
pkg=linux-source-6.12
dir=$CACHE/ynl

if [ -e "$dir/.done" ]; then
	echo "$dir"
	exit 0
fi
ver=$("$here/apt-suite.sh" trixie version $pkg)
[ -n "$ver" ] || { echo "fetch-ynl: $pkg not found in trixie" >&2; exit 1; }
"$here/apt-suite.sh" trixie download "$CACHE/debs" "$pkg=$ver"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg -x "$CACHE/debs/${pkg}_${ver}_all.deb" "$tmp"
rm -rf "$dir"
mkdir -p "$dir"
tar -C "$dir" --strip-components=1 -xaf "$tmp"/usr/src/$pkg.tar.* \
	--wildcards '*/tools/net/ynl' '*/Documentation/netlink' \
	'*/include/uapi/linux/netlink.h' '*/include/uapi/linux/genetlink.h'
echo "$ver" >"$dir/.done"
echo "$dir"
