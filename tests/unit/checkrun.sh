#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkrun.sh TOP: scripts/check.sh itself, on a copy of the tree whose
# lanes, kernel builds and host tiers are stubs: the smoke lanes' turns,
# a debt carried from one make check to the next and paid first, the
# closing lines, a debug kernel whose build is late ended by the bound
# instead of waited for, and the KCSAN lane's place, turn and debt.

. "$(dirname "$0")/ktap.sh"

top=${1:?top}
t=$tmp/tree
mkdir -p "$t/tools" "$t/kmod/probes" "$t/tests" "$t/bin"
cp -r "$top/scripts" "$t/"
cp -r "$top/tests/vm" "$top/tests/tier-costs" "$t/tests/"
cp "$top/kmod/compat.h" "$t/kmod/"
cp "$top"/kmod/probes/* "$t/kmod/probes/"
printf 'check:\n\t@echo 1..1; echo ok 1 unit_stub\ncheckpatch:\n\t@true\n' >"$t/tools/Makefile"
printf 'checkpatch:\n\t@true\n' >"$t/Makefile"
log=$tmp/calls
# stub NAME BODY: scripts/NAME replaced by BODY (a bash script).
stub()
{
	printf '#!/bin/bash\n%s\n' "$2" >"$t/scripts/$1"
	chmod +x "$t/scripts/$1"
}
stub install-deps.sh 'exit 0'
stub check-uapi.sh 'echo 1..1; echo ok 1 uapi_stub'
stub check-compat.sh '[ -z "${STUB_COMPAT_FAIL:-}" ] || { echo 1..1; echo "not ok 1 compat_stub"; exit 1; }
echo 1..1; echo "ok 1 compat_stub $*"'
stub build-uml-kernel.sh 'echo /nonexistent'
stub uml-run.sh 'exit 1'
stub build-debug-kernel.sh 'if [ "${1:-}" = --kcsan ]; then
	sleep "${STUB_KCSAN_BUILD_SECS:-0}"; echo /stub/kcsan.env; exit 0
fi
[ -z "${STUB_DEBUG_FAIL:-}" ] || { echo "build-debug-kernel: broken" >&2; exit 1; }
sleep "${STUB_DEBUG_FETCH_SECS:-0}"
[ "${STUB_DEBUG_BUILD_SECS:-0}" = 0 ] || echo "build-debug-kernel: building" >&2
sleep "${STUB_DEBUG_BUILD_SECS:-0}"; echo /stub/kernel.env'
# A lane: its name and what it was given, logged; the debug lane cuts
# STUB_CUT (run.sh's debt line and file) and checks what it was owed.
stub vm-suite.sh '
[ "$1" = --smoke ] && shift
echo "$1 DEBT=${KTGEN_DEBT:-} DEBT_OK=${KTGEN_DEBT_OK:-} DEFER=${KTGEN_DEFER_OWED:-} NICS=${KTGEN_NIC_DRIVERS:-} ROT=${KTGEN_ROTATION:-}" >>"'"$log"'"
out=${KTGEN_CACHE}/runs/$1
mkdir -p "$out"
case $1 in
bookworm)
	printf "%s\n" "ok 1 tcp_loopback" "ok 2 rr_crr" >"$out/ktap" ;;
bookworm-debug)
	: >"$out/ktap"
	if [ -n "${STUB_CUT:-}" ]; then
		echo "$STUB_CUT" >"$out/debt"
		echo "ok 1 $STUB_CUT # SKIP not started: the lane'"'"'s hard end; owed: a debt the next make check pays first" >>"$out/ktap"
	fi ;;
esac
echo 1..1
cat "$out/ktap"
[ "$1" = "${STUB_GATE_FAIL:-}" ] && echo "not ok - coverage_floor # probe.c: 0.00% of its lines, its floor 76%"
if [ "$1" = "${STUB_FAIL_LANE:-}" ]; then
	echo "not ok 9 ${1}_stub"
	exit 1
fi
echo "ok 9 ${1}_stub"
'

# run N [ENV...]: check.sh in the copy, its output in $tmp/run.N
run()
{
	local n=$1

	shift
	env -u KTGEN_TIERS KTGEN_CACHE="$tmp/cache" "$@" \
		timeout 120 bash "$t/scripts/check.sh" >"$tmp/run.$n" 2>&1
	echo $? >"$tmp/rc.$n"
}
lanes()
{
	grep -oE '^(trixie|bullseye|sid) ' "$log" | tr -d ' ' | tr '\n' ' '
}

mkdir -p "$tmp/cache"
echo 6 >"$tmp/cache/rotation"
run 1
result first_run_all_smoke "$([ "$(lanes)" = "trixie bullseye sid " ] || echo "lanes: $(lanes)")"
result first_run_green "$([ "$(cat "$tmp/rc.1")" = 0 ] && tail -n 1 "$tmp/run.1" | grep -qx "[0-9]* passed, 0 failed, [0-9]* skipped" ||
	tail -n 5 "$tmp/run.1")"
# The native lane before the debug lane: run after it, the debug lane's
# hard end cut it two CI runs in a row (a debt, then a failure).
result uml_before_debug "$(awk '/^ok - uml # SKIP User-Mode Linux does not boot/ { u = NR }
	/^# ==== tier debug$/ { d = NR } END { if (!u || !d || u > d) print "uml at line " u ", debug at " d }' "$tmp/run.1")"
result compat_digest_kept "$(for l in trixie bullseye sid; do [ -s "$tmp/cache/compat-green-$l" ] || echo "no compat-green-$l after a green run"; done)"

: >"$log"
run 2 STUB_CUT=rr_crr
result one_smoke_lane_a_turn "$([ "$(lanes)" = "sid " ] || echo "turn 8: lanes $(lanes)")"
result stock_ran_given "$(grep -q '^bookworm-debug .*DEBT_OK=tcp_loopback rr_crr' "$log" || grep bookworm-debug "$log")"
result debt_recorded "$([ "$(cat "$tmp/cache/debt" 2>/dev/null)" = rr_crr ] || echo "debt file: $(cat "$tmp/cache/debt" 2>/dev/null)")"
result skipped_line_names_debts "$(grep -q '^# skipped: .*, 1 debts$' "$tmp/run.2" || grep '^# skipped' "$tmp/run.2")"

: >"$log"
run 3
cp "$log" "$tmp/calls.3"
result debt_paid_next_time "$(grep -q '^bookworm-debug DEBT=rr_crr ' "$log" || grep bookworm-debug "$log")"
result debt_cleared "$([ ! -e "$tmp/cache/debt" ] || echo "debt left: $(cat "$tmp/cache/debt")")"
result next_smoke_lane "$([ "$(lanes)" = "trixie " ] || echo "turn 9: lanes $(lanes)")"

# The real-driver lane: one driver a make check, in turn.
result nic_one_driver_a_turn "$(grep -q '^bookworm-nic .*NICS=igb ROT=$' "$tmp/calls.3" || grep '^bookworm-nic' "$tmp/calls.3")"

# a compat change: all three again
echo "/* changed */" >>"$t/kmod/compat.h"
: >"$log"
run 4
result compat_change_all_smoke "$([ "$(lanes)" = "trixie bullseye sid " ] || echo "lanes: $(lanes)")"

