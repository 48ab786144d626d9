#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rotation.sh VMDIR: the debug lane's rotation as tests/vm/run.sh deals it
# (run.sh --list, on the host). Every case has a cost; in three
# consecutive turns every case the debug lane runs is owed, the core and
# final ones in each, every other in exactly one: the turn of the slice
# tests/vm/costs gives it. A case added to the suite moves no other.

. "$(dirname "$0")/ktap.sh"

vm=${1:?tests/vm}

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

for t in 0 1 2; do
	list "$vm" $t >"$tmp/turn$t"
done
bad=$(awk -v costs="$vm/costs" '
	BEGIN { while ((getline l < costs) > 0) { split(l, f, " "); if (f[1] != "#") slice[f[1]] = f[4] } }
	FNR == 1 { turn++ }
	$1 == "ERR" { print "run.sh: " $0; next }
	{ seen[$1] = 1; if ($2 == "owed") { owed[$1]++; in_turn[$1] = turn - 1 } }
	END {
		for (c in seen) {
			if (owed[c] == 3)
				continue	# core and final: every turn
			if (owed[c] != 1)
				print c ": owed in " owed[c] + 0 " of 3 turns"
			else if (slice[c] ~ /^[0-2]$/ && slice[c] != in_turn[c])
				print c ": owed in turn " in_turn[c] ", its slice is " slice[c]
		}
	}' "$tmp/turn0" "$tmp/turn1" "$tmp/turn2")
result three_turns_cover_all "$bad"

# A new case (a "-" in costs: its slice not yet pinned by case-costs.sh)
# moves no case whose slice is.
cp -r "$vm" "$tmp/vm"
cat >"$tmp/vm/t_zz_new.sh" <<'EOF'
t_new_case() { :; }
case_add new_case t_new_case 60
EOF
echo "new_case 500 3000 - est" >>"$tmp/vm/costs"
moved=
for t in 0 1 2; do
	list "$tmp/vm" $t | grep -v '^new_case ' >"$tmp/new$t"
	moved+=$(diff "$tmp/turn$t" "$tmp/new$t" | awk -v costs="$vm/costs" -v t=$t '
		BEGIN { while ((getline l < costs) > 0) { split(l, f, " "); pinned[f[1]] = f[4] ~ /^[0-2]$/ } }
		/^[<>]/ && pinned[$2] { print "turn " t ": " $0 }')
done
result new_case_moves_none "$moved"
owed=$(for t in 0 1 2; do list "$tmp/vm" $t; done | grep -c '^new_case owed$')
result new_case_has_a_turn "$([ "$owed" = 1 ] || echo "new_case owed in $owed turns")"

finish rotation
