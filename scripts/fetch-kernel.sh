#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-kernel.sh [SUITE]
#
# Fetch the current stock Debian kernel of SUITE (default bookworm) without
# installing it: image, modules and headers are dpkg -x'ed into
# $KTGEN_CACHE/kernels/SUITE/ABI/root and depmod'ed. Prints the path of a
# shell fragment defining KVER, VMLINUZ, MODDIR and KDIR.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}
suite=${1:-bookworm}
apt="$here/apt-suite.sh $suite"

pins=$here/kernels.pin

# The archive's current ABI of $1, from the metapackage (empty: unreachable).
archive_abi()
{
	"$here/apt-suite.sh" "$1" depends linux-image-amd64 2>/dev/null |
		sed -n 's/^linux-image-\(.*\)-amd64\(-unsigned\)\?$/\1/p' | head -n 1 || true
}

# --check-pins: which pins the archive has moved past (exit 1 if any).
if [ "$suite" = --check-pins ]; then
	rc=0
	while read -r s p; do
		case $s in "#"* | "") continue ;; esac
		a=$(archive_abi "$s")
		if [ -z "$a" ]; then
			echo "$s: pinned $p; the archive cannot be reached"
			rc=1
		elif [ "$a" != "$p" ]; then
			echo "$s: pinned $p; the archive has $a: update scripts/kernels.pin"
			rc=1
		else
			echo "$s: pinned $p, current"
		fi
	done <"$pins"
	exit $rc
fi

# The ABI is the pinned one (kernels.pin); the archive's current one only
# when the pin is neither cached nor served any more.
base=$CACHE/kernels/$suite
abi=$(awk -v s="$suite" '$1 == s { print $2 }' "$pins")
if [ -z "$abi" ]; then
	abi=$(archive_abi "$suite")
elif [ ! -e "$base/$abi/kernel.env" ] &&
     ! $apt depends "linux-image-$abi-amd64" >/dev/null 2>&1 &&
     ! $apt depends "linux-image-$abi-amd64-unsigned" >/dev/null 2>&1; then
	cur=$(archive_abi "$suite")
	echo "fetch-kernel: $suite's pinned kernel $abi is gone from the archive and not" \
		"cached: using ${cur:-none}; update scripts/kernels.pin" >&2
	abi=$cur
fi
# make check fetches a suite's kernel from several places at once (the
# debug and UML kernels' builds, a lane): one fetches, the others wait.
mkdir -p "$base"
exec 9>"$base/.lock"
flock 9
if [ -z "$abi" ]; then
	if [ -e "$base/current/kernel.env" ]; then
		echo "$base/current/kernel.env"
		exit 0
	fi
	echo "fetch-kernel: cannot resolve the $suite kernel ABI" >&2
	exit 1
fi

dir=$base/$abi
if [ -e "$dir/kernel.env" ]; then
	ln -sfn "$abi" "$base/current"
	echo "$dir/kernel.env"
	exit 0
fi

echo "fetch-kernel: fetching $suite kernel $abi" >&2
debs=$dir/debs
mkdir -p "$debs"
img=linux-image-$abi-amd64
# sid splits the image into linux-binary-* and linux-modules-*.
pkgs=$($apt depends "$img" | grep -E '^linux-(image|binary|modules)-' || true)
[ -n "$pkgs" ] || pkgs=$img
for p in $pkgs; do
	case $p in
	linux-image-*-unsigned|linux-binary-*|linux-modules-*) img="$img $p" ;;
	esac
done
kbuild=$($apt depends "linux-headers-$abi-amd64" | grep -E '^linux-kbuild-' | head -n 1)
common=$($apt depends "linux-headers-$abi-amd64" | grep -E '^linux-headers-.*-common' | head -n 1)
# shellcheck disable=SC2086
$apt download "$debs" $img "linux-headers-$abi-amd64" $common $kbuild

rm -rf "$dir/root"
mkdir -p "$dir/root"
for d in "$debs"/*.deb; do
	dpkg -x "$d" "$dir/root"
done

root=$dir/root
kver=$(ls "$root/lib/modules" 2>/dev/null || ls "$root/usr/lib/modules")
moddir=$root/lib/modules/$kver
[ -d "$moddir" ] || moddir=$root/usr/lib/modules/$kver
vmlinuz=$root/boot/vmlinuz-$kver
[ -e "$vmlinuz" ] || vmlinuz=$moddir/vmlinuz
kdir=$root/usr/src/linux-headers-$kver

# The headers' Makefile and symlinks name absolute /usr/src and /usr/lib paths:
# point them into the extracted tree.
grep -rlZ --include=Makefile "/usr/src/linux-headers-" "$kdir" 2>/dev/null |
	xargs -0 -r sed -i "s|/usr/src/linux-headers-|$root/usr/src/linux-headers-|g"
for l in $(find "$root/usr/src" "$moddir" -maxdepth 2 -type l); do
	t=$(readlink "$l")
	case $t in
	/usr/*) ln -sfn "$root$t" "$l" ;;
	esac
done
ln -sfn "$kdir" "$moddir/build"

# The guest's modprobe reads the tree at /lib/modules/KVER.
depmod -b "${moddir%/lib/modules/*}" "$kver"

cat >"$dir/kernel.env" <<EOT
KSUITE=$suite
KABI=$abi
KVER=$kver
VMLINUZ=$vmlinuz
MODDIR=$moddir
KDIR=$kdir
EOT
ln -sfn "$abi" "$base/current"
echo "$dir/kernel.env"