# A smoke lane that failed on this compat layer runs again, beside the
# turn's own, until it passes; the others keep their turns.
echo "/* changed again */" >>"$t/kmod/compat.h"
: >"$log"
run 6 STUB_FAIL_LANE=bullseye
result failed_smoke_lane_unrecorded "$([ "$(lanes)" = "trixie bullseye sid " ] &&
	! cmp -s "$tmp/cache/compat-green-bullseye" "$tmp/cache/compat-green-trixie" ||
	echo "lanes $(lanes); bullseye recorded after failing")"
: >"$log"
run 7
result failed_smoke_lane_runs_again "$([ "$(lanes)" = "trixie bullseye " ] || echo "turn 12: lanes $(lanes)")"

# A debug kernel still on its way (its source being fetched, nothing said
# yet of a build) when the stock lane starts: the stock lane runs every
# case, since the debug lane may come too late for this turn's.
: >"$log"
run 8 STUB_DEBUG_FETCH_SECS=15
result fetching_debug_kernel_stock_runs_all "$(grep -q '^bookworm .*DEFER= ' "$log" || grep '^bookworm ' "$log")"

# A debug kernel whose build failed at once: the stock lane runs every
# case, and the debug tier fails saying so.
: >"$log"
run 9 STUB_DEBUG_FAIL=1
result failed_debug_kernel_stock_runs_all "$(grep -q '^bookworm .*DEFER= ' "$log" &&
	grep -q '^not ok - debug # the debug kernel did not build' "$tmp/run.9" &&
	[ "$(cat "$tmp/rc.9")" != 0 ] || { grep '^bookworm ' "$log"; grep 'debug' "$tmp/run.9" | tail -n 3; })"

# Smoke lanes that passed but whose records the compat comparison found
# in disagreement are not recorded: the next make check runs all three.
echo "/* changed a third time */" >>"$t/kmod/compat.h"
run 10 STUB_COMPAT_FAIL=1
: >"$log"
run 11
result compat_failure_records_nothing "$([ "$(lanes)" = "trixie bullseye sid " ] || echo "after a failed comparison: lanes $(lanes)")"

