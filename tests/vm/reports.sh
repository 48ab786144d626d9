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
#
# KCSAN (the KCSAN lane's kernel) watches the whole kernel, and reports
# races of the core's own that have nothing to do with ktgen. Its report
# is a block, from its "BUG: KCSAN: TYPE in A / B" line to the "====="
# line that closes it (kernel/kcsan/report.c); the block counts against a
# case when it names a function of ktgen's or ktgen_nic's (a frame of the
# modules, "[ktgen]" / "[ktgen_nic]", or a ktg_ function in its first
# line), and is a note otherwise: "# kcsan (not ktgen's): " and its first
# line, which the callers print and do not count (nor read again as a
# report). After "ktgen-test: seeded race" in the log (the lane's positive
# control, kcsan_control, until the next case), a report of ktg_race's
# own functions is the note "# kcsan (seeded): ", the one it expects.
# scan(LINE) returns what to print for a line, "" for nothing;
# scan_end() a block the log ends in.
# shellcheck disable=SC2016
REPORT_AWK='
	function report(l) {
		if (l !~ re)
			return 0
		if (injected && (l ~ /Call Trace:/ ||
				 l ~ /WARNING: .* at kernel\/jump_label\.c:/))
			return 0
		return 1
	}
	function kcsan_verdict() {
		kc = 0
		if (seeded && kc_head ~ /data-race in ktg_race_[a-z_]+[^ ]* \[ktg_race\]( \/ ktg_race_[a-z_]+[^ ]* \[ktg_race\])? *$/)
			return "# kcsan (seeded): " kc_head
		return kc_ours ? kc_head : "# kcsan (not ktgen\047s): " kc_head
	}
	function scan(l) {
		if (l ~ /kcsan \((not ktgen\047s|seeded)\): /)
			return ""
		if (l ~ /ktgen-test: seeded race$/) {
			seeded = 1
			return ""
		}
		if (kc) {
			if (l ~ /\[ktgen(_nic)?\]/)
				kc_ours = 1
			if (l ~ /==========/)
				return kcsan_verdict()
			# anything else in the block (a report of another
			# CPU in its midst) is read as always
			return report(l) && l !~ /BUG: KCSAN: / ? l : ""
		}
		# (a block is the kernel one: the log of a case on the console,
		# "# ..." lines, never opens one)
		if (l ~ /BUG: KCSAN: / && l !~ /^#/) {
			kc = 1
			kc_head = l
			kc_ours = l ~ /\[ktgen(_nic)?\]|[ \/]ktg_[A-Za-z0-9_]/
			return ""
		}
		return report(l) ? l : ""
	}
	function scan_end() {
		return kc ? kcsan_verdict() : ""
	}'

# report_lines INJECTED: the report lines of the kernel log on stdin.
report_lines()
{
	awk -v re="$REPORT_RE" -v injected="$1" "$REPORT_AWK"'
		{ s = scan($0); if (s != "") print s }
		END { s = scan_end(); if (s != "") print s }'
}

# case_reports CASE INJECTED: the first five report lines of the kernel
# log on stdin from CASE's begin marker on (run.sh, after each case: one
# process where a pipeline would cost four), and the KCSAN notes among
# them ("# kcsan (not ktgen's): ...": not reports).
case_reports()
{
	awk -v re="$REPORT_RE" -v injected="$2" -v begin="ktgen-test: begin $1" "$REPORT_AWK"'
		!on { on = substr($0, length($0) - length(begin) + 1) == begin; if (!on) next }
		{ s = scan($0) }
		s != "" { print s; if (s !~ /^# kcsan / && ++n == 5) exit }
		END { s = scan_end(); if (s != "") print s }'
}

# console_reports KTAP: from a guest console on stdin, "CASE: LINE" for
# each report in the log of a case that KTAP says passed (the guest's own
# scan missed it), and "# kcsan (not ktgen's): CASE: LINE" for each KCSAN
# note anywhere ("-" outside the cases). A case's log runs from its begin
# marker to the next one; fault injection is announced in it (fault_setup).
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
		/ktgen-test: begin / { c = $NF; injected = 0; seeded = 0; next }
		/ktgen-test: fault injection/ { injected = 1 }
		/ktgen-test: end$/ { c = ""; next }
		{ s = scan($0) }
		s ~ /^# kcsan / { sub(/: /, ": " (c == "" ? "-" : c) ": ", s); print s; next }
		c != "" && passed[c] && s != "" { print c ": " s }
		END {
			s = scan_end()
			if (s ~ /^# kcsan /) { sub(/: /, ": " (c == "" ? "-" : c) ": ", s); print s }
			else if (s != "" && c != "" && passed[c]) print c ": " s
		}'
}
