#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# reports.sh VMDIR: what tests/vm/reports.sh counts as a kernel report, on
# log lines the kernels print: every kind of report is found (the debug
# kernel's reference trackers among them), the allocator's expected
# warnings under fault injection are not, and a report in a passed case's
# part of a console is named with its case.

# shellcheck source=tests/unit/ktap.sh
. "$(dirname "$0")/ktap.sh"

vm=$(readlink -f "${1:?tests/vm}")
# shellcheck source=tests/vm/reports.sh
. "$vm/reports.sh"

# One line each, as 6.1 prints them (lib/ref_tracker.c, net/core/dev.c,
# mm/kmemleak.c, lib/fault-inject.c, kernel/locking/lockdep.c).
reports=(
	"ref_tracker: leaked reference."
	"ref_tracker: reference already released."
	"unregister_netdevice: waiting for ktn0 to become free. Usage count = 2"
	"BUG: KASAN: slab-use-after-free in ktg_run_put+0x2c/0x90 [ktgen]"
	"WARNING: CPU: 1 PID: 312 at net/core/dev.c:10867 unregister_netdevice_many+0x4f/0x6c0"
	"kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"
	"WARNING: possible circular locking dependency detected"
	"ODEBUG: free active (active state 0) object type: timer_list hint: ktg_worker_timer+0x0/0x30 [ktgen]"
	"watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [ktgen/run1:0:402]"
	"INFO: task ktgen:211 blocked for more than 61 seconds."
)
# Not reports: what the allocator and the trackers say of a failed
# allocation, and ordinary lines.
quiet=(
	"ref_tracker: memory allocation failure, unreliable refcount tracker."
	"FAULT_INJECTION: forcing a failure."
	"ktgen: loaded"
	"IPv6: ADDRCONF(NETDEV_CHANGE): ktn1: link becomes ready"
)

d=""
for l in "${reports[@]}"; do
	[ -n "$(printf '%s\n' "$l" | report_lines 0)" ] || d+="not found: $l"$'\n'
	# under fault injection too: only the allocator's warnings are excused
	[ -n "$(printf '%s\n' "$l" | report_lines 1)" ] || d+="excused under injection: $l"$'\n'
done
result every_report_found "$d"

d=""
for l in "${quiet[@]}"; do
	out=$(printf '%s\n' "$l" | report_lines 0)
	[ -z "$out" ] || d+="a report: $out"$'\n'
done
result ordinary_lines_quiet "$d"

# Under fault injection the failed allocation's own warning and stack are
# the expected answer; with none, the stack is a report.
out=$(printf '%s\n' "Call Trace:" \
	"WARNING: CPU: 0 PID: 9 at kernel/jump_label.c:612 jump_label_add_module+0x1d/0x1f0" |
	report_lines 1)
result injection_excuses_allocation_warnings "$([ -z "$out" ] || echo "reported: $out")"
out=$(printf '%s\n' "Call Trace:" | report_lines 0)
result stack_without_injection_reported "$([ -n "$out" ] || echo "Call Trace: not reported")"

# A console: a report in a passed case's part is named with the case; a
# failed case's (its own scan saw it) and one before any case are not.
printf '%s\n' "KTAP version 1" "1..2" "ok 1 nic_unload" "not ok 2 life_dev_gone" >"$tmp/ktap"
printf '%s\n' "ref_tracker: leaked reference." \
	"ktgen-test: begin nic_unload" \
	"ref_tracker: leaked reference." \
	"ktgen-test: end" \
	"ktgen-test: begin life_dev_gone" \
	"unregister_netdevice: waiting for ktn0 to become free. Usage count = 2" \
	"ktgen-test: end" >"$tmp/console"
out=$(console_reports "$tmp/ktap" <"$tmp/console")
result console_names_the_case "$([ "$out" = "nic_unload: ref_tracker: leaked reference." ] ||
	echo "got: $out")"

# After a case (run.sh): the reports from its begin marker on, not an
# earlier case's, not one whose name ends the same; five at most.
printf '%s\n' "[    1.0] ktgen-test: begin fuzz" \
	"[    1.1] BUG: KASAN: slab-use-after-free in a+0x1/0x2" \
	"[    2.0] ktgen-test: begin net_fuzz" \
	"[    2.1] WARNING: CPU: 0 PID: 1 at b.c:1 b+0x1/0x2" \
	"[    3.0] ktgen-test: begin fuzz_x" >"$tmp/dmesg"
out=$(case_reports fuzz_x 0 <"$tmp/dmesg")
result case_reports_own_part_only "$([ -z "$out" ] || echo "fuzz_x got: $out")"
out=$(case_reports net_fuzz 0 <"$tmp/dmesg")
result case_reports_from_its_marker "$([ "$out" = "[    2.1] WARNING: CPU: 0 PID: 1 at b.c:1 b+0x1/0x2" ] ||
	echo "net_fuzz got: $out")"
for i in 1 2 3 4 5 6 7; do echo "[    3.$i] BUG: KASAN: double-free in c+0x$i/0x9"; done >>"$tmp/dmesg"
out=$(case_reports fuzz_x 0 <"$tmp/dmesg" | wc -l)
result case_reports_five_at_most "$([ "$out" = 5 ] || echo "$out lines")"
out=$(printf '%s\n' "[ 4.0] ktgen-test: begin f" "[ 4.1] Call Trace:" | case_reports f 1)
result case_reports_injection_excused "$([ -z "$out" ] || echo "reported: $out")"

finish reports
