#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: every test, tier by tier, ending with "N passed, N failed, N skipped".
#
#   unit        CLI unit tests and CLI behaviour (host, ASan/UBSan)
#   uapi        the header and kmod's policies are what the YNL spec says
#   checkpatch  kernel style of kmod/ and include/
#   vm          KTAP scenarios in a VM on the stock bookworm kernel
#   trixie      the smoke subset on trixie's stock kernel (6.12: no sendpage,
#               the module built in a trixie chroot, ~2 min to create once)
#   bullseye    the smoke subset on bullseye's kernel (5.10)
#   sid         the smoke subset on sid's kernel (7.2, built in a sid chroot)
#   nic         the data path and knobs over real drivers: QEMU 10's igb,
#               e1000e and virtio-net (bookworm-backports), one a run
#   uml         the native-rate cases on User-Mode Linux (bookworm's source,
#               one CPU, natively: build-uml-kernel.sh), before the debug lane
#   compat      what the four kernels did, compared (check-compat.sh)
#   kcsan       the data-path cases on the KCSAN kernel (the data-race
#               detector KASAN excludes), a fifth of them a run in turn
#   debug       the same scenarios plus leak/lock checks, fault injection
#               and the netlink fuzzer on the debug kernel (KASAN,
#               lockdep, kmemleak, ODEBUG), with module line coverage
#
# KTGEN_TIERS="unit vm" limits the tiers. The debug kernel (~30 min to build
# on a fresh machine, cached after) is built in the background at the
# lowest priority while the other tiers run.
#
# make check plans its run before the lanes start (check-plan.sh: what
# each tier is expected to take, tests/tier-costs and tests/vm/costs) and
# aims to end by a target (KTGEN_CHECK_MINUTES, 50 by default; CI allows
# 90). The debug lane runs about 5x slower than the stock kernel, too slow
# for every case in every run: its core cases run every time (on the stock
# kernel too), the others take turns in a rotation of five (tests/vm/run.sh;
# the turn after the last make check on this machine, or by the commit
# count), and what is left before the target lets the next turns' cases run
# early (make check-debug runs every case without a budget). The smoke
# lanes take turns as well, one kernel a run, all three when the compat
# layer changed. No guest runs past a hard end (KTGEN_CHECK_END_MINUTES,
# 86): an owed case that would cross it is not started, and is a debt the
# next make check pays first (when it ran on the stock kernel) or a
# failure; nothing owed is a silent skip. The waits for the kernels built
# in the background are bounded by the same end.
set -uo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}
tiers=${KTGEN_TIERS:-unit uapi checkpatch vm trixie bullseye sid nic compat debug uml kcsan}
passed=0 failed=0 skipped=0 deferred=0 rotated=0
failures=() notrun=() timing=()
start=$(date +%s)
# No lane's guest runs past this (vm-suite.sh: KTGEN_LANE_END), whatever
# the costs expected: CI's 90 min less 4 for the last lane's report and
# this script's summary, so a slow machine still ends with every verdict.
export KTGEN_LANE_END=$((start + ${KTGEN_CHECK_END_MINUTES:-86} * 60))

has_tier()
{
	[[ " $tiers " == *" $1 "* ]]
}

# owed [VAR=VALUE...]: the cases run.sh's rotation owes with those
# settings (KTGEN_ROTATION, KTGEN_KCSAN, KTGEN_DEBT), "CASE COST" a line,
# at the debug costs.
owed()
{
	env KTGEN_CASE_BUDGET=1 KTGEN_TIME_SCALE=10 KTGEN_SPEED=1 "$@" bash "$top/tests/vm/run.sh" --list |
		awk '$3 == "owed" { print $1, $2 }'
}

# kill_tree PID: PID and every process below it (a kernel build: a
# subshell, the build script, make and its compilers), children first.
kill_tree()
{
	local c

	for c in $(pgrep -P "$1"); do
		kill_tree "$c"
	done
	kill -TERM "$1" 2>/dev/null
}

