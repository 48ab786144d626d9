#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# coverage.sh TOP: scripts/coverage-gate.sh, which holds the debug lane's
# coverage of the modules to tests/vm/coverage-floor, on coverage reports
# made up around the tree's floors: at the floors it passes; a file below
# its floor, a file without one and a floor nobody measured each fail,
# named; --write takes the least of the lanes it is given, less a margin. The floors name
# files of the tree, kmod/nic/'s among them.

. "$(dirname "$0")/ktap.sh"

top=$(readlink -f "${1:?top of the tree}")
gate=$top/scripts/coverage-gate.sh
floor=$top/tests/vm/coverage-floor

# A report with every file of the floor file at FLOOR + $1 percent.
report()
{
	awk -v add="$1" '$1 !~ /^#/ && NF == 2 {
		printf "# coverage: %-18s %6.2f%% of 100 lines\n", $1, $2 + add
	}' "$floor"
	echo "# coverage: kmod/ total 90.0% of 4000 lines"
}

d=""
grep -q '^nic/' "$floor" || d+="no floor for kmod/nic/'s files"$'\n'
for f in $(awk '$1 !~ /^#/ && NF == 2 { print $1 }' "$floor"); do
	[ -e "$top/kmod/$f" ] || d+="a floor for kmod/$f, which is not there"$'\n'
done
result floors_name_the_tree "$d"

report 0 >"$tmp/at"
out=$("$gate" "$floor" "$tmp/at") && rc=0 || rc=$?
result at_the_floors_passes "$([ $rc = 0 ] && [ "$out" = "ok - coverage_floor" ] || echo "exit $rc: $out")"

first=$(awk '$1 !~ /^#/ && NF == 2 { print $1; exit }' "$floor")
report 0 | sed "s|^\(# coverage: $first *\)[0-9.]*%|\1 0.50%|" >"$tmp/below"
out=$("$gate" "$floor" "$tmp/below") && rc=0 || rc=$?
result below_named "$([ $rc = 1 ] && [[ $out == "not ok - coverage_floor # $first: 0.50% of its lines, its floor "* ]] ||
	echo "exit $rc: $out")"

{ report 0; echo "# coverage: new.c               95.00% of 10 lines"; } >"$tmp/new"
out=$("$gate" "$floor" "$tmp/new") && rc=0 || rc=$?
result unfloored_named "$([ $rc = 1 ] && [[ $out == *"new.c: no floor (add it to tests/vm/coverage-floor)"* ]] ||
	echo "exit $rc: $out")"

report 0 | grep -v " $first " >"$tmp/missing"
out=$("$gate" "$floor" "$tmp/missing") && rc=0 || rc=$?
result unmeasured_named "$([ $rc = 1 ] && [[ $out == *"$first: has a floor, was not measured"* ]] ||
	echo "exit $rc: $out")"

printf '# coverage: a.c %6.2f%% of 40 lines\n# coverage: b.c %6.2f%% of 1000 lines\n' 50 90 >"$tmp/m1"
printf '# coverage: a.c %6.2f%% of 40 lines\n# coverage: b.c %6.2f%% of 1000 lines\n' 60 85 >"$tmp/m2"
got=$("$gate" --write "$tmp/m1" "$tmp/m2" | tr -s ' ' | tr '\n' ';')
result write_takes_the_least_less_a_margin "$([ "$got" = "a.c 40;b.c 75;" ] || echo "got: $got")"

finish coverage
