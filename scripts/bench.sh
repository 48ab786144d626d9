#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [PAIRS [SECS]]: ktgen side by side with the tools a driver
# developer would pick instead, in one boot, interleaved: PAIRS rounds, the
# tools' order reversed every other round, each run SECS seconds measured.
#
#   udp64  64-byte UDP stream: ktgen udp_stream, iperf3 -u -b 0, pktgen
#          (into ktgen's sink); datagrams/s queued to the receiving socket
#          (the receiving veth's packets less those its UDP refused) and
#          sent (the sending veth's tx_packets)
#   udp64-nic  the same over ktgen's virtual NIC pair (a driver with rings,
#          NAPI and page pools) and ktgen-gso (gso 64: one UDP GSO skb a
#          call, cut into 64-byte frames by the core before the driver,
#          which has no UDP segmentation offload): frames, not skbs, at
#          both devices; ktgen-gro and ktgen-gso-gro, the same into a sink
#          that takes GRO batches (gro: ktn1's GRO merges the frames, the
#          sink reads a batch at a time). (veth takes GSO skbs whole and
#          counts them as one packet: no ktgen-gso there.)
#   udp64-gro  the same over a second veth pair whose receiving end has
#          GRO on (veth then receives through NAPI, and GRO merges the
#          datagrams of a flow for a socket that takes batches): ktgen,
#          ktgen-gro (into the gro sink) and iperf3; the receiving veth
#          counts datagrams before GRO
#   udp64-lo  ktgen and iperf3 on the sender's namespace's loopback
#          (lo's packets less its UDP's refusals)
#   tcp1   one TCP stream of 64000-byte writes, ktgen against netperf
#          TCP_STREAM -c -C: bits/s and service demand (us of CPU, all
#          CPUs, per KB) by the meter and as each tool reports it
#   tcp16  16 TCP flows of 64000-byte writes: ktgen tx cached, ktgen tx
#          zerocopy, iperf3 -P 16, 16 netperf TCP_STREAMs; bits/s at the
#          receiving veth
#   rr     TCP_RR 1/1: ktgen tcp_rr, the same with busy-poll at both ends
#          (ktgen-busy: no scheduler wake-up per transaction, two CPUs
#          spinning), netperf TCP_RR, sockperf ping-pong (14 bytes: its
#          smallest message); transactions/s and p99, as each tool reports
#          them, and the guest's busy CPUs over the run
#
# Every stream is measured by the same meter, whatever the tool: the
# namespaces' counters and /proc/stat read over a window inside the run
# (after a lead-in that absorbs the tool's start-up), so "per CPU" is the
# rate divided by the CPUs the whole guest kept busy in that window.
# Results: bench/results.json (every sample) and bench/results.md (median
# ratios ktgen/anchor with min-max over the pairs, coefficients of
# variation, the issue's targets). Over a veth pair between namespaces.
#
# Runs in a VM on Debian's stock kernel when the host cannot load modules.
# TCG models no caches: ratios compare instruction path lengths, not cache
# behaviour. KTGEN_BENCH_ICOUNT=SHIFT runs the VM in QEMU's icount mode
# (guest time follows executed instructions: host noise gone).
# KTGEN_BENCH_WORKLOADS="udp64-nic rr" runs those workloads only, and
# KTGEN_BENCH_OUT=DIR writes the results there instead of bench/ (a
# partial run is not the published table).
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
# shellcheck source=scripts/bench-lib.sh
. "$here/bench-lib.sh"
pairs=${1:-5}
secs=${2:-3}
lead=1.5
A=10.79.0.1
B=10.79.0.2
GA=10.82.0.1	# the veth pair with GRO at the receiver
GB=10.82.0.2
NA=10.80.0.1	# the NIC pair
NB=10.80.0.2
dev_a=ktgb0	# the sending and the receiving device the meter reads
dev_b=ktgb1

# --- in the guest ------------------------------------------------------

