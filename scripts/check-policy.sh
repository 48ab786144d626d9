#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-policy.sh: kmod/policy.c's and kmod/nic/policy.c's attribute
# policies are what the specs say. The specs' request policies come from
# the kernel's YNL generator (ynl-gen.sh --policy); tests/unit/policy.c
# builds them beside kmod's on the host, with the kernel's policy types
# (tests/unit/kinclude), and puts each attribute in words both ways.
# KTAP, a case per attribute set.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$here/ynl-gen.sh" --policy "$tmp/spec-policy.c"
${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -Wno-missing-field-initializers \
	-I"$top/tests/unit/kinclude" -I"$top/include/uapi" -I"$top/kmod" \
	-DSPEC_POLICY="\"$tmp/spec-policy.c\"" -o "$tmp/policy" \
	"$top/tests/unit/policy.c" "$top/kmod/policy.c" "$top/kmod/nic/policy.c"
"$tmp/policy"
