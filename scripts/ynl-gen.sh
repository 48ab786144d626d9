#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ynl-gen.sh [--policy] OUT: generate the uapi header from
# include/uapi/linux/ktgen.yaml with the kernel's own ynl-gen-c.py (which also
# validates the spec against the genetlink schema). Used by `make uapi` and by
# the header check. With --policy, OUT gets the spec's request policies
# instead (ynl-policy.py), for the policy check.
set -euo pipefail

mode=uapi
if [ "${1:-}" = --policy ]; then
	mode=policy
	shift
fi

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
out=${1:?output file}
ynl=$("$here/fetch-ynl.sh")
py=/usr/bin/python3	# Debian's interpreter: python3-yaml, python3-jsonschema

# ynl-gen-c.py expects a kernel tree: give it a minimal one.
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/Documentation/netlink/specs"
touch "$tree/MAINTAINERS"
cp "$ynl"/Documentation/netlink/*.yaml "$tree/Documentation/netlink/"
cp "$top/include/uapi/linux/ktgen.yaml" "$tree/Documentation/netlink/specs/"
if [ $mode = policy ]; then
	$py "$here/ynl-policy.py" "$ynl/tools/net/ynl/ynl-gen-c.py" \
		"$tree/Documentation/netlink/specs/ktgen.yaml" "$out"
	exit
fi
$py "$ynl/tools/net/ynl/ynl-gen-c.py" --mode uapi --header \
	--spec "$tree/Documentation/netlink/specs/ktgen.yaml" -o "$tree/ktgen.h"
sed 's|Documentation/netlink/specs/ktgen.yaml|include/uapi/linux/ktgen.yaml|' \
	"$tree/ktgen.h" >"$out"
