#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [--list] [CASE-REGEX]: run the VM scenarios (t_*.sh) as KTAP.
#
# With KTGEN_CASE_BUDGET=SECS (make check's debug lane, sized to what is
# left of the CI budget) the "core" cases run first, then the others, and
# a case not started within SECS is reported as skipped, by name; "final"
# cases run last whatever the budget.
#
# Before each case a marker goes to /dev/kmsg; the kernel log from the
# marker on is searched for reports afterwards, so a WARNING, BUG, KASAN,
# lockdep, ODEBUG, soft-lockup or hung-task report fails the case that
# caused it. After each case the module is unloaded and the case's network
# namespaces removed, so one failure does not poison the next case.
set -u
dir=$(dirname "$(readlink -f "$0")")
# shellcheck source=tests/vm/lib.sh
. "$dir/lib.sh"
for f in "$dir"/t_*.sh; do
	# shellcheck disable=SC1090
	. "$f"
done

filter=
list=0
for a in "$@"; do
	case $a in
	--list) list=1 ;;
	*) filter=$a ;;
	esac
done
budget=${KTGEN_CASE_BUDGET:-}
sel=()
for c in "${CASES[@]}"; do
	[[ -z $filter || $c =~ $filter ]] && sel+=("$c")
done
# The rotation (with a budget): the cases are dealt into three slices by
# their place in the suite, and KTGEN_ROTATION (make check: the commit
# count) says whose turn it is. That slice goes first, its core cases
# first, then the other core cases, then the rest: what runs does not
# depend on how fast the machine happens to be, and every case has its
# turn under the debug kernel in any three consecutive CI runs, as far as
# the budget reaches (the ledger at the end says how far it did).
declare -A CASE_DUE
slices=3
turn=$(( ${KTGEN_ROTATION:-0} % slices ))
if [ -n "$budget" ]; then
	duecore=() due=() core=() rest=() last=()
	i=0
	for c in "${sel[@]}"; do
		if [ -n "${CASE_FINAL[$c]:-}" ]; then
			last+=("$c")
			continue
		fi
		if [ $((i % slices)) = "$turn" ]; then
			CASE_DUE[$c]=1
			if [ -n "${CASE_CORE[$c]:-}" ]; then duecore+=("$c"); else due+=("$c"); fi
		elif [ -n "${CASE_CORE[$c]:-}" ]; then
			core+=("$c")
		else
			rest+=("$c")
		fi
		i=$((i + 1))
	done
	sel=("${duecore[@]}" "${due[@]}" "${core[@]}" "${rest[@]}" "${last[@]}")
fi
if [ $list = 1 ]; then
	printf '%s\n' "${sel[@]}"
	exit 0
fi

ktap=${KTGEN_KTAP:-/dev/null}
# shellcheck source=tests/vm/reports.sh
. "$dir/reports.sh"

# Report lines in the kernel log on stdin (reports.sh).
reports()
{
	report_lines "$([ -e "$FAULT_FLAG" ] && echo 1)"
}

out()
{
	echo "$*"
	echo "$*" >>"$ktap"
}

# A report while booting (seen: an early-boot KASAN report under TCG) taints
# the kernel and turns lockdep off for the whole run: ask for another boot.
if grep -q "debug_locks: *0$" /proc/lockdep_stats 2>/dev/null; then
	echo "# lockdep was off at boot: $(dmesg | grep -E "$REPORT_RE" | head -n 1)"
	exit 75
fi

# Leaks from before the suite are not the suite's.
if have_kmemleak; then
	echo scan >$DEBUGFS/kmemleak
	echo clear >$DEBUGFS/kmemleak
fi

