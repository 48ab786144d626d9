#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# uml-run.sh [-k KERNEL_ENV] [-m MEM] [-t SECS] [-o OUTDIR] -- CMD...
#
# vm-run.sh's twin for the native-speed lane: boot the User-Mode Linux
# kernel of KERNEL_ENV (build-uml-kernel.sh) with the host's root over
# hostfs (read-only, a tmpfs overlay on top: uml-init.sh) and run CMD as
# root in the current directory, through the same vm-guest.sh. The kernel
# runs natively as a host process: real rates and real caches, one CPU.
# The guest's modules and OUTDIR are hostfs mounts. It has no network
# device but loopback and what tests create.
#
# The console goes to OUTDIR/console.log and stdout. Exit status: CMD's, or
# 124 on timeout, 125 when the guest died before CMD finished.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
kenv="" mem=1536 secs=600 out=""
while getopts "k:m:c:t:o:i:" o; do
	case $o in
	k) kenv=$OPTARG ;;
	m) mem=$OPTARG ;;
	c|i) ;;			# one CPU, and no instruction clock
	t) secs=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || { echo "usage: uml-run.sh [-k ENV] [-o OUT] -- CMD..." >&2; exit 2; }
[ -n "$kenv" ] || kenv=$("$here/build-uml-kernel.sh" bookworm)
# shellcheck disable=SC1090
. "$kenv"
[ -n "$out" ] || out=$(mktemp -d /tmp/ktgen-uml.XXXXXX)
mkdir -p "$out"
out=$(readlink -f "$out")
rm -f "$out/exit" "$out/console.log"
{
	echo "cd $(printf %q "$PWD")"
	printf '%q ' "$@"
	echo
} >"$out/cmd"

# UML keeps its memory in a file under TMPDIR: a private one on tmpfs,
# gone after.
tmp=$(mktemp -d /dev/shm/ktgen-uml.XXXXXX)
console=$out/console.log
set +e
# setsid: out of the caller's terminal session, so that its signals reach
# the kernel only through timeout. UML halts on the SIGTERM and takes its
# guest processes (host processes it traces) with it: nothing is left.
TMPDIR=$tmp timeout --foreground -k 10 "$secs" setsid "$UML" \
	mem="${mem}M" umid="ktgen-$$" uml_dir="$tmp" \
	root=/dev/root rootfstype=hostfs rootflags=/ ro \
	init="$here/uml-init.sh" con=null con0=null,fd:1 \
	panic=-1 oops=panic loglevel=5 log_buf_len=16M \
	ktgvm.init="$here/vm-guest.sh" ktgvm.kver="$KVER" \
	ktgvm.moddir="$MODDIR" ktgvm.out="$out" \
	</dev/null 2>&1 | tee "$console" | { if [ -n "${KTGEN_VM_QUIET:-}" ]; then cat >/dev/null; else cat; fi; }
qrc=${PIPESTATUS[0]}
set -e
rm -rf "$tmp"
[ "$qrc" = 124 ] && { echo "uml-run: timeout after $secs s" >&2; exit 124; }
if [ -e "$out/exit" ]; then
	exit "$(cat "$out/exit")"
fi
echo "uml-run: the guest died before the command finished (see $console)" >&2
exit 125
