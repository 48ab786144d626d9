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
	# udp64-nic: ktgen-gso 6000/s on 1.5 CPUs against iperf3 1000/s on 1.
	sample udp64-nic ktgen-gso 1 6000 6000 0 150
	sample udp64-nic iperf3 1 1000 1000 0 100
	# tcp1: 100000 KB on 0.5 CPU-s is 5 us/KB by the meter, 10 for netperf
	echo '{"workload": "tcp1", "tool": "ktgen", "pair": 1, "own_sd_us_per_kb": 2.0, "window_ns": 1000000000, "busy_jiffies": 50, "rx_bytes": 102400000}'
	echo '{"workload": "tcp1", "tool": "netperf", "pair": 1, "own_sd_us_per_kb": 4.0, "window_ns": 1000000000, "busy_jiffies": 100, "rx_bytes": 102400000}'
	# tcp16: 1.25e8 bytes in 1 s = 1 Gbit/s on 0.5 CPU against 1 on 1 CPU.
	sample tcp16 ktgen-cached 1 0 0 125000000 50
	sample tcp16 iperf3 1 0 0 125000000 100
	# rr: tool-reported, CPUs over the run (ktgen-busy: 2 CPUs for 2 s)
	echo '{"workload": "rr", "tool": "ktgen", "pair": 1, "tps": 3000, "p99_us": 50}'
	echo '{"workload": "rr", "tool": "ktgen-busy", "pair": 1, "tps": 4000, "p99_us": 40, "window_ns": 2000000000, "busy_jiffies": 400}'
	echo '{"workload": "rr", "tool": "netperf", "pair": 1, "tps": 1000, "p99_us": 100, "window_ns": 2000000000, "busy_jiffies": 100}'
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
check udp_nic_gso "c('udp64-nic', 'ktgen-gso', 'iperf3', 'rx_pps_per_cpu')['ratio_median'] == 4.0 and
	c('udp64-nic', 'ktgen-gso', 'iperf3', 'rx_pps_per_cpu')['met'] is True and
	c('udp64-nic', 'ktgen-gso', 'iperf3', 'rx_pps')['ratio_median'] == 6.0 and
	c('udp64-nic', 'ktgen', 'iperf3', 'rx_pps_per_cpu') is None"
check tcp1_service_demand "abs(c('tcp1', 'ktgen', 'netperf', 'sd_us_per_kb')['ktgen_median'] - 5.0) < 1e-9 and
	c('tcp1', 'ktgen', 'netperf', 'sd_us_per_kb')['ratio_median'] == 0.5 and
	c('tcp1', 'ktgen', 'netperf', 'sd_us_per_kb')['higher_is_better'] is False and
	c('tcp1', 'ktgen', 'netperf', 'own_sd_us_per_kb')['ratio_median'] == 0.5"
check tcp_gbps_per_cpu "abs(c('tcp16', 'ktgen-cached', 'iperf3', 'gbps_per_cpu')['ktgen_median'] - 2.0) < 1e-9 and
	c('tcp16', 'ktgen-cached', 'iperf3', 'gbps_per_cpu')['ratio_median'] == 2.0 and
	c('tcp16', 'ktgen-cached', 'iperf3', 'gbps_per_cpu')['met'] is True"
check rr_tps_met "c('rr', 'ktgen', 'netperf', 'tps')['ratio_median'] == 3.0 and
	c('rr', 'ktgen', 'netperf', 'tps')['met'] is None and
	c('rr', 'ktgen-busy', 'netperf', 'tps')['ratio_median'] == 4.0 and
	c('rr', 'ktgen-busy', 'netperf', 'tps')['met'] is True and
	c('rr', 'ktgen', 'netperf', 'p99_us')['higher_is_better'] is False"
# per CPU: 4000/2 against 1000/0.5; none for a sample without CPUs
check rr_per_cpu "c('rr', 'ktgen-busy', 'netperf', 'tps_per_cpu')['ratio_median'] == 1.0 and
	c('rr', 'ktgen', 'netperf', 'tps_per_cpu') is None"
check no_anchor_no_row "c('udp64', 'ktgen', 'pktgen', 'tx_pps') is None and
	c('rr', 'ktgen', 'sockperf', 'tps') is None and
	c('tcp16', 'ktgen-zerocopy', 'iperf3', 'gbps_per_cpu') is None"
