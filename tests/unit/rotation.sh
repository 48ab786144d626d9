#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rotation.sh VMDIR: the debug lane's rotation as tests/vm/run.sh deals it
# (run.sh --list, on the host). Every case has a cost; in as many
# consecutive turns as the rotation has slices every case the debug lane runs is owed, the core and
# final ones in each, every other in exactly one: the turn of the slice
# tests/vm/costs gives it. A case added to the suite moves no other.

. "$(dirname "$0")/ktap.sh"

vm=${1:?tests/vm}
# What the heaviest planned make check may take at CI's measured slowdown
# (tests/tier-costs), in min: the hard end (86) less 6 for the summary and
# a CI run slower than the last. The goal is 70 (20 min of CI's 90 left
# for the lanes to come); today's heaviest is above it (docs/testing.md),
# so the guard holds the line against growth first.
PLAN_LIMIT_MIN=${PLAN_LIMIT_MIN:-80}

# list DIR TURN: "case owed|-" for the debug lane of rotation TURN.
list()
{
	KTGEN_ROTATION=$2 KTGEN_CASE_BUDGET=1 KTGEN_TIME_SCALE=10 KTGEN_SPEED=1 \
		bash "$1/run.sh" --list 2>"$tmp/err" | awk '{ print $1, ($3 == "owed" ? "owed" : "-") }'
	[ ! -s "$tmp/err" ] || echo "ERR $(head -n 1 "$tmp/err")"
}

all=$(KTGEN_TIME_SCALE=1 bash "$vm/run.sh" --list 2>&1 | awk '{ print $1 }' | sort)
missing=$(comm -23 <(echo "$all") <(awk '!/^#/ { print $1 }' "$vm/costs" | sort))
result every_case_costed "${missing:+not in tests/vm/costs (run.sh would guess 60 s): $missing}"

slices=$(sed -n 's/^slices=\([0-9]*\)$/\1/p' "$vm/run.sh")
result slices_known "$([[ $slices =~ ^[1-9][0-9]*$ ]] || echo "no slices= in run.sh")"
turns=()
for ((t = 0; t < slices; t++)); do
	list "$vm" $t >"$tmp/turn$t"
	turns+=("$tmp/turn$t")
