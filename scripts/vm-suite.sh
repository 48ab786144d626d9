#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-suite.sh [--smoke] LANE [CASE-REGEX]: build ktgen.ko for LANE's kernel
# (W=1, warning-free) and run the KTAP scenarios of tests/vm in a VM on it.
# LANE is a Debian suite (bullseye, bookworm, trixie, sid), SUITE-debug
# for the debug-kernel build of it, SUITE-kcsan for its KCSAN build (the
# data-path cases tagged "kcsan" only), SUITE-nic for its stock kernel with
# real NIC models (igb, e1000e, virtio-net: t_driver.sh), SUITE-uml for its User-Mode Linux
# build (build-uml-kernel.sh, booted by uml-run.sh) and SUITE-uml-debug for
# that build with the debug options; --smoke runs the subset every kernel
# lane runs (check-compat). Prints KTAP and a "LANE: N passed, N failed"
# line; a case that never ran (guest crash, timeout) counts as failed. The
# run's console, KTAP and record (what check-compat compares) stay in
# $KTGEN_CACHE/runs/LANE[-smoke].
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}
smoke=
if [ "${1:-}" = --smoke ]; then
	smoke=1
	shift
fi
lane=${1:?lane}
filter=${2:-}

case $lane in
*-uml-debug) kenv=$("$here/build-uml-kernel.sh" --debug "${lane%-uml-debug}") ;;
*-debug) kenv=$("$here/build-debug-kernel.sh" "${lane%-debug}") ;;
*-kcsan) kenv=$("$here/build-debug-kernel.sh" --kcsan "${lane%-kcsan}") ;;
*-uml) kenv=$("$here/build-uml-kernel.sh" "${lane%-uml}") ;;
*-nic) kenv=$("$here/fetch-kernel.sh" "${lane%-nic}") ;;
*) kenv=$("$here/fetch-kernel.sh" "$lane") ;;
esac
# The real-driver lane: the suite's stock kernel with two NICs of each
# real driver model (vm-run.sh -n, QEMU 10) and the cases tagged "driver"
# (tests/vm/t_driver.sh). KTGEN_NIC_DRIVERS picks the models.
drivers=
case $lane in
*-nic) drivers=${KTGEN_NIC_DRIVERS:-igb e1000e virtio} ;;
esac
# shellcheck disable=SC1090
. "$kenv"
# The KCSAN lane (KDEBUG=kcsan: build-debug-kernel.sh --kcsan): the debug
# lane's time scale, its own set of cases (tests/vm/lib.sh: "kcsan").
kcsan=
[ "${KDEBUG:-}" = kcsan ] && kcsan=1
# A User-Mode Linux kernel (the native-speed lane) boots as a host
# process, through the same guest script.
# ASan's shadow does not fit a UML process's address space (its runtime
# cannot map it), so there the cases run the plain CLI.
boot=$here/vm-run.sh cli=$top/tools/build/san/ktgen
[ -n "${UML:-}" ] && boot=$here/uml-run.sh cli=$top/tools/ktgen
# The debug kernel's lane checks the kernel: there ASan's start costs each
# call of the CLI ~0.65 s of a debug guest's exec (0.95 s against 0.30 s
# plain, ~300 calls a turn), and the stock lane runs every case under the
# sanitized CLI in its own turns.
[ -n "${KDEBUG:-}" ] && [ -z "${UML:-}" ] && cli=$top/tools/ktgen
ko=$(KTGEN_TEST_HOOKS=1 "$here/build-module.sh" "$kenv")
# The KCSAN lane's positive control (kcsan_control): a module with a
# seeded data race, built against the lane's kernel as ktgen.ko is (W=1,
# warning-free).
race_ko=
if [ -n "$kcsan" ]; then
	rb=$CACHE/build/$KSUITE-$KABI-race
	mkdir -p "$rb"
	cp "$top/tests/vm/kcsan-race/Kbuild" "$top/tests/vm/kcsan-race/ktg_race.c" "$rb/"
	if ! make -C "$KDIR" M="$rb" W=1 modules >"$rb/build.log" 2>&1 ||
		grep -E 'warning:|error:' "$rb/build.log" >&2; then
		cat "$rb/build.log" >&2
		echo "vm-suite: the seeded race module did not build cleanly" >&2
		exit 1
	fi
	race_ko=$rb/ktg_race.ko
