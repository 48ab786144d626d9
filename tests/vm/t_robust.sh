#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Robustness: allocation failures at every site a command reaches (debug
# kernel), a netlink fuzzer, and every state-changing command refused to
# callers without CAP_NET_ADMIN in the initial user namespace.

# Commands that change state, with a valid request each.
ADMIN_REQUESTS=(
	"set-config 1:u64:268435456"
)

t_refuse_unprivileged()
{
	local req

	load_module
	for req in "${ADMIN_REQUESTS[@]}"; do
		# shellcheck disable=SC2086
		expect_fail 1 "Operation not permitted" \
			setpriv --reuid 65534 --regid 65534 --clear-groups "$KTGEN_NLRAW" $req
		# shellcheck disable=SC2086
		expect_fail 1 "Operation not permitted" unshare -U -r -n "$KTGEN_NLRAW" $req
		# shellcheck disable=SC2086
		expect_fail 1 "Operation not permitted" \
			setpriv --bounding-set -net_admin "$KTGEN_NLRAW" $req
		# shellcheck disable=SC2086
		"$KTGEN_NLRAW" $req
	done
}
case_add refuse_unprivileged t_refuse_unprivileged

t_fault_get_info()
{
	fault_setup
	load_module
	"$KTGEN_NLFAULT" request 1
	$KTGEN info >/dev/null
}
case_add fault_get_info t_fault_get_info 120

t_fault_config()
{
	fault_setup
	load_module
	"$KTGEN_NLFAULT" request 2
	"$KTGEN_NLFAULT" request 3 1:u64:268435456
	$KTGEN -j config | json_check "d['buffer_budget'] == 256 << 20 and d['buffer_used'] == 0"
}
case_add fault_config t_fault_config 120

# Loading and unloading both modules, each allocation failed in turn: a
# load fails cleanly or works, the next load and unload work, nothing
# leaks. A third of the sites a turn (fault_every).
t_fault_load()
{
	fault_setup
	fault_every
	unload_module
	"$KTGEN_NLFAULT" load "$KTGEN_KO"
	! module_loaded || fail "left loaded"
	"$KTGEN_NLFAULT" load "$KTGEN_NIC_KO"
	! nic_loaded || fail "ktgen_nic left loaded"
	load_module
	$KTGEN info >/dev/null
	unload_module
	kmemleak_check
}
case_add fault_load t_fault_load 600

# The fuzzer (nlfuzz.c): requests drawn from the spec by four threads, each
# judged (a valid one succeeds or extack says why; one with an attribute
# that breaks the spec fails at that attribute), while the module is
# unloaded and reloaded and namespaces holding runs go away under them;
# then with everything listed deleted the budget must be back to 0. Fixed
# seeds and a minimum rate. Unprivileged, every state change is EPERM.
t_fuzz()
{
	load_module
	# the reloading phase's rate floor: what a stall would miss by far
	# (one request in 10 s fails on its own); the debug kernel's rate
	# varies more than twofold from boot to boot (14 and 33 a second,
	# KTGEN_SPEED 6, the same tree), and a floor of 100 / speed sat
	# inside that spread
	"$KTGEN_NLFUZZ" -s 1 -t 20 -j 4 -r $(( 50 / ${KTGEN_SPEED:-1} + 1 )) -m "$KTGEN_KO" -N
	load_module
	setpriv --reuid 65534 --regid 65534 --clear-groups "$KTGEN_NLFUZZ" -s 2 -t 5 -j 2
	$KTGEN -j info | json_check "d['abi_version'] == 1"
	$KTGEN -j config | json_check "d['buffer_used'] == 0 and d['buffer_budget'] == $(default_budget)"
	unload_module
	kmemleak_check
}
case_add fuzz t_fuzz 300 core

