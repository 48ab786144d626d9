#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install-deps.sh: install, once, every host package that building and
# testing ktgen needs. Idempotent and quiet when all is there; uses the
# host's own apt configuration and never changes it.
set -euo pipefail

pkgs=(
	build-essential pkg-config libmnl-dev		# CLI
	bc bison flex libelf-dev libssl-dev dwarves	# kernel and module builds
	openssl						# module signing (tests/unit/build.sh)
	kmod cpio xz-utils zstd rsync debootstrap	# kernel fetch, initramfs, chroots
	qemu-system-x86 busybox-static iproute2 ethtool	# VM test lane
	python3-yaml python3-jsonschema			# YNL generator, JSON schema
	python3-scipy python3-matplotlib gnuplot-nox	# statistics references, plots
	lcov perl					# coverage, checkpatch
	groff-base bash-completion			# man pages, completion (tests/unit/docs.sh)
	clang libclang-rt-14-dev			# libFuzzer (tests/unit/fuzz.c)
	ca-certificates
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: run as root (or install: ${missing[*]})" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get -qq update >&2
apt-get -qq install -y --no-install-recommends "${missing[@]}" >&2
