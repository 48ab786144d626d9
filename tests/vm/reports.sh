#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What counts as a kernel report, for the guest's scan of each case's log
# (run.sh) and the host's scan of the whole console (vm-suite.sh), which a
# wrapped log buffer cannot hide. A netdev whose references are never
# dropped shows as unregister_netdevice's wait message; on the debug
# kernel its reference trackers (and the namespaces') also name who holds
# one when it goes ("leaked reference") and a reference dropped twice.
REPORT_RE='WARNING:|BUG:|Oops|KASAN|UBSAN|suspected memory leak|possible circular|inconsistent lock|possible recursive|ODEBUG|soft lockup|hung_task|blocked for more than|general protection|Call Trace:|unregister_netdevice: waiting for|leaked reference|reference already released'

# Under fault injection some are the kernel's expected answer to a failed
# allocation, not a report: the allocator's own warnings (warn_alloc: "page
# allocation failure", "vmalloc error", with a stack) and the module
# loader's jump-label WARN when its allocation for a loading module fails
# (kernel/jump_label.c). Their stacks are skipped with them; every other
# report still counts.
# shellcheck disable=SC2016
REPORT_AWK='
	function report(l) {
		if (l !~ re)
			return 0
		if (injected && (l ~ /Call Trace:/ ||
				 l ~ /WARNING: .* at kernel\/jump_label\.c:/))
			return 0
		return 1
	}'

# report_lines INJECTED: the report lines of the kernel log on stdin.
report_lines()
{
	awk -v re="$REPORT_RE" -v injected="$1" "$REPORT_AWK"'
		report($0) { print }'
}

# case_reports CASE INJECTED: the first five report lines of the kernel
# log on stdin from CASE's begin marker on (run.sh, after each case: one
# process where a pipeline would cost four).
case_reports()
{
	awk -v re="$REPORT_RE" -v injected="$2" -v begin="ktgen-test: begin $1" "$REPORT_AWK"'
		!on { on = substr($0, length($0) - length(begin) + 1) == begin; if (!on) next }
		report($0) { print; if (++n == 5) exit }'
}

# console_reports KTAP: from a guest console on stdin, "CASE: LINE" for
# each report in the log of a case that KTAP says passed (the guest's own
# scan missed it). A case's log runs from its begin marker to the next
# one; fault injection is announced in it (fault_setup).
console_reports()
{
	awk -v re="$REPORT_RE" -v ktap="$1" "$REPORT_AWK"'
		BEGIN {
			while ((getline l < ktap) > 0)
				if (l ~ /^ok [0-9]+ /) {
					split(l, f, " ")
					passed[f[3]] = 1
				}
		}
		/ktgen-test: begin / { c = $NF; injected = 0; next }
		/ktgen-test: fault injection/ { injected = 1 }
		/ktgen-test: end$/ { c = ""; next }
		c != "" && passed[c] && report($0) { print c ": " $0 }'
}