# Allocation failures, site by site, judged before any cleanup (nlfault):
# an error is the failed allocation's, explained by extack when ktgen
# made it, and leaves no object, worker, socket, module reference or
# charged byte; a success leaves exactly its object, and its run ends with
# rx == tx; after the walk everything is as it began. kmemleak checks the
# memory behind it. (fault_sink: a third of the sites a turn, fault_every.)
# Attribute numbers: include/uapi/linux/ktgen.h (KTGEN_A_SINK_*: 2 proto,
# 4 port, 5 rx mode, 6 CPUs, 8 all, 15 rr; KTGEN_A_RUN_*: 1 id, 2 test, 3
# remote address, 4 port, 8 flows, 9 CPUs, 10 time, 12 msgs, 13 tx mode,
# 14 buffer, 18 all).
t_fault_sink()
{
	fault_setup
	fault_every
	load_module
	# tcp port 6300 (big endian) rx verify; udp; a request/response
	# sink on CPUs 0 and 1
	"$KTGEN_NLFAULT" -s request 4 2:u32:0 4:hex:189c 5:u32:4
	"$KTGEN_NLFAULT" -s request 4 2:u32:1 4:hex:189c
	"$KTGEN_NLFAULT" -s request 4 2:u32:0 4:hex:189c 6:hex:03 15:flag:0
	# an rx user sink (6), detached (20), in 256 KiB of nlfault's memory
	# (11, 12): the walk's socket closes after each attempt
	"$KTGEN_NLFAULT" -s request 4 2:u32:0 4:hex:189c 5:u32:6 6:hex:03 11:u64:@mem 12:u64:262144 20:flag:0
	# a sink's listing and deletion, of one the walk made first
	"$KTGEN_NLFAULT" -s -b "4 2:u32:0 4:hex:189c" -d request 5
	"$KTGEN_NLFAULT" -s -b "4 2:u32:0 4:hex:189c" request 5 1:u32:@
	"$KTGEN_NLFAULT" -s -b "4 2:u32:1 4:hex:189c" request 6 1:u32:@
	$KTGEN -j sink show | json_check "d == []"
	$KTGEN -j config | json_check "d['buffer_used'] == 0"
	unload_module
	kmemleak_check
}
case_add fault_sink t_fault_sink 400

# After run walks: no run left (nlfault deleted its own), the sinks
# deleted, no byte charged, the module unloads and kmemleak sees nothing.
fault_runs_done()
{
	$KTGEN -j run show | json_check "d == []"
	$KTGEN sink del all
	$KTGEN -j config | json_check "d['buffer_used'] == 0"
	unload_module
	kmemleak_check
}

t_fault_run()
{
	fault_setup
	load_module
	$KTGEN sink add tcp port 6301 rx verify >/dev/null
	# to 127.0.0.1 port 6301, 2 flows on CPUs 0 and 1, 4 messages each
	# from a one-page buffer: every page allocation is a fault site, so
	# the rings stay small (the staging ring's failure path is the same
	# ktg_pages_alloc path as the source's)
	"$KTGEN_NLFAULT" -r -e request 7 3:hex:7f000001 4:hex:189d 8:u32:2 9:hex:03 12:u64:4 14:u64:4096
	fault_runs_done
}
case_add fault_run t_fault_run 600 core

# Every run shape, each allocation its creation makes failed in turn: UDP
# (plain and GSO) and request/response (rr, crr) on 2 flows and 2 CPUs
# (a third of the sites a turn: fault_every).
t_fault_run_shapes()
{
	local to="3:hex:7f000001" cpus="8:u32:2 9:hex:03"

	fault_setup
	fault_every
	load_module
	$KTGEN sink add udp port 6302 rx discard >/dev/null
	$KTGEN sink add tcp port 6303 rr >/dev/null
	# shellcheck disable=SC2086
	{
	"$KTGEN_NLFAULT" -r request 7 2:u32:1 $to 4:hex:189e 7:u32:64 $cpus 12:u64:4
	"$KTGEN_NLFAULT" -r request 7 2:u32:1 $to 4:hex:189e 7:u32:1000 44:u32:4 12:u64:4
	"$KTGEN_NLFAULT" -r request 7 2:u32:2 $to 4:hex:189f $cpus 12:u64:4
	"$KTGEN_NLFAULT" -r request 7 2:u32:4 $to 4:hex:189f $cpus 12:u64:4
	}
	fault_runs_done
}
case_add fault_run_shapes t_fault_run_shapes 900

