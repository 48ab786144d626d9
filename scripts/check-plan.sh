#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-plan.sh [TURN [SMOKE-LANES]]: the projection of a make check, tier by
# tier, from what each is expected to take (tests/tier-costs, the cases'
# tests/vm/costs): the stock lane's cases less those it leaves to the debug
# lane in TURN, the smoke lanes named (default: all three), the debug
# lane's owed cases (core, final, TURN's slice, and KTGEN_DEBT's), the
# real-driver lane (one driver), the native lane, the KCSAN lane's turn. Prints one "TIER SECS" line per tier, then "total SECS" and
# "ci SECS" (the total with CI's slowdown measured on the debug lane).
# check-plan.sh --heaviest: the heaviest turn with one smoke lane and with
# all three, one line each: "heaviest TURN LANES total ci".
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
vm=$top/tests/vm

tier_cost()
{
	awk -v t="$1" '$1 == t { print $2; exit }' "$top/tests/tier-costs"
}

# The expected seconds of the cases run.sh lists ("CASE ..."), on the
# stock (column 2) or debug (column 3) kernel.
cases_cost()
{
	awk -v col="$1" 'NR == FNR { if ($1 !~ /^#/) c[$1] = $col; next }
		{ s += ($1 in c) ? c[$1] : 60 } END { print s + 0 }' "$vm/costs" -
}

plan()
{
	local turn=$1 lanes=$2 owed stock host lane smoke uml final debug nic total l

	owed=$(KTGEN_ROTATION=$turn KTGEN_CASE_BUDGET=1 KTGEN_TIME_SCALE=10 KTGEN_SPEED=1 \
		bash "$vm/run.sh" --list | awk '$3 == "owed" { print $1 }')
	# the stock lane: all but what it leaves to the debug lane this turn
	# and the slices waiting for their turn there (run.sh --list
	# --deferred: "deferred", "rotated")
	stock=$(KTGEN_ROTATION=$turn KTGEN_TIME_SCALE=1 KTGEN_DEFER_OWED=1 \
		bash "$vm/run.sh" --list --deferred | awk '$2 == "" { print $1 }' | cases_cost 2)
	debug=$(echo "$owed" | cases_cost 3)
	# the KCSAN lane: its turn's data-path cases (two turns ahead of the
	# debug lane's), at the debug costs times its guest's slowness
	kcsan=$(KTGEN_KCSAN=1 KTGEN_ROTATION=$((turn + 2)) KTGEN_CASE_BUDGET=1 KTGEN_TIME_SCALE=10 \
		KTGEN_SPEED=1 bash "$vm/run.sh" --list | awk '$3 == "owed" { print $1 }' | cases_cost 3)
	kcsan=$(awk -v c="$kcsan" -v f="$(tier_cost kcsan_factor)" 'BEGIN { printf "%d", c * f + 0.5 }')
	host=$(tier_cost host) lane=$(tier_cost lane) smoke=$(tier_cost smoke)
	uml=$(tier_cost uml) final=$(tier_cost final) nic=$(tier_cost nic)
	echo "host $host"
	echo "vm $((lane + stock))"
	total=$((host + lane + stock))
	for l in $lanes; do
		echo "$l $smoke"
		total=$((total + smoke))
	done
	echo "nic $nic"
	total=$((total + nic))
	echo "uml $uml"
	echo "kcsan $((lane + kcsan))"
	echo "debug $((lane + debug))"
	echo "final $final"
	total=$((total + lane + debug + uml + lane + kcsan + final))
	echo "total $total"
	# CI's slowdown, measured on the debug lane, applied to it and to
	# the KCSAN lane
	echo "ci $(awk -v t=$total -v d=$((lane + debug + lane + kcsan)) -v s="$(tier_cost slowdown)" \
		'BEGIN { printf "%d", t + d * (s - 1) + 0.5 }')"
}

if [ "${1:-}" = --heaviest ]; then
	for lanes in "trixie" "trixie bullseye sid"; do
		for t in 0 1 2 3 4; do
			echo "$t $(plan $t "$lanes" | awk '$1 == "total" || $1 == "ci" { printf " %s", $2 }')"
		done | sort -k3,3nr | head -n 1 | awk -v l="$lanes" '{ printf "heaviest %s %s %s %s\n", $1, l == "trixie" ? "one" : "three", $2, $3 }'
	done
	exit 0
fi
plan "${1:-0}" "${2-trixie bullseye sid}"
