#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [--list] [CASE-REGEX]: run the VM scenarios (t_*.sh) as KTAP.
#
# With KTGEN_CASE_BUDGET=SECS (make check's debug lane, sized to what is
# left of the CI budget) the cases owed in this turn of the rotation run
# first and always (see below), then others while their expected cost
# fits; a case not started is reported as skipped, by name, and --list
# prints the plan with each case's cost. "final" cases run last, always.
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
list=0 deferred=0
for a in "$@"; do
	case $a in
	--list) list=1 ;;
	--deferred) deferred=1 ;;
	*) filter=$a ;;
	esac
done
sel=()
for c in "${CASES[@]}"; do
	[[ -z $filter || $c =~ $filter ]] && sel+=("$c")
done

# (No process substitution here: the guest has no /dev/fd.)
# What each case costs on this lane's kernel: tests/vm/costs, seconds as
# measured (scripts/case-costs.sh writes it from a lane's console), and
# the guest's calibration then; a case not in it is guessed at 60 s. Its
# fourth column is the case's slice of the rotation (below), "-" for none
# yet.
lanecol=2
[ "$KTGEN_TIME_SCALE" -gt 1 ] && lanecol=3
declare -A COST SLICE_OF
cal_stock=0 cal_lane=0
while read -r -a f; do
	case ${f[0]:-} in
	"#")
		if [ "${f[1]:-}" = calibration ] && [[ ${f[2]:-} =~ ^[0-9]+$ ]]; then
			cal_stock=${f[2]}
			cal_lane=${f[$lanecol]}
		fi ;;
	"" | "#"*) ;;
	*)
		COST[${f[0]}]=${f[$((lanecol - 1))]}
		[[ ${f[3]:-} =~ ^[0-9]+$ ]] && SLICE_OF[${f[0]}]=${f[3]}
		;;
	esac
done <"$dir/costs"

# The rotation (with a budget: make check's debug lane). The core cases
# run in every turn. The others are in one of five slices of about equal
# cost: the one tests/vm/costs gives it, so that adding a case moves no
# other; a case without one is dealt (largest first) to the lightest.
# KTGEN_ROTATION (make check: its ledger's next turn) says whose turn it
# is: that slice runs too, whatever the budget, so every case has its turn
# under the debug kernel in any five consecutive CI runs. Core and due
# cases are the lane's obligation; what the budget has left goes to the
# next turn's slice, then the one after, a case at a time while its
# expected cost fits. What runs does not depend on how fast the machine
# happens to be; how much more than that runs does.
#
# KTGEN_CASE_HARD=SECS is the end no case may run past, owed or not (make
# check's: CI's limit less the time to report): a case whose expected cost
# would cross it, with the final cases' after it, is not started and says
# so, so that a machine much slower than the costs still ends with every
# verdict printed instead of being killed with none.
budget=${KTGEN_CASE_BUDGET:-}
declare -A CASE_OWED
due=0
slices=5
turn=$(( ${KTGEN_ROTATION:-0} % slices ))
if [ -n "$budget" ]; then
	owed=() last=() pool=()
	for c in "${sel[@]}"; do
		if [ -n "${CASE_FINAL[$c]:-}" ]; then
			last+=("$c")
		elif [ -n "${CASE_CORE[$c]:-}" ]; then
			owed+=("$c")
		else
			pool+=("$c")
		fi
	done
	declare -A SLICE
	load=()
	for ((k = 0; k < slices; k++)); do
		load[k]=0
	done
	for c in "${pool[@]}"; do
		k=${SLICE_OF[$c]:-}
		if [ -n "$k" ] && [ "$k" -lt $slices ]; then
			SLICE[$c]=$k
			load[k]=$((load[k] + ${COST[$c]:-60}))
		fi
	done
	while read -r cost c; do
		[ -n "$c" ] || continue
		k=0
		for ((i = 1; i < slices; i++)); do
			[ "${load[$i]}" -lt "${load[$k]}" ] && k=$i
		done
		SLICE[$c]=$k
		load[k]=$((load[k] + cost))
	done <<<"$(for c in "${pool[@]}"; do
		[ -n "${SLICE[$c]:-}" ] || echo "${COST[$c]:-60} $c"
	done | sort -k1,1nr -k2,2)"
	later=()
	for ((i = 1; i < slices; i++)); do
		k=$(( (turn + i) % slices ))
		for c in "${pool[@]}"; do
			[ "${SLICE[$c]}" = $k ] && later+=("$c")
		done
	done
	# This turn's slice before the core cases: the stock lane of a make
	# check leaves the slice to this lane and runs the core cases itself,
	# so what a hard end cuts is more likely a debt than a case run
	# nowhere.
	core=("${owed[@]}")
	owed=()
	for c in "${pool[@]}"; do
		if [ "${SLICE[$c]}" = $turn ]; then
			due=$((due + 1))
			owed+=("$c")
		fi
	done
	owed+=("${core[@]}")
	# The last make check's debt (check.sh: owed cases its hard end
	# cut) is paid first: before this turn's.
	debt=()
	for c in ${KTGEN_DEBT:-}; do
		[ -n "${CASE_FN[$c]:-}" ] && [ -z "${CASE_FINAL[$c]:-}" ] && debt+=("$c")
	done
	declare -A IN_DEBT
	for c in "${debt[@]}"; do
		IN_DEBT[$c]=1
	done
	rest=()
	for c in "${owed[@]}"; do
		[ -n "${IN_DEBT[$c]:-}" ] || rest+=("$c")
	done
	owed=("${debt[@]}" "${rest[@]}")
	rest=()
	for c in "${later[@]}"; do
		[ -n "${IN_DEBT[$c]:-}" ] || rest+=("$c")
	done
	later=("${rest[@]}")
	for c in "${owed[@]}" "${last[@]}"; do
		CASE_OWED[$c]=1
	done
	sel=("${owed[@]}" "${later[@]}" "${last[@]}")