# The copy modes, with the path probe, and interval reports. A third of
# the sites a turn (fault_every).
t_fault_run_copies()
{
	local to="3:hex:7f000001 4:hex:189d"

	fault_setup
	fault_every
	load_module
	$KTGEN sink add tcp port 6301 rx verify >/dev/null
	# shellcheck disable=SC2086
	{
	"$KTGEN_NLFAULT" -r -e request 7 $to 13:u32:2 33:flag:0 12:u64:4 14:u64:4096
	"$KTGEN_NLFAULT" -r -e request 7 $to 13:u32:3 12:u64:4 14:u64:4096
	"$KTGEN_NLFAULT" -r request 7 $to 10:u32:300 28:u32:100 14:u64:4096
	# tx user (4) from nlfault's memory (32): the request writes the
	# pattern there, a user copy of its own
	"$KTGEN_NLFAULT" -r -e request 7 $to 13:u32:4 32:u64:@mem 12:u64:4 14:u64:4096
	}
	fault_runs_done
}
case_add fault_run_copies t_fault_run_copies 600

# What is done to a run, failed site by site on a run the walk made first:
# its listing and lookup, its flows, stopping it while it runs, deleting it.
t_fault_run_ops()
{
	local new="7 3:hex:7f000001 4:hex:189d 12:u64:4 14:u64:4096"

	fault_setup
	load_module
	$KTGEN sink add tcp port 6301 rx verify >/dev/null
	"$KTGEN_NLFAULT" -r -w -b "$new" -d request 8
	"$KTGEN_NLFAULT" -r -w -b "$new" request 8 1:u32:@
	"$KTGEN_NLFAULT" -r -w -b "$new" -d request 13 1:u32:@
	# (detached: nlfault's socket closes after each attempt, and a run
	# goes with its owner's socket)
	"$KTGEN_NLFAULT" -r -b "7 3:hex:7f000001 4:hex:189d 10:u32:60000 14:u64:4096 17:flag:0" \
		request 9 1:u32:@
	"$KTGEN_NLFAULT" -r -w -b "$new" request 10 1:u32:@
	fault_runs_done
}
case_add fault_run_ops t_fault_run_ops 600

# The virtual NIC's creation, each allocation failed in turn (nlfault
# cli: the CLI's command called under the fault): ~700 sites, from the
# rtnetlink request through both devices' registration; a failure in
# ktgen_nic's own code says why (-m: the kernel's message, extack). A
# third of the sites a turn (fault_every).
t_fault_nic()
{
	fault_setup
	fault_every
	load_module
	"$KTGEN_NLFAULT" -m cli "nic add ktgf0 peer ktgf1" "nic del ktgf0"
	! ip link show ktgf0 2>/dev/null || fail "ktgf0 left"
	unload_module
	kmemleak_check
}
case_add fault_nic t_fault_nic 600

# The virtual NIC changed on a pair that is up. Its changelink (the DMA
# engine's CPU), each allocation failed in turn (65 sites). Its rings and
# channels rebuilt (the knob's ethtool request alone), allocations failing
# from 16 points of the change on (nlfault -t: what an error path
# allocates to restore the old rings fails as well): a change refused
# leaves the device as it was, rings, engine and carrier; one that went
# through, as with no failure. ktgen_nic's refusals say why (-m;
# set_channels has no extack to say it with).
t_fault_nic_change()
{
	fault_setup
	load_module
	$KTGEN nic add ktgf0 peer ktgf1 >/dev/null
	ethtool -G ktgf0 rx 64
	ethtool -L ktgf0 combined 1
	ip link set ktgf0 up
	ip link set ktgf1 up
	"$KTGEN_NLFAULT" -m cli "nic set ktgf0 dma-cpu 1" "nic set ktgf0 dma-cpu 0"
	"$KTGEN_NLFAULT" -m -t 16 cli "knob ktgf0 rings rx 128" "dev set ktgf0 rings rx 64"
	"$KTGEN_NLFAULT" -t 16 cli "knob ktgf0 channels 2" "dev set ktgf0 channels 1"
	[ "$(cat /sys/class/net/ktgf0/carrier)" = 1 ] || fail "ktgf0: no carrier after the walks"
	$KTGEN nic del ktgf0
	unload_module
	kmemleak_check
}
case_add fault_nic_change t_fault_nic_change 600

