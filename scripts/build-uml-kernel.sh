#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-uml-kernel.sh [--key] [--debug] [SUITE]
#
# Build the User-Mode Linux kernel of the native-speed lane from Debian's
# linux-source of SUITE's stock kernel (default bookworm), ARCH=um x86_64,
# configured with scripts/uml-kernel.config. Debian's user-mode-linux
# package ships the binary but no build tree, and the module needs one. The
# result is cached under $KTGEN_CACHE/uml-kernel/VERSION-HASH, keyed by the
# source version, the fragments, this script and the compiler; prints its kernel.env
# (KVER, UML: the binary, MODDIR, KDIR, KARCH=um). ~4 min at -j2.
# --debug: uml-debug-kernel.config over it (KASAN, lockdep, kmemleak, fault
# injection; KDEBUG=1 in its kernel.env). --key: print the cache key only.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}
debug= keyonly=
if [ "${1:-}" = --key ]; then
	keyonly=1
	shift
fi
if [ "${1:-}" = --debug ]; then
	debug=1
	shift
fi
suite=${1:-bookworm}
frags=("$here/uml-kernel.config")
[ -n "$debug" ] && frags+=("$here/uml-debug-kernel.config")

{ read -r srcver; read -r src; } < <("$here/fetch-linux-source.sh" "$suite")
# The key covers every input of the build: the source's version, the
# fragments, this script and the compiler.
key=$srcver-$(cat "${frags[@]}" "$0" <(gcc --version | head -n 1) | sha256sum | cut -c1-12)
[ -z "$keyonly" ] || { echo "$key"; exit 0; }
out=$CACHE/uml-kernel/$key
if [ -e "$out/kernel.env" ]; then
	echo "$out/kernel.env"
	exit 0
fi

echo "build-uml-kernel: building linux-source $srcver ARCH=um ($key), ~4 min at -j2" >&2
build=$out
mkdir -p "$build"
mk() { make -s -C "$src" O="$build" ARCH=um SUBARCH=x86_64 "$@"; }
mk defconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "${frags[@]}" >/dev/null
mk olddefconfig >&2

"$here/kconfig-check.sh" "$build/.config" "${frags[@]}" ||
	{ echo "build-uml-kernel: config fragment not honoured" >&2; exit 1; }

start=$(date +%s)
make -C "$src" O="$build" ARCH=um SUBARCH=x86_64 -j"$(nproc)" LOCALVERSION=-ktgen-uml${debug:+-debug} \
	linux modules >"$build/build.log" 2>&1 ||
	{ tail -n 40 "$build/build.log" >&2; exit 1; }
kver=$(cat "$build/include/config/kernel.release")
mods=$build/modroot
rm -rf "$mods"
mk INSTALL_MOD_PATH="$mods" modules_install >&2
depmod -b "$mods" "$kver"
echo "build-uml-kernel: built in $(( $(date +%s) - start )) s" >&2

cat >"$build/kernel.env.tmp" <<EOT
KSUITE=$suite-uml${debug:+-debug}
KABI=$key
KVER=$kver
UML=$build/linux
MODDIR=$mods/lib/modules/$kver
KDIR=$build
KARCH=um
${debug:+KDEBUG=1}
EOT
mv "$build/kernel.env.tmp" "$build/kernel.env"
echo "$out/kernel.env"