fi
# The CLI the other lanes' cases run is built with ASan and UBSan; its reports go to
# files the guest's run.sh looks for after each case (a report fails it).
# Leaks are the unit tier's to find (its CLI cases run with LeakSanitizer):
# here its exit-time scan would cost each of the suite's calls ~0.3 s.
make -s -C "$top/tools" ktgen build/san/ktgen \
	KTGEN_VERSION="$(make -s -C "$top" --no-print-directory print-version)"
mkdir -p "$top/tests/build"
make -s -C "$top/tools" helpers
# Debian's sshd for the two-host cases (run ... peer, tests/vm/t_peer.sh).
sshd_root=$("$here/deb-root.sh" sshd bookworm openssh-server libwrap0 -- usr/sbin/sshd)

out=$CACHE/runs/$lane${smoke:+-smoke}
rm -rf "$out"
mkdir -p "$out"
echo "$KVER" >"$out/kernel"
scale=1
[ -n "${KDEBUG:-}" ] && scale=10
budget=${KTGEN_CASE_BUDGET:-}
# The plan: with a budget, each case's cost and whether this turn of the
# rotation owes it (run.sh).
mapfile -t plan < <(KTGEN_SMOKE=$smoke KTGEN_UML=${UML:+1} KTGEN_DRIVERS=$drivers KTGEN_KCSAN=$kcsan KTGEN_TIME_SCALE=$scale KTGEN_CASE_BUDGET="$budget" \
	KTGEN_ROTATION="${KTGEN_ROTATION:-0}" KTGEN_DEBT="${KTGEN_DEBT:-}" "$top/tests/vm/run.sh" --list "$filter")
cases=("${plan[@]%% *}")
owed=$(printf '%s\n' "${plan[@]}" | awk '$3 == "owed" { n++; s += $2 } END { printf "%d cases, ~%d s", n, s }')
echo "# $lane: kernel $KVER, ${#cases[@]} ${smoke:+smoke }cases${budget:+; owed in this turn: $owed; a budget of $budget s for them and what more fits}"
set +e
# A hung guest must not eat the CI budget: whatever has not run by then
# counts as failed. A guest that booted with lockdep already off (75), or
# that died before its first case began, is booted once more. (The full
# stock suite took 31 min on a slow machine; it has grown since.)
limit=3000
[ -n "$smoke" ] && limit=900
[ $scale -gt 1 ] && limit=5400
# A case budget (run.sh): the guest's limit is the budget (or what the
# owed cases are expected to take, if more) plus 20 min for its boot and
# the distance between a case's expected and actual time.
if [ -n "$budget" ]; then
	need=$(printf '%s\n' "${plan[@]}" | awk '$3 == "owed" { s += $2 } END { print s + 0 }')
	[ "$need" -lt "$budget" ] && need=$budget
	limit=$((need + 1200))