# The debug kernel 10 min late, 6 min before the hard end: the wait ends
# at the bound, with a failure, not when the build would have.
: >"$log"
t0=$SECONDS
run 5 STUB_DEBUG_BUILD_SECS=600 KTGEN_CHECK_END_MINUTES=1
result late_debug_kernel_bounded "$([ $((SECONDS - t0)) -lt 60 ] && [ "$(cat "$tmp/rc.5")" != 0 ] &&
	grep -q '^not ok - debug # the debug kernel was not built by' "$tmp/run.5" &&
	tail -n 1 "$tmp/run.5" | grep -q ' [1-9][0-9]* failed' ||
	echo "$((SECONDS - t0)) s, rc $(cat "$tmp/rc.5"): $(tail -n 4 "$tmp/run.5")")"
result late_debug_lane_not_run "$(! grep -q '^bookworm-debug ' "$log" || echo "the debug lane ran")"
result late_debug_kernel_stock_runs_all "$(grep -q '^bookworm .*DEFER= ' "$log" || grep '^bookworm ' "$log")"
result warm_stock_defers "$(grep -q '^bookworm .*DEFER=1 ' "$tmp/calls.3" || cat "$tmp/calls.3")"

# The KCSAN lane: before the debug lane, its rotation two turns ahead of
# the debug lane's (its heaviest slice meets the debug lane's lightest).
: >"$log"
run 12
result kcsan_before_debug_two_turns_ahead "$(awk '
	/^bookworm-kcsan / { k = NR; sub(/.*ROT=/, ""); kr = $0 }
	/^bookworm-debug / { d = NR; sub(/.*ROT=/, ""); dr = $0 }
	END { if (!k || !d || k > d || kr != dr + 2) print "kcsan at " k " (turn " kr "), debug at " d " (turn " dr ")" }' "$log")"

# Its kernel still being built when its turn comes (a fresh machine): a
# debt, not a pass; the next make check owes the last one's turn as well,
# and a second cut in a row fails.
: >"$log"
run 13 STUB_KCSAN_BUILD_SECS=60
result kcsan_unbuilt_is_a_debt "$([ "$(cat "$tmp/rc.13")" = 0 ] &&
	grep -q '^ok - kcsan # SKIP the KCSAN kernel is still being built .*: a debt the next make check pays first' "$tmp/run.13" &&
	grep -qx kcsan "$tmp/cache/debt" && ! grep -q '^bookworm-kcsan ' "$log" ||
	{ grep kcsan "$tmp/run.13"; cat "$tmp/cache/debt"; })"
: >"$log"
run 14
want=$(KTGEN_KCSAN=1 KTGEN_ROTATION=$(( $(cat "$tmp/cache/rotation") + 1 )) KTGEN_CASE_BUDGET=1 \
	KTGEN_TIME_SCALE=10 KTGEN_SPEED=1 bash "$t/tests/vm/run.sh" --list | awk '$3 == "owed" { print $1 }' | tr '\n' ' ')
result kcsan_debt_paid "$([ "$(cat "$tmp/rc.14")" = 0 ] && [ -n "$want" ] &&
	grep -qxF "bookworm-kcsan DEBT=$want DEBT_OK= DEFER= NICS= ROT=$(( $(cat "$tmp/cache/rotation") + 2 ))" "$log" &&
	[ ! -e "$tmp/cache/debt" ] || { echo "want DEBT=$want"; grep '^bookworm-kcsan' "$log"; })"
run 15 STUB_KCSAN_BUILD_SECS=60
run 16 STUB_KCSAN_BUILD_SECS=60
result kcsan_cut_twice_fails "$([ "$(cat "$tmp/rc.16")" != 0 ] &&
	grep -q '^not ok - kcsan # the KCSAN kernel is still being built .*, and a debt of the last make check' "$tmp/run.16" ||
	grep kcsan "$tmp/run.16")"

# A lane's own verdict ("not ok - coverage_floor") counts beside a failed
# case of the same lane: both in the closing count, both named.
: >"$log"
run 17 STUB_FAIL_LANE=bookworm-debug STUB_GATE_FAIL=bookworm-debug
result lane_verdict_counted "$(tail -n 1 "$tmp/run.17" | grep -q ' 2 failed, ' &&
	grep -q '^# FAILED debug: not ok - coverage_floor' "$tmp/run.17" ||
	{ grep FAILED "$tmp/run.17"; tail -n 1 "$tmp/run.17"; })"

finish checkrun