# cpu-busy jiffies (all CPUs; steal and idle excluded), the time, then
# the counters the streams are measured by, read in one process through a
# process of each namespace (/proc/PID/net): the receiving veth's packets
# and bytes, the datagrams its UDP refused (no port, or a full socket:
# counted when queued, unlike InDatagrams, which only recvmsg() counts),
# and the sending veth's packets.
snap()
{
	awk -v t="$(date +%s%N)" '
	FILENAME == "/proc/stat" && $1 == "cpu" { busy = $2 + $3 + $4 + $7 + $8 }
	FILENAME ~ /snmp$/ && $1 == "Udp:" && $2 ~ /^[0-9]/ { refused = $3 + $4 }
	# "ktgb1:123456789 ...": no blank after the colon once a count is long
	FILENAME ~ /dev$/ { sub(/:/, ": "); $0 = $0 }
	FILENAME ~ /^\/proc\/'"$pb"'\/net\/dev$/ && $1 == "'"$dev_b"':" { rxb = $2; rxp = $3 }
	FILENAME ~ /^\/proc\/'"$pa"'\/net\/dev$/ && $1 == "'"$dev_a"':" { txp = $11 }
	END { print busy, t, rxp - refused, txp, rxb }' \
		/proc/stat "/proc/$pb/net/snmp" "/proc/$pb/net/dev" "/proc/$pa/net/dev"
}

# window WORKLOAD TOOL PAIR CMD...: CMD runs lead + secs + 1 s; the
# counters are read lead s in and secs s later. One JSON line.
window()
{
	local w=$1 t=$2 p=$3 s0 s1 pid

	shift 3
	"$@" >/dev/null 2>&1 &
	pid=$!
	sleep $lead
	s0=$(snap)
	sleep "$secs"
	s1=$(snap)
	wait $pid || echo "bench: $w $t exited $?" >&2
	# shellcheck disable=SC2086
	set -- $s0 $s1
	printf '{"workload": "%s", "tool": "%s", "pair": %d, "window_ns": %d, "busy_jiffies": %d, "rx_pkts": %d, "tx_pkts": %d, "rx_bytes": %d}\n' \
		"$w" "$t" "$p" $(($7 - $2)) $(($6 - $1)) $(($8 - $3)) $(($9 - $4)) $((${10} - $5))
}

T()
{
	echo "$lead + $secs + 1" | bc
}

# pktgen_setup DST: pktgen's one device the meter's sending one, towards
# DST on the receiving one.
pktgen_setup()
{
	local mac

	mac=$(ip netns exec "$nb" cat "/sys/class/net/$dev_b/address")
	ip netns exec "$na" sh -c "
		echo rem_device_all >/proc/net/pktgen/kpktgend_0
		echo add_device $dev_a >/proc/net/pktgen/kpktgend_0
		d=/proc/net/pktgen/$dev_a
		for c in 'count 0' 'clone_skb 0' 'pkt_size 106' 'delay 0' 'dst $1' \
			 'dst_mac $mac' 'udp_dst_min 5001' 'udp_dst_max 5001' \
			 'udp_src_min 9' 'udp_src_max 9'; do
			echo \"\$c\" >\$d
		done"
}

# pktgen_run DST SECS
pktgen_run()
{
	pktgen_setup "$1"
	shift
	ip netns exec "$na" sh -c 'echo start >/proc/net/pktgen/pgctrl' &
	sleep "$1"
	ip netns exec "$na" sh -c 'echo stop >/proc/net/pktgen/pgctrl'
	wait
}

netperf_streams()
{
	local i

	for i in $(seq 16); do
		ip netns exec "$na" netperf -H $B -t TCP_STREAM -l "$1" -P 0 -- -m 64000 &
	done
	wait
}

# udp64_on WORKLOAD DST TOOL PAIR
udp64_on()
{
	case $3 in
	ktgen)	window "$1" ktgen "$4" ip netns exec "$na" "$k" run udp_stream to "$2" port 5001 size 64 time "$(T)" ;;
	ktgen-gso) window "$1" ktgen-gso "$4" ip netns exec "$na" "$k" run udp_stream to "$2" port 5001 \
			size 64 gso 64 time "$(T)" ;;
	ktgen-gro) window "$1" ktgen-gro "$4" ip netns exec "$na" "$k" run udp_stream to "$2" port 5004 \
			size 64 time "$(T)" ;;
	ktgen-gso-gro) window "$1" ktgen-gso-gro "$4" ip netns exec "$na" "$k" run udp_stream to "$2" \
			port 5004 size 64 gso 64 time "$(T)" ;;
	iperf3)	window "$1" iperf3 "$4" ip netns exec "$na" iperf3 -c "$2" -p 5201 -u -b 0 -l 64 -t "$(T)" ;;
	pktgen)	window "$1" pktgen "$4" pktgen_run "$2" "$(T)" ;;
	esac
}

udp64()
{
	udp64_on udp64 $B "$@"
}

