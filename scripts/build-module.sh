#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-module.sh KERNEL_ENV: build ktgen.ko for the kernel described by
# KERNEL_ENV (from fetch-kernel.sh or build-debug-kernel.sh) in a per-kernel
# copy of the tree under $KTGEN_CACHE/build, W=1, failing on any warning;
# with KTGEN_TEST_HOOKS=1 (the test lanes, vm-suite.sh) the test hooks are
# built in (kmod/debug.h: set under debugfs), else it is a production build.
# The debug kernel's build gets gcov instrumentation. Prints the .ko path.
#
# Suites whose kbuild tools and compiler the host cannot run (trixie and
# later: glibc 2.38, gcc-14) are built for inside a chroot of that suite
# (build-chroot.sh): the copy of the tree is then under the chroot's
# /build, the probes and the build run there against the chroot's headers,
# and the printed path is the host's view of it.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}
# shellcheck disable=SC1090
. "${1:?kernel env}"

# User-Mode Linux (build-uml-kernel.sh): kbuild takes the architecture from
# the environment, for the probes as for the build.
if [ -n "${KARCH:-}" ]; then
	export ARCH=$KARCH SUBARCH=x86_64
fi
# a build with the test hooks has its own tree: a lane's and a bench's
# module, built side by side, never share objects or a .ko
hooks=${KTGEN_TEST_HOOKS:-0}
sfx=
[ "$hooks" = 1 ] && sfx=-hooks
case $KSUITE in
trixie|sid)
	croot=$("$here/build-chroot.sh" "$KSUITE" "$1")
	ib=/build/$KSUITE-$KABI$sfx		# the tree, seen from the build
	b=$croot$ib				# the tree, seen from the host
	hdrs=/usr/src/linux-headers-$KVER
	run() { "$here/build-chroot.sh" --exec "$KSUITE" "$@"; }
	;;
bullseye)
	# Its headers name gcc-10: the host's gcc builds modules that load.
	export CC=gcc
	;&
*)
	ib=$CACHE/build/$KSUITE-$KABI$sfx
	b=$ib
	hdrs=$KDIR
	run() { "$@"; }
	;;
esac

mkdir -p "$b/scripts"
rsync -a --delete --exclude compat-gen.h --exclude '*.o' --exclude '*.ko' \
	--exclude '.*.cmd' --exclude '*.gcno' --exclude '*.mod*' \
	"$top/Kbuild" "$top/kmod" "$top/include" "$b/"
cp "$here/compat-probe.sh" "$b/scripts/"
# make goes by mtimes, and another tree (a CI clone) may have built here
# from older sources with newer objects: objects of other sources go.
sum=$( (cd "$b" && find Kbuild kmod include -type f \( -name '*.[ch]' -o -name Kbuild \) \
	! -name compat-gen.h ! -name '*.mod.c' -print0 | sort -z | xargs -0 sha256sum
	echo "hooks $hooks") | sha256sum)
if [ "$(cat "$b/.ktgen-src" 2>/dev/null)" != "$sum" ]; then
	find "$b" -name '*.o' -delete
	rm -f "$b/.ktgen-src"
fi
run "$ib/scripts/compat-probe.sh" "$hdrs" "$ib/kmod"
version=$(make -s -C "$top" --no-print-directory print-version)
gcov=
# (the debug kernel's: the KCSAN one, KDEBUG=kcsan, has no gcov)
[ "${KDEBUG:-}" = 1 ] && gcov=KTGEN_GCOV=1
log=$b/build.log
if ! run make -j"$(nproc)" -C "$hdrs" M="$ib" ${CC:+CC=$CC} W=1 KTGEN_VERSION="$version" \
	KTGEN_TEST_HOOKS="$hooks" $gcov modules >"$log" 2>&1; then
	cat "$log" >&2
	exit 1
fi
if grep -E 'warning:|error:' "$log" >&2; then
	echo "build-module: warnings building for $KVER (W=1)" >&2
	exit 1
fi
echo "$sum" >"$b/.ktgen-src"
echo "$b/kmod/ktgen.ko"
