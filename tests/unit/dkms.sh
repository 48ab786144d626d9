#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms.sh [KERNEL_ENV]: the module's installation against a kernel's
# headers, by default Debian bookworm's stock kernel (scripts/fetch-kernel.sh
# fetches them once into $KTGEN_CACHE): make install-module into a DESTDIR
# puts exactly lib/modules/KVER/updates/ktgen/{ktgen,ktgen_nic}.ko there,
# built for KVER, and uninstall-module takes them away; make dkms-tarball, then dkms
# ldtarball, build, install and remove for KVER in a temporary DKMS tree,
# nothing of it in /var/lib/dkms, /usr/src or /lib/modules. The module is
# built in a copy of the sources, so the tree's kmod/ gets no objects.
# Without dkms (or root, which dkms wants) the dkms cases skip.
#
# Two module builds take a minute or more (about 70 s on 2 cores), too
# long for make check-unit: run it by hand. KTAP output.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$(dirname "$here")")
# shellcheck source=tests/unit/ktap.sh
. "$here/ktap.sh"

tree()
{
	(cd "$1" && find . \( -type f -o -type l \) -printf '%P\n' | sort)
}

env=${1:-}
if [ -z "$env" ] && ! env=$("$top/scripts/fetch-kernel.sh" bookworm 2>"$tmp/fetch.log"); then
	for c in install_module_destdir uninstall_module_destdir dkms_build dkms_install_remove; do
		skip "$c" "no kernel headers: $(tail -n 1 "$tmp/fetch.log")"
	done
	finish dkms
fi
# shellcheck disable=SC1090
. "$env"
version=$(sed -n 's/^VERSION[[:space:]]*:=[[:space:]]*//p' "$top/Makefile")

# make install-module and uninstall-module, in a copy of the sources.
mkdir -p "$tmp/src"
tar -C "$top" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod*' --exclude='.*.cmd' \
	--exclude=compat-gen.h --exclude=modules.order --exclude=Module.symvers \
	Makefile Kbuild kmod include scripts | tar -C "$tmp/src" -xf -
d=""
make -C "$tmp/src" install-module KDIR="$KDIR" DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1 ||
	d+="make install-module failed: $(tail -n 20 "$tmp/install.log")"$'\n'
want="lib/modules/$KVER/updates/ktgen/ktgen.ko"$'\n'"lib/modules/$KVER/updates/ktgen/ktgen_nic.ko"
got=$(tree "$tmp/root" 2>/dev/null || true)
[ "$got" = "$want" ] || d+="installed '$got', not $want"$'\n'
for m in $want; do
	magic=$(modinfo -F vermagic "$tmp/root/$m" 2>/dev/null || true)
	[ "${magic%% *}" = "$KVER" ] || d+="$m: vermagic '$magic', not $KVER"$'\n'
done
grep -q '^depmod: skipped, DESTDIR is set' "$tmp/install.log" || d+="no word of depmod skipped"$'\n'
result install_module_destdir "$d"

d=""
make -C "$tmp/src" uninstall-module KDIR="$KDIR" DESTDIR="$tmp/root" >"$tmp/uninstall.log" 2>&1 ||
	d+="make uninstall-module failed: $(cat "$tmp/uninstall.log")"$'\n'
got=$(tree "$tmp/root" 2>/dev/null || true)
[ -z "$got" ] || d+="left: $got"$'\n'
[ ! -e "$tmp/root/lib/modules/$KVER/updates" ] || d+="left updates/"$'\n'
result uninstall_module_destdir "$d"

if ! command -v dkms >/dev/null; then
	skip dkms_build "dkms is not installed"
	skip dkms_install_remove "dkms is not installed"
	finish dkms
fi
if [ "$(id -u)" != 0 ]; then
	skip dkms_build "dkms needs root"
	skip dkms_install_remove "dkms needs root"
	finish dkms
fi

# What a DKMS run must not touch: the system's own trees.
system()
{
	ls -d /var/lib/dkms/ktgen /usr/src/ktgen-* "/lib/modules/$KVER/updates/dkms/ktgen"*.ko* \
		2>/dev/null || true
}
before=$(system)
trees=(--dkmstree "$tmp/dkms" --sourcetree "$tmp/usr-src" --installtree "$tmp/modules")
kernel=(-k "$KVER" --kernelsourcedir "$KDIR")

d=""
make -s -C "$top" dkms-tarball DKMS_TARBALL="$tmp/ktgen.dkms.tar.gz" >"$tmp/tarball.log" 2>&1 ||
	d+="make dkms-tarball failed: $(cat "$tmp/tarball.log")"$'\n'
{
	dkms ldtarball "${trees[@]}" "$tmp/ktgen.dkms.tar.gz" &&
		dkms build "ktgen/$version" "${kernel[@]}" "${trees[@]}"
} >"$tmp/dkms.log" 2>&1 || d+="dkms failed: $(tail -n 20 "$tmp/dkms.log")"$'\n'
for m in ktgen ktgen_nic; do
	ko=$tmp/dkms/ktgen/$version/$KVER/$(uname -m)/module/$m.ko
	magic=$(modinfo -F vermagic "$ko" 2>/dev/null || true)
	[ "${magic%% *}" = "$KVER" ] || d+="$ko: vermagic '$magic', not $KVER"$'\n'
done
log=$tmp/dkms/ktgen/$version/$KVER/$(uname -m)/log/make.log
grep -q 'compat-probe' "$tmp/dkms.log" || d+="the build did not run the compat probes"$'\n'
if grep -E 'warning:|error:' "$log" >"$tmp/warnings" 2>/dev/null; then
	d+="the build warned: $(cat "$tmp/warnings")"$'\n'
fi
result dkms_build "$d"

d=""
mkdir -p "$tmp/modules/$KVER"
dkms install "ktgen/$version" "${kernel[@]}" "${trees[@]}" --no-depmod >>"$tmp/dkms.log" 2>&1 ||
	d+="dkms install failed: $(tail -n 20 "$tmp/dkms.log")"$'\n'
got=$(tree "$tmp/modules" 2>/dev/null || true)
[ "$got" = "$KVER/updates/dkms/ktgen.ko"$'\n'"$KVER/updates/dkms/ktgen_nic.ko" ] ||
	d+="dkms installed '$got'"$'\n'
dkms remove "ktgen/$version" --all "${trees[@]}" --no-depmod >>"$tmp/dkms.log" 2>&1 ||
	d+="dkms remove failed: $(tail -n 20 "$tmp/dkms.log")"$'\n'
got=$(tree "$tmp/modules" 2>/dev/null || true)
[ -z "$got" ] || d+="dkms remove left '$got'"$'\n'
[ "$(system)" = "$before" ] || d+="the system's trees changed: $(system)"$'\n'
result dkms_install_remove "$d"

finish dkms