# The meter's devices (and receiving namespace) for the call only: bash's
# locals are what the functions it calls see.
udp64_nic()
{
	local dev_a=ktn0 dev_b=ktn1

	udp64_on udp64-nic $NB "$@"
}

udp64_gro()
{
	local dev_a=ktgc0 dev_b=ktgc1

	udp64_on udp64-gro $GB "$@"
}

# Loopback: sender and receiver in the first namespace, its lo and UDP
# counters the meter's.
udp64_lo()
{
	local dev_a=lo dev_b=lo pb=$pa

	udp64_on udp64-lo 127.0.0.1 "$@"
}

# One stream, each tool's own service demand beside the meter's (the
# meter over the whole run, as for rr: netperf's figures cover its run).
tcp1()
{
	local out sd s0 s1

	s0=$(snap)
	case $1 in
	ktgen)
		out=$(ip netns exec "$na" "$k" -j run tcp_stream to $B port 5002 size 64000 time "$secs")
		sd=$(echo "$out" | /usr/bin/python3 -c '
import json, sys
c = json.load(sys.stdin)["cpu"]
print(c["run"]["us_per_kb"] + c["other"]["us_per_kb"])') ;;
	netperf)
		out=$(ip netns exec "$na" netperf -H $B -t TCP_STREAM -l "$secs" -c -C -P 0 -- \
			-m 64000 -o THROUGHPUT,LOCAL_SD,REMOTE_SD)
		sd=$(echo "$out" | tail -1 | cut -d, -f2) ;;
	esac
	s1=$(snap)
	# shellcheck disable=SC2086
	set -- "$1" "$2" $s0 $s1
	printf '{"workload": "tcp1", "tool": "%s", "pair": %d, "own_sd_us_per_kb": %s, "window_ns": %d, "busy_jiffies": %d, "rx_bytes": %d}\n' \
		"$1" "$2" "${sd:-0}" $((${9} - $4)) $((${8} - $3)) $((${12} - $7))
}

tcp16()
{
	case $1 in
	ktgen-cached|ktgen-zerocopy)
		window tcp16 "$1" "$2" ip netns exec "$na" "$k" run tcp_stream to $B port 5002 \
			flows 16 size 64000 tx "${1#ktgen-}" time "$(T)" ;;
	iperf3)	window tcp16 iperf3 "$2" ip netns exec "$na" iperf3 -c $B -p 5201 -P 16 -l 64000 -t "$(T)" ;;
	netperf) window tcp16 netperf "$2" netperf_streams "$(T)" ;;
	esac
}

# Request/response: each tool's own count and p99 (sockperf's is half a
# round trip unless --full-rtt), and the CPUs the guest kept busy from the
# tool's start to its end.
rr()
{
	local out tps p99 s0 s1

	s0=$(snap)
	case $1 in
	ktgen|ktgen-busy)
		out=$(ip netns exec "$na" "$k" -j run tcp_rr to $B \
			port $([ "$1" = ktgen ] && echo 5002 || echo "5003 busy-poll 100ms") time "$secs")
		read -r tps p99 <<<"$(echo "$out" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)["latency"]
print(d["tps"], d["percentiles_ns"]["p99"] / 1e3)')" ;;
	netperf)
		out=$(ip netns exec "$na" netperf -H $B -t TCP_RR -l "$secs" -P 0 -- -r 1,1 -o THROUGHPUT,P99_LATENCY)
		IFS=, read -r tps p99 <<<"$(echo "$out" | tail -1)" ;;
	sockperf)
		out=$(ip netns exec "$na" sockperf pp --tcp -i $B -p 11111 -t "$secs" -m 14 --full-rtt 2>&1)
		tps=$(echo "$out" | sed -n 's/.*RunTime=\([0-9.]*\) sec; SentMessages=[0-9]*; ReceivedMessages=\([0-9]*\).*/\2 \1/p' |
			awk 'NR == 1 { printf "%.1f", $1 / $2 }')
		p99=$(echo "$out" | sed -n 's/.*percentile 99.000 = *\([0-9.]*\).*/\1/p' | head -1) ;;
	esac
	s1=$(snap)
	# shellcheck disable=SC2086
	set -- "$1" "$2" $s0 $s1
	printf '{"workload": "rr", "tool": "%s", "pair": %d, "tps": %s, "p99_us": %s, "window_ns": %d, "busy_jiffies": %d}\n' \
		"$1" "$2" "${tps:-0}" "${p99:-0}" $((${9} - $4)) $((${8} - $3))
}

