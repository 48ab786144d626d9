#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ktap.sh: what the host test scripts share, sourced by them. A scratch
# directory $tmp removed on exit; result NAME DIAGNOSTICS records a case
# (ok when there are none), skip NAME WHY a skipped one; finish NAME prints
# the KTAP document and a "# NAME: N passed, N failed" line and exits 0
# only when nothing failed.

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
cases=()

result()
{
	n=$((n + 1))
	if [ -z "$2" ]; then
		cases+=("ok $n $1")
	else
		cases+=("not ok $n $1")
		cases+=("$(printf '%s\n' "$2" | sed '/^$/d; s/^/# /')")
		failed=$((failed + 1))
	fi
}

skip()
{
	n=$((n + 1))
	cases+=("ok $n $1 # SKIP $2")
}

finish()
{
	echo "KTAP version 1"
	echo "1..$n"
	printf '%s\n' "${cases[@]}"
	echo "# $1: $((n - failed)) passed, $failed failed"
	[ "$failed" = 0 ]
	exit
}
