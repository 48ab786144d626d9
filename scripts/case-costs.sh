#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# case-costs.sh [RUN-DIR...]: update tests/vm/costs, what each VM case
# costs per lane, from the consoles of lanes that ran (default: the last
# stock and debug lanes under $KTGEN_CACHE/runs). A case's time (with the
# harness's work around it, when the line says it) and the guest's
# calibration come from the "# CASE: SECSs" and "# calibration:" lines
# run.sh prints; a time is scaled to the calibration the file holds (a
# console of a guest 15 % slower than that gives costs 15 % lower than
# its times), so figures from different machines and runs stay comparable
# and the file's calibration never changes under the figures it kept.
# A debug cost never measured is the stock one times
# the median debug/stock ratio of the cases measured on both, marked
# "est". run.sh spends the debug lane's budget by these costs (scaled by
# its calibration against the one here). A case's slice of the rotation
# (the fourth column) is kept as it was; a new case gets the one run.sh
# deals it (to the lightest slice), pinned from then on.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
top=$(dirname "$here")
CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}
costs=$top/tests/vm/costs
[ $# -gt 0 ] || set -- "$CACHE/runs/bookworm" "$CACHE/runs/bookworm-debug"

new=$(mktemp)
trap 'rm -f "$new"' EXIT
for run in "$@"; do
	lane=stock
	[[ $(basename "$run") == *-debug* ]] && lane=debug
	[ -e "$run/console.log" ] || { echo "case-costs: no console in $run" >&2; exit 1; }
	tr -d '\r' <"$run/console.log" | awk -v lane="$lane" '
		/^# calibration: [0-9]+ ms/ { print "calibration", lane, $3 }
		/^# [a-z0-9_]+: [0-9.]+s( \([0-9]+s in all\))?$/ {
			c = $2; sub(/:$/, "", c); t = $3; sub(/s$/, "", t)
			if (NF >= 6) { t = $4; sub(/^\(/, "", t); sub(/s$/, "", t) }
			printf "case %s %s %d\n", lane, c, t + 0.5
		}'
done >"$new"

[ -e "$costs" ] || : >"$costs"
awk -v newf="$new" '
	function med(a, n,    i, j, t) {
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n ? a[int((n + 1) / 2)] : 5
	}
	BEGIN {
		while ((getline l < newf) > 0) {
			split(l, f, " ")
			if (f[1] == "calibration") run_cal[f[2]] = f[3]
			else { got[f[3], f[2]] = f[4]; seen[f[3]] = 1; meas[f[3], f[2]] = 1 }
		}
	}
	$1 == "#" && $2 == "calibration" && $3 ~ /^[0-9]+$/ {
		cal["stock"] = $3
		cal["debug"] = $4
		next
	}
	/^#/ || NF < 3 { next }
	{
		seen[$1] = 1
		slice[$1] = $4 ~ /^[0-9]+$/ ? $4 : "-"
		if (!(($1, "stock") in t)) t[$1, "stock"] = $2
		if (!(($1, "debug") in t) && $NF != "est") { t[$1, "debug"] = $3; meas[$1, "debug"] = 1 }
	}
	END {
		for (l in run_cal)
			if (!(l in cal)) cal[l] = run_cal[l]
		for (k in got) {
			split(k, f, SUBSEP)
			scale = (f[2] in run_cal) ? cal[f[2]] / run_cal[f[2]] : 1
			t[k] = int(got[k] * scale + 0.5)
		}
		n = 0
		for (c in seen)
			if ((c, "debug") in meas && (c, "stock") in t && t[c, "stock"] >= 2)
				r[++n] = t[c, "debug"] / t[c, "stock"]
		ratio = med(r, n)
		print "# What each VM case takes, in seconds: on bookworm'\''s stock kernel and on"
		print "# the debug kernel, on the project'\''s 2-core machine (scripts/case-costs.sh"
		print "# writes it from lanes'\'' consoles; \"est\": never measured on the debug"
		print "# kernel, the stock time times the median ratio, " sprintf("%.1f", ratio) ")."
		print "# run.sh spends the debug lane'\''s budget by them, scaled by the guest'\''s"
		print "# speed against the calibration (ms) here. The fourth column: the case'\''s"
		print "# slice of the debug lane'\''s rotation, kept; \"-\": run.sh deals it."
		printf "# calibration %d %d\n", cal["stock"], cal["debug"]
		fflush()
		for (c in seen) {
			s = ((c, "stock") in t) ? t[c, "stock"] : 10
			sl = (c in slice) ? slice[c] : "-"
			if ((c, "debug") in t) printf "%s %d %d %s\n", c, s, t[c, "debug"], sl | "sort"
			else printf "%s %d %d %s est\n", c, s, s * ratio + 0.5, sl | "sort"
		}
	}' "$costs" >"$costs.new"
mv "$costs.new" "$costs"

# Pin the slice run.sh deals each new case ("-") in the debug lane's
# rotation, so that the next case added moves it no more than any other:
# the one turn of the rotation's that owes it.
slices=$(sed -n 's/^slices=\([0-9]*\)$/\1/p' "$top/tests/vm/run.sh")
for ((t = 0; t < slices; t++)); do
	KTGEN_ROTATION=$t KTGEN_CASE_BUDGET=1 KTGEN_TIME_SCALE=10 KTGEN_SPEED=1 \
		bash "$top/tests/vm/run.sh" --list | awk -v t=$t '$3 == "owed" { print $1, t }'
done >"$new"
awk -v newf="$new" '
	BEGIN {
		while ((getline l < newf) > 0) {
			split(l, f, " ")
			n[f[1]]++
			turn[f[1]] = f[2]
		}
	}
	!/^#/ && $4 == "-" && n[$1] == 1 { $4 = turn[$1] }
	{ print }' "$costs" >"$costs.new"
mv "$costs.new" "$costs"
echo "case-costs: $(grep -vc '^#' "$costs") cases in $costs"
