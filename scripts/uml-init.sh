#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# uml-init.sh: PID 1 of a User-Mode Linux guest booted by uml-run.sh on the
# host's root over hostfs, read-only. Puts a tmpfs overlay over it (so the
# guest can write anywhere and the host's files stay as they are), pivots
# into it and hands over to vm-guest.sh, as vm-run.sh's initramfs does.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t tmpfs -o mode=0755 rw /tmp
mkdir -p /tmp/upper /tmp/work /tmp/root
mount -t overlay -o lowerdir=/,upperdir=/tmp/upper,workdir=/tmp/work root /tmp/root ||
	{ echo "uml-init: no overlay over the hostfs root"; echo o >/proc/sysrq-trigger; }
mkdir -p /tmp/root/.oldroot
ginit=$(sed -n 's/.*ktgvm\.init=\([^ ]*\).*/\1/p' /proc/cmdline)
umount /proc
cd /tmp/root || exit 1
pivot_root . .oldroot
mount -t devtmpfs dev /dev 2>/dev/null
exec chroot . "$ginit"