done
bad=$(awk -v costs="$vm/costs" -v slices="$slices" '
	BEGIN { while ((getline l < costs) > 0) { split(l, f, " "); if (f[1] != "#") slice[f[1]] = f[4] } }
	FNR == 1 { turn++ }
	$1 == "ERR" { print "run.sh: " $0; next }
	{ seen[$1] = 1; if ($2 == "owed") { owed[$1]++; in_turn[$1] = turn - 1 } }
	END {
		for (c in seen) {
			if (owed[c] == slices)
				continue	# core and final: every turn
			if (owed[c] != 1)
				print c ": owed in " owed[c] + 0 " of " slices " turns"
			else if (slice[c] ~ /^[0-9]+$/ && slice[c] != in_turn[c])
				print c ": owed in turn " in_turn[c] ", its slice is " slice[c]
		}
	}' "${turns[@]}")
result every_slice_covers_all "$bad"

# What one turn owes must fit a CI's debug lane: about 2900 s are left to
# it there, and a CI's debug lane took at least 1.23 times the costs (a
# turn owing 2731 s ran past CI's limit), so at most 2200 s by the costs.
heavy=$(for ((t = 0; t < slices; t++)); do
	KTGEN_ROTATION=$t KTGEN_CASE_BUDGET=1 KTGEN_TIME_SCALE=10 KTGEN_SPEED=1 \
		bash "$vm/run.sh" --list 2>/dev/null |
		awk -v t=$t '$3 == "owed" { s += $2 } END { if (s > 2200) print "turn " t " owes " s " s" }'
done)
result turns_fit_ci "$heavy"

# A new case (a "-" in costs: its slice not yet pinned by case-costs.sh)
# moves no case whose slice is.
cp -r "$vm" "$tmp/vm"
cat >"$tmp/vm/t_zz_new.sh" <<'EOF'
t_new_case() { :; }
case_add new_case t_new_case 60
EOF
echo "new_case 500 3000 - est" >>"$tmp/vm/costs"
moved=
for ((t = 0; t < slices; t++)); do
	list "$tmp/vm" $t | grep -v '^new_case ' >"$tmp/new$t"
	moved+=$(diff "$tmp/turn$t" "$tmp/new$t" | awk -v costs="$vm/costs" -v t=$t '
		BEGIN { while ((getline l < costs) > 0) { split(l, f, " "); pinned[f[1]] = f[4] ~ /^[0-9]+$/ } }
		/^[<>]/ && pinned[$2] { print "turn " t ": " $0 }')
done
result new_case_moves_none "$moved"
owed=$(for ((t = 0; t < slices; t++)); do list "$tmp/vm" $t; done | grep -c '^new_case owed$')
result new_case_has_a_turn "$([ "$owed" = 1 ] || echo "new_case owed in $owed turns")"

# The hard end (KTGEN_CASE_HARD): run.sh itself, on the host, over cases
# that only sleep, with what it calls in the guest stubbed. An owed case
# whose expected cost (with the final cases after it) would cross the end
# is not started and says why; a cheaper one after it still runs, and so
# do the final cases.
mkdir -p "$tmp/hard/vm" "$tmp/hard/bin"
cp "$vm/run.sh" "$vm/lib.sh" "$vm/reports.sh" "$tmp/hard/vm/"
cat >"$tmp/hard/vm/t_hard.sh" <<'EOF'
t_sleep() { sleep 1; }
case_add core_a t_sleep 60 core
case_add core_slow t_sleep 60 core
case_add core_b t_sleep 60 core
case_add last_one t_sleep 60 final
EOF
printf '%s\n' "# calibration 0 0" "core_a 1 2 -" "core_slow 1 40 -" "core_b 1 2 -" \
	"last_one 1 3 -" >"$tmp/hard/vm/costs"
for b in ip dmesg pkill rmmod; do
	printf '#!/bin/sh\nexit 0\n' >"$tmp/hard/bin/$b"
	chmod +x "$tmp/hard/bin/$b"
done
# hard_run NAME [ENV...]: run.sh over the sleeping cases, its KTAP verdicts
# (the hard end's text shortened) in $tmp/hard/NAME.
hard_run()
{
	local name=$1

	shift
	rm -f "$tmp/hard/debt" "$tmp/hard/ktap"
	env PATH="$tmp/hard/bin:$PATH" KTGEN=true KTGEN_KMSG=/dev/null KTGEN_TIME_SCALE=10 \
		KTGEN_CASE_BUDGET=1 KTGEN_CASE_HARD=20 KTGEN_ROTATION=0 KTGEN_KTAP="$tmp/hard/ktap" \
		KTGEN_DEBT_OUT="$tmp/hard/debt" "$@" \
		timeout 120 bash "$tmp/hard/vm/run.sh" >"$tmp/hard/out" 2>&1
	echo $? >"$tmp/hard/$name.rc"
	sed -E "s/(not started: the lane.s hard end)[^;]*/\1/" "$tmp/hard/ktap" |
		grep -E '^(not )?ok' >"$tmp/hard/$name"
}

# An owed case cut that ran nowhere else in the make check: a failure.
hard_run nowhere
want="ok 1 core_a
not ok 2 core_slow # not started: the lane's hard end; owed in this turn and run nowhere else
ok 3 core_b
ok 4 last_one"
got=$(cat "$tmp/hard/nowhere")
result hard_end_cuts_what_would_cross "$([ "$got" = "$want" ] || printf 'got:\n%s\n%s\n' "$got" "$(tail -n 5 "$tmp/hard/out")")"
result hard_end_cut_fails_the_lane "$([ "$(cat "$tmp/hard/nowhere.rc")" != 0 ] || echo "run.sh exited 0")"
line=$(grep '^# rotation: ' "$tmp/hard/out")
result hard_end_in_rotation_line "$([[ $line == *"owed (core, final and the 0 of this turn's slice), 1 cut by the hard end (core_slow);"* ]] ||
	echo "rotation line: ${line:-none}; $(grep -m 1 'unbound' "$tmp/hard/out")")"

# One the stock lane ran: a debt for the next make check, written out.
hard_run indebted KTGEN_DEBT_OK="core_a core_slow"
got=$(sed -n 2p "$tmp/hard/indebted")
result hard_end_cut_is_a_debt "$([[ $got == "ok 2 core_slow # SKIP not started: the lane's hard end; owed: a debt the next make check pays first" ]] &&
	[ "$(cat "$tmp/hard/debt" 2>/dev/null)" = core_slow ] && [ "$(cat "$tmp/hard/indebted.rc")" = 0 ] ||
	echo "got '$got', debt '$(cat "$tmp/hard/debt" 2>/dev/null)', rc $(cat "$tmp/hard/indebted.rc")")"

# A debt is paid first, and a debt cut again fails.
hard_run paid KTGEN_DEBT="core_b"
got=$(head -n 1 "$tmp/hard/paid")
result debt_paid_first "$([ "$got" = "ok 1 core_b" ] || echo "first: $got")"
hard_run again KTGEN_DEBT="core_slow" KTGEN_DEBT_OK="core_slow"
got=$(head -n 1 "$tmp/hard/again")
result debt_cut_again_fails "$([ "$got" = "not ok 1 core_slow # not started: the lane's hard end; a debt of the last make check, cut again" ] &&
	[ ! -s "$tmp/hard/debt" ] || echo "got '$got', debt '$(cat "$tmp/hard/debt" 2>/dev/null)'")"

