#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Measurement: the CPU cost of a run, by busy time where there is no PMU
# (the VM has none) and by the counter path with a software event standing
# in; checked against /proc/stat read independently around the run.

# Busy ns of CPU $1 so far, from /proc/stat (user nice system irq softirq,
# in USER_HZ ticks).
procstat_busy_ns()
{
	awk -v cpu="cpu$1" -v hz="$(getconf CLK_TCK 2>/dev/null || echo 100)" \
		'$1 == cpu { printf "%.0f\n", ($2 + $3 + $4 + $7 + $8) * 1e9 / hz }' /proc/stat
}

# The run's CPU 0 busy time lies inside what /proc/stat saw around the
# whole command (which also starts and drains the run), and most of it
# was the run's: the sender keeps its CPU busy.
t_cpu_busy_time()
{
	local before after out

	load_module
	$KTGEN sink add tcp port 5500 rx touch cpus 1 >/dev/null
	before=$(procstat_busy_ns 0)
	out=$($KTGEN -j run tcp_stream to 127.0.0.1 port 5500 cpus 0 time 2)
	after=$(procstat_busy_ns 0)
	log "cpu 0 busy by /proc/stat: $(( (after - before) / 1000000 )) ms"
	echo "$out" | json_check "d['state'] == 'done' and
		d['cpu']['method'] == 'busy-time' and d['cpu']['estimated'] is True and
		d['cpu']['run']['cpus'] == 1 and d['cpu']['other']['cpus'] == $(nproc) - 1 and
		d['cpu']['run']['busy_ns'] <= d['duration_ns'] + 20e6 and
		d['cpu']['run']['busy_ns'] <= $((after - before)) + 20e6 and
		d['cpu']['run']['busy_ns'] >= 0.5 * $((after - before)) and
		d['cpu']['run']['util_pct'] > 50 and
		d['cpu']['run']['cycles'] > 0 and d['cpu']['run']['cycles_per_byte'] > 0 and
		d['cpu']['run']['us_per_kb'] > 0 and
		abs(d['cpu']['run']['us_per_kb'] -
		    d['cpu']['run']['busy_ns'] / 1e3 / (d['tx']['bytes'] / 1024)) < 1e-3 *
		    d['cpu']['run']['us_per_kb']"
	$KTGEN run show 1 | grep -Eq "^  cpu run 1 cpu [0-9.]+% .* us/KB  other .*\(busy time, cycles estimated\)$" ||
		fail "no cpu line: $($KTGEN run show 1)"
}
case_add cpu_busy_time t_cpu_busy_time 120

# cpu_event=sw: the counter path (a kernel counter per CPU, enabled over
# the window, read, released) with cpu-clock standing in: each CPU counts
# its wall time, so a group counts the window times its CPUs.
t_cpu_sw_event()
{
	load_module cpu_event=sw
	$KTGEN sink add tcp port 5501 rx discard cpus 1 >/dev/null
	$KTGEN -j run tcp_stream to 127.0.0.1 port 5501 cpus 0 time 1 |
		json_check "d['state'] == 'done' and
			d['cpu']['method'] == 'sw-event' and d['cpu']['estimated'] is False and
			abs(d['cpu']['run']['cycles'] - d['duration_ns']) < 0.1 * d['duration_ns'] and
			abs(d['cpu']['other']['cycles'] - ($(nproc) - 1) * d['duration_ns']) <
			    0.1 * ($(nproc) - 1) * d['duration_ns']"
	rmmod ktgen
	expect_fail 1 "" insmod "$KTGEN_KO" cpu_event=bogus
	dmesg | tail -n 5 | grep -q "cpu_event=bogus: expected cycles or sw" ||
		fail "no message for a bad cpu_event"
}
case_add cpu_sw_event t_cpu_sw_event 120