# round WORKLOAD PAIR TOOL...: every tool once, in reverse on odd pairs;
# nothing for a workload KTGEN_BENCH_WORKLOADS leaves out.
round()
{
	local w=$1 p=$2 i

	shift 2
	case " ${KTGEN_BENCH_WORKLOADS:-${w//_/-}} " in
	*" ${w//_/-} "*) ;;
	*) return 0 ;;
	esac
	if [ $((p % 2)) = 1 ]; then
		for ((i = $#; i >= 1; i--)); do
			$w "${!i}" "$p"
		done
	else
		for i in "$@"; do
			$w "$i" "$p"
		done
	fi
}

guest()
{
	local p

	k=$top/tools/ktgen na=ktgbench-a nb=ktgbench-b pa='' pb=''
	export PATH=$KTGEN_TOOLS/usr/bin:$PATH
	export LD_LIBRARY_PATH=$KTGEN_TOOLS/usr/lib/x86_64-linux-gnu
	insmod "$KTGEN_KO"
	insmod "${KTGEN_KO%/*}/ktgen_nic.ko"
	modprobe pktgen
	bench_veth $na ktgb0 $A $nb ktgb1 $B
	bench_nic "$k" $na ktn0 $NA $nb ktn1 $NB
	bench_veth_pair $na ktgc0 $GA $nb ktgc1 $GB
	ip netns exec $nb ethtool -K ktgc1 gro on
	# A process in each namespace: its /proc/PID/net is the namespace's.
	ip netns exec $na sleep infinity &
	pa=$!
	ip netns exec $nb sleep infinity &
	pb=$!
	ip netns exec $nb "$k" sink add udp port 5001 rx discard >/dev/null
	ip netns exec $na "$k" sink add udp port 5001 rx discard >/dev/null
	ip netns exec $nb "$k" sink add udp port 5004 rx discard gro >/dev/null
	ip netns exec $na iperf3 -s -D -p 5201
	ip netns exec $nb "$k" sink add tcp port 5002 rx discard rr >/dev/null
	ip netns exec $nb "$k" sink add tcp port 5003 rx discard rr busy-poll 100ms >/dev/null
	ip netns exec $nb iperf3 -s -D -p 5201
	ip netns exec $nb netserver -p 12865 >/dev/null
	ip netns exec $nb sockperf sr --tcp -i $B -p 11111 --daemonize >/dev/null 2>&1
	echo "== bench: $pairs pairs, ${secs} s windows, $(nproc) CPU(s), $(uname -r)${KTGEN_BENCH_ICOUNT:+, icount shift=$KTGEN_BENCH_ICOUNT}"
	{
		for p in $(seq "$pairs"); do
			round udp64 "$p" ktgen iperf3 pktgen
			round udp64_nic "$p" ktgen ktgen-gso ktgen-gro ktgen-gso-gro iperf3 pktgen
			round udp64_gro "$p" ktgen ktgen-gro iperf3
			round udp64_lo "$p" ktgen iperf3
			round tcp1 "$p" ktgen netperf
			round tcp16 "$p" ktgen-cached ktgen-zerocopy iperf3 netperf
			round rr "$p" ktgen ktgen-busy netperf sockperf
			echo "bench: pair $p of $pairs done" >&2
		done
	} >/mnt/out/samples.jsonl
}

if [ "${KTGEN_BENCH_IN_GUEST:-}" = 1 ]; then
	guest
	exit 0
fi

# --- on the host -------------------------------------------------------

"$here/install-deps.sh"
tools=$(bench_tools "$here")
out=$(mktemp -d /tmp/ktgen-bench.XXXXXX)
# 23 runs a pair of lead + secs + 1 guest seconds, ~4 host s each under
# TCG (~12 under icount), plus the boot.
per=5
[ -n "${KTGEN_BENCH_ICOUNT:-}" ] && per=14
setup=$("$here/bench-vm.sh" --result samples.jsonl "$out" $((pairs * 23 * (secs + 3) * per + 300)) \
	env KTGEN_TOOLS="$tools" KTGEN_BENCH_WORKLOADS="${KTGEN_BENCH_WORKLOADS:-}" \
	"$here/bench.sh" "$pairs" "$secs")
dest=${KTGEN_BENCH_OUT:-$top/bench}
mkdir -p "$dest"
/usr/bin/python3 "$here/bench-report.py" "$out/samples.jsonl" "$dest" \
	"$setup" "$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
rm -rf "$out"