fi
# KTGEN_LANE_END (make check: the epoch second by which its last tier must
# be done, CI's limit less the time to report) caps the limit, at each
# boot; the cases themselves stop starting 4 min before it (run.sh:
# KTGEN_CASE_HARD), which leaves the guest's boot and this script's work
# after it.
want=$limit hard=
for attempt in 1 2; do
	if [ -n "${KTGEN_LANE_END:-}" ]; then
		limit=$((KTGEN_LANE_END - $(date +%s)))
		# no guest past the hard end: a lane left less than 5 min
		# does not boot, and fails (its cases ran nowhere)
		if [ $limit -lt 300 ]; then
			echo "not ok - $lane # not started: $limit s left before make check's hard end"
			echo "$lane${smoke:+ (smoke)}: 0 passed, 1 failed, 0 skipped"
			exit 1
		fi
		[ $limit -gt $want ] && limit=$want
		hard=$((limit - 240))
	fi
	KTGEN_VM_QUIET=${KTGEN_VM_QUIET-1} "$boot" -k "$kenv" -o "$out" -t $limit ${drivers:+-n "$drivers"} -- \
		env KTGEN="$cli" KTGEN_KO="$ko" KTGEN_NLRAW="$top/tests/build/nlraw" \
		ASAN_OPTIONS="log_path=/tmp/ktgen-san/asan:exitcode=86:detect_leaks=0" \
		UBSAN_OPTIONS="log_path=/tmp/ktgen-san/ubsan:halt_on_error=1:exitcode=86:print_stacktrace=1" \
		LSAN_OPTIONS="exitcode=86" \
		KTGEN_NLFAULT="$top/tests/build/nlfault" KTGEN_NLFUZZ="$top/tests/build/nlfuzz" \
		KTGEN_TIME_SCALE=$scale KTGEN_SMOKE=$smoke KTGEN_UML=${UML:+1} KTGEN_DRIVERS="$drivers" \
		KTGEN_KCSAN=$kcsan KTGEN_RACE_KO="$race_ko" \
		KTGEN_KTAP=/mnt/out/ktap \
		KTGEN_CASE_BUDGET="$budget" KTGEN_CASE_HARD="$hard" KTGEN_ROTATION="${KTGEN_ROTATION:-0}" \
		KTGEN_DEFER_OWED="${KTGEN_DEFER_OWED:-}" KTGEN_DEBT="${KTGEN_DEBT:-}" \
		KTGEN_DEBT_OK="${KTGEN_DEBT_OK:-}" KTGEN_DEBT_OUT=/mnt/out/debt \
		KTGEN_SSHD_ROOT="$sshd_root" KTGEN_PEER_RECIPES="${KTGEN_PEER_RECIPES:-}" \
		KTGEN_RECORD=/mnt/out/record \
		"$top/tests/vm/run.sh" "$filter" >/dev/null
	rc=$?
	if [ $rc = 75 ]; then
		echo "# $lane: $(grep -a 'lockdep was off at boot' "$out/console.log" | head -n 1)"
	elif [ $rc = 125 ] && ! grep -aq 'ktgen-test: begin' "$out/console.log"; then
		# Died booting, before the module was ever loaded (seen once
		# with 7.2 under TCG: an int3 oops in an initcall).
		echo "# $lane: the guest died before the first case, booted once more:" \
			"$(grep -aE -m 1 'Oops|BUG:|panic' "$out/console.log")"
	else
		break
	fi
	rm -f "$out/ktap" "$out/record"
done
set -e

# The console carries the cases' diagnostics; the KTAP file the verdicts.
grep -av '^\[ *[0-9.]*\]' "$out/console.log" | sed -n '/^KTAP version/,/^KTGEN_EXIT/p' |
	grep -v '^KTGEN_EXIT' || true
