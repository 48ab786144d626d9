#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-driver.sh [RUNS [SECS]]: seed 001 on a real driver. Recipe 02
# (examples/02-legacy-rx-udp64.sh: 64-byte UDP_STREAM, the receiver's
# legacy-rx off against on, rcvbuf 32768 as netperf's -S) between two igb
# NICs of QEMU 10 wired on a hub, each in a namespace of its own, in the
# kernel's driver-test form (NETIF, LOCAL_V4, REMOTE_V4, REMOTE_TYPE=netns),
# RUNS runs a variant of SECS s (default 10 and 2); then the receive path
# of each variant (probe-rx: how igb built its skbs). Under QEMU's icount
# clock (KTGEN_BENCH_ICOUNT, default 3; empty: TCG's normal clock, whose
# verdicts are noise), one vCPU: a rate is a cost in instructions. Writes
# bench/driver-icount/results.md.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
runs=${1:-10}
secs=${2:-2}

if [ "${KTGEN_BENCH_IN_GUEST:-}" = 1 ]; then
	K=$top/tools/ktgen
	out=/mnt/out/results.md
	insmod "$KTGEN_KO"
	modprobe igb
	spec=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^ktgvm\.nics=//p' | tr ';' '\n' | grep '^igb:')
	i=0
	for mac in $(echo "${spec#*:}" | tr ',' ' '); do
		ns=kbd$i
		ip netns add $ns
		for _ in $(seq 100); do
			dev=$(grep -l "^$mac\$" /sys/class/net/*/address 2>/dev/null | head -1 | cut -d/ -f5)
			[ -n "$dev" ] && break
			sleep 0.2
		done
		[ -n "$dev" ] || { echo "bench-driver: no igb with MAC $mac" >&2; exit 1; }
		ip link set "$dev" netns $ns
		ip -n $ns link set "$dev" name kd$i
		ip -n $ns addr add 10.79.0.$((i + 1))/24 dev kd$i
		ip -n $ns link set kd$i up
		i=$((i + 1))
	done
	for _ in $(seq 200); do
		ip -n kbd0 link show kd0 | grep -q LOWER_UP && ip -n kbd1 link show kd1 | grep -q LOWER_UP && break
		sleep 0.1
	done
	echo "== driver: igb pair, $(uname -r), ${KTGEN_BENCH_ICOUNT:+icount shift=$KTGEN_BENCH_ICOUNT, }$runs runs of $secs s a variant"
	{
		echo "# Seed 001 on igb: recipe 02, 64-byte UDP_STREAM, legacy-rx off (a) against on (b)"
		echo
		echo "igb pair on a QEMU 10 hub, kernel $(uname -r), ${KTGEN_BENCH_ICOUNT:+icount shift=$KTGEN_BENCH_ICOUNT (one vCPU), }$runs runs of $secs s a variant (scripts/bench-driver.sh $runs $secs)."
		echo
		echo '```'
		rc=0
		ip netns exec kbd0 env KTGEN="$K" NET_CONFIG=/dev/null NETIF=kd0 LOCAL_V4=10.79.0.1 \
			REMOTE_V4=10.79.0.2 REMOTE_TYPE=netns REMOTE_ARGS=kbd1 RUNS="$runs" SECS="$secs" \
			"$top/examples/02-legacy-rx-udp64.sh" -n "$runs" -t "$secs" 2>&1 || rc=$?
		echo '```'
		echo
		echo "Exit status $rc (0 no regression, 1 regression, 3 inconclusive)."
		echo
		echo "The receive path of each variant (probe-rx, one run of $secs s):"
		echo
		ip netns exec kbd1 "$K" sink add udp port 5303 rcvbuf 32768 >/dev/null
		for v in off on; do
			ip netns exec kbd0 "$K" -j run udp_stream to 10.79.0.2 port 5303 time "$secs" size 64 \
				probe-rx knob "kd1@kbd1" priv-flag legacy-rx $v | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
print("- legacy-rx %s: %s datagrams received, rx path %s" % (sys.argv[1],
      d.get("window", d["rx"]).get("rx_msgs", d["rx"]["msgs"]), json.dumps(d.get("rx_path"))))' $v
		done
		ip netns exec kbd1 "$K" sink del all
	} >"$out"
	cat "$out"
	exit 0
fi

out=$top/bench/driver-icount
mkdir -p "$out"
KTGEN_BENCH_ICOUNT=${KTGEN_BENCH_ICOUNT-3} KTGEN_BENCH_NICS=igb \
	"$here/bench-vm.sh" --result results.md "$out" $((runs * secs * 60 + 900)) "$0" "$runs" "$secs" >/dev/null
rm -f "$out/console.log" "$out/cmd" "$out/booted" "$out/exit" "$out/qemu.pid"
cat "$out/results.md"
