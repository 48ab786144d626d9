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
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
pairs=${1:-8}
secs=${2:-2}

bench()
{
	local k=$top/tools/ktgen a=ktgbench-a b=ktgbench-b i

	ip netns add $a
	ip netns add $b
	ip link add ktgb0 netns $a type veth peer name ktgb1 netns $b
	ip -n $a addr add 10.79.0.1/24 dev ktgb0
	ip -n $b addr add 10.79.0.2/24 dev ktgb1
	ip -n $a link set ktgb0 up
	ip -n $b link set ktgb1 up
	ip netns exec $b "$k" sink add tcp port 5001 rx discard cpus 1 >/dev/null
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
    (ivl if r.get("interval_ms") else base).append(r["tx_bps"] / 1e9)
def show(name, xs):
    print("%-22s n=%d  %.3f +- %.3f Gbit/s" % (name, len(xs), st.mean(xs), st.stdev(xs)))
show("without intervals", base)
show("with interval 0.1 s", ivl)
mb, mi = st.mean(base), st.mean(ivl)
se = math.sqrt(st.variance(base) / len(base) + st.variance(ivl) / len(ivl))
# Welch-Satterthwaite degrees of freedom; t quantile by a normal
# approximation with a small-sample correction (no scipy needed).
vb, vi = st.variance(base) / len(base), st.variance(ivl) / len(ivl)
df = (vb + vi) ** 2 / (vb ** 2 / (len(base) - 1) + vi ** 2 / (len(ivl) - 1)) if vb + vi else 1e9
z = 1.959964
t = z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
d = (mb - mi) / mb * 100
half = t * se / mb * 100
print("overhead of intervals: %.2f%% (95%% CI %.2f%% .. %.2f%%)" % (d, d - half, d + half))
if d + half < 1:
    print("verdict: below the 1% budget")
elif d - half > 1:
    print("verdict: ABOVE the 1% budget")
else:
    print("verdict: not resolved at this sample size (more pairs narrow the interval)")'
	ip netns del $a
	ip netns del $b
}

if [ "${KTGEN_BENCH_IN_GUEST:-}" = 1 ]; then
	insmod "$KTGEN_KO"
	echo "== ktgen overhead: $pairs pairs of ${secs} s TCP streams over veth"
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

kenv=$("$here/fetch-kernel.sh" bookworm)
ko=$("$here/build-module.sh" "$kenv")
make -s -C "$top/tools" ktgen KTGEN_VERSION="$(make -s -C "$top" --no-print-directory print-version)"
out=$(mktemp -d /tmp/ktgen-bench.XXXXXX)
set +e
KTGEN_VM_QUIET=1 "$here/vm-run.sh" -k "$kenv" -o "$out" -t $((pairs * secs * 4 + 120)) -- \
	env KTGEN_BENCH_IN_GUEST=1 KTGEN_KO="$ko" "$here/bench-overhead.sh" "$pairs" "$secs" >/dev/null
rc=$?
set -e
grep -av '^\[ *[0-9.]*\]' "$out/console.log" | sed -n '/^== ktgen overhead/,/^KTGEN_EXIT/p' | grep -v '^KTGEN_EXIT'
rm -rf "$out"
exit $rc
