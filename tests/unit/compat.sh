#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# compat.sh CHECK_COMPAT: check-compat.sh --compare on hand-made records:
# kernels that agree pass, a differing count, a missing run or a missing
# record fail and are named, differences by design are shown, not failed.
# KTAP output.
cc=${1:?path to check-compat.sh}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
cases=()

t()
{
	# t NAME WANT_EXIT WANT_REGEX LANE...
	local name=$1 want=$2 re=$3 out rc l dirs=()

	shift 3
	for l in "$@"; do
		dirs+=("$tmp/$l")
	done
	n=$((n + 1))
	out=$(KTGEN_CACHE=$tmp "$cc" --compare "${dirs[@]}" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && echo "$out" | grep -Eq -- "$re"; then
		cases+=("ok $n $name")
	else
		cases+=("not ok $n $name")
		cases+=("$(echo "$out" | sed 's/^/# /')")
		cases+=("# exit $rc (want $want), want /$re/")
		failed=$((failed + 1))
	fi
}

INFO5='info: nocache=movnti page_send=sendpage splice_udp=spliced'
INFO7='info: nocache=movnti page_send=splice-pages splice_udp=spliced'
TCP='tcp 127.0.0.1 tx cached rx verify: received=2097152 sent=2097152 splice=spliced'
UDP6='udp ::1 tx zerocopy rx verify size 9000: accounted=True splice=spliced'
mkdir -p "$tmp/a" "$tmp/b" "$tmp/c" "$tmp/d" "$tmp/e" "$tmp/f" "$tmp/g"
echo 5.10 >"$tmp/a/kernel"; printf '%s\n' "$INFO5" "$TCP" "${UDP6/spliced/copied}" >"$tmp/a/record"
echo 7.2 >"$tmp/b/kernel"; printf '%s\n' "$INFO7" "$TCP" "$UDP6" >"$tmp/b/record"
echo 6.12 >"$tmp/c/kernel"; printf '%s\n' "$INFO7" "${TCP/received=2097152/received=2097000}" "$UDP6" >"$tmp/c/record"
echo 6.1 >"$tmp/d/kernel"; printf '%s\n' "$INFO7" "$UDP6" >"$tmp/d/record"
echo 6.1 >"$tmp/e/kernel"
echo 6.1 >"$tmp/f/kernel"; printf '%s\n' "${INFO7/nocache=movnti/nocache=memcpy}" "$TCP" "$UDP6" >"$tmp/f/record"

echo 6.1 >"$tmp/g/kernel"; printf '%s\n' "$INFO7" "tcp 127.0.0.1 tx cached rx verify: done" >"$tmp/g/record"

t agree 0 '^ok 1 compat_results_agree$' a b
t by_design_shown 0 'page_send \(info\) +sendpage +splice-pages' a b
t by_design_udp6 0 'splice \(udp ::1 tx zerocopy.* +copied +spliced' a b
t count_differs 1 'DIFFERS: tcp 127.0.0.1 tx cached rx verify received: b 2097152, c 2097000' b c
t count_differs_not_ok 1 '^not ok 1 compat_results_agree$' b c
t run_missing 1 'tcp 127.0.0.1 tx cached rx verify: not recorded by d' b d
t record_missing 1 'e has no record' b e
t undesigned_info 1 'DIFFERS: info nocache: b movnti, f memcpy' b f
t one_kernel 1 '^not ok 1' b
t bad_record 1 'g: not FIELD=VALUE pairs: tcp 127.0.0.1 tx cached rx verify: done' b g

echo "KTAP version 1"
echo "1..$n"
printf '%s\n' "${cases[@]}"
echo "# compat: $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