result markdown_row "$(grep -q '^| udp64 | rx_pps_per_cpu (dgram/s/CPU) | ktgen | 3000 | iperf3 | 1000 | 3.00 (2.00-8.00) | .* | >= 3.0x: met |$' \
	"$tmp/results.md" || cat "$tmp/results.md")"
result markdown_setup "$(grep -q 'at abc1234, .*: test setup' "$tmp/results.md" || cat "$tmp/results.md")"

result plot_svg "$(grep -q '<svg' "$tmp/results.svg" && grep -q 'results.svg' "$tmp/results.md" ||
	echo "no plot: $(ls "$tmp")")"

# bench-scale-report.py: two rounds; 1000 flows at 0.95 and 0.85 of the
# 10-flow total (median 0.9: met), one 100-flow run unfair (0.9), and
# cached refused at 1000 flows in a second file.
scale="$(dirname "$report")/bench-scale-report.py"
# run FLOWS ROUND BPS FAIRNESS [BUFFER_USED MEM_DELTA [VETH_PACKETS VETH_BYTES]]
run()
{
	printf '{"flows": %d, "round": %d, "tx": "stack", "state": "done", "tx_bps": %d, "fairness": %s, "buffer_used": %d, "mem_delta": %d, "flow_bytes_min": 0, "flow_bytes_max": 0, "veth_packets": %d, "veth_bytes": %d}\n' \
		"$1" "$2" "$3" "$4" "${5:-1048576}" "${6:-1048576}" "${7:-0}" "${8:-0}"
}
{
	run 1 1 500 1
	run 10 1 1000 0.99
	run 100 1 990 0.97
	run 1000 1 950 0.96 1048576 1024000000 100 300000
	run 1 2 520 1
	run 10 2 1000 0.98
	run 100 2 980 0.90
	run 1000 2 850 0.97 1048576 2048000000 100 500000
} >"$tmp/scale.jsonl"
/usr/bin/python3 "$scale" "$tmp/scale.jsonl" "$tmp/scale" "test setup" abc1234 >/dev/null 2>&1
scheck()
{
	local err

	err=$(/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = {x["flows"]: x for x in d["rows"]}
t = d["targets"]
if not eval("(" + sys.argv[2] + ")"):
    print("failed: %s\n%s" % (sys.argv[2], json.dumps(d["rows"], indent=1)))' \
		"$tmp/scale.json" "$2" 2>&1)
	result "$1" "$err"
}
scheck scale_vs_10 "abs(r[1000]['vs_10_median'] - 0.9) < 1e-9 and r[1000]['vs_10_min'] == 0.85 and
	r[10]['vs_10_median'] == 1 and t['total_1000_vs_10']['met']"
scheck scale_fairness "r[100]['fairness_median'] == 0.935 and r[100]['fairness_min'] == 0.9 and
	t['fairness']['worst_median'] == 0.935 and not t['fairness']['met']"
scheck scale_memory "r[1000]['guest_bytes_per_flow'] == 1536000 and
	r[1]['module_bytes_per_flow'] == 1048576 and r[1000]['module_bytes_per_flow'] == 1048.576 and
	r[1000]['bytes_per_packet'] == 4000 and r[10]['bytes_per_packet'] is None"
result scale_markdown "$(grep -q '^| 1000 | 0 (0-0) | 0.90 (0.85-0.95) | 0.965 (0.960) | 1 | 1500 | 0 of 2 | 4000 |$' "$tmp/scale.md" &&
	grep -q 'fairness >= 0.95 at every count: not met (worst median 0.935)' "$tmp/scale.md" ||
	cat "$tmp/scale.md")"
{
	run 10 1 1000 0.99
	printf '{"flows": 1000, "round": 1, "tx": "cached", "state": "refused", "error": "Error: staging pages exceed the buffer budget", "tx_bps": 0, "fairness": 0, "buffer_used": 0, "mem_delta": 0}\n'
} >"$tmp/scale.jsonl"
/usr/bin/python3 "$scale" "$tmp/scale.jsonl" "$tmp/scale" "test setup" abc1234 >/dev/null 2>&1
result scale_refused "$(grep -q '^| 1000 | refused: Error: staging pages exceed the buffer budget | | | | | | |$' "$tmp/scale.md" &&
	grep -q '1000-flow total >= 0.90 x the 10-flow one: not met (median -)' "$tmp/scale.md" ||
	cat "$tmp/scale.md")"

finish bench
