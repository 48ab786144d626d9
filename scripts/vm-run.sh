#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-run.sh [-k KERNEL_ENV] [-m MEM] [-c CPUS] [-t SECS] [-o OUTDIR] [-i SHIFT]
#           [-a KERNEL_ARGS] [-n DRIVERS] -- CMD...
#
# Boot a Debian kernel under QEMU/TCG with the host's root file system (over
# 9p, read-only, with a tmpfs overlay so the guest can write anywhere) and
# run CMD as root in the current directory. The guest kernel's modules are
# at /lib/modules/KVER (writable overlay: tests may install into it), OUTDIR
# is writable at /mnt/out. No network leaves the guest (-nic none).
#
# -i SHIFT: QEMU's -icount shift=SHIFT,sleep=off: guest time follows the
# instructions executed (2^SHIFT ns each), so a rate is a cost in
# instructions, free of host noise; one vCPU (two do not boot that way).
#
# -a KERNEL_ARGS: more of the guest kernel's command line (page_owner=on
# on the debug kernel, for a page leak kmemleak cannot see).
#
# -n DRIVERS: real NIC models, two of each ("igb e1000e virtio"), each
# pair wired to a hub of its own inside QEMU (nothing leaves it), booted
# with QEMU 10 from bookworm-backports (scripts/fetch-qemu.sh: bookworm's
# 7.2 has no igb). The guest finds them in ktgvm.nics=DRIVER:MAC,MAC;...
# on its command line; tests/vm/lib.sh's nic_pair names their interfaces.
# virtio-net over a hub has one queue and no tx checksum offload.
#
# The console goes to OUTDIR/console.log and stdout. Exit status: CMD's, or
# 124 on timeout, 125 when the guest died before CMD finished.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}
kenv= mem=1536 cpus=2 secs=600 out= icount=() kargs= drivers=
while getopts "k:m:c:t:o:i:a:n:" o; do
	case $o in
	k) kenv=$OPTARG ;;
	m) mem=$OPTARG ;;
	c) cpus=$OPTARG ;;
	t) secs=$OPTARG ;;
	o) out=$OPTARG ;;
	i) icount=(-icount "shift=$OPTARG,sleep=off") cpus=1 ;;
	a) kargs=$OPTARG ;;
	n) drivers=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || { echo "usage: vm-run.sh [-k ENV] [-o OUT] -- CMD..." >&2; exit 2; }
[ -n "$kenv" ] || kenv=$("$here/fetch-kernel.sh" bookworm)
# shellcheck disable=SC1090
. "$kenv"
[ -n "$out" ] || out=$(mktemp -d /tmp/ktgen-vm.XXXXXX)
mkdir -p "$out"
out=$(readlink -f "$out")
rm -f "$out/exit" "$out/console.log" "$out/booted" "$out/qemu.pid"

# The initramfs: busybox, the modules the 9p root needs (none when they are
# built in), and an init that mounts the root and hands over to vm-guest.sh.
initrd=$CACHE/initrd/$(echo "$KVER-$(sha256sum <"$here/vm-run.sh" | cut -c1-8)").cpio.gz
if [ ! -e "$initrd" ]; then
	tmp=$(mktemp -d)
	mkdir -p "$tmp"/{bin,dev,proc,sys,lower,rw,newroot,modules} "$(dirname "$initrd")"
	cp /bin/busybox "$tmp/bin/busybox"
	# A module built into the kernel has no .ko to load (and sid ships no
	# modules.builtin that would make modprobe say so): nothing to add.
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		modprobe -d "${MODDIR%/lib/modules/*}" -S "$KVER" --show-depends "$m" 2>/dev/null |
			awk '$1 == "insmod" { print $2 }' || true
	done | awk '!seen[$0]++' | while read -r ko; do
		n=$(basename "$ko")
		case $n in
		*.xz) xz -dc "$ko" >"$tmp/modules/${n%.xz}"; n=${n%.xz} ;;
		*.zst) zstd -qdc "$ko" >"$tmp/modules/${n%.zst}"; n=${n%.zst} ;;
		*) cp "$ko" "$tmp/modules/$n" ;;
		esac
		echo "$n" >>"$tmp/modules/order"
	done
	cat >"$tmp/init" <<'EOT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
