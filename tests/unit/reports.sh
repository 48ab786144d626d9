#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# reports.sh VMDIR: what tests/vm/reports.sh counts as a kernel report, on
# log lines the kernels print: every kind of report is found (the debug
# kernel's reference trackers among them), the allocator's expected
# warnings under fault injection are not, a KCSAN report counts when it
# names ktgen's code and is a note otherwise, and a report in a passed
# case's part of a console is named with its case.

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

# KCSAN, as 6.1 prints a report (kernel/kcsan/report.c: a header, both
# accesses with their stacks, the value change, the reporting CPU, between
# two lines of "="): one names ktgen's functions, in its first line and in
# its frames; one is the core's own (TCP) race; one names ktgen in a frame
# only, under a header of core functions.
bar="=================================================================="
kcsan_report()
{
	local t=$1 head=$2 f1=$3 f2=$4
	printf "[ %s] %s\n" "$t" "$bar" "$t" "BUG: KCSAN: data-race in $head" "$t" "" \
		"$t" "write to 0xffff8880062d1c48 of 8 bytes by interrupt on cpu 1:" \
		"$t" " $f1" "$t" " tcp_rcv_established+0x6d3/0xcb0" "$t" " tcp_v4_do_rcv+0x30c/0x4e0" \
		"$t" " __netif_receive_skb_one_core+0x95/0xc0" "$t" " process_backlog+0x12a/0x280" \
		"$t" "" \
		"$t" "read to 0xffff8880062d1c48 of 8 bytes by task 412 on cpu 0:" \
		"$t" " $f2" "$t" " genl_family_rcv_msg_doit+0x1b2/0x230" "$t" " genl_rcv_msg+0x2bb/0x3a0" \
		"$t" "" "$t" "value changed: 0x00000000000a8c40 -> 0x00000000000a9240" "$t" "" \
		"$t" "Reported by Kernel Concurrency Sanitizer on:" \
		"$t" "CPU: 0 PID: 412 Comm: ktgen Tainted: G           O       6.1.192-ktgen-kcsan #1" \
		"$t" "Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014" \
		"$t" "$bar"
}
ours="BUG: KCSAN: data-race in ktg_flow_rx [ktgen] / ktg_run_stats [ktgen]"
kcsan_report 41.2 "ktg_flow_rx [ktgen] / ktg_run_stats [ktgen]" \
	"ktg_flow_rx+0x1b4/0x330 [ktgen]" "ktg_run_stats+0x77/0x1d0 [ktgen]" >"$tmp/kcsan_ours"
theirs="BUG: KCSAN: data-race in __tcp_transmit_skb / tcp_ack"
kcsan_report 52.7 "__tcp_transmit_skb / tcp_ack" \
	"tcp_ack+0x1c1e/0x2a70" "__tcp_transmit_skb+0x1214/0x1a60" >"$tmp/kcsan_theirs"
kcsan_report 60.1 "napi_gro_receive / netif_receive_skb_list_internal" \
	"napi_gro_receive+0x2e5/0x3c0" "ktg_nic_poll+0x1c4/0x3f0 [ktgen_nic]" >"$tmp/kcsan_frame"
out=$(report_lines 0 <"$tmp/kcsan_ours")
result kcsan_ktgen_race_counts "$([ "$out" = "[ 41.2] $ours" ] || echo "got: $out")"
out=$(report_lines 0 <"$tmp/kcsan_frame")
result kcsan_ktgen_frame_counts "$([ "$out" = "[ 60.1] BUG: KCSAN: data-race in napi_gro_receive / netif_receive_skb_list_internal" ] ||
	echo "got: $out")"
out=$(report_lines 0 <"$tmp/kcsan_theirs")
result kcsan_kernel_race_noted "$([ "$out" = "# kcsan (not ktgen's): [ 52.7] $theirs" ] || echo "got: $out")"
# A KASAN report (its block between the same bars) reads as before, the
# kernel's KCSAN note beside it; the note read again (a case's log on the
# console) is no report.
kasan=("[ 70.0] $bar" "[ 70.0] BUG: KASAN: slab-use-after-free in ktg_run_put+0x2c/0x90 [ktgen]"
	"[ 70.0] Read of size 8 at addr ffff888006a1b2c8 by task ktgen/412" "[ 70.0] Call Trace:"
	"[ 70.0]  <TASK>" "[ 70.0]  dump_stack_lvl+0x49/0x63" "[ 70.0] $bar")
out=$( (cat "$tmp/kcsan_theirs"; printf '%s\n' "${kasan[@]}" "# # kcsan (not ktgen's): [ 52.7] $theirs") |
	report_lines 0)
want=$(printf '%s\n' "# kcsan (not ktgen's): [ 52.7] $theirs" "${kasan[1]}" "${kasan[3]}")
result kcsan_kasan_unaffected "$([ "$out" = "$want" ] || echo "got: $out")"
# After a case (run.sh): the kernel's race a note, ktgen's a report.
(echo "[ 40.0] ktgen-test: begin tcp_stage_full"; cat "$tmp/kcsan_theirs" "$tmp/kcsan_ours") >"$tmp/dmesg"
out=$(case_reports tcp_stage_full 0 <"$tmp/dmesg")
result kcsan_case_reports "$([ "$out" = "$(printf '%s\n' "# kcsan (not ktgen's): [ 52.7] $theirs" "[ 41.2] $ours")" ] ||
	echo "got: $out")"