# Failures where the work happens: allocations and user copies in ktgen's
# own threads (failslab, fail_page_alloc and fail_usercopy with the task
# filter; make-it-fail set on every ktgen/ worker, the run's and the
# sinks', once the run's exist) fail at random under live TCP and UDP
# traffic, and user memory's. A run ends done with every count agreeing,
# or failed with its errno; nothing hangs, leaks or reports.
# fault_arm TASK-FILTER PERCENT INJECTOR...: random failures at PERCENT,
# in the tasks made to fail (Y) or in any (N), counted from here on.
fault_arm()
{
	local a filter=$1 pct=$2
	shift 2

	for a in "$@"; do
		echo "$filter" >"$DEBUGFS"/$a/task-filter
		echo "$pct" >"$DEBUGFS"/$a/probability
		echo "$FAULT_LIVE_TIMES" >"$DEBUGFS"/$a/times
		echo 1 >"$DEBUGFS"/$a/interval
	done
}

fault_live_on()
{
	# shellcheck disable=SC2046
	fault_arm Y "$1" $(fault_attrs)
}

# How many failures were injected since fault_live_on (what "times" has
# left of its count), of every kind or of one (fault_live_injected
# fail_usercopy).
FAULT_LIVE_TIMES=1000000
fault_live_injected()
{
	local a n=0

	for a in ${1:-$(fault_attrs)}; do
		n=$((n + FAULT_LIVE_TIMES - $(cat "$DEBUGFS"/$a/times)))
	done
	echo $n
}

fault_live_off()
{
	local a

	for a in $(fault_attrs); do
		echo 0 >"$DEBUGFS"/$a/probability
		echo N >"$DEBUGFS"/$a/task-filter
	done
}

# fault_live_run OUT RUN-ARGS...: the run in the background, its workers
# made to fail as soon as they exist; its JSON in OUT.
fault_live_run()
{
	local out=$1 pid p n=0 rc=0
	shift

	$KTGEN -j run "$@" >"$out" &
	pid=$!
	# (a run whose first connection met a failing sink worker may have
	# ended, failed, before its workers were seen: the JSON judges it)
	slowwait "$(scaled 5)" bash -c "pgrep '^ktgen/run' >/dev/null || ! kill -0 $pid 2>/dev/null" ||
		fail "no workers for: $*"
	# the sinks' workers too: they accept and receive
	for p in $(pgrep '^ktgen/'); do
		echo 1 >/proc/"$p"/make-it-fail 2>/dev/null && n=$((n + 1))
	done
	wait $pid || rc=$?
	[ $rc = 0 ] || [ $rc = 1 ] || fail "run $*: exit status $rc"
	echo "# $n threads made to fail, $(fault_live_injected) failures so far;" \
		"$(/usr/bin/python3 -c 'import json, sys; d = json.load(sys.stdin)
print("state %s, errno %s, tx %s, rx %s bytes" % (d["state"], d.get("errno"),
      d["tx"]["bytes"], d["rx"]["bytes"]))' <"$out" 2>&1 | head -c 200)"
}

# One tx path and rx mode more than the fixed runs take, drawn each time
# (KTGEN_FAULT_MODES="TX RX" picks them): over the rotations every one
# meets failures ("user" has runs of its own, below).
fault_live_draw()
{
	local tx=(stack cached nocache zerocopy) rx=(copy nocache touch discard recvmsg verify)

	echo "${tx[RANDOM % ${#tx[@]}]} ${rx[RANDOM % ${#rx[@]}]}"
}

