#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: the main job. Where the host can load modules, ktgen runs here
# (KTGEN_DEMO_VM=1 forces the VM); otherwise in a VM on Debian's stock kernel.
#
# It loads ktgen, shows the primitives in effect on the kernel, then
# compares the tx copy paths (stack, cached, nocache, zerocopy, user, and
# user again with tx-nocache-copy on: "user+ntc") with TCP streams into a
# verifying sink, then the receive styles of the virtual NIC (build_skb,
# legacy-rx, frags, rx-copybreak) with 64-byte UDP, over a ktgen-nic pair
# between two namespaces. Then the verdicts a regression job gates on:
# the tx paths as a sweep (medians, ratios to stack, paired verdicts) and
# two ktgen ab comparisons (tx stack vs zerocopy for TCP, legacy-rx off vs
# on for 64-byte UDP), each with its exit code, then the five recipes of
# examples/ on pairs of their own, and plots of the sweep and the ab
# jobs (PNG and SVG) in KTGEN_DEMO_OUT (default: a new /tmp/ktgen-demo.*).
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
suite=${KTGEN_DEMO_SUITE:-bookworm}

"$here/install-deps.sh"
secs=${KTGEN_DEMO_SECS:-3}

# Two namespaces joined by the module's virtual NIC pair (ktgen-nic): its
# DMA engine on CPU 0 with the sender, both devices' receive interrupts on
# CPU 1 with the sink, so CPU 1's busy time is the receive path's cost.
pair()
{
	local k=$top/tools/ktgen

	ip netns add $A
	ip netns add $B
	"$k" nic add ktgd0 peer ktgd1 netns $A peer-netns $B dma-cpu 0 irq-cpus 1
	ip -n $A addr add 10.78.0.1/24 dev ktgd0
	ip -n $B addr add 10.78.0.2/24 dev ktgd1
	ip -n $A link set ktgd0 up
	ip -n $B link set ktgd1 up
	ip netns exec $B "$k" sink add tcp port 5001 rx verify cpus 1 >/dev/null
	ip netns exec $B "$k" sink add udp port 5002 rx verify cpus 1 >/dev/null
	sleep 1
}