# A console: notes named with their case, wherever; ktgen's race a report
# in a passed case's part.
printf '%s\n' "KTAP version 1" "1..2" "ok 1 rr_crr" "ok 2 udp_gro" >"$tmp/ktap"
(echo "ktgen-test: begin rr_crr"; cat "$tmp/kcsan_theirs"; echo "ktgen-test: end"
 echo "ktgen-test: begin udp_gro"; cat "$tmp/kcsan_ours"; echo "ktgen-test: end"
 cat "$tmp/kcsan_theirs") >"$tmp/console"
out=$(console_reports "$tmp/ktap" <"$tmp/console")
want=$(printf '%s\n' "# kcsan (not ktgen's): rr_crr: [ 52.7] $theirs" "udp_gro: [ 41.2] $ours" \
	"# kcsan (not ktgen's): -: [ 52.7] $theirs")
result kcsan_console "$([ "$out" = "$want" ] || echo "got: $out")"

# The lane's positive control (kcsan_control): after the seeded-race mark
# the seeded module's own race is a note, and only that: ktgen's race in
# the same case still counts, and the mark ends with the case (console).
seeded="BUG: KCSAN: data-race in ktg_race_add [ktg_race] / ktg_race_add [ktg_race]"
kcsan_report 80.5 "ktg_race_add [ktg_race] / ktg_race_add [ktg_race]" \
	"ktg_race_add+0x1d/0x40 [ktg_race]" "ktg_race_add+0x1d/0x40 [ktg_race]" >"$tmp/kcsan_seeded"
out=$(report_lines 0 <"$tmp/kcsan_seeded")
result kcsan_seeded_unmarked_counts "$([ "$out" = "[ 80.5] $seeded" ] || echo "got: $out")"
(echo "[ 80.0] ktgen-test: begin kcsan_control"; echo "[ 80.1] ktgen-test: seeded race"
 cat "$tmp/kcsan_seeded" "$tmp/kcsan_ours") >"$tmp/dmesg"
out=$(case_reports kcsan_control 0 <"$tmp/dmesg")
result kcsan_seeded_noted "$([ "$out" = "$(printf '%s\n' "# kcsan (seeded): [ 80.5] $seeded" "[ 41.2] $ours")" ] ||
	echo "got: $out")"
printf '%s\n' "KTAP version 1" "1..2" "ok 1 kcsan_control" "ok 2 udp_gro" >"$tmp/ktap"
(echo "ktgen-test: begin kcsan_control"; echo "ktgen-test: seeded race"; cat "$tmp/kcsan_seeded"
 echo "ktgen-test: end"; echo "ktgen-test: begin udp_gro"; cat "$tmp/kcsan_seeded"; echo "ktgen-test: end") >"$tmp/console"
out=$(console_reports "$tmp/ktap" <"$tmp/console")
want=$(printf '%s\n' "# kcsan (seeded): kcsan_control: [ 80.5] $seeded" "udp_gro: [ 80.5] $seeded")
result kcsan_seeded_console "$([ "$out" = "$want" ] || echo "got: $out")"
# The race of unknown origin (one function in the header) is the seeded
# one too; the case's log on the console, "# " lines that quote the
# report and its note, opens no block that a later case's "=====" closes.
kcsan_report 81.0 "ktg_race_add+0x1d/0x40 [ktg_race]" \
	"ktg_race_add+0x1d/0x40 [ktg_race]" "ktg_race_add+0x1d/0x40 [ktg_race]" >"$tmp/kcsan_unknown"
(echo "[ 80.0] ktgen-test: begin kcsan_control"; echo "[ 80.1] ktgen-test: seeded race"
 cat "$tmp/kcsan_unknown") >"$tmp/dmesg"
out=$(case_reports kcsan_control 0 <"$tmp/dmesg")
result kcsan_seeded_unknown_origin "$([ "$out" = "# kcsan (seeded): [ 81.0] BUG: KCSAN: data-race in ktg_race_add+0x1d/0x40 [ktg_race]" ] ||
	echo "got: $out")"
(echo "ktgen-test: begin kcsan_control"; echo "ktgen-test: seeded race"; cat "$tmp/kcsan_seeded"
 echo "# # quoted: [ 80.5] $seeded"; echo "# kcsan (seeded): [ 80.5] $seeded"; echo "ktgen-test: end"
 echo "ktgen-test: begin udp_gro"; cat "$tmp/kcsan_theirs"; echo "ktgen-test: end") >"$tmp/console"
out=$(console_reports "$tmp/ktap" <"$tmp/console")
want=$(printf '%s\n' "# kcsan (seeded): kcsan_control: [ 80.5] $seeded" "kcsan_control: # # quoted: [ 80.5] $seeded" \
	"# kcsan (not ktgen's): udp_gro: [ 52.7] $theirs")
result kcsan_case_log_opens_no_block "$([ "$out" = "$want" ] || echo "got: $out")"

finish reports