passed=$(grep '^ok ' "$out/ktap" 2>/dev/null | grep -vc '# SKIP' || true)
skipped=$(grep '^ok ' "$out/ktap" 2>/dev/null | grep -c '# SKIP' || true)
failed=$(grep -c '^not ok ' "$out/ktap" 2>/dev/null || true)
ran=$((passed + skipped + failed))
if [ $ran -lt ${#cases[@]} ]; then
	echo "# $lane: $(( ${#cases[@]} - ran )) cases never ran (guest status $rc); console tail:"
	tail -n 40 "$out/console.log" | sed 's/^/#   /'
	failed=$(( ${#cases[@]} - passed - skipped ))
fi
# Every case this turn owes (run.sh) must have started: core cases run in
# every make check, the slice whose turn it is with them.
if [ -n "$budget" ] && [ -e "$out/ktap" ]; then
	for p in "${plan[@]}"; do
		read -r c _ o <<<"$p"
		[ "$o" = owed ] || continue
		# (one the hard end kept from starting says so: make check lists it)
		if ! grep -Eq "^(not )?ok [0-9]+ $c( |\$)" "$out/ktap" ||
		   grep -Eq "^ok [0-9]+ $c # SKIP not started: it takes" "$out/ktap"; then
			echo "not ok - $c # owed in this turn (core or due) and not started"
			failed=$((failed + 1))
		fi
	done
fi
# The whole console, scanned again here: a report that a wrapped log
# buffer hid from the guest's scan fails the lane.
# shellcheck source=tests/vm/reports.sh
. "$top/tests/vm/reports.sh"
if [ -e "$out/ktap" ]; then
	while IFS= read -r r; do
		# (a KCSAN note: a race of the kernel's own, not a failure)
		[[ $r == "# kcsan "* ]] && { echo "${r:0:300}"; continue; }
		echo "not ok - console_report # ${r:0:300}"
		failed=$((failed + 1))
	done < <(tr -d '\r' <"$out/console.log" | console_reports "$out/ktap" | head -n 20)
fi
# Line coverage of the modules (kmod/, kmod/nic/) from the gcda files the
# guest exported, per file. A whole debug lane (no case filter, no case cut
# by its hard end) is held to tests/vm/coverage-floor: the floors are what
# the core cases reach, and every turn of the rotation runs them.
if [ -d "$out/gcov" ]; then
	kb=$(dirname "$ko")
	for d in . nic; do
		srcs=()
		for g in "$out/gcov/$d"/*.gcda; do
			[ -e "$g" ] || continue
			cp "$g" "$kb/$d/"
			g=$(basename "$g" .gcda)
			# The modules' own objects only: ktgen.mod.c has no
			# notes, and gcov fails on a source without them.
			[ -e "$kb/$d/$g.c" ] && srcs+=("$g.c")
		done
		[ ${#srcs[@]} -gt 0 ] || continue
		(cd "$kb/$d" && gcov -n -o . "${srcs[@]}" 2>/dev/null) | awk -v dir="$d" '
			/^File / { f = $2; gsub(/\047/, "", f) }
			/^Lines executed:/ {
				split($2, a, ":"); pct = a[2] + 0; n = $4 + 0
				if (f ~ /\/kmod\/(nic\/)?[^\/]+\.c$/ && f !~ /\.mod\.c$/) {
					sub(/.*\//, "", f)
					printf "# coverage: %-18s %6.2f%% of %d lines\n",
						(dir == "." ? "" : dir "/") f, pct, n
				}
			}'
	done >"$out/coverage.txt" || echo "# $lane: coverage could not be read (gcov failed)"
	awk '{ hit += $4 * $6 / 100; tot += $6 }
	     END { if (tot) printf "# coverage: kmod/ total %.1f%% of %d lines\n", 100 * hit / tot, tot }' \
		"$out/coverage.txt" >>"$out/coverage.txt"
	cat "$out/coverage.txt"
	# owed cases the hard end cut (run.sh: a debt or a failure)
	cut=$(grep -Ec "not started: the lane's hard end.*(a debt|run nowhere|cut again)" "$out/ktap" 2>/dev/null || true)
	cut=${cut:-0}
	why=
	[ -z "$filter" ] || why="cases chosen by '$filter'"
	[ "$cut" = 0 ] || why="${why:+$why, }$cut owed cases cut by the hard end"
	if [ -n "${KDEBUG:-}" ] && [ -z "${UML:-}" ]; then
		if [ -z "$why" ]; then
			"$here/coverage-gate.sh" "$top/tests/vm/coverage-floor" "$out/coverage.txt" ||
				failed=$((failed + 1))
		elif [ "$cut" = 0 ]; then
			echo "# $lane: coverage floors not applied: $why"
		elif [[ " ${KTGEN_DEBT:-} " == *" coverage_gate "* ]]; then
			echo "not ok - coverage_gate # not applied: $why, and a debt of the last make check"
			failed=$((failed + 1))
		else
			# a make check's lane: the next one applies it first
			echo "# $lane: coverage floors not applied: $why: a debt the next make check pays first"
			echo coverage_gate >>"$out/debt"
		fi
	fi
fi
echo "$lane${smoke:+ (smoke)}: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
