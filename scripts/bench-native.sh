#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-native.sh [REPEAT [SECS]]: the comparisons that keep their meaning
# on one CPU with real caches, in User-Mode Linux (uml-run.sh: the kernel
# running natively), each a `ktgen sweep` of its variants interleaved,
# REPEAT times (default 5) SECS seconds (default 2): one TCP flow of
# 64000-byte writes over a veth pair into a discarding sink by tx path
# (stack, cached, zerocopy), a tx stack flow by the sink's rx mode (copy,
# touch, discard, verify), and through ktgen's virtual NIC pair by its
# receive style (build, legacy-rx, rx-frags, rx-copybreak). Service demand
# (run_us_per_kb: the one CPU's busy time per KB), medians, each variant's
# ratio to the first and the sweep's paired verdict: bench/native.md.
#
# One host CPU carries the generator, the stack, the NIC's engine and the
# sink: a cost is the whole path's, on the host's caches; UML has no
# non-temporal copy (tx nocache is left out), the NIC's DMA is a memcpy, and
# the host is shared: ratios side by side in one boot, never absolute rates.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
repeat=${1:-5}
secs=${2:-2}

if [ -n "${KTGEN_BENCH_IN_GUEST:-}" ]; then
	K=$top/tools/ktgen
	insmod "$KTGEN_KO"
	insmod "${KTGEN_KO%/*}/ktgen_nic.ko"
	# shellcheck source=scripts/bench-lib.sh
	. "$here/bench-lib.sh"
	bench_veth ktna kv0 10.85.0.1 ktnb kv1 10.85.0.2
	bench_nic "$K" ktna kn0 10.86.0.1 ktnb kn1 10.86.0.2
	port=5700
	for rx in discard copy touch verify; do
		ip netns exec ktnb "$K" sink add tcp port $((port++)) rx "$rx" >/dev/null
	done
	sweep()
	{
		local title=$1

		shift
		echo "== $title"
		ip netns exec ktna "$K" sweep sizes 64000 repeat "$repeat" metric run_us_per_kb \
			"$@" 2>/dev/null
	}
	run=(run tcp_stream time "$secs")
	{
		sweep "tx path (veth, rx discard)" variant stack "tx stack" variant cached "tx cached" \
			variant zerocopy "tx zerocopy" -- "${run[@]}" to 10.85.0.2 port 5700
		sweep "rx mode (veth, tx stack)" variant discard "port 5700" variant copy "port 5701" \
			variant touch "port 5702" variant verify "port 5703" -- "${run[@]}" to 10.85.0.2 port 5700
		e="ethtool --set-priv-flags kn1"
		n="ip netns exec ktnb"
		sweep "receive style (ktgen-nic, tx stack, rx discard)" \
			variant build "pre '$n $e legacy-rx off rx-frags off; $n ethtool --set-tunable kn1 rx-copybreak 0'" \
			variant legacy-rx "pre '$n $e legacy-rx on rx-frags off'" \
			variant rx-frags "pre '$n $e legacy-rx off rx-frags on'" \
			variant copybreak "pre '$n $e legacy-rx off rx-frags off; $n ethtool --set-tunable kn1 rx-copybreak 2048'" \
			-- "${run[@]}" to 10.86.0.2 port 5700
	} >/mnt/out/native.txt
	exit 0
fi

make -s -C "$top/tools" ktgen KTGEN_VERSION="$(make -s -C "$top" --no-print-directory print-version)"
kenv=$("$here/build-uml-kernel.sh" bookworm)
ko=$("$here/build-module.sh" "$kenv")
res=$(mktemp -d)
KTGEN_VM_QUIET=1 "$here/uml-run.sh" -k "$kenv" -o "$res" -t 1200 -- \
	env KTGEN_BENCH_IN_GUEST=1 KTGEN_KO="$ko" "$0" "$repeat" "$secs" ||
	{ tail -n 30 "$res/console.log" >&2; exit 1; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
{
	echo "# Native comparisons (scripts/bench-native.sh)"
	echo
	echo "User-Mode Linux $(sed -n 's/^KVER=//p' "$kenv"), one CPU of a shared $cpu host;"
	echo "one TCP flow of 64000-byte writes, $repeat interleaved runs of $secs s per"
	echo "variant. Service demand: the CPU's busy time per KB received (lower is"
	echo "better), medians; the ratio is to the first variant, the verdict paired."
	echo
	sed 's/^== \(.*\)/## \1/; /^## /!s/^/    /' "$res/native.txt"
} >"$top/bench/native.md"
cat "$top/bench/native.md"
rm -rf "$res"
