#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-uapi.sh: the committed uapi header is what the kernel's YNL
# generator makes of the spec (which it also validates against the
# genetlink schema), and kmod's attribute policies are what the spec says
# (check-policy.sh). KTAP: one case, then a case per attribute set.
set -uo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

header()
{
	echo "KTAP version 1"
	echo "1..1"
	if ! out=$("$here/ynl-gen.sh" "$tmp" 2>&1); then
		echo "$out" | sed 's/^/# /'
		echo "not ok 1 uapi_matches_spec # the spec does not generate"
		return 1
	fi
	if ! diff -u "$top/include/uapi/linux/ktgen.h" "$tmp" | sed 's/^/# /' | grep .; then
		echo "ok 1 uapi_matches_spec"
		return 0
	fi
	echo "not ok 1 uapi_matches_spec # run 'make uapi' and commit the header"
	return 1
}

header
rc=$?
"$here/check-policy.sh" || rc=1
exit $rc
