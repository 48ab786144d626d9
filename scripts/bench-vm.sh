#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-vm.sh OUTDIR SECS CMD...: what the benchmark scripts share on a host
# that cannot load modules: Debian bookworm's stock kernel, ktgen.ko built
# for it and the CLI, then CMD in a VM on it (vm-run.sh, quiet, at most SECS
# s, console in OUTDIR) with KTGEN_BENCH_IN_GUEST=1, KTGEN_KO and
# KTGEN_BENCH_ICOUNT in its environment. KTGEN_BENCH_ICOUNT=SHIFT runs the
# VM in QEMU's icount mode. Exit status: vm-run.sh's.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
out=${1:?OUTDIR}
secs=${2:?SECS}
shift 2

kenv=$("$here/fetch-kernel.sh" bookworm)
ko=$("$here/build-module.sh" "$kenv")
make -s -C "$top/tools" ktgen KTGEN_VERSION="$(make -s -C "$top" --no-print-directory print-version)"
KTGEN_VM_QUIET=1 exec "$here/vm-run.sh" -k "$kenv" -o "$out" -t "$secs" \
	${KTGEN_BENCH_ICOUNT:+-i "$KTGEN_BENCH_ICOUNT"} -- \
	env KTGEN_BENCH_IN_GUEST=1 KTGEN_KO="$ko" KTGEN_BENCH_ICOUNT="${KTGEN_BENCH_ICOUNT:-}" "$@"