# The stock lane leaves the turn's slice to the debug lane, never a core
# case (run on both kernels every time).
core_deferred=$(KTGEN_ROTATION=0 KTGEN_TIME_SCALE=1 KTGEN_DEFER_OWED=1 bash "$vm/run.sh" --list --deferred 2>/dev/null |
	awk '$2 == "deferred" { print $1 }' | while read -r c; do
		grep -q "^case_add $c .* core" "$vm"/t_*.sh && echo "$c"
	done)
result core_runs_on_stock_too "${core_deferred:+deferred to the debug lane: $core_deferred}"

# The stock lane's own turns (run.sh --list --deferred): a case of the
# debug lane's slices that the stock lane does not run every time (not
# smoke, "full" nor core) runs there in exactly one turn of five, never the
# one the debug lane owes it; every other case runs there in every turn.
for ((t = 0; t < slices; t++)); do
	KTGEN_ROTATION=$t KTGEN_TIME_SCALE=1 KTGEN_DEFER_OWED=1 bash "$vm/run.sh" --list --deferred 2>&1 |
		awk -v t=$t '{ print t, $1, ($2 == "" ? "run" : $2) }'
done >"$tmp/stock"
bad=$(for ((t = 0; t < slices; t++)); do sed "s/^/$t /" "$tmp/turn$t"; done |
	awk -v slices="$slices" -v tags="$(grep -hE '^case_add ' "$vm"/t_*.sh)" '
	BEGIN {
		n = split(tags, l, "\n")
		for (i = 1; i <= n; i++) {
			split(l[i], f, " ")
			if (l[i] ~ / (smoke|full|core|final)( |$)/) every[f[2]] = 1
		}
	}
	NR == FNR { if ($3 == "owed") { owed[$1, $2] = 1; nowed[$2]++ } next }
	{ seen[$2] = 1; if ($3 == "run") { runs[$2]++; turn[$2] = $1 } }
	END {
		for (c in seen) {
			# a case of the slices (owed in one debug turn) not
			# tagged to run every time takes turns here too
			if (nowed[c] == 1 && !(c in every)) {
				if (runs[c] != 1) print c ": a case of the slices on the stock kernel in " runs[c] + 0 " of " slices " turns"
				else if ((turn[c], c) in owed) print c ": on both kernels in turn " turn[c]
			} else if (runs[c] != slices)
				print c ": on the stock kernel in " runs[c] + 0 " of " slices " turns, not every one"
		}
	}' - "$tmp/stock")
result stock_turn_once_in_five "$bad"
every=$(awk -v slices="$slices" '$3 == "run" { n[$2]++ } END { for (c in n) if (n[c] == slices) print c }' "$tmp/stock" | sort)
result stock_runs_the_rest_every_turn "$([ -n "$every" ] && echo "$every" | grep -qx tcp_loopback &&
	echo "$every" | grep -qx ab_verdicts || echo "every turn: $(echo $every | head -c 300)")"

