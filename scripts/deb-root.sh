#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-root.sh NAME SUITE PKG... -- BIN...: Debian SUITE's packages PKG
# with private apt options (apt-suite.sh), unpacked (dpkg -x, nothing
# installed) under $KTGEN_CACHE/NAME/root once, each BIN (a path in that
# root) checked for a library it lacks. Prints the root; the guest runs
# its programs with LD_LIBRARY_PATH=ROOT/usr/lib/x86_64-linux-gnu.
#
#   deb-root.sh bench-tools bookworm iperf3 libiperf0 libsctp1 netperf sockperf \
#	-- usr/bin/iperf3 usr/bin/netperf usr/bin/netserver usr/bin/sockperf
#   deb-root.sh sshd bookworm openssh-server libwrap0 -- usr/sbin/sshd
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}
name=${1:?name}
suite=${2:?suite}
shift 2
pkgs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	pkgs+=("$1")
	shift
done
[ $# -gt 0 ] && shift
dir=$CACHE/$name

if [ ! -e "$dir/root/.done" ]; then
	mkdir -p "$dir/debs"
	"$here/apt-suite.sh" "$suite" download "$dir/debs" "${pkgs[@]}" >&2
	rm -rf "$dir/root.tmp"
	for p in "${pkgs[@]}"; do
		dpkg -x "$(find "$dir/debs" -name "${p}_*.deb" | sort | tail -1)" "$dir/root.tmp"
	done
	for b in "$@"; do
		LD_LIBRARY_PATH=$dir/root.tmp/usr/lib/x86_64-linux-gnu \
			ldd "$dir/root.tmp/$b" | grep -q 'not found' &&
			{ echo "deb-root: $name: $b lacks a library" >&2; exit 1; }
	done
	rm -rf "$dir/root"
	mv "$dir/root.tmp" "$dir/root"
	touch "$dir/root/.done"
fi
echo "$dir/root"