fi
# The stock lane of a make check whose debug lane runs too
# (KTGEN_DEFER_OWED=1, with the same KTGEN_ROTATION) leaves to it the cases
# of this turn's slice: the same checks under KASAN, lockdep and kmemleak.
# The other slices take turns on this kernel as they do on that one: a
# slice runs here two turns after the debug lane's (so a case runs
# on one kernel or the other twice in five make checks, three turns
# apart), the rest wait for theirs ("rotated"). Every make check runs
# here the core cases, the smoke ones (bookworm's record for
# check-compat), the "full" ones (their debug run covers less: reduced
# matrices) and the ones the debug lane never runs. (--list --deferred:
# the stock lane's plan, each case with "deferred", "rotated" or "-".)
declare -A CASE_DEFER CASE_ROTATED CASE_DEBUG_TURN
stock_turn=$(( (turn + 3) % slices ))
if [ -n "${KTGEN_DEFER_OWED:-}" ] && [ -z "$budget" ] && [ "$KTGEN_TIME_SCALE" = 1 ]; then
	while read -r c _ o k; do
		[ -n "${CASE_FN[$c]:-}" ] && [[ $k =~ ^[0-9]+$ ]] && [ -z "${CASE_SMOKE[$c]:-}" ] &&
			[ -z "${CASE_FULL[$c]:-}" ] || continue
		if [ "$o" = owed ]; then
			CASE_DEFER[$c]=1
		elif [ "$k" != $stock_turn ]; then
			CASE_ROTATED[$c]=1
			CASE_DEBUG_TURN[$c]=$k
		fi
	done <<<"$(KTGEN_DEFER_OWED= KTGEN_DEBT= KTGEN_TIME_SCALE=10 KTGEN_CASE_BUDGET=1 "$0" --list "$filter")"
fi
if [ $list = 1 ]; then
	for c in "${sel[@]}"; do
		if [ -n "$budget" ]; then
			o=-
			[ -n "${CASE_OWED[$c]:-}" ] && o=owed
			echo "$c ${COST[$c]:-60} $o ${SLICE[$c]:--}"
		elif [ $deferred = 1 ]; then
			echo "$c ${CASE_DEFER[$c]:+deferred}${CASE_ROTATED[$c]:+rotated}"
		else
			echo "$c"
		fi
	done
	exit 0
fi

ktap=${KTGEN_KTAP:-/dev/null}
kmsg=${KTGEN_KMSG:-/dev/kmsg}
# shellcheck source=tests/vm/reports.sh
. "$dir/reports.sh"

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

# Leaks from before the suite are not the suite's. The cases that read
# kmemleak scan when they do (kmemleak_check): its thread's scans of all
# memory every 10 min would only take the CPU from the cases.
if have_kmemleak; then
	echo scan >$DEBUGFS/kmemleak
	echo clear >$DEBUGFS/kmemleak
	echo scan=off >$DEBUGFS/kmemleak
fi

