#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# policy.sh TOP: scripts/check-policy.sh, which the uapi tier trusts to say
# kmod's policies are the spec's, on copies of the tree where they are not:
# a bound changed in kmod, an attribute kmod takes that no request of the
# spec carries, a check dropped from the spec. Each is named; the tree as
# it is passes.

. "$(dirname "$0")/ktap.sh"

top=$(readlink -f "${1:?top of the tree}")

copy()
{
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t/tests/unit" "$tmp/t/kmod/nic"
	cp -r "$top/scripts" "$top/include" "$tmp/t/"
	cp -r "$top/tests/unit/kinclude" "$top/tests/unit/policy.c" "$tmp/t/tests/unit/"
	cp "$top/kmod/policy.c" "$top/kmod/policy.h" "$tmp/t/kmod/"
	cp "$top/kmod/nic/policy.c" "$top/kmod/nic/policy.h" "$tmp/t/kmod/nic/"
}

run()
{
	"$tmp/t/scripts/check-policy.sh" >"$tmp/out" 2>&1
	echo "status $?: $(grep -E '^(# |not ok)' "$tmp/out" | tr '\n' ';')"
}

copy
got=$(run)
result tree_passes "$([ "$got" = "status 0: " ] || echo "$got")"

copy
sed -i 's/#define KTG_MAX_GSO\t\t64/#define KTG_MAX_GSO\t\t65/' "$tmp/t/kmod/policy.h"
got=$(run)
want="status 1: # run.gso: the spec says u32 2..64, kmod says u32 2..65;not ok 3 policy_run;"
result kmod_bound_named "$([ "$got" = "$want" ] || echo "$got")"

copy
sed -i 's/\[KTGEN_A_CONFIG_BUFFER_USED\]\t= { .type = NLA_REJECT }/[KTGEN_A_CONFIG_BUFFER_USED]\t= { .type = NLA_U64 }/' \
	"$tmp/t/kmod/policy.c"
got=$(run)
want="status 1: # config.buffer-used: the spec says refused, kmod says u64 0..18446744073709551615;not ok 1 policy_config;"
result kmod_extra_named "$([ "$got" = "$want" ] || echo "$got")"

copy
/usr/bin/python3 - "$tmp/t/include/uapi/linux/ktgen_nic.yaml" <<'EOP'
import sys
p = sys.argv[1]
s = open(p).read()
old = 'interrupts the q-th online CPU.\n        checks:\n          max-len: 32\n'
assert old in s
open(p, 'w').write(s.replace(old, 'interrupts the q-th online CPU.\n'))
EOP
got=$(run)
want="status 1: # nic.irq-cpus: the spec says binary of 0 bytes or more, kmod says binary of 0..32 bytes;not ok 5 policy_nic;"
result spec_check_named "$([ "$got" = "$want" ] || echo "$got")"

finish policy
