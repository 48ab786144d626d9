#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: the main job. Where the host can load modules, ktgen runs here
# (KTGEN_DEMO_VM=1 forces the VM); otherwise in a VM on Debian's stock kernel.
#
# It loads ktgen, shows the primitives in effect on the kernel, then
# compares the tx copy paths (stack, cached, nocache, zerocopy, user, and
# user again with the veth's tx-nocache-copy on: "user+ntc") with TCP
# streams over a veth pair between two namespaces into a verifying sink,
# in one table. Statistics over repeated runs arrive with the variants work.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
suite=${KTGEN_DEMO_SUITE:-bookworm}

"$here/install-deps.sh"
secs=${KTGEN_DEMO_SECS:-3}

# Two namespaces joined by a veth pair; a verifying sink in one, a run per
# tx path from the other.
compare()
{
	local k=$top/tools/ktgen tx a=ktgdemo-a b=ktgdemo-b

	ip netns add $a
	ip netns add $b
	ip link add ktgd0 netns $a type veth peer name ktgd1 netns $b
	ip -n $a addr add 10.78.0.1/24 dev ktgd0
	ip -n $b addr add 10.78.0.2/24 dev ktgd1
	ip -n $a link set ktgd0 up
	ip -n $b link set ktgd1 up
	ip netns exec $b "$k" sink add tcp port 5001 rx verify >/dev/null
	{
		for tx in stack cached nocache zerocopy user; do
			ip netns exec $a "$k" -j run tcp_stream to 10.78.0.2 port 5001 \
				time "$secs" tx $tx
		done
		ip netns exec $a ethtool -K ktgd0 tx-nocache-copy on
		ip netns exec $a "$k" -j run tcp_stream to 10.78.0.2 port 5001 \
			time "$secs" tx user
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
print("user: sent from the CLI'"'"'s memory (the stack'"'"'s user copy); +ntc: with the veth'"'"'s")
print("tx-nocache-copy on, the only path it can change. Under QEMU/TCG no cache is")
print("modelled: the VM shows which path ran, not what caches make of it.")'
	ip netns del $a
	ip netns del $b
}

show()
{
	echo "== ktgen info"
	"$top/tools/ktgen" info
	echo "== tx copy paths, TCP over veth, ${secs} s each, sink rx verify"
	compare
}

if [ "${KTGEN_DEMO_IN_GUEST:-}" = 1 ]; then
	insmod "$KTGEN_KO"
	show
	exit 0
fi

# A host that can load modules runs the demo itself.
if [ -d "/lib/modules/$(uname -r)/build" ] && [ "$(id -u)" = 0 ] &&
   [ "$(cat /proc/sys/kernel/modules_disabled 2>/dev/null)" = 0 ] &&
   [ -z "${KTGEN_DEMO_VM:-}" ]; then
	make -s -C "$top" module tools
	lsmod | grep -q '^ktgen ' || insmod "$top/kmod/ktgen.ko"
	show
	exit 0
fi

kenv=$("$here/fetch-kernel.sh" "$suite")
ko=$("$here/build-module.sh" "$kenv")
make -s -C "$top/tools" ktgen KTGEN_VERSION="$(make -s -C "$top" --no-print-directory print-version)"
# shellcheck disable=SC1090
. "$kenv"
echo "demo: booting Debian $suite kernel $KVER under QEMU (no module loading on this host)"
out=$(mktemp -d /tmp/ktgen-demo.XXXXXX)
set +e
KTGEN_VM_QUIET=1 "$here/vm-run.sh" -k "$kenv" -o "$out" -t 300 -- \
	env KTGEN_DEMO_IN_GUEST=1 KTGEN_KO="$ko" "$here/demo.sh" >/dev/null
rc=$?
set -e
grep -av '^\[ *[0-9.]*\]' "$out/console.log" | sed -n '/^== ktgen info/,/^KTGEN_EXIT/p' | grep -v '^KTGEN_EXIT'
echo "demo: in a VM under TCG the numbers prove function and which path ran;"
echo "      TCG models no caches, so nocache vs cached differences are not visible here"
exit $rc
