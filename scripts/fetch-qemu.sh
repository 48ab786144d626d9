#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-qemu.sh: QEMU 10 from Debian's bookworm-backports, for the real
# NIC models bookworm's QEMU 7.2 lacks (igb came with 8.0), unpacked once
# with dpkg -x under $KTGEN_CACHE/qemu10 (deb-root.sh: nothing installed,
# /etc/apt untouched). Prints the root; run its binary with
# QEMU_MODULE_DIR=ROOT/usr/lib/x86_64-linux-gnu/qemu (vm-run.sh -n does).
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
exec "$here/deb-root.sh" qemu10 bookworm-backports \
	qemu-system-x86 qemu-system-common qemu-system-data -- usr/bin/qemu-system-x86_64
