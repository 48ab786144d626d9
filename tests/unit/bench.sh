#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh REPORT: scripts/bench-report.py on hand-made samples: rates and
# per-CPU rates from the window's counters, ratios paired by round with
# their median and range, targets met or not, a comparison without its
# anchor left out, the Markdown table. KTAP output.
report=${1:?path to bench-report.py}
. "$(dirname "$0")/ktap.sh"

# sample WORKLOAD TOOL PAIR RX_PKTS TX_PKTS RX_BYTES BUSY_JIFFIES: a 1 s window.
sample()
{
	printf '{"workload": "%s", "tool": "%s", "pair": %d, "window_ns": 1000000000, "busy_jiffies": %d, "rx_pkts": %d, "tx_pkts": %d, "rx_bytes": %d}\n' \
		"$1" "$2" "$3" "$7" "$4" "$5" "$6"
}

{
	# udp64, round 1: ktgen 2000/s on 1 CPU, iperf3 1000/s on 1 CPU: 2x per
	# CPU; round 2: ktgen 4000/s on 1 CPU, iperf3 1000/s on 2 CPUs: 8x.
	sample udp64 ktgen 1 2000 2000 0 100
	sample udp64 iperf3 1 1000 1000 0 100
	sample udp64 ktgen 2 4000 4000 0 100
	sample udp64 iperf3 2 1000 1000 0 200
	sample udp64 ktgen 3 3000 3000 0 100
	sample udp64 iperf3 3 1000 1000 0 100
	# tcp16: 1.25e8 bytes in 1 s = 1 Gbit/s on 0.5 CPU against 1 on 1 CPU.
	sample tcp16 ktgen-cached 1 0 0 125000000 50
	sample tcp16 iperf3 1 0 0 125000000 100
	# rr: tool-reported
	echo '{"workload": "rr", "tool": "ktgen", "pair": 1, "tps": 3000, "p99_us": 50}'
	echo '{"workload": "rr", "tool": "netperf", "pair": 1, "tps": 1000, "p99_us": 100}'
} >"$tmp/samples.jsonl"

out=$(/usr/bin/python3 "$report" "$tmp/samples.jsonl" "$tmp" "test setup" abc1234 2>&1)
result report_runs "$([ -s "$tmp/results.json" ] && [ -s "$tmp/results.md" ] || echo "no results: $out")"

# check NAME EXPR: EXPR over c(workload, ktgen, anchor, metric) holds.
check()
{
	local err

	err=$(/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
def c(w, k, a, m):
    for x in d["comparisons"]:
        if (x["workload"], x["ktgen"], x["anchor"], x["metric"]) == (w, k, a, m):
            return x
    return None
if not eval("(" + sys.argv[2] + ")"):
    print("failed: %s\n%s" % (sys.argv[2], json.dumps(d["comparisons"], indent=1)))' \
		"$tmp/results.json" "$2" 2>&1)
	result "$1" "$err"
}

check udp_per_cpu_median "c('udp64', 'ktgen', 'iperf3', 'rx_pps_per_cpu')['ratio_median'] == 3.0 and
	c('udp64', 'ktgen', 'iperf3', 'rx_pps_per_cpu')['pairs'] == 3"
check udp_per_cpu_range "(c('udp64', 'ktgen', 'iperf3', 'rx_pps_per_cpu')['ratio_min'],
	c('udp64', 'ktgen', 'iperf3', 'rx_pps_per_cpu')['ratio_max']) == (2.0, 8.0)"
check udp_target_met "c('udp64', 'ktgen', 'iperf3', 'rx_pps_per_cpu')['met'] is True and
	c('udp64', 'ktgen', 'iperf3', 'rx_pps')['met'] is None"
check udp_raw_rate "c('udp64', 'ktgen', 'iperf3', 'rx_pps')['ktgen_median'] == 3000 and
	c('udp64', 'ktgen', 'iperf3', 'rx_pps')['anchor_median'] == 1000"
check tcp_gbps_per_cpu "abs(c('tcp16', 'ktgen-cached', 'iperf3', 'gbps_per_cpu')['ktgen_median'] - 2.0) < 1e-9 and
	c('tcp16', 'ktgen-cached', 'iperf3', 'gbps_per_cpu')['ratio_median'] == 2.0 and
	c('tcp16', 'ktgen-cached', 'iperf3', 'gbps_per_cpu')['met'] is True"
check rr_tps_met "c('rr', 'ktgen', 'netperf', 'tps')['ratio_median'] == 3.0 and
	c('rr', 'ktgen', 'netperf', 'tps')['met'] is True and
	c('rr', 'ktgen', 'netperf', 'p99_us')['higher_is_better'] is False"
check no_anchor_no_row "c('udp64', 'ktgen', 'pktgen', 'tx_pps') is None and
	c('rr', 'ktgen', 'sockperf', 'tps') is None and
	c('tcp16', 'ktgen-zerocopy', 'iperf3', 'gbps_per_cpu') is None"
result markdown_row "$(grep -q '^| udp64 | rx_pps_per_cpu (dgram/s/CPU) | ktgen | 3000 | iperf3 | 1000 | 3.00 (2.00-8.00) | .* | >= 3.0x: met |$' \
	"$tmp/results.md" || cat "$tmp/results.md")"
result markdown_setup "$(grep -q 'at abc1234, .*: test setup' "$tmp/results.md" || cat "$tmp/results.md")"

result plot_svg "$(grep -q '<svg' "$tmp/results.svg" && grep -q 'results.svg' "$tmp/results.md" ||
	echo "no plot: $(ls "$tmp")")"

finish bench
