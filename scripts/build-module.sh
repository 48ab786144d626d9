#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-module.sh KERNEL_ENV: build ktgen.ko for the kernel described by
# KERNEL_ENV (from fetch-kernel.sh or build-debug-kernel.sh) in a per-kernel
# copy of the tree under $KTGEN_CACHE/build, W=1, failing on any warning.
# The debug kernel's build gets gcov instrumentation. Prints the .ko path.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}
# shellcheck disable=SC1090
. "${1:?kernel env}"

b=$CACHE/build/$KSUITE-$KABI
mkdir -p "$b"
rsync -a --delete --exclude compat-gen.h --exclude '*.o' --exclude '*.ko' \
	--exclude '.*.cmd' --exclude '*.gcno' --exclude '*.mod*' \
	"$top/Kbuild" "$top/kmod" "$top/include" "$b/"
"$here/compat-probe.sh" "$KDIR" "$b/kmod"
version=$(make -s -C "$top" --no-print-directory print-version)
gcov=
[ -n "${KDEBUG:-}" ] && gcov=KTGEN_GCOV=1
log=$b/build.log
if ! make -C "$KDIR" M="$b" W=1 KTGEN_VERSION="$version" $gcov modules >"$log" 2>&1; then
	cat "$log" >&2
	exit 1
fi
if grep -E 'warning:|error:' "$log" >&2; then
	echo "build-module: warnings building for $KVER (W=1)" >&2
	exit 1
fi
echo "$b/kmod/ktgen.ko"