# The projection: the heaviest turn, with one smoke lane (the rotation's
# usual run), fits the limit at CI's measured slowdown (on its debug
# lane); by the costs alone it is said.
read -r _ _ _ total ci < <("$(dirname "$vm")/../scripts/check-plan.sh" --heaviest | head -n 1)
echo "# the heaviest turn with one smoke lane: $((total / 60)) min by the costs, $((ci / 60)) min with CI's slowdown on the debug lane"
result heaviest_plan_fits "$([ "$ci" -le $((PLAN_LIMIT_MIN * 60)) ] ||
	echo "$((ci / 60)) min at CI's slowdown, more than $PLAN_LIMIT_MIN")"

# case-costs.sh scales a console's times to the file's calibration: a
# guest twice as slow as the file's calibration gives half its times, and
# the calibration line stays what it was.
mkdir -p "$tmp/cc/scripts" "$tmp/cc/tests" "$tmp/cc/runs/bookworm" "$tmp/cc/runs/bookworm-debug"
cp "$(dirname "$vm")/../scripts/case-costs.sh" "$tmp/cc/scripts/"
cp -r "$vm" "$tmp/cc/tests/vm"
read -r _ _ cs cd < <(grep '^# calibration ' "$vm/costs")
printf '# calibration: %d ms (...)\n# tcp_loopback: 99.6s (200s in all)\n' $((cs * 2)) \
	>"$tmp/cc/runs/bookworm/console.log"
printf '# calibration: %d ms (...)\n# rr_exact: 10.0s (100s in all)\n' $((cd / 2)) \
	>"$tmp/cc/runs/bookworm-debug/console.log"
"$tmp/cc/scripts/case-costs.sh" "$tmp/cc/runs/bookworm" "$tmp/cc/runs/bookworm-debug" >/dev/null
got=$(awk '/^# calibration / { print $3, $4 } $1 == "tcp_loopback" { print $2 } $1 == "rr_exact" { print $3 }' \
	"$tmp/cc/tests/vm/costs" | tr '\n' ' ')
result costs_scaled_to_the_file "$([ "$got" = "$cs $cd 200 100 " ] ||
	echo "calibration, rr_exact debug, tcp_loopback stock: $got (expected $cs $cd 200 100)")"

# The KCSAN lane (KTGEN_KCSAN=1) runs the cases tagged "kcsan" and no
# other: a dozen or so data-path cases, all of them in every turn, within
# ~600 s by their debug-kernel costs.
kcsan=$(KTGEN_KCSAN=1 KTGEN_TIME_SCALE=10 bash "$vm/run.sh" --list 2>&1 | awk '{ print $1 }')
tagged=$(grep -hE '^(\[ [^]]* \] \|\| )?case_add .* kcsan( |$)' "$vm"/t_*.sh | sed 's/.*case_add //' | awk '{ print $1 }')
result kcsan_lane_runs_its_set "$(diff <(echo "$kcsan" | sort) <(echo "$tagged" | sort) | grep '^[<>]' | head -n 3 | tr '\n' ' ')"
result kcsan_set_fits "$(echo "$kcsan" | awk -v costs="$vm/costs" '
	BEGIN { while ((getline l < costs) > 0) { split(l, f, " "); if (f[1] != "#") d[f[1]] = f[3] } }
	{ n++; s += d[$1] }
	END { if (n < 10 || n > 20 || s > 600) print n " cases, " s " s on the debug kernel: 10-20 and 600 s at most" }')"

finish rotation