# run_tier NAME CMD...: show the tier's KTAP and count its verdicts; a tier
# that fails without a failing case counts as one failure.
run_tier()
{
	local name=$1 log rc p s f d r t0=$(date +%s)

	shift
	log=$(mktemp)
	echo "# ==== tier $name"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	p=$(grep -E '^ok [0-9]+' "$log" | grep -vc '# SKIP')
	s=$(grep -E '^ok [0-9]+' "$log" | grep -c '# SKIP')
	# (a lane's own verdicts, "not ok - coverage_floor" or "not ok -
	# console_report", count as its cases' do)
	f=$(grep -cE '^not ok ([0-9]+|-) ' "$log")
	mapfile -t -O ${#failures[@]} failures < <(grep -E '^not ok ([0-9]+|-) ' "$log" | sed "s/^/$name: /")
	mapfile -t -O ${#timing[@]} timing < <(grep -E '^# timing: ' "$log" | sed "s/^# timing: /$name: /")
	mapfile -t -O ${#notrun[@]} notrun < <(grep -E '^ok [0-9]+ .*# SKIP' "$log" |
		grep -vE '# SKIP (under the debug kernel in this make check|rotation: )' |
		sed -E "s/^ok [0-9]+ ([^ ]+) # SKIP ?(.*)/$name: \1 (\2)/")
	d=$(grep -cE '^ok [0-9]+ .*# SKIP under the debug kernel in this make check' "$log")
	r=$(grep -cE '^ok [0-9]+ .*# SKIP rotation: ' "$log")
	[ "$d" = 0 ] || echo "# tier $name: $d cases left to the debug lane, which owes them in this turn"
	[ "$r" = 0 ] || echo "# tier $name: $r cases of the debug lane's rotation wait for their turn on this kernel"
	deferred=$((deferred + d))
	rotated=$((rotated + r))
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "not ok - $name # the tier failed (status $rc)"
		failures+=("$name: the tier failed (status $rc): $(grep -v '^ok ' "$log" | tail -n 1)")
		f=1
	fi
	echo "# tier $name: $p passed, $f failed, $s skipped in $(( $(date +%s) - t0 )) s"
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	rm -f "$log"
}

# Both make's status and what checkpatch said: a checkpatch that could
# not be fetched or run fails the case, as a finding does.
checkpatch_ktap()
{
	local out rc

	echo "1..1"
	out=$(make -s -C "$top" checkpatch 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	if [ $rc != 0 ]; then
		echo "not ok 1 checkpatch_strict # make checkpatch exited $rc"
		return 1
	fi
	if echo "$out" | grep -qE 'ERROR|WARNING|CHECK'; then
		echo "not ok 1 checkpatch_strict"
		return 1
	fi
	echo "ok 1 checkpatch_strict"
}

"$here/install-deps.sh" || exit 1

# Whose turn it is in the debug lane's rotation (run.sh): the next one
# after the last make check on this machine (its ledger in the cache), so
# that any five in a row cover every case; on a machine without one, the
# commit count (a shallow clone has none to count: the commit's hour). The
# stock lane leaves to the debug lane the cases of this turn's slice.
mkdir -p "$CACHE"
ledger=$CACHE/rotation
if [ -s "$ledger" ] && read -r rot <"$ledger" && [[ $rot =~ ^[0-9]+$ ]]; then
	rot=$((rot + 1))
elif [ "$(git -C "$top" rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
	rot=$(( $(git -C "$top" log -1 --format=%ct) / 3600 ))
else
	rot=$(git -C "$top" rev-list --count HEAD 2>/dev/null || echo 0)
fi
defer=
if has_tier debug; then
	echo "$rot" >"$ledger"
	defer=1
fi

# The smoke lanes take turns: one kernel a make check (each at least every
# third), and any lane that has not passed on this compat layer
# (kmod/compat.h, kmod/probes/, scripts/compat-probe.sh: its digest,
# recorded per lane in the cache when the lane passes, so no history is
# needed) runs as well; all three when KTGEN_TIERS names them.
smoke_lanes="trixie bullseye sid"
compat_sum=$(cd "$top" && cat kmod/compat.h kmod/probes/* scripts/compat-probe.sh | sha256sum | cut -c1-16)
if [ -z "${KTGEN_TIERS:-}" ]; then
	pick=$(echo $smoke_lanes | cut -d' ' -f$((rot % 3 + 1)))
	why=()
	for l in $smoke_lanes; do
		if [ "$l" = "$pick" ]; then
			why+=("$l (its turn)")
		elif [ "$(cat "$CACHE/compat-green-$l" 2>/dev/null)" != "$compat_sum" ]; then
			why+=("$l (not passed on this compat layer)")
		else
			tiers=$(echo " $tiers " | sed "s/ $l / /")
		fi
	done
	echo "# smoke lanes in this make check ($rot): ${why[*]}"
fi
# The last make check's debt: owed debug cases its hard end cut after
# they ran on the stock kernel (run.sh); this one runs them first, and one
# cut again fails. Debts of the native lane and the coverage gate, the same.
debt=$(cat "$CACHE/debt" 2>/dev/null | tr '\n' ' ')
rm -f "$CACHE/debt"
[ -z "$debt" ] || echo "# debt of the last make check, paid first: $debt"
newdebt=()

# The projection (check-plan.sh from tests/tier-costs and tests/vm/costs):
# what each tier is expected to take, and when the run should end.
plan_lanes=
for l in $smoke_lanes; do
	has_tier "$l" && plan_lanes+=" $l"
done
echo "# plan (warm, turn $((rot % 5))): $(KTGEN_DEBT="$debt" "$here/check-plan.sh" $((rot % 5)) "$plan_lanes" |
	awk '{ printf "%s%s %d s", (NR > 1 ? ", " : ""), $1, $2 }')"

if has_tier debug; then
	mkdir -p "$CACHE"
	# at the lowest CPU and I/O priority: the lanes' guests come first
	# (its end marked in dbg_done: the KCSAN build waits for it, and a
	# child this shell has not reaped yet still answers kill -0)
	dbg_done=$(mktemp)
	(
		nice -n 19 ionice -c 3 "$here/build-debug-kernel.sh"
		rc=$?
		echo "$rc" >"$dbg_done"
		exit $rc
	) >"$CACHE/debug-kernel.log" 2>&1 &
	dbg_pid=$!
fi

# The KCSAN kernel (~27 min on a fresh machine, cached after), the same
# way once the debug kernel's build has ended: the same source, and one
# build at a time on two cores.
if has_tier kcsan; then
	(
		while [ -n "${dbg_pid:-}" ] && [ ! -s "$dbg_done" ] && kill -0 "$dbg_pid" 2>/dev/null; do
			sleep 1
		done
		exec nice -n 19 ionice -c 3 "$here/build-debug-kernel.sh" --kcsan
	) >"$CACHE/kcsan-kernel.log" 2>&1 &
	kcsan_pid=$!
fi

# The User-Mode Linux kernel (~4 min), the same way.
if has_tier uml; then
	nice -n 19 ionice -c 3 "$here/build-uml-kernel.sh" >"$CACHE/uml-kernel.log" 2>&1 &
	uml_pid=$!
fi

# The unit tier's tests run side by side, one a CPU (tools/Makefile's
# CHECK_JOBS, from the environment too), each one's KTAP printed whole
# when it ends: its verdicts are counted as they were run one by one.
has_tier unit && run_tier unit make -s -C "$top/tools" check
has_tier uapi && run_tier uapi "$here/check-uapi.sh"
has_tier checkpatch && run_tier checkpatch checkpatch_ktap
# debug_built: the debug kernel's build (ended) succeeded; its status is
# reaped once and kept, since a pid is waited for only once.
debug_built()
{
	[ -n "${dbg_rc:-}" ] || { wait "$dbg_pid"; dbg_rc=$?; }
	[ "$dbg_rc" = 0 ]
}

# A debug kernel still on its way may come late, and what its lane's hard
# end cuts must have run somewhere: then the stock lane runs every case (a
# cut is a debt, not a case run nowhere). A cached kernel is found in a
# second or two; one still being fetched, unpacked or compiled when the
# stock lane starts is not ready, nor one whose build failed (the debug
# tier says so).
if [ -n "$defer" ]; then
	for _ in 1 2 3 4 5; do
		kill -0 "$dbg_pid" 2>/dev/null || break
		sleep 1
	done
	if kill -0 "$dbg_pid" 2>/dev/null; then
		defer=
		echo "# the debug kernel is not ready (being fetched or built): the stock lane runs every case"
	elif ! debug_built; then
		defer=
		echo "# the debug kernel did not build: the stock lane runs every case"
	fi
fi
has_tier vm && KTGEN_ROTATION=$rot KTGEN_DEFER_OWED=$defer run_tier vm "$here/vm-suite.sh" bookworm
# What ran on the stock kernel: an owed debug case among them the hard end
# cuts is a debt, not a case run nowhere.
stock_ran=
[ -e "$CACHE/runs/bookworm/ktap" ] &&
	stock_ran=$(grep -E '^(not )?ok [0-9]+ ' "$CACHE/runs/bookworm/ktap" | grep -v '# SKIP' |
		awk '{ print ($1 == "not" ? $4 : $3) }' | tr '\n' ' ')
# A smoke lane that passed, and whose record the compat comparison below
# then finds in agreement, records the compat layer it passed on.
smoke_green=()
for l in $smoke_lanes; do
	has_tier "$l" || continue
	f0=$failed
	run_tier "$l" "$here/vm-suite.sh" --smoke "$l"
	[ $failed = "$f0" ] && smoke_green+=("$l")
done
# The real-driver lane (t_driver.sh: QEMU 10's NIC models, vm-run.sh -n):
# one driver a make check in turn (igb, e1000e, virtio-net: each every
# third), all three when KTGEN_TIERS names the lane.
if has_tier nic; then
	nic_drivers="igb e1000e virtio"
	[ -z "${KTGEN_TIERS:-}" ] && nic_drivers=$(echo $nic_drivers | cut -d' ' -f$((rot % 3 + 1)))
	echo "# real drivers in this make check ($rot): $nic_drivers"
	KTGEN_NIC_DRIVERS=$nic_drivers run_tier nic "$here/vm-suite.sh" bookworm-nic
fi
# The full bookworm run recorded its smoke cases too.
if has_tier compat; then
	runs=()
	has_tier bullseye && runs+=("$CACHE/runs/bullseye-smoke")
	has_tier vm && runs+=("$CACHE/runs/bookworm")
	has_tier trixie && runs+=("$CACHE/runs/trixie-smoke")
	has_tier sid && runs+=("$CACHE/runs/sid-smoke")
	f0=$failed
	run_tier compat "$here/check-compat.sh" --compare "${runs[@]}"
	[ $failed = "$f0" ] || smoke_green=()
fi
for l in "${smoke_green[@]}"; do
	echo "$compat_sum" >"$CACHE/compat-green-$l"
done
# The native lane: the rates TCG cannot reach (the "native" cases, with
# load and info), ~3 min, before the debug lane: its cost is fixed and
# small, while the debug lane's hard end turns what it cuts into debts the
# next make check pays first (run last, two CI runs in a row cut it);
# skipped, and named, when the hard end is less than 7 min away. Its
# kernel built in the background, then booted once with nothing to do, so
# that a host where User-Mode Linux cannot run at all (no ptrace, say)
# says so as a skip, not as every case failed.
if has_tier uml; then
	if ! wait "$uml_pid"; then
		tail -n 30 "$CACHE/uml-kernel.log" | sed 's/^/# /'
		echo "not ok - uml # the User-Mode Linux kernel did not build"
		failures+=("uml: the User-Mode Linux kernel did not build")
		failed=$((failed + 1))
	elif [ $(( KTGEN_LANE_END - $(date +%s) )) -lt 420 ]; then
		# cut by the hard end: a debt the next make check pays first,
		# a failure when it was one already
		if [[ " $debt " == *" uml "* ]]; then
			echo "not ok - uml # less than 7 min left before the hard end, and a debt of the last make check"
			failures+=("uml: cut by the hard end twice in a row")
			failed=$((failed + 1))
		else
			echo "ok - uml # SKIP less than 7 min left before the hard end: a debt the next make check pays first"
			newdebt+=(uml)
			skipped=$((skipped + 1))
		fi
	elif ! "$here/uml-run.sh" -k "$(tail -n 1 "$CACHE/uml-kernel.log")" -t 120 \
		-o "$CACHE/runs/uml-boot" -- true >/dev/null 2>&1; then
		tail -n 20 "$CACHE/runs/uml-boot/console.log" | sed 's/^/# /'
		echo "ok - uml # SKIP User-Mode Linux does not boot on this host (console above)"
		notrun+=("uml: the whole lane (User-Mode Linux does not boot on this host)")
		skipped=$((skipped + 1))
	else
		run_tier uml "$here/vm-suite.sh" bookworm-uml '^(load_unload|info_text|native_.*)$'
	fi
fi


# What the debug lane owes in this turn (its debt first), by the costs:
# the KCSAN lane leaves it that time, and its kernel's wait is bounded by it.
dbg_owed=0
has_tier debug && dbg_owed=$(owed KTGEN_ROTATION=$rot KTGEN_DEBT="$debt" | awk '{ s += $2 } END { print s + 0 }')

# The KCSAN lane: the cases tagged "kcsan" (the data paths) that its turn
# owes, a fifth of them (run.sh's slices, the rotation two turns ahead of
# the debug lane's so that its heaviest slice meets the debug lane's
# lightest turn), before the debug lane, whose budget takes what is left.
# A kernel not built yet (a fresh machine: it builds after the debug one),
# or less than its cases and 5 min left before the hard end, is a debt
# the next make check must pay: the same turn's cases again, a failure if
# cut again.
if has_tier kcsan; then
	krot=$((rot + 2)) kdebt=
	# in debt: the last make check's turn is owed too, first
	[[ " $debt " == *" kcsan "* ]] &&
		kdebt=$(owed KTGEN_KCSAN=1 KTGEN_ROTATION=$((krot - 1)) | awk '{ printf "%s ", $1 }')
	kcsan_owed=$(owed KTGEN_KCSAN=1 KTGEN_ROTATION=$krot KTGEN_DEBT="$kdebt" |
		awk '{ s += $2 } END { print s + 0 }')
	# what the debug lane after it owes (and its 4 min) comes first
	dbg_need=0
	has_tier debug && dbg_need=$((dbg_owed + 240))
	kcsan_cut=
	# a cached kernel is found in a second or two
	for _ in $(seq 10); do
		kill -0 "$kcsan_pid" 2>/dev/null || break
		sleep 1
	done
	if kill -0 "$kcsan_pid" 2>/dev/null; then
		# (left to build on: stopped at the end, resumed next time)
		kcsan_cut="the KCSAN kernel is still being built (log: $CACHE/kcsan-kernel.log)"
	elif ! wait "$kcsan_pid"; then
		tail -n 30 "$CACHE/kcsan-kernel.log" | sed 's/^/# /'
		echo "not ok - kcsan # the KCSAN kernel did not build"
		failures+=("kcsan: the KCSAN kernel did not build")
		failed=$((failed + 1))
		kcsan_cut=failed
	elif [ $(( KTGEN_LANE_END - $(date +%s) )) -lt $(( kcsan_owed * 2 + 300 + dbg_need )) ]; then
		kcsan_cut="less than its owed cases (~$kcsan_owed s by the debug costs), 5 min and the debug lane's owed cases left before the hard end"
	fi
	if [ "$kcsan_cut" = failed ]; then
		:
	elif [ -n "$kcsan_cut" ] && [[ " $debt " == *" kcsan "* ]]; then
		echo "not ok - kcsan # $kcsan_cut, and a debt of the last make check"
		failures+=("kcsan: cut twice in a row: $kcsan_cut")
		failed=$((failed + 1))
	elif [ -n "$kcsan_cut" ]; then
		echo "ok - kcsan # SKIP $kcsan_cut: a debt the next make check pays first"
		notrun+=("kcsan: the lane ($kcsan_cut): a debt the next make check pays first")
		newdebt+=(kcsan)
		skipped=$((skipped + 1))
	else
		echo "# the KCSAN lane: turn $((krot % 5)) of its rotation, owed ~$kcsan_owed s by the debug costs"
		KTGEN_ROTATION=$krot KTGEN_CASE_BUDGET=1 KTGEN_DEBT="$kdebt" KTGEN_DEBT_OK= \
			run_tier kcsan "$here/vm-suite.sh" bookworm-kcsan
	fi
fi

if has_tier debug; then
	# The wait is bounded: the debug lane's owed cases (and the native
	# lane after them) must fit before the hard end; a build not done by
	# then is stopped (make resumes it next time) and the lane fails.
	deadline=$((KTGEN_LANE_END - dbg_owed - 240))
	echo "# waiting for the debug kernel build (log: $CACHE/debug-kernel.log), until $((deadline - start)) s into make check"
	t_wait=$(date +%s)
	while kill -0 "$dbg_pid" 2>/dev/null && [ "$(date +%s)" -lt $deadline ]; do
		sleep 5
	done
	if kill -0 "$dbg_pid" 2>/dev/null; then
		kill_tree "$dbg_pid"
		wait "$dbg_pid" 2>/dev/null
		echo "not ok - debug # the debug kernel was not built by $((deadline - start)) s, when its owed cases (~$dbg_owed s) had to start"
		failures+=("debug: the debug kernel was not built in time; owed: cases of this turn ran nowhere")
		failed=$((failed + 1))
	elif debug_built; then
		echo "# the debug kernel: ready $(( $(date +%s) - t_wait )) s later, $(( $(date +%s) - start )) s into make check"
		# What is left, less 4 min for the guest's boot, the final
		# cases and the host's work after them; at least 10 min. The
		# cases owed in this turn run whatever it is (run.sh); the
		# budget decides what more runs, a case at a time while its
		# expected cost fits. (vm-suite's limit, for a hung guest, is
		# 20 min over the larger of the budget and what is owed.)
		left=$(( ${KTGEN_CHECK_MINUTES:-50} * 60 - ($(date +%s) - start) - 240 ))
		[ $left -lt 600 ] && left=600
		rm -f "$CACHE/runs/bookworm-debug/debt"
		KTGEN_ROTATION=$rot KTGEN_CASE_BUDGET=$left KTGEN_DEBT="$debt" KTGEN_DEBT_OK="$stock_ran" \
			run_tier debug "$here/vm-suite.sh" bookworm-debug
		[ -s "$CACHE/runs/bookworm-debug/debt" ] &&
			mapfile -t -O ${#newdebt[@]} newdebt <"$CACHE/runs/bookworm-debug/debt"
	else
		tail -n 30 "$CACHE/debug-kernel.log" | sed 's/^/# /'
		echo "not ok - debug # the debug kernel did not build"
		failures+=("debug: the debug kernel did not build")
		failed=$((failed + 1))
	fi
fi

echo "# make check took $(( $(date +%s) - start )) s"
# A kernel build still under way in the background stops here (make
# resumes it next time).
# (this shell's jobs still running: a pid reaped long ago may be another
# process's by now)
for p in $(jobs -pr); do
	kill_tree "$p"
done
rm -f "${dbg_done:-}"
# The debt for the next make check.
[ ${#newdebt[@]} = 0 ] || printf '%s\n' "${newdebt[@]}" >"$CACHE/debt"
# The failures again at the end, where a CI log's tail shows them.
for f in "${timing[@]}"; do
	echo "# timing bound missed (not gating): $f"
done
for f in "${notrun[@]}"; do
	echo "# not run: $f"
done
for f in "${failures[@]}"; do
	echo "# FAILED $f"
done
# Skips by kind: by design (what this machine or kernel lacks), the
# rotation's (cases of later turns, or left to the debug lane), debts.
printf '%s\n' "${notrun[@]}" | awk -v deferred="$deferred" -v rotated="$rotated" -v debts=${#newdebt[@]} '
	/a debt the next make check pays first/ { next }
	/not started: (it takes|the lane.s hard end)/ { rot++; next }
	NF { design++ }
	END { printf "# skipped: %d by design, %d rotation deferrals (%d left to the debug lane, %d waiting for their turn on the stock kernel), %d debts\n",
		design, rot + deferred + rotated, deferred, rotated, debts }'
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
