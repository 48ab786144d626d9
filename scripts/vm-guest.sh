#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-guest.sh: PID 1 of a guest booted by vm-run.sh, on the host's root with
# a tmpfs overlay. Mounts what tests need, runs the command vm-run.sh left
# in /mnt/out/cmd, records its status and powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mkdir -p /run/netns

arg() { sed -n "s/.*ktgvm\\.$1=\\([^ ]*\\).*/\\1/p" /proc/cmdline; }
kver=$(arg kver)
# The kernel's modules, writable so tests can install ktgen.ko and depmod,
# and the host's output directory: 9p under QEMU, hostfs under User-Mode
# Linux (uml-run.sh names the host paths).
mkdir -p /run/modules.lower /run/modules.rw/upper /run/modules.rw/work "/lib/modules/$kver" /mnt/out
if [ -n "$(arg moddir)" ]; then
	mount -r -t hostfs -o "$(arg moddir)" modules /run/modules.lower
	mount -t hostfs -o "$(arg out)" out /mnt/out
else
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro modules /run/modules.lower
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /mnt/out
fi
mount -t overlay -o lowerdir=/run/modules.lower,upperdir=/run/modules.rw/upper,workdir=/run/modules.rw/work \
	modules "/lib/modules/$kver"
# the boot is done: vm-run.sh's watchdog stands down
: >/mnt/out/booted

hostname ktgen-vm
ip link set lo up

bash /mnt/out/cmd </dev/null
rc=$?
echo "$rc" >/mnt/out/exit
sync
echo "KTGEN_EXIT=$rc"
echo o >/proc/sysrq-trigger
sleep 5
echo b >/proc/sysrq-trigger