t_fault_live()
{
	local tx rx

	fault_setup
	load_module
	read -r tx rx <<<"${KTGEN_FAULT_MODES:-$(fault_live_draw)}"
	log "drawn: tx $tx into rx $rx"
	$KTGEN sink add tcp port 6310 rx verify >/dev/null
	$KTGEN sink add udp port 6311 rx verify >/dev/null
	$KTGEN sink add tcp port 6315 rx "$rx" >/dev/null
	fault_live_on 5
	fault_live_run /tmp/ktg-fl1.json tcp_stream to 127.0.0.1 port 6310 time "$(scaled 1)" flows 2 cpus 0,1
	json_check "d['state'] == 'done' and d['rx']['bytes'] == d['tx']['bytes'] and
		d['rx']['verify_errors'] == 0 or d['state'] == 'failed' and d['errno'] > 0" </tmp/ktg-fl1.json
	fault_live_run /tmp/ktg-fl2.json udp_stream to 127.0.0.1 port 6311 size 1000 time "$(scaled 1)" flows 2 cpus 0,1
	json_check "d['state'] == 'done' and d['rx']['bytes'] <= d['tx']['bytes'] and
		d['rx']['verify_errors'] == 0 or d['state'] == 'failed' and d['errno'] > 0" </tmp/ktg-fl2.json
	fault_live_run /tmp/ktg-fl3.json tcp_stream to 127.0.0.1 port 6310 tx zerocopy time "$(scaled 1)"
	json_check "d['state'] == 'done' and d['rx']['bytes'] == d['tx']['bytes'] and
		d['rx']['verify_errors'] == 0 or d['state'] == 'failed' and d['errno'] > 0" </tmp/ktg-fl3.json
	fault_live_run /tmp/ktg-fl7.json tcp_stream to 127.0.0.1 port 6315 tx "$tx" time "$(scaled 1)" flows 2 cpus 0,1
	json_check "d['state'] == 'done' and d['rx']['bytes'] == d['tx']['bytes'] and
		d['rx']['verify_errors'] == 0 or d['state'] == 'failed' and d['errno'] > 0" </tmp/ktg-fl7.json
	# the runs met failures: the check above judged something
	[ "$(fault_live_injected)" -gt 0 ] || fail "no allocation failed in the runs' threads"
	[ -d "$DEBUGFS"/fail_usercopy ] && fault_live_user
	fault_live_off
	$KTGEN run del all
	$KTGEN sink del all
	slowwait "$(scaled 5)" bash -c "! pgrep '^ktgen/' >/dev/null" ||
		fail "workers left: $(pgrep -l '^ktgen/' | tr '\n' ' ')"
	$KTGEN -j config | json_check "d['buffer_used'] == 0"
	unload_module
	kmemleak_check
}
case_add fault_live t_fault_live 300

# Failures in ktgen's work items: a run's done and interval notifications
# are built on ktgen's workqueue, whose workers (kworker/u*, marked as they
# come) fail every slab allocation. A notification the module could not
# send is lost to its listeners, who must learn of it (their next receive
# fails with ENOBUFS, as after an overrun) rather than wait for it for
# ever: nlraw, listening, sees run-done's loss; the CLI's run, with
# intervals, returns with its result; the run itself is whole.
t_fault_live_work()
{
	local marker rc=0

	fault_setup
	load_module
	$KTGEN sink add tcp port 6314 rx verify >/dev/null
	fault_arm Y 100 failslab
	(while :; do
		for p in $(pgrep '^kworker/u'); do
			echo 1 >/proc/"$p"/make-it-fail 2>/dev/null
		done
		sleep 0.2
	done) &
	marker=$!
	sleep 1
	"$KTGEN_NLRAW" listen -- run-new 2:u32:0 3:hex:7f000001 4:hex:18aa 10:u32:$(($(span 1) * 1000)) \
		-- events "$(scaled 6)" >/tmp/ktg-flw.out || rc=$?
	cat /tmp/ktg-flw.out
	[ $rc = 0 ] || fail "nlraw: exit status $rc (a lost run-done nobody heard of?)"
	grep -q '^events lost: No buffer space available$' /tmp/ktg-flw.out ||
		fail "run-done's loss not reported (failslab injected $(fault_live_injected failslab))"
	$KTGEN -j run show | json_check "d[0]['state'] == 'done' and d[0]['rx']['bytes'] == d[0]['tx']['bytes'] > 0"
	rc=0
	timeout "$(scaled 120)" $KTGEN -j run tcp_stream to 127.0.0.1 port 6314 time "$(span 1)" \
		interval 0.2 >/tmp/ktg-flw.json || rc=$?
	[ $rc = 0 ] || fail "ktgen run: exit status $rc (124: it waited for a notification that never came)"
	json_check "d['state'] == 'done' and d['rx']['bytes'] == d['tx']['bytes'] > 0 and
		d['rx']['verify_errors'] == 0" </tmp/ktg-flw.json
	kill $marker
	wait $marker 2>/dev/null || true
	echo "# failslab failed $(fault_live_injected failslab) allocations in unbound workers"
	for p in $(pgrep '^kworker/'); do
		echo 0 >/proc/"$p"/make-it-fail 2>/dev/null
	done
	fault_live_off
	$KTGEN run del all
	$KTGEN sink del all
	$KTGEN -j config | json_check "d['buffer_used'] == 0"
	unload_module
	kmemleak_check
}
case_add fault_live_work t_fault_live_work 300