mkdir -p /tmp/ktgen-san
rm -f /tmp/ktgen-san/*
out "KTAP version 1"
out "1..${#sel[@]}"
n=0 failed=0 t0=$SECONDS
unstarted=()
for c in "${sel[@]}"; do
	n=$((n + 1))
	if [ -n "$budget" ] && [ -z "${CASE_FINAL[$c]:-}" ] && [ $((SECONDS - t0)) -ge "$budget" ]; then
		unstarted+=("$c")
		out "ok $n $c # SKIP not started: the lane's budget of $budget s was spent"
		continue
	fi
	echo "ktgen-test: begin $c" >/dev/kmsg
	log=$(mktemp)
	mark=$(mktemp -u)
	start=$(date +%s.%N)
	KTGEN_SKIP_MARK=$mark \
	KTGEN_RECORD=${CASE_SMOKE[$c]:+${KTGEN_RECORD:-}} timeout -k 5 "$(scaled "${CASE_TIMEOUT[$c]}")" \
		bash -c 'set -e; . "$1/lib.sh"; for f in "$1"/t_*.sh; do . "$f"; done; "$2"' \
		case "$dir" "${CASE_FN[$c]}" >"$log" 2>&1
	rc=$?
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	# SKIP is skip()'s status with its mark; 4 without it is a failure
	# (ktgen's exit code for infrastructure, say)
	skipped=
	[ $rc = 4 ] && [ -e "$mark" ] && skipped=1
	rm -f "$mark"

	# Leave nothing behind: namespaces, then the module.
	for ns in $(ip netns list | awk '{ print $1 }' | grep '^ktg-'); do
		ip netns del "$ns"
	done
	if module_loaded && ! rmmod ktgen 2>>"$log"; then
		echo "FAIL: ktgen could not be unloaded after the case" >>"$log"
		[ $rc = 0 ] && rc=1
	fi
	# The CLI's sanitizer reports (vm-suite.sh builds it with ASan and
	# UBSan and sends them here).
	if compgen -G "/tmp/ktgen-san/*" >/dev/null; then
		echo "FAIL: sanitizer report from the CLI:" >>"$log"
		head -n 40 /tmp/ktgen-san/* >>"$log"
		rm -f /tmp/ktgen-san/*
		rc=1
	fi
	report=$(dmesg | sed -n "/ktgen-test: begin $c\$/,\$p" | reports | head -n 5)
	if [ -n "$report" ]; then
		echo "FAIL: kernel report during the case:" >>"$log"
		echo "$report" >>"$log"
		dmesg | sed -n "/ktgen-test: begin $c\$/,\$p" | grep -v 'ktgen: version' |
			tail -n 60 >>"$log"
		rc=1
	fi
	rm -f "$FAULT_FLAG"

	sed "s/^/# /" "$log"
	grep '^TIMING: ' "$log" | sed "s/^TIMING: /# timing: $c: /" | cut -c1-300
	echo "# $c: ${secs}s"
	rm -f "$log"
	case $rc in
	0) out "ok $n $c" ;;
	4) if [ -n "$skipped" ]; then
		out "ok $n $c # SKIP"
	   else
		out "not ok $n $c # exit=4 without skip()"; failed=$((failed + 1))
	   fi ;;
	124) out "not ok $n $c # TIMEOUT"; failed=$((failed + 1)) ;;
	*) out "not ok $n $c # exit=$rc"; failed=$((failed + 1)) ;;
	esac
done
echo "ktgen-test: end" >/dev/kmsg
if [ -n "$budget" ]; then
	late=()
	for c in "${unstarted[@]}"; do
		[ -n "${CASE_DUE[$c]:-}" ] && late+=("$c")
	done
	echo "# rotation: turn $turn of $slices, ${#CASE_DUE[@]} cases due," \
		"$(( ${#CASE_DUE[@]} - ${#late[@]} )) of them started${late[*]:+; due but not started: ${late[*]}}"
fi
if [ ${#unstarted[@]} -gt 0 ]; then
	echo "# budget: ${#unstarted[@]} of ${#sel[@]} cases not started within $budget s" \
		"(all of them: make check-debug): ${unstarted[*]}"
fi
[ $failed = 0 ]
