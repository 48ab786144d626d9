#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-chroot.sh SUITE [KERNEL_ENV]
# build-chroot.sh --exec SUITE CMD...
#
# Kernels of newer suites cannot be built for with the host's toolchain:
# their modpost and objtool need a newer glibc, their headers a newer gcc.
# The first form creates, once, a minbase debootstrap chroot of SUITE under
# $KTGEN_CACHE/chroot/SUITE with what out-of-tree module builds need, and
# installs in it the headers and kbuild packages of KERNEL_ENV's kernel
# (default: SUITE's current kernel from fetch-kernel.sh), so that the
# chroot has /usr/src/linux-headers-KVER. Idempotent; prints the chroot's
# path. The second form runs CMD inside the chroot (own mount namespace,
# /proc mounted, clean environment, C locale).
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}
MIRROR=${KTGEN_MIRROR:-http://deb.debian.org/debian}

# in_chroot ROOT CMD...: the mounts live and die with the namespace, so
# nothing is ever left mounted on the host.
in_chroot()
{
	local root=$1

	shift
	# shellcheck disable=SC2016
	unshare -m --propagation private sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" || exit 1
		exec chroot "$r" "$@"' sh "$root" \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C \
		TERM=dumb "$@"
}

if [ "${1:-}" = --exec ]; then
	suite=${2:?suite}
	shift 2
	root=$CACHE/chroot/$suite
	[ -e "$root/.ktgen-base" ] || { echo "build-chroot: no $suite chroot" >&2; exit 1; }
	in_chroot "$root" "$@"
	exit
fi

suite=${1:?suite}
kenv=${2:-}

case $suite in
trixie)	pkgs=gcc-14 ;;
sid)	pkgs=gcc-16,gcc-16-for-host ;;
*)	echo "build-chroot: no package set for $suite" >&2; exit 2 ;;
esac
# Kbuild and the kbuild package's tools (modpost, objtool, resolve_btfids,
# pahole for module BTF), kmod/xz for compressed modules, and perl for the
# kernel-doc check that W=1 runs on every object.
pkgs=$pkgs,make,libc6-dev,libelf1t64,libssl3t64,zlib1g,pahole,linux-base,kmod,xz-utils,bc,perl

root=$CACHE/chroot/$suite
mkdir -p "$CACHE/chroot"
exec 9>"$CACHE/chroot/.$suite.lock"
flock 9

# The marker names the package set: a changed set rebuilds the chroot.
if [ "$(cat "$root/.ktgen-base" 2>/dev/null)" != "$pkgs" ]; then
	# A leftover of an interrupted run or of an older package set:
	# never delete through a mount.
	if [ -e "$root" ]; then
		if awk -v r="$root/" 'index($2 "/", r) == 1 { f = 1 } END { exit !f }' /proc/mounts; then
			echo "build-chroot: something is mounted under $root" >&2
			exit 1
		fi
		rm -rf "$root"
	fi
	echo "build-chroot: debootstrap $suite into $root" >&2
	t0=$(date +%s)
	if ! debootstrap --variant=minbase --include="$pkgs" "$suite" "$root" "$MIRROR" \
		>"$CACHE/chroot/$suite.log" 2>&1; then
		tail -n 30 "$CACHE/chroot/$suite.log" >&2
		echo "build-chroot: debootstrap failed (log: $CACHE/chroot/$suite.log)" >&2
		exit 1
	fi
	# Nothing is installed later but our .debs: drop the archives.
	rm -f "$root"/var/cache/apt/archives/*.deb
	mkdir -p "$root/build"
	echo "$pkgs" >"$root/.ktgen-base"
	echo "build-chroot: $suite chroot ready in $(( $(date +%s) - t0 )) s" >&2
fi

# The kernel's headers, installed the way a user would, minus the image
# (and the linux-base-ABI package sid's headers depend on).
[ -n "$kenv" ] || kenv=$("$here/fetch-kernel.sh" "$suite")
# shellcheck disable=SC1090
. "$kenv"
if [ ! -e "$root/.ktgen-headers-$KVER" ]; then
	debs=$(dirname "$kenv")/debs
	tmp=$root/tmp/ktgen-debs
	rm -rf "$tmp"
	mkdir -p "$tmp"
	cp "$debs"/linux-headers-*.deb "$debs"/linux-kbuild-*.deb "$tmp/"
	# shellcheck disable=SC2016
	if ! in_chroot "$root" sh -c 'dpkg -i --ignore-depends="$1" /tmp/ktgen-debs/*.deb' sh \
		"linux-image-$KVER,linux-image-$KVER-unsigned,linux-base-$KVER" >"$root/tmp/ktgen-dpkg.log" 2>&1; then
		cat "$root/tmp/ktgen-dpkg.log" >&2
		echo "build-chroot: cannot install the $KVER headers in the $suite chroot" >&2
		exit 1
	fi
	rm -rf "$tmp"
	[ -e "$root/usr/src/linux-headers-$KVER/Makefile" ] || {
		echo "build-chroot: no /usr/src/linux-headers-$KVER after dpkg -i" >&2
		exit 1
	}
	touch "$root/.ktgen-headers-$KVER"
fi
echo "$root"
