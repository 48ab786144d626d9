#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# coverage-gate.sh FLOOR COVERAGE: the debug lane's line coverage of the
# modules (COVERAGE: vm-suite.sh's "# coverage: FILE PCT% of N lines"
# lines) against the floor of each file (FLOOR: "FILE PCT" lines,
# tests/vm/coverage-floor). One KTAP line, "ok - coverage_floor" or "not ok"
# naming every file below its floor, every file without one and every
# floor whose file was not measured; exit 1 on "not ok".
#
# coverage-gate.sh --write COVERAGE...: the floors those lanes give: the
# least each file had in them, less a margin for what varies from run to
# run (10 % of a file's lines, at least three lines), for
# tests/vm/coverage-floor.
set -euo pipefail

if [ "${1:-}" = --write ]; then
	shift
	awk '/^# coverage: / && $3 != "kmod/" {
		f = $3; n = $6 + 0; hit = $4 * n / 100
		if (!(f in least) || hit < least[f]) { least[f] = hit; lines[f] = n }
		if (!(f in order)) { order[f] = ++nf; name[nf] = f }
	}
	END {
		for (i = 1; i <= nf; i++) {
			f = name[i]; n = lines[f]
			margin = n * 0.1 < 3 ? 3 : n * 0.1
			pct = least[f] > margin ? 100 * (least[f] - margin) / n : 0
			printf "%-18s %d\n", f, pct
		}
	}' "${@:?coverage files}"
	exit 0
fi
floor=${1:?floor file}
cov=${2:?coverage file}
awk '
	FNR == NR { if ($1 !~ /^#/ && NF == 2) floor[$1] = $2; next }
	/^# coverage: / && $3 != "kmod/" {
		f = $3; pct = $4 + 0; seen[f] = 1
		if (!(f in floor))
			bad = bad sprintf("; %s: no floor (add it to tests/vm/coverage-floor)", f)
		else if (pct < floor[f])
			bad = bad sprintf("; %s: %.2f%% of its lines, its floor %d%%", f, pct, floor[f])
	}
	END {
		for (f in floor)
			if (!(f in seen))
				bad = bad sprintf("; %s: has a floor, was not measured", f)
		if (bad == "") {
			print "ok - coverage_floor"
			exit 0
		}
		print "not ok - coverage_floor # " substr(bad, 3)
		exit 1
	}' "$floor" "$cov"