# The tx copy paths, TCP into a verifying sink.
tx_paths()
{
	local k=$top/tools/ktgen tx

	{
		for tx in stack cached nocache zerocopy user; do
			ip netns exec $A "$k" -j run tcp_stream to 10.78.0.2 port 5001 \
				time "$secs" tx $tx cpus 0
		done
		ip netns exec $A ethtool -K ktgd0 tx-nocache-copy on
		ip netns exec $A "$k" -j run tcp_stream to 10.78.0.2 port 5001 \
			time "$secs" tx user cpus 0
		ip netns exec $A ethtool -K ktgd0 tx-nocache-copy off
	} | /usr/bin/python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
print("%-9s %10s %10s %-8s %-9s %7s %9s %9s" % ("tx", "tx Gbit/s", "rx Gbit/s",
      "pages", "acked=rx", "verify", "tx us/KB", "cycles/B"))
for r in rows:
    cpu = r.get("cpu", {}).get("run", {})
    tx = r["tx_mode"] + ("+ntc" if r["tx"].get("nocache_copy_flows") else "")
    print("%-9s %10.2f %10.2f %-8s %-9s %7d %9.3f %9.2f" % (tx, r["tx_bps"] / 1e9,
          r.get("rx_bps", 0) / 1e9, r["splice"],
          "yes" if r["tx"].get("acked") == r["rx"]["bytes"] else "NO",
          r["rx"]["verify_errors"], cpu.get("us_per_kb") or 0,
          cpu.get("cycles_per_byte") or 0))
m = rows[0].get("cpu", {}) if rows else {}
print("cpu: %s%s; us/KB is netperf service demand of the sending CPU" %
      (m.get("method", "none"), ", cycles estimated from busy time" if m.get("estimated") else ""))
print("user: sent from the CLI'"'"'s memory (the stack'"'"'s user copy); +ntc: with the device'"'"'s")
print("tx-nocache-copy on, the only path it can change.")'
}

# stats NS DEV: ethtool -S as "name value" lines.
stats()
{
	ip netns exec "$1" ethtool -S "$2" | sed -n 's/^ *\([a-z0-9_]*\): \([0-9]*\)$/\1 \2/p'
}

# The receive styles, 64-byte UDP into the sink on CPU 1: what each costs
# the receiving CPU per packet, and the device counters proving the path.
rx_styles()
{
	local k=$top/tools/ktgen style flags before after

	for style in build legacy frags copybreak; do
		flags="legacy-rx off rx-frags off"
		[ $style = legacy ] && flags="legacy-rx on rx-frags off"
		[ $style = frags ] && flags="legacy-rx off rx-frags on"
		# shellcheck disable=SC2086
		ip netns exec $B ethtool --set-priv-flags ktgd1 $flags
		ip netns exec $B ethtool --set-tunable ktgd1 rx-copybreak \
			"$([ $style = copybreak ] && echo 256 || echo 0)"
		before=$(stats $B ktgd1 | tr '\n' ' ')
		echo "{\"style\": \"$style\", \"run\": $(ip netns exec $A "$k" -j run udp_stream \
			to 10.78.0.2 port 5002 time "$secs" size 64 cpus 0),"
		after=$(stats $B ktgd1 | tr '\n' ' ')
		echo "\"before\": \"$before\", \"after\": \"$after\"}"
	done | /usr/bin/python3 -c '
import json, sys
rows = json.loads("[" + sys.stdin.read().replace("}\n{", "},{") + "]")
def kv(s):
    t = s.split()
    return {t[i]: int(t[i + 1]) for i in range(0, len(t) - 1, 2)}
print("%-10s %9s %9s %8s %8s %9s %8s %7s %7s %7s" % ("rx style", "nic kpps", "sock kpps",
      "lost", "rx cpu%", "ns/frame", "built", "copied", "split", "frags"))
for r in rows:
    run, b, a = r["run"], kv(r["before"]), kv(r["after"])
    d = {k: a[k] - b.get(k, 0) for k in a}
    other = run.get("cpu", {}).get("other", {})
    secs = run["duration_ns"] / 1e9
    frames = d["rx_packets"]
    print("%-10s %9.1f %9.1f %8d %8.1f %9.0f %8d %7d %7d %7d" % (r["style"],
          frames / secs / 1e3, run["rx"]["msgs"] / secs / 1e3, run["rx"]["lost"],
          other.get("util_pct", 0), other.get("busy_ns", 0) / frames if frames else 0,
          d["rx_built"], d["rx_copied"], d["rx_split"], d["rx_frags"]))
print("nic: frames the device received; sock: datagrams the sink read (lost: dropped on")
print("the way, mostly at the socket: a built 64 B frame keeps its 4 KiB page as truesize).")
print("rx cpu: CPU 1 (the sink and the receive interrupts); ns/frame: its busy time per")
print("frame the device received. The DMA engine runs on CPU 0 and costs neither side.")
print("The styles are a model of the drivers'"'"' paths, not a reproduction of their hardware.")'
}

# ab_verdict DOC: an ab document's medians and paired verdict, as ab's
# own text prints them.
ab_verdict()
{
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = d["metric"]
for side in "ab":
    s = d[side]["metrics"][m]["summary"]
    print("%s %-40s %s median %.4g, mean %.4g, cv %.1f%%" % (side, d[side]["args"], m,
          s["median"], s["mean"], s["cv"] * 100))
for v in d["verdicts"]:
    print("b/a %s: ratio %.4f (%+.2f%%) ci95 [%.4f, %.4f] paired-t p=%.3g wilcoxon p=%.3g "
          "MDE %.2f%%: %s" % (v["metric"], v["ratio"], v["change_pct"], v["ci_lo"], v["ci_hi"],
                             v["p_t"], v["p_wilcoxon"], v["mde_pct"], v["verdict"]))' "$1"
}

# The verdicts: a sweep of the tx paths and two A/B comparisons, their
# documents in $DEMO_OUT for the plots.
verdicts()
{
	local k=$top/tools/ktgen n=${KTGEN_DEMO_PAIRS:-5} rc run

	run="run tcp_stream to 10.78.0.2 port 5001 time 1 cpus 0"
	echo "== tx paths, TCP 64 KiB over ktgen-nic, 3 repetitions: sweep (tx_bps)"
	# shellcheck disable=SC2086
	ip netns exec $A "$k" sweep sizes 64K repeat 3 variant stack "tx stack" \
		variant cached "tx cached" variant nocache "tx nocache" \
		variant zerocopy "tx zerocopy" -- $run 2>/dev/null | tee "$DEMO_OUT/sweep.txt"
	# shellcheck disable=SC2086
	ip netns exec $A "$k" -j sweep sizes 1K,16K,64K repeat 2 variant stack "tx stack" \
		variant zerocopy "tx zerocopy" -- $run >"$DEMO_OUT/sweep.json" 2>/dev/null || true

	echo "== ab: tx stack (a) vs tx zerocopy (b), TCP, $n pairs"
	rc=0
	# shellcheck disable=SC2086
	ip netns exec $A "$k" -j ab repeat "$n" a "tx stack" b "tx zerocopy" -- $run \
		>"$DEMO_OUT/ab-tx.json" 2>/dev/null || rc=$?
	ab_verdict "$DEMO_OUT/ab-tx.json"
	echo "ab exit status: $rc (0 no regression, 1 regression, 3 inconclusive)"

	echo "== ab: legacy-rx off (a) vs on (b) on the receiver, UDP 64 B, $n pairs (rx_bps)"
	rc=0
	ip netns exec $A "$k" -j ab repeat "$n" a "knob ktgd1@$B priv-flag legacy-rx off" \
		b "knob ktgd1@$B priv-flag legacy-rx on" -- \
		run udp_stream to 10.78.0.2 port 5002 time 1 size 64 cpus 0 \
		>"$DEMO_OUT/ab-legacy-rx.json" 2>/dev/null || rc=$?
	ab_verdict "$DEMO_OUT/ab-legacy-rx.json"
	echo "ab exit status: $rc (0 no regression, 1 regression, 3 inconclusive)"
	echo "A verdict says whether a difference is real at this noise; the MDE is the"
	echo "smallest change these pairs could have shown."
}

show()
{
	A=ktgdemo-a B=ktgdemo-b
	echo "== ktgen info"
	"$top/tools/ktgen" info
	pair
	echo "== tx copy paths, TCP over ktgen-nic, ${secs} s each, sink rx verify"
	tx_paths
	echo "== rx styles of ktgen-nic, UDP 64 B, ${secs} s each, sink rx verify"
	rx_styles
	verdicts
	ip netns del $A
	ip netns del $B
	recipes
	echo "Under QEMU/TCG no cache is modelled: the VM shows which path ran, not"
	echo "what caches make of it."
}

# The five comparisons netdev argued about, as examples/ has them for two
# hosts, here each on a ktgen-nic pair of its own (no arguments: shortened
# to RUNS runs of SECS s), with its table, verdict and exit status.
recipes()
{
	local r rc

	for r in "$top"/examples/0[1-5]-*.sh; do
		echo "== recipe $(basename "$r")"
		rc=0
		KTGEN=$top/tools/ktgen bash "$r" 2>&1 || rc=$?
		echo "$(basename "$r") exit status: $rc"
	done
}

# plots: each document of $DEMO_OUT as PNG and SVG beside it.
plots()
{
	local f

	for f in "$DEMO_OUT"/sweep.json "$DEMO_OUT"/ab-*.json; do
		[ -s "$f" ] && "$here/ktgen-plot" "$f" "${f%.json}" >/dev/null
	done
	echo "plots: $(cd "$DEMO_OUT" && ls ./*.png ./*.svg 2>/dev/null | tr '\n' ' ')in $DEMO_OUT"
}

if [ "${KTGEN_DEMO_IN_GUEST:-}" = 1 ]; then
	DEMO_OUT=/mnt/out
	insmod "$KTGEN_KO"
	insmod "${KTGEN_KO%/*}/ktgen_nic.ko"
	show
	exit 0
fi

DEMO_OUT=${KTGEN_DEMO_OUT:-$(mktemp -d /tmp/ktgen-demo.XXXXXX)}
mkdir -p "$DEMO_OUT"

# A host that can load modules runs the demo itself.
if [ -d "/lib/modules/$(uname -r)/build" ] && [ "$(id -u)" = 0 ] &&
   [ "$(cat /proc/sys/kernel/modules_disabled 2>/dev/null)" = 0 ] &&
   [ -z "${KTGEN_DEMO_VM:-}" ]; then
	make -s -C "$top" module tools
	lsmod | grep -q '^ktgen ' || insmod "$top/kmod/ktgen.ko"
	lsmod | grep -q '^ktgen_nic ' || insmod "$top/kmod/ktgen_nic.ko"
	show
	plots
	exit 0
fi

kenv=$("$here/fetch-kernel.sh" "$suite")
ko=$("$here/build-module.sh" "$kenv")
make -s -C "$top/tools" ktgen KTGEN_VERSION="$(make -s -C "$top" --no-print-directory print-version)"
# shellcheck disable=SC1090
. "$kenv"
echo "demo: booting Debian $suite kernel $KVER under QEMU (no module loading on this host)"
out=$DEMO_OUT
set +e
KTGEN_VM_QUIET=1 "$here/vm-run.sh" -k "$kenv" -o "$out" -t 900 -- \
	env KTGEN_DEMO_IN_GUEST=1 KTGEN_KO="$ko" "$here/demo.sh" >/dev/null
rc=$?
set -e
grep -av '^\[ *[0-9.]*\]' "$out/console.log" | sed -n '/^== ktgen info/,/^KTGEN_EXIT/p' | grep -v '^KTGEN_EXIT'
echo "demo: in a VM under TCG the numbers prove function and which path ran;"
echo "      TCG models no caches, so nocache vs cached differences are not visible here"
plots
exit $rc