# The guest's speed: a fixed piece of work (execs of the CLI, network
# namespaces made and removed), in ms. Against the stock kernel's on this
# machine (tests/vm/costs) it gives KTGEN_SPEED, which stretches the
# cases' durations (lib.sh: span), and it scales the expected costs the
# budget is spent by.
calibrate()
{
	local t0=$EPOCHREALTIME i

	for i in 1 2 3 4; do
		"$KTGEN" --version >/dev/null 2>&1
		ip netns add ktg-cal && ip -n ktg-cal link set lo up && ip netns del ktg-cal
	done
	echo $(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
}
cal=$(calibrate)
speed=1
[ "$cal_stock" -gt 0 ] && speed=$(( (cal + cal_stock / 2) / cal_stock ))
[ $speed -lt 1 ] && speed=1
export KTGEN_SPEED=$speed
# expected cost of case $1 here, in s
expect()
{
	local c=${COST[$1]:-60}

	[ "$cal_lane" -gt 0 ] && c=$(( c * cal / cal_lane ))
	echo "$c"
}
echo "# calibration: $cal ms (the stock kernel here: ${cal_stock} ms; this lane when costs were taken: ${cal_lane} ms): KTGEN_SPEED=$speed"

hard=${KTGEN_CASE_HARD:-}
final_cost=0
if [ -n "$hard" ]; then
	for c in "${sel[@]}"; do
		[ -n "${CASE_FINAL[$c]:-}" ] && final_cost=$((final_cost + $(expect "$c")))
	done
fi

# An owed case the hard end keeps from starting is never a silent skip.
# It is a debt (KTGEN_DEBT_OUT: check.sh carries it to the next make
# check, which runs it first) when this make check ran it on the stock
# kernel (KTGEN_DEBT_OK) and it is not already a debt of the last one;
# otherwise it ran nowhere, or is cut a second time: a failure.
cut_owed()
{
	local n=$1 c=$2 why=$3

	cut+=("$c")
	if [ -n "${IN_DEBT[$c]:-}" ]; then
		out "not ok $n $c # not started: $why; a debt of the last make check, cut again"
		failed=$((failed + 1))
	elif [[ " ${KTGEN_DEBT_OK:-} " == *" $c "* ]] && [ -n "${KTGEN_DEBT_OUT:-}" ]; then
		echo "$c" >>"$KTGEN_DEBT_OUT"
		out "ok $n $c # SKIP not started: $why; owed: a debt the next make check pays first"
	else
		out "not ok $n $c # not started: $why; owed in this turn and run nowhere else"
		failed=$((failed + 1))
	fi
}

mkdir -p /tmp/ktgen-san
rm -f /tmp/ktgen-san/*
# a case's log and skip() mark: the same files for every case, emptied
log=/tmp/ktg-case.log
mark=/tmp/ktg-case.skip
ended=/tmp/ktg-case.ended

# since VAR T: VAR = the seconds since $EPOCHREALTIME was T, as S.UUUUUU
# (no bc, no subshell: a process is dear here)
since()
{
	local us=$(( ${EPOCHREALTIME/./} - ${2/./} ))

	printf -v "$1" '%d.%06d' $((us / 1000000)) $((us % 1000000))
}
out "KTAP version 1"
out "1..${#sel[@]}"
n=0 failed=0 t0=$SECONDS
unstarted=() cut=()
for c in "${sel[@]}"; do
	n=$((n + 1))
	if [ -n "${CASE_DEFER[$c]:-}" ]; then
		out "ok $n $c # SKIP under the debug kernel in this make check (turn $turn)"
		continue
	fi
	if [ -n "${CASE_ROTATED[$c]:-}" ]; then
		out "ok $n $c # SKIP rotation: under the debug kernel in turn ${CASE_DEBUG_TURN[$c]}, on this one in turn $(( (CASE_DEBUG_TURN[$c] + 2) % slices )) (this is $turn)"
		continue
	fi
	if [ -n "$hard" ]; then
		est=$(expect "$c") with=
		if [ -z "${CASE_FINAL[$c]:-}" ] && [ $final_cost -gt 0 ]; then
			est=$((est + final_cost)) with=" with the final cases after it"
		fi
		left=$((hard - (SECONDS - t0)))
		if [ "$est" -gt $left ]; then
			unstarted+=("$c")
			why="the lane's hard end: it takes ~$est s$with, $left s were left"
			if [ -z "${CASE_OWED[$c]:-}" ]; then
				out "ok $n $c # SKIP not started: $why"
			else
				cut_owed "$n" "$c" "$why"
			fi
			continue
		fi
	fi
	if [ -n "$budget" ] && [ -z "${CASE_OWED[$c]:-}" ]; then
		est=$(expect "$c")
		left=$((budget - (SECONDS - t0)))
		if [ "$est" -gt $left ]; then
			unstarted+=("$c")
			out "ok $n $c # SKIP not started: it takes ~$est s, $left s of the lane's budget of $budget s were left"
			continue
		fi
	fi
	echo "ktgen-test: begin $c" >"$kmsg"
	: >"$mark"
	rm -f "$ended"
	start=$EPOCHREALTIME
	KTGEN_SKIP_MARK=$mark \
	KTGEN_RECORD=${CASE_SMOKE[$c]:+${KTGEN_RECORD:-}} timeout -k 5 $((CASE_TIMEOUT[$c] * KTGEN_TIME_SCALE)) \
		bash -c 'set -e; . "$1/lib.sh"; for f in "$1"/t_*.sh; do . "$f"; done; pycheck_start; "$2"; : >"$3"' \
		case "$dir" "${CASE_FN[$c]}" "$ended" >"$log" 2>&1
	rc=$?
	# A failure says why. One that does not is a command failing under
	# set -e; one after the case's body returned is its EXIT trap's.
	if [ $rc != 0 ] && [ $rc != 124 ] && [ $rc != 4 ] && ! grep -q '^FAIL: ' "$log"; then
		if [ -e "$ended" ]; then
			echo "FAIL: the case's body passed; its EXIT trap then failed (exit $rc)" >>"$log"
		else
			echo "FAIL: exit $rc with no message: a command failed under set -e (its output above)" >>"$log"
		fi
	fi
	since secs "$start"
	# SKIP is skip()'s status with its mark; 4 without it is a failure
	# (ktgen's exit code for infrastructure, say)
	skipped=
	[ $rc = 4 ] && [ -s "$mark" ] && skipped=1

	# Leave nothing behind: the case's checker, namespaces, then the
	# modules. Builtins where they do: a process costs ~0.4 s on the
	# debug kernel under TCG, and this runs after every case.
	for p in /tmp/ktg-pycheck.*/pid; do
		[ -e "$p" ] && read -r pid <"$p" && kill "$pid" 2>/dev/null
	done
	for ns in /run/netns/ktg-*; do
		[ -e "$ns" ] && ip netns del "${ns##*/}"
	done
	if nic_loaded && ! rmmod ktgen_nic 2>>"$log"; then
		echo "FAIL: ktgen_nic could not be unloaded after the case" >>"$log"
		[ $rc = 0 ] && rc=1
	fi
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
	injected=
	[ -e "$FAULT_FLAG" ] && injected=1
	report=$(dmesg | case_reports "$c" "$injected")
	# KCSAN's races of the kernel's own, and the seeded one (reports.sh):
	# noted, not failed
	if [[ $report == *"# kcsan ("* ]]; then
		grep '^# kcsan ' <<<"$report" | cut -c3- >>"$log"
		report=$(grep -v '^# kcsan ' <<<"$report")
	fi
	if [ -n "$report" ]; then
		echo "FAIL: kernel report during the case:" >>"$log"
		echo "$report" >>"$log"
		dmesg | sed -n "/ktgen-test: begin $c\$/,\$p" | grep -v 'ktgen: version' |
			tail -n 60 >>"$log"
		rc=1
	fi
	[ -e "$FAULT_FLAG" ] && rm -f "$FAULT_FLAG"
	compgen -G "/tmp/ktg-pycheck.*" >/dev/null && rm -rf /tmp/ktg-pycheck.*

	# the case's log, then its timing lines, in one process
	awk -v c="$c" '{ print "# " $0 }
		/^TIMING: / { t[++n] = substr("# timing: " c ": " substr($0, 9), 1, 300) }
		END { for (i = 1; i <= n; i++) print t[i] }' "$log"
	# what the case took, and with the harness's work around it (what
	# the lane's budget pays: scripts/case-costs.sh)
	since all "$start"
	echo "# $c: ${secs}s (${all%.*}s in all)"
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
echo "ktgen-test: end" >"$kmsg"
if [ -n "$budget" ]; then
	started="all started"
	[ ${#cut[@]} = 0 ] || started="${#cut[@]} cut by the hard end (${cut[*]})"
	echo "# rotation: turn $turn of $slices: ${#CASE_OWED[@]} cases owed (core, final and" \
		"the $due of this turn's slice), $started; $(( ${#sel[@]} - ${#CASE_OWED[@]} - ${#unstarted[@]} + ${#cut[@]} ))" \
		"of the next turns' ${#later[@]} ran within the budget of $budget s ($((SECONDS - t0)) s spent)"
fi
if [ ${#unstarted[@]} -gt 0 ]; then
	echo "# budget: ${#unstarted[@]} of ${#sel[@]} cases not started" \
		"(they run in their turn; all of them: make check-debug): ${unstarted[*]}"
fi
[ $failed = 0 ]
