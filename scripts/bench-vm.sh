#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-vm.sh [--result FILE] OUTDIR SECS CMD...: what the benchmark
# scripts share on a host that cannot load modules: Debian bookworm's stock
# kernel, ktgen.ko built for it and the CLI, then CMD in a VM on it
# (vm-run.sh, quiet, at most SECS s, console in OUTDIR) with
# KTGEN_BENCH_IN_GUEST=1, KTGEN_KO and KTGEN_BENCH_ICOUNT in its
# environment. KTGEN_BENCH_ICOUNT=SHIFT runs the VM in QEMU's icount mode;
# KTGEN_BENCH_MEM=MiB sizes its memory (vm-run.sh's default otherwise);
# KTGEN_BENCH_NICS="igb ..." gives it real NIC pairs (vm-run.sh -n).
# Exit status: vm-run.sh's. With --result, the guest must also have left
# OUTDIR/FILE non-empty (else the console's tail goes to stderr and the
# status is 1), and its setup line ("== NAME: SETUP") is printed as SETUP.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
result=
if [ "${1:-}" = --result ]; then
	result=${2:?FILE}
	shift 2
fi
out=${1:?OUTDIR}
secs=${2:?SECS}
shift 2

kenv=$("$here/fetch-kernel.sh" bookworm)
ko=$("$here/build-module.sh" "$kenv")
make -s -C "$top/tools" ktgen KTGEN_VERSION="$(make -s -C "$top" --no-print-directory print-version)"
vm()
{
	KTGEN_VM_QUIET=1 "$here/vm-run.sh" -k "$kenv" -o "$out" -t "$secs" \
		${KTGEN_BENCH_ICOUNT:+-i "$KTGEN_BENCH_ICOUNT"} \
		${KTGEN_BENCH_MEM:+-m "$KTGEN_BENCH_MEM"} ${KTGEN_BENCH_NICS:+-n "$KTGEN_BENCH_NICS"} -- \
		env KTGEN_BENCH_IN_GUEST=1 KTGEN_KO="$ko" KTGEN_BENCH_ICOUNT="${KTGEN_BENCH_ICOUNT:-}" "$@"
}
[ -z "$result" ] && { vm "$@"; exit; }
# stdout carries the setup line only
rc=0
vm "$@" >&2 || rc=$?
if [ $rc != 0 ] || [ ! -s "$out/$result" ]; then
	{ grep -a 'bench' "$out/console.log" || true; } | tail -20 >&2
	echo "bench-vm: the guest failed (exit $rc; console: $out/console.log)" >&2
	exit 1
fi
grep -a '^== ' "$out/console.log" | head -1 | tr -d '\r' | sed 's/^== [^:]*: //'
