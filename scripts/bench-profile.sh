#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-profile.sh [LINK [SECS [TOOL]]]: where the cycles of a 64-byte UDP
# stream go, the profile the speed work is guided by. LINK is veth (a veth
# pair between namespaces) or nic (ktgen's virtual NIC pair); TOOL is
# ktgen (udp_stream size 64), ktgen-gso (the same with gso 64) or iperf3
# (-u -b 0 -l 64), each into a receiver in the other namespace. perf
# samples every CPU of the VM with the software cpu-clock event (TCG has
# no PMU) for SECS seconds mid-run, with call graphs; the report, by
# symbol (self time) and by task, goes to bench/profile-LINK-TOOL.txt.
# Runs in a VM on Debian's stock kernel; TCG models no caches, so the
# shares are instruction path, not cache misses.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
# shellcheck source=scripts/bench-lib.sh
. "$here/bench-lib.sh"
link=${1:-veth}
secs=${2:-4}
tool=${3:-ktgen}

guest()
{
	local k=$top/tools/ktgen na=ktgbench-a nb=ktgbench-b dst pid

	export PATH=$KTGEN_TOOLS/usr/bin:$PATH
	export LD_LIBRARY_PATH=$KTGEN_TOOLS/usr/lib/x86_64-linux-gnu
	insmod "$KTGEN_KO"
	if [ "$link" = nic ]; then
		ip netns add $na
		ip netns add $nb
		bench_nic "$k" $na ktn0 10.80.0.1 $nb ktn1 10.80.0.2
		dst=10.80.0.2
	else
		bench_veth $na ktgb0 10.79.0.1 $nb ktgb1 10.79.0.2
		dst=10.79.0.2
	fi
	ip netns exec $nb "$k" sink add udp port 5001 rx discard >/dev/null
	ip netns exec $nb iperf3 -s -D -p 5201
	echo "== profile: $link, $tool, ${secs} s, $(nproc) CPU(s), $(uname -r)"
	# The tool runs until perf is done (perf's own start-up under TCG
	# takes seconds), then Ctrl-C ends it.
	case $tool in
	ktgen) ip netns exec $na "$k" run udp_stream to $dst port 5001 size 64 time 300 >/dev/null & ;;
	ktgen-gso) ip netns exec $na "$k" run udp_stream to $dst port 5001 size 64 gso 64 \
			time 300 >/dev/null & ;;
	iperf3) ip netns exec $na iperf3 -c $dst -p 5201 -u -b 0 -l 64 -t 300 >/dev/null & ;;
	*) echo "bench-profile: unknown tool $tool" >&2; return 2 ;;
	esac
	pid=$!
	sleep 1.5
	perf record -q -a -g -e cpu-clock -F 499 -o /tmp/perf.data -- sleep "$secs" 2>/dev/null
	pkill -INT -f "udp_stream to $dst|iperf3 -c" || true
	wait $pid || true
	{
		echo "# $link, $tool: perf record -a -g -e cpu-clock, ${secs} s mid-run, $(uname -r)"
		perf report -i /tmp/perf.data --no-children --sort comm --stdio 2>/dev/null |
			grep -v '^#' | grep '%' | head -12
		echo
		perf report -i /tmp/perf.data --no-children --sort sym --stdio -g none \
			--percent-limit 0.7 2>/dev/null | grep -v '^#' | grep '%'
	} >/mnt/out/profile.txt
}

if [ "${KTGEN_BENCH_IN_GUEST:-}" = 1 ]; then
	guest
	exit 0
fi

"$here/install-deps.sh"
tools=$(bench_tools "$here")
out=$(mktemp -d /tmp/ktgen-profile.XXXXXX)
"$here/bench-vm.sh" --result profile.txt "$out" $((secs * 20 + 300)) \
	env KTGEN_TOOLS="$tools" "$here/bench-profile.sh" "$link" "$secs" "$tool" >/dev/null
mkdir -p "$top/bench"
cp "$out/profile.txt" "$top/bench/profile-$link-$tool.txt"
cat "$out/profile.txt"
rm -rf "$out"