[ -e /modules/order ] && for m in $(cat /modules/order); do insmod /modules/$m; done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro hostroot /lower
mount -t tmpfs -o mode=0755 rw /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work root /newroot
ginit=$(sed -n 's/.*ktgvm\.init=\([^ ]*\).*/\1/p' /proc/cmdline)
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot "$ginit"
EOT
	chmod +x "$tmp/init"
	(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd.tmp"
	mv "$initrd.tmp" "$initrd"
	rm -rf "$tmp"
fi

# What the guest runs, and where.
{
	echo "cd $(printf %q "$PWD")"
	printf '%q ' "$@"
	echo
} >"$out/cmd"

console=$out/console.log
# The NIC pairs: hub N joins the two devices of the Nth driver, at PCI
# slots N+2 and N+7: an igb's SR-IOV functions take the two slots 16
# after its own (two igbs a slot apart collide, "function 0 not available
# for igbvf"; one past slot 15 overflows). MACs 52:54:00:77:0N:01, :02.
qemu=qemu-system-x86_64 nics=() nicspec= machine=q35
if [ -n "$drivers" ]; then
	# QEMU 10's q35 never leaves SeaBIOS under icount (any shift, sleep
	# on or off: seen); its pc machine boots, and takes the NICs.
	[ ${#icount[@]} -gt 0 ] && machine=pc
	qroot=$("$here/fetch-qemu.sh")
	qemu=$qroot/usr/bin/qemu-system-x86_64
	export QEMU_MODULE_DIR=$qroot/usr/lib/x86_64-linux-gnu/qemu
	nics=(-L "$qroot/usr/share/qemu" -L /usr/share/seabios)
	h=0
	for d in $drivers; do
		case $d in
		igb | e1000e | e1000) dev=$d ;;
		virtio) dev=virtio-net-pci ;;
		*) echo "vm-run: no such NIC model: $d (igb, e1000e, e1000, virtio)" >&2; exit 2 ;;
		esac
		h=$((h + 1))
		macs=
		for e in 1 2; do
			mac=52:54:00:77:0$h:0$e
			nics+=(-netdev "hubport,id=n${h}p$e,hubid=$h"
				-device "$dev,netdev=n${h}p$e,mac=$mac,romfile=,addr=$(printf 0x%x $((h + 2 + (e - 1) * 5)))")
			macs+=${macs:+,}$mac
		done
		nicspec+=${nicspec:+\;}$d:$macs
	done
	kargs+=${kargs:+ }ktgvm.nics=$nicspec
fi

# No 5-level paging (la57=off): while the boot CPU is identified its
# feature bits are cleared and read again, and a KASAN kernel that takes an
# interrupt in that window sees LA57 off, its direct map outside the
# shadow, and reports a wild access in the interrupt's spinlock (seen in 1
# of ~10 debug boots on a loaded host; the report turns lockdep off for the
# whole lane). Lab hosts page with 4 levels anyway.
# A boot that never reaches the guest's init (seen under TCG: the clock
# stuck after "tsc: Unable to calibrate against PIT", the guest idle for
# good) is ended after KTGEN_VM_BOOT_SECS (300) instead of at the
# command's limit: the guest died before its command (125), which
# vm-suite.sh boots once more. vm-guest.sh leaves OUTDIR/booted.
boot_secs=${KTGEN_VM_BOOT_SECS:-300}
(
	for ((i = 0; i < boot_secs; i++)); do
		[ -e "$out/booted" ] && exit 0
		sleep 1
	done
	[ -s "$out/qemu.pid" ] || exit 0
	echo "vm-run: the guest's init had not started after $boot_secs s: a hung boot, ended" >&2
	kill -TERM "$(cat "$out/qemu.pid")" 2>/dev/null
) &
watchdog=$!
set +e
timeout --foreground -k 10 "$secs" "$qemu" -pidfile "$out/qemu.pid" \
	-M $machine -cpu max,la57=off -smp "$cpus" -m "$mem" -nic none "${icount[@]}" "${nics[@]}" \
	-nographic -no-reboot -monitor none -serial stdio \
	-kernel "$VMLINUZ" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 oops=panic loglevel=5 log_buf_len=16M ktgvm.init=$here/vm-guest.sh ktgvm.kver=$KVER${kargs:+ $kargs}" \
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
	-virtfs "local,path=$MODDIR,mount_tag=modules,security_model=none,readonly=on,multidevs=remap" \
	-virtfs "local,path=$out,mount_tag=out,security_model=none,multidevs=remap" \
	</dev/null 2>&1 | tee "$console" | { if [ -n "${KTGEN_VM_QUIET:-}" ]; then cat >/dev/null; else cat; fi; }
qrc=${PIPESTATUS[0]}
kill "$watchdog" 2>/dev/null
wait "$watchdog" 2>/dev/null
set -e
[ "$qrc" = 124 ] && { echo "vm-run: timeout after $secs s" >&2; exit 124; }
if [ -e "$out/exit" ]; then
	exit "$(cat "$out/exit")"
fi
echo "vm-run: the guest died before the command finished (see $console)" >&2
exit 125
