#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-uapi.sh: the committed uapi headers are what the kernel's YNL
# generator makes of their specs (which it also validates against its
# schema), and kmod's attribute policies are what the specs say
# (check-policy.sh). KTAP: a case per header, then a case per attribute set.
set -uo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

headers()
{
	local n=0 rc=0 name

	echo "KTAP version 1"
	echo "1..2"
	for name in ktgen ktgen_nic; do
		n=$((n + 1))
		if ! out=$("$here/ynl-gen.sh" $name "$tmp" 2>&1); then
			echo "$out" | sed 's/^/# /'
			echo "not ok $n ${name}_uapi_matches_spec # the spec does not generate"
			rc=1
		elif diff -u "$top/include/uapi/linux/$name.h" "$tmp" | sed 's/^/# /' | grep .; then
			echo "not ok $n ${name}_uapi_matches_spec # run 'make uapi' and commit the header"
			rc=1
		else
			echo "ok $n ${name}_uapi_matches_spec"
		fi
	done
	return $rc
}

headers
rc=$?
"$here/check-policy.sh" || rc=1
exit $rc
