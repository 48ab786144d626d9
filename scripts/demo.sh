#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: the main job. Where the host can load modules, ktgen runs here
# (KTGEN_DEMO_VM=1 forces the VM); otherwise in a VM on Debian's stock kernel.
#
# Today it loads ktgen and shows the primitives in effect on the kernel:
# which nocache copy and which page-send method the copy-path variants
# will use. The copy-path comparison arrives with the traffic engine.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
suite=${KTGEN_DEMO_SUITE:-bookworm}

"$here/install-deps.sh"
show()
{
	echo "== ktgen info"
	"$top/tools/ktgen" info
	echo "== ktgen -j -p info"
	"$top/tools/ktgen" -j -p info
	echo "== ktgen config show"
	"$top/tools/ktgen" config show
}

if [ "${KTGEN_DEMO_IN_GUEST:-}" = 1 ]; then
	insmod "$KTGEN_KO"
	show
	exit 0
fi

# A host that can load modules runs the demo itself.
if [ -d "/lib/modules/$(uname -r)/build" ] && [ "$(id -u)" = 0 ] &&
   [ "$(cat /proc/sys/kernel/modules_disabled 2>/dev/null)" = 0 ] &&
   [ -z "${KTGEN_DEMO_VM:-}" ]; then
	make -s -C "$top" module tools
	lsmod | grep -q '^ktgen ' || insmod "$top/kmod/ktgen.ko"
	show
	exit 0
fi

kenv=$("$here/fetch-kernel.sh" "$suite")
ko=$("$here/build-module.sh" "$kenv")
make -s -C "$top/tools" ktgen KTGEN_VERSION="$(make -s -C "$top" --no-print-directory print-version)"
# shellcheck disable=SC1090
. "$kenv"
echo "demo: booting Debian $suite kernel $KVER under QEMU (no module loading on this host)"
out=$(mktemp -d /tmp/ktgen-demo.XXXXXX)
set +e
KTGEN_VM_QUIET=1 "$here/vm-run.sh" -k "$kenv" -o "$out" -t 300 -- \
	env KTGEN_DEMO_IN_GUEST=1 KTGEN_KO="$ko" "$here/demo.sh" >/dev/null
rc=$?
set -e
grep -av '^\[ *[0-9.]*\]' "$out/console.log" | sed -n '/^== ktgen info/,/^KTGEN_EXIT/p' | grep -v '^KTGEN_EXIT'
echo "demo: numbers from a VM prove function, not cache effects (TCG models no caches)"
exit $rc
