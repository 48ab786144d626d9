#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-debug-kernel.sh [--key] [--kcsan] [SUITE]
#
# Build the debug-lane kernel (KASAN, lockdep, kmemleak, ODEBUG, fault
# injection, gcov) from Debian's linux-source of the stock test kernel's
# version, configured with scripts/debug-kernel.config. The result is cached
# under $KTGEN_CACHE/debug-kernel/VERSION-HASH, keyed by source version,
# config, this script and the compiler; prints the path of its kernel.env.
# A clean build takes ~20 min at -j2; a cache hit returns at once. --key:
# print the cache key only. --kcsan: the KCSAN lane's kernel instead (the
# data-race detector, which KASAN excludes), from the same source the same
# way with scripts/kcsan-kernel.config, under $KTGEN_CACHE/kcsan-kernel/
# (~27 min at -j2).
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}
keyonly="" kind=debug
while [ $# -gt 0 ]; do
	case $1 in
	--key) keyonly=1 ;;
	--kcsan) kind=kcsan ;;
	*) break ;;
	esac
	shift
done
suite=${1:-bookworm}
frag=$here/$kind-kernel.config

{ read -r srcver; read -r src; } < <("$here/fetch-linux-source.sh" "$suite")
# The key covers every input of the build: the source's version, the
# fragment, this script (how it configures, patches and builds) and the
# compiler.
key=$srcver-$(cat "$frag" "$0" <(gcc --version | head -n 1) | sha256sum | cut -c1-12)
[ -z "$keyonly" ] || { echo "$key"; exit 0; }
out=$CACHE/$kind-kernel/$key
if [ -e "$out/kernel.env" ]; then
	echo "$out/kernel.env"
	exit 0
fi

echo "build-debug-kernel: building the $kind kernel from linux-source $srcver ($key), ~20-30 min at -j2" >&2
build=$out
mkdir -p "$build"
# The fault injectors' stack-trace filter on x86_64: 6.1 still excludes
# it, mainline dropped the exclusion in 6.2 ("fault-injection: allow
# stacktrace filter for x86-64": the ORC unwinder serves it). The same
# one-line change, on the unpacked source (idempotent).
sed -i '/^config FAULT_INJECTION_STACKTRACE_FILTER$/,/^config /{/^\tdepends on !X86_64$/d}' \
	"$src/lib/Kconfig.debug"
make -s -C "$src" O="$build" defconfig kvm_guest.config >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "$frag" >/dev/null
make -s -C "$src" O="$build" olddefconfig >&2

# Every option the fragment asks for must have survived olddefconfig.
"$here/kconfig-check.sh" "$build/.config" "$frag" ||
	{ echo "build-debug-kernel: config fragment not honoured" >&2; exit 1; }

start=$(date +%s)
make -C "$src" O="$build" -j"$(nproc)" LOCALVERSION=-ktgen-$kind bzImage modules >"$build/build.log" 2>&1 ||
	{ tail -n 40 "$build/build.log" >&2; exit 1; }
kver=$(cat "$build/include/config/kernel.release")
mods=$build/modroot
rm -rf "$mods"
make -s -C "$src" O="$build" INSTALL_MOD_PATH="$mods" modules_install >&2
depmod -b "$mods" "$kver"
echo "build-debug-kernel: built in $(( $(date +%s) - start )) s" >&2

# KDEBUG: 1 for the debug kernel (its time scale, modules built for gcov),
# kcsan for the KCSAN one (the same time scale, no gcov: vm-suite.sh,
# build-module.sh).
kdebug=1
[ $kind = debug ] || kdebug=$kind
# kernel.env is written last: its presence marks a complete build.
cat >"$build/kernel.env.tmp" <<EOT
KSUITE=$suite-$kind
KABI=$key
KVER=$kver
VMLINUZ=$build/arch/x86/boot/bzImage
MODDIR=$mods/lib/modules/$kver
KDIR=$build
KDEBUG=$kdebug
EOT
mv "$build/kernel.env.tmp" "$build/kernel.env"
echo "$out/kernel.env"
