#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ynl-gen.sh NAME OUT: generate the uapi header of include/uapi/linux/NAME.yaml
# (ktgen: the genetlink family; ktgen_nic: the virtual NIC's link data) with
# the kernel's own ynl-gen-c.py (which also validates the spec against its
# schema). Used by `make uapi` and by the header check.
# ynl-gen.sh --policy OUT: the request policies of both specs instead
# (ynl-policy.py), for the policy check and the fuzzer.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
SPECS="ktgen ktgen_nic"

mode=uapi
if [ "${1:-}" = --policy ]; then
	mode=policy
	shift
else
	name=${1:?spec name: ktgen or ktgen_nic}
	shift
	[[ " $SPECS " == *" $name "* ]] || { echo "ynl-gen.sh: no spec $name" >&2; exit 2; }
fi
out=${1:?output file}
ynl=$("$here/fetch-ynl.sh")
py=/usr/bin/python3	# Debian's interpreter: python3-yaml, python3-jsonschema

# ynl-gen-c.py expects a kernel tree: give it a minimal one.
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
specs=$tree/Documentation/netlink/specs
mkdir -p "$specs"
touch "$tree/MAINTAINERS"
cp "$ynl"/Documentation/netlink/*.yaml "$tree/Documentation/netlink/"
for s in $SPECS; do
	cp "$top/include/uapi/linux/$s.yaml" "$specs/"
done
if [ $mode = policy ]; then
	# shellcheck disable=SC2046
	$py "$here/ynl-policy.py" "$ynl/tools/net/ynl/ynl-gen-c.py" "$out" \
		$(for s in $SPECS; do echo "$specs/$s.yaml"; done)
	exit
fi
$py "$ynl/tools/net/ynl/ynl-gen-c.py" --mode uapi --header \
	--spec "$specs/$name.yaml" -o "$tree/$name.h"
# A link kind has no commands: the empty command enum the generator
# writes for a spec without operations is left out.
sed "s|Documentation/netlink/specs/$name.yaml|include/uapi/linux/$name.yaml|" "$tree/$name.h" |
	perl -0pe 's/enum \{\n\n\t__\w+_CMD_MAX,\n\t\w+_CMD_MAX = \(__\w+_CMD_MAX - 1\)\n\};\n\n//' >"$out"
