#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-rates.sh [SECS]: the highest stream rates each test kernel reaches,
# side by side: Debian bookworm's stock kernel under QEMU/TCG (vm-run.sh,
# 2 vCPUs) and the User-Mode Linux build of the same source (uml-run.sh,
# one CPU, running natively). Over a veth pair and through ktgen's virtual
# NIC pair, between two namespaces: one TCP flow of 64000-byte writes (tx
# stack, cached, zerocopy), UDP at 1400 and 64 bytes, each SECS seconds
# (default 5). Writes bench/rates.md and bench/rates.json.
#
# These are the rates the suite's cases meet, not a host's: TCG emulates
# every instruction, UML runs them but shares one host CPU between the
# generator, the stack, the NIC's engine and the sink.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
secs=${1:-5}

if [ -n "${KTGEN_BENCH_IN_GUEST:-}" ]; then
	K=$top/tools/ktgen
	insmod "$KTGEN_KO"
	insmod "${KTGEN_KO%/*}/ktgen_nic.ko"
	# shellcheck source=scripts/bench-lib.sh
	. "$here/bench-lib.sh"
	bench_veth ktra kv0 10.81.0.1 ktrb kv1 10.81.0.2
	bench_nic "$K" ktra kn0 10.82.0.1 ktrb kn1 10.82.0.2
	ip netns exec ktrb "$K" sink add tcp port 5201 rx discard >/dev/null
	ip netns exec ktrb "$K" sink add udp port 5202 rx discard >/dev/null
	for link in "veth 10.81.0.2" "nic 10.82.0.2"; do
		read -r name addr <<<"$link"
		for job in "tcp_stream 64000 stack" "tcp_stream 64000 cached" \
			   "tcp_stream 64000 zerocopy" "udp_stream 1400 cached" "udp_stream 64 cached"; do
			read -r test size tx <<<"$job"
			port=5201
			[ "$test" = udp_stream ] && port=5202
			ip netns exec ktra "$K" -j run "$test" to "$addr" port "$port" size "$size" \
				tx "$tx" time "$secs" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
print(json.dumps(dict(link=sys.argv[1], test=sys.argv[2], size=int(sys.argv[3]), tx=sys.argv[4],
	state=d["state"], rx_bits_per_s=d.get("rx_bps", 0), rx_bytes=d["rx"]["bytes"], tx_bytes=d["tx"]["bytes"])))
' "$name" "$test" "$size" "$tx" >>/mnt/out/rates.jsonl
		done
	done
	exit 0
fi

make -s -C "$top/tools" ktgen KTGEN_VERSION="$(make -s -C "$top" --no-print-directory print-version)"
res=$(mktemp -d)
for lane in tcg uml; do
	if [ $lane = tcg ]; then
		kenv=$("$here/fetch-kernel.sh" bookworm) boot=$here/vm-run.sh
	else
		kenv=$("$here/build-uml-kernel.sh" bookworm) boot=$here/uml-run.sh
	fi
	ko=$("$here/build-module.sh" "$kenv")
	KTGEN_VM_QUIET=1 "$boot" -k "$kenv" -o "$res/$lane" -t 900 -- \
		env KTGEN_BENCH_IN_GUEST=1 KTGEN_KO="$ko" "$0" "$secs" ||
		{ tail -n 30 "$res/$lane/console.log" >&2; exit 1; }
done
/usr/bin/python3 - "$res" "$top/bench" "$secs" <<'PY'
import json, os, platform, sys
res, outdir, secs = sys.argv[1], sys.argv[2], sys.argv[3]
rows = {}
for lane in ('tcg', 'uml'):
	for line in open(os.path.join(res, lane, 'rates.jsonl')):
		d = json.loads(line)
		rows.setdefault((d['link'], d['test'], d['size'], d['tx']), {})[lane] = d
cpu = next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')), '?')
with open(os.path.join(outdir, 'rates.json'), 'w') as f:
	json.dump([dict(zip(('link', 'test', 'size', 'tx'), k), **v) for k, v in rows.items()], f, indent=1)
def g(d):
	return '%.2f' % (d['rx_bits_per_s'] / 1e9) + ('' if d['state'] == 'done' else ' (%s)' % d['state'])
with open(os.path.join(outdir, 'rates.md'), 'w') as f:
	f.write('# Stream rates in the test kernels (scripts/bench-rates.sh)\n\n')
	f.write('Received Gbit/s, one flow, %s s each, between two namespaces; TCG: Debian bookworm\'s '
		'kernel under QEMU/TCG, 2 vCPUs; UML: the same source as User-Mode Linux, one CPU, '
		'on a host %s shared with other work.\n\n' % (secs, cpu))
	f.write('| link | test | size | tx | TCG | UML | UML/TCG |\n|---|---|---|---|---|---|---|\n')
	for k, v in rows.items():
		t, u = v.get('tcg'), v.get('uml')
		r = '%.1f' % (u['rx_bits_per_s'] / t['rx_bits_per_s']) if t and u and t['rx_bits_per_s'] else '-'
		f.write('| %s | %s | %d | %s | %s | %s | %s |\n' % (*k, g(t) if t else '-', g(u) if u else '-', r))
print(open(os.path.join(outdir, 'rates.md')).read())
PY
rm -rf "$res"
