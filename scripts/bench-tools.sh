#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-tools.sh: the tools ktgen is benchmarked against, from Debian
# bookworm (netperf from non-free) with private apt options, unpacked
# (dpkg -x, nothing installed) under $KTGEN_CACHE/bench-tools/root. Prints
# that root; the guest runs the tools from it with
# PATH=ROOT/usr/bin:... LD_LIBRARY_PATH=ROOT/usr/lib/x86_64-linux-gnu.
# The kernel's pktgen comes with the test kernel's modules.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}
dir=$CACHE/bench-tools
pkgs=(iperf3 libiperf0 libsctp1 netperf sockperf)

if [ ! -e "$dir/root/.done" ]; then
	mkdir -p "$dir/debs"
	"$here/apt-suite.sh" bookworm download "$dir/debs" "${pkgs[@]}" >&2
	rm -rf "$dir/root.tmp"
	for p in "${pkgs[@]}"; do
		dpkg -x "$(find "$dir/debs" -name "${p}_*.deb" | sort | tail -1)" "$dir/root.tmp"
	done
	for t in iperf3 netperf netserver sockperf; do
		LD_LIBRARY_PATH=$dir/root.tmp/usr/lib/x86_64-linux-gnu \
			ldd "$dir/root.tmp/usr/bin/$t" | grep -q 'not found' &&
			{ echo "bench-tools: $t lacks a library" >&2; exit 1; }
	done
	rm -rf "$dir/root"
	mv "$dir/root.tmp" "$dir/root"
	touch "$dir/root/.done"
fi
echo "$dir/root"