# User memory under fail_usercopy: tx user (the workers copy from the
# CLI's memory) and an rx user sink (into the memory of the CLI that made
# it): a copy that fails fails the flow or its connection (EFAULT) and the
# run says so, or the run is done with every byte counted.
fault_live_user()
{
	local copies

	copies=$(fault_live_injected fail_usercopy)
	fault_live_run /tmp/ktg-fl4.json tcp_stream to 127.0.0.1 port 6310 tx user time "$(scaled 1)" flows 2 cpus 0,1
	json_check "d['state'] == 'done' and d['rx']['bytes'] == d['tx']['bytes'] and
		d['rx']['verify_errors'] == 0 or d['state'] == 'failed' and d['errno'] > 0" </tmp/ktg-fl4.json
	$KTGEN sink add tcp port 6312 rx user detach >/dev/null
	$KTGEN sink add udp port 6313 rx user detach >/dev/null
	fault_live_run /tmp/ktg-fl5.json tcp_stream to 127.0.0.1 port 6312 time "$(scaled 1)" flows 2 cpus 0,1
	json_check "d['state'] == 'done' and d['rx']['bytes'] == d['tx']['bytes'] or
		d['state'] == 'failed' and d['errno'] > 0" </tmp/ktg-fl5.json
	fault_live_run /tmp/ktg-fl6.json udp_stream to 127.0.0.1 port 6313 size 1000 time "$(scaled 1)"
	json_check "d['state'] == 'done' and d['rx']['bytes'] <= d['tx']['bytes'] or
		d['state'] == 'failed' and d['errno'] > 0" </tmp/ktg-fl6.json
	[ "$(fault_live_injected fail_usercopy)" -gt "$copies" ] ||
		fail "no user copy failed in the runs' threads"
}

# The KCSAN lane's positive control: a module with a seeded data race
# (tests/vm/kcsan-race: two kthreads adding to one plain counter, built as
# ktgen.ko is) must be reported by the lane's kernel within a minute, and
# the report rule (reports.sh) must count it as a failure; the case marks
# its log first ("seeded race") so that this one report, and only one of
# ktg_race's, is a note for it. Only in the KCSAN lane, every turn.
t_kcsan_control()
{
	local i log seen=

	# shellcheck source=tests/vm/reports.sh
	. "$KTGEN_TESTS/reports.sh"
	echo "ktgen-test: seeded race" >/dev/kmsg
	insmod "$KTGEN_RACE_KO" || fail "ktg_race.ko did not load"
	for ((i = 0; i < $(scaled 6); i++)); do
		dmesg | grep -q 'BUG: KCSAN: data-race in ktg_race_add' && seen=1 && break
		sleep 1
	done
	rmmod ktg_race
	[ -n "$seen" ] || fail "no KCSAN report of the seeded race in $(scaled 6) s"
	log=$(dmesg | sed -n '/ktgen-test: seeded race$/,$p' | grep -v 'ktgen-test: seeded race$')
	[ -n "$(report_lines 0 <<<"$log" | grep -v '^# kcsan ')" ] ||
		fail "the report rule did not count the seeded race as a failure"
	# (its words only: a log line saying "BUG:" reads as a report)
	log "the seeded race reported: $(grep -m 1 -o 'data-race in .*' <<<"$log")"
}
[ -z "${KTGEN_KCSAN:-}" ] || case_add kcsan_control t_kcsan_control 120 kcsan core
