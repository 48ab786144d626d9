#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-overhead.sh [PAIRS [SECS]]: what ktgen's own measurement costs the
# traffic it measures. PAIRS pairs of TCP streams over a veth pair, each
# pair one run without and one with `interval 0.1` (ten run-interval
# notifications a second, each reading every flow's counters), in
# alternating order; throughput of the two sets as mean +- stddev, the
# difference with a 95% confidence interval (Welch), and a verdict against
# the 1% budget. CPU accounting and the stack/device counters are read at
# the window's edges only (the CLI reads counters before RUN_NEW and after
# RUN_DONE), so they cost the window nothing by construction; the per-run
# CPU bracketing is a few reads per CPU at start and end.
#
# Runs on this host when it can load modules, else in a VM on Debian's
# stock kernel (TCG: the ratio is meaningful, absolute numbers are not).
# KTGEN_BENCH_ICOUNT=SHIFT runs that VM in QEMU's icount mode (one vCPU,
# guest time counted in instructions): host noise gone, the difference is
# the instructions measurement adds, which resolves a 1% budget.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
# shellcheck source=scripts/bench-lib.sh
. "$here/bench-lib.sh"
pairs=${1:-8}
secs=${2:-2}

bench()
{
	local k=$top/tools/ktgen a=ktgbench-a b=ktgbench-b i last

	last=$(($(nproc) - 1))

	bench_veth $a ktgb0 10.79.0.1 $b ktgb1 10.79.0.2
	ip netns exec $b "$k" sink add tcp port 5001 rx discard cpus $last >/dev/null
	# One run not counted: the first of a boot also grows the slabs and
	# page pools the others reuse (under icount it was the one outlier).
	ip netns exec $a "$k" run tcp_stream to 10.79.0.2 port 5001 cpus 0 time "$secs" >/dev/null
	for i in $(seq "$pairs"); do
		if [ $((i % 2)) = 1 ]; then
			set -- "" "interval 0.1"
		else
			set -- "interval 0.1" ""
		fi
		for opt in "$1" "$2"; do
			# shellcheck disable=SC2086
			ip netns exec $a "$k" -j run tcp_stream to 10.79.0.2 port 5001 \
				cpus 0 time "$secs" $opt
		done
	done | /usr/bin/python3 -c '
import json, math, statistics as st, sys
base, ivl = [], []
for line in sys.stdin:
    if not line.strip():
        continue
    r = json.loads(line)
    cpu = r.get("cpu", {})
    # CPU per KB over every CPU (netperf service demand), and throughput.
    sd = sum(g.get("busy_ns", 0) for g in (cpu.get("run", {}), cpu.get("other", {})))
    sd = sd / 1e3 / (r["tx"]["bytes"] / 1024) if r["tx"]["bytes"] else 0
    (ivl if r.get("interval_ms") else base).append((r["tx_bps"] / 1e9, sd))

def compare(what, unit, i, worse_if_higher):
    b = [x[i] for x in base]
    v = [x[i] for x in ivl]
    print("%-14s without intervals n=%d %.4f +- %.4f %s; with interval 0.1 s n=%d %.4f +- %.4f" %
          (what, len(b), st.mean(b), st.stdev(b), unit, len(v), st.mean(v), st.stdev(v)))
    mb, mi = st.mean(b), st.mean(v)
    vb, vi = st.variance(b) / len(b), st.variance(v) / len(v)
    se = math.sqrt(vb + vi)
    # Welch-Satterthwaite degrees of freedom; t quantile by a normal
    # approximation with a small-sample correction (no scipy needed).
    df = (vb + vi) ** 2 / (vb ** 2 / (len(b) - 1) + vi ** 2 / (len(v) - 1)) if vb + vi else 1e9
    z = 1.959964
    t = z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
    d = ((mi - mb) if worse_if_higher else (mb - mi)) / mb * 100
    half = t * se / mb * 100
    print("  overhead of intervals: %.2f%% (95%% CI %.2f%% .. %.2f%%): %s" % (d, d - half, d + half,
          "below the 1% budget" if d + half < 1 else "ABOVE the 1% budget" if d - half > 1 else
          "not resolved at this sample size (more pairs narrow the interval)"))

compare("throughput", "Gbit/s", 0, False)
compare("service demand", "us/KB", 1, True)'
	ip netns del $a
	ip netns del $b
}

if [ "${KTGEN_BENCH_IN_GUEST:-}" = 1 ]; then
	insmod "$KTGEN_KO"
	echo "== ktgen overhead: $pairs pairs of ${secs} s TCP streams over veth, $(nproc) CPU(s)${KTGEN_BENCH_ICOUNT:+, icount shift=$KTGEN_BENCH_ICOUNT}"
	bench
	exit 0
fi

"$here/install-deps.sh"
if [ -d "/lib/modules/$(uname -r)/build" ] && [ "$(id -u)" = 0 ] &&
   [ "$(cat /proc/sys/kernel/modules_disabled 2>/dev/null)" = 0 ]; then
	make -s -C "$top" module tools
	lsmod | grep -q '^ktgen ' || insmod "$top/kmod/ktgen.ko"
	bench
	exit 0
fi

out=$(mktemp -d /tmp/ktgen-bench.XXXXXX)
# Each guest second of a run takes ~4 s here, ~12 s under icount (one vCPU
# counting instructions), and there are 2 runs a pair and one warm-up.
per=8
[ -n "${KTGEN_BENCH_ICOUNT:-}" ] && per=24
set +e
"$here/bench-vm.sh" "$out" $(((pairs * 2 + 1) * secs * per / 2 + 240)) \
	"$here/bench-overhead.sh" "$pairs" "$secs" >/dev/null
rc=$?
set -e
grep -av '^\[ *[0-9.]*\]' "$out/console.log" | sed -n '/^== ktgen overhead/,/^KTGEN_EXIT/p' | grep -v '^KTGEN_EXIT'
rm -rf "$out"
exit $rc
