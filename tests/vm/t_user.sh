#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# User-memory paths: tx user sends from the requester's memory through
# kthreads that adopted its address space, so the stack's own user copy
# runs, non-temporal where the route has tx-nocache-copy; rx user receives
# into it (copy_to_user). Shown from the stack's side by the module's
# kprobe on the kernel's non-temporal user copy (trace kprobe events
# cannot: Debian's kernels refuse them on notrace functions); owners that
# go away mid-run; bad user memory refused.

# One TCP run over the veth with tx MODE, the kernel's nocache user copy
# counted by the module's kprobe (probe): prints its JSON.
nocache_run()
{
	ip netns exec "$NS_A" $KTGEN -j run tcp_stream to 10.77.0.2 port 5600 \
		bytes 4M tx "$1" probe || fail "tx $1: exit $?"
}

# tx-nocache-copy is read at connect, so every run sees the setting of the
# moment. With it on, tx user takes the stack's non-temporal copy, about
# once per 64 KiB send call (one per page fragment copied); every other
# path sends kernel memory and never does, which the result says; with it
# off, tx user copies cached.
t_nocache_copy()
{
	local mode doc n

	need_kprobes
	[ "$(uname -m)" = x86_64 ] || skip "the probed copy routine is x86's"
	load_module
	veth_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5600 rx verify >/dev/null
	ip netns exec "$NS_A" ethtool -K ktg0 tx-nocache-copy on
	for mode in stack cached nocache zerocopy user; do
		doc=$(nocache_run $mode)
		log "tx-nocache-copy on, tx $mode: $(echo "$doc" | grep -o '"nocache_copies":[ ]*[0-9]*')"
		# tx user: 64 send calls of 64 KiB, copied in page fragments
		echo "$doc" | json_check "d['state'] == 'done' and
			d['rx']['bytes'] == d['tx']['bytes'] == 4 << 20 and
			d['rx']['verify_errors'] == 0 and
			d['tx']['nocache_copy_flows'] == 1 and
			d['tx']['nocache_copy_effect'] == ('$mode' == 'user') and
			(d['tx']['nocache_copies'] >= 64 if '$mode' == 'user' else
			 d['tx']['nocache_copies'] == 0)"
	done
	ip netns exec "$NS_A" $KTGEN run tcp_stream to 10.77.0.2 port 5600 bytes 1M tx stack |
		grep -q "^  tx-nocache-copy on for 1 of 1 flows: no effect possible on tx stack" ||
		fail "no 'no effect' line for tx stack"

	ip netns exec "$NS_A" ethtool -K ktg0 tx-nocache-copy off
	nocache_run user | json_check "d['state'] == 'done' and d['rx']['verify_errors'] == 0 and
		d['rx']['bytes'] == d['tx']['bytes'] and d['tx']['nocache_copy_flows'] == 0 and
		d['tx']['nocache_copies'] == 0"
	n=$(ip netns exec "$NS_A" $KTGEN run tcp_stream to 10.77.0.2 port 5600 bytes 1M tx user |
		grep -c "tx-nocache-copy" || true)
	[ "$n" = 0 ] || fail "a tx-nocache-copy line with the feature off"
}
case_add nocache_copy t_nocache_copy 300

# rx user counts exactly what tx user sent, TCP and UDP, and the sink's
# memory is its creator's: the process that added it is long gone.
t_rx_user()
{
	load_module
	$KTGEN sink add tcp port 5610 rx user detach cpus 0-$(( $(nproc) - 1 )) >/dev/null
	$KTGEN sink add udp port 5611 rx user detach >/dev/null
	$KTGEN -j run tcp_stream to 127.0.0.1 port 5610 bytes 8M tx user flows 2 |
		json_check "d['state'] == 'done' and d['tx']['bytes'] == 8 << 20 and
			d['rx']['bytes'] == d['tx']['bytes'] == d['tx']['acked'] and
			d['rx']['bad_headers'] == 0 and d['rx']['conns'] == 2"
	$KTGEN -j run udp_stream to 127.0.0.1 port 5611 msgs 2000 size 30000 tx user |
		json_check "d['state'] == 'done' and d['tx']['msgs'] > 0 and
			d['tx']['msgs'] == d['rx']['msgs'] - d['rx']['dup'] + d['rx']['lost'] and
			d['rx']['bad_headers'] == 0"
	$KTGEN sink show | grep -q "rx user" || fail "sink show does not say rx user"
	$KTGEN sink del all
}
case_add rx_user t_rx_user 180 core kcsan

# The owner of a user run goes away. Attached: the run stops with it.
# Detached: the run keeps sending from the dead process's memory, which
# it holds, to the end, and every byte verifies.
t_user_owner_exit()
{
	local pid id

	need_cpus 2
	load_module
	$KTGEN sink add tcp port 5620 rx verify cpus 1 >/dev/null
	$KTGEN run tcp_stream to 127.0.0.1 port 5620 time 60 tx user cpus 0 >/dev/null &
	pid=$!
	slowwait "$(scaled 10)" sh -c "$KTGEN run show | grep -q running" ||
		fail "the run did not start"
	sleep 0.5
	kill -9 $pid
	wait $pid 2>/dev/null || true
	slowwait "$(scaled 10)" sh -c "! $KTGEN run show | grep -q running" ||
		fail "still running after its owner died"
	$KTGEN -j run show 1 | json_check "d['state'] == 'stopped' and
		d['rx']['verify_errors'] == 0 and d['rx']['bytes'] == d['tx']['bytes']"

	id=$($KTGEN -j run tcp_stream to 127.0.0.1 port 5620 time 2 tx user detach cpus 0 |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
	slowwait "$(scaled 30)" sh -c "$KTGEN run show $id | grep -q ': done'" ||
		fail "the detached user run did not finish: $($KTGEN run show "$id")"
	$KTGEN -j run show "$id" | json_check "d['state'] == 'done' and d['tx']['bytes'] > 0 and
		d['rx']['verify_errors'] == 0 and d['rx']['bytes'] == d['tx']['bytes']"
	$KTGEN run del all
	$KTGEN sink del all
}
case_add user_owner_exit t_user_owner_exit 180 core

# User memory that is not right is refused, naming the attribute, and
# nothing is left behind.
t_user_bad_mem()
{
	local run="$KTGEN_NLRAW run-new 3:hex:7f000001 4:u16:5630"

	need_cpus 2
	load_module
	expect_fail 1 "missing attribute user-buf" $run 13:u32:4
	expect_fail 1 "for user mode only.*\(attribute user-buf\)" $run 32:u64:65536
	expect_fail 1 "page aligned.*\(attribute user-buf\)" $run 13:u32:4 32:u64:65537
	expect_fail 1 "not a user address range.*\(attribute user-buf\)" \
		$run 13:u32:4 32:u64:0xffff888000000000
	# mapped nowhere: caught when the module writes the payload there
	expect_fail 1 "cannot write the payload.*\(attribute user-buf\)" $run 13:u32:4 32:u64:65536
	expect_fail 1 "cannot write to the user memory.*\(attribute user-buf\)" \
		$KTGEN_NLRAW sink-new 4:u16:5631 5:u32:6 11:u64:65536 12:u64:65536
	expect_fail 1 "too short.*\(attribute user-len\)" \
		$KTGEN_NLRAW sink-new 4:u16:5631 5:u32:6 11:u64:65536 12:u64:65536 \
		6:hex:03
	expect_fail 1 "missing attribute user-buf" $KTGEN_NLRAW sink-new 4:u16:5631 5:u32:6
	[ -z "$($KTGEN run show)" ] || fail "a refused run was left: $($KTGEN run show)"
	[ -z "$($KTGEN sink show)" ] || fail "a refused sink was left: $($KTGEN sink show)"
}
case_add user_bad_mem t_user_bad_mem 60 core

# The requester's memory taken away mid-run. tx user: unmapped or made
# inaccessible, the run fails with EFAULT and names it; made read-only,
# it runs to the end (the stack only reads it). rx user: the sink's
# connection ends, the sender's run ends, the sink goes with its owner.
# Nothing spins, nothing is left, no kernel report.
t_user_unmap()
{
	local act out want owner run="$KTGEN_NLRAW run-new 2:u32:0 3:hex:7f000001 4:hex:1608 10:u32:$(( $(span 8) * 1000 ))
		13:u32:4 14:u64:1048576 32:umem:1048576"

	not_on_uml "its uaccess copies PROT_NONE pages (arch/um: pte_present() counts them)"

	load_module
	$KTGEN sink add tcp port 5640 rx discard >/dev/null
	for act in munmap "mprotect none" "mprotect ro"; do
		want="failed 14"
		[ "$act" = "mprotect ro" ] && want="done 0"
		# shellcheck disable=SC2086
		out=$($run -- sleep 500 -- $act -- wait-runs "$(( $(span 8) + $(scaled 20) ))" | grep '^run ') ||
			fail "$act: the run did not end: $out"
		[[ $out == "run "[0-9]*" $want" ]] || fail "tx user, $act mid-run: '$out', want '$want'"
		log "tx user, $act mid-run: $out"
		$KTGEN run del all
	done
	[[ $($KTGEN run tcp_stream to 127.0.0.1 port 5640 time 1 tx user 2>&1) == *": done in "* ]] ||
		fail "a run after them"

	# rx user: the owner's nlraw holds the sink while a run sends into it;
	# the memory goes 3 s (scaled) after the sink came, and the owner
	# stays (its sleep) until the run has ended
	$KTGEN_NLRAW sink-new 4:hex:1609 5:u32:6 11:umem:1048576 12:u64:1048576 \
		-- sleep "$(( $(scaled 3) * 1000 ))" -- munmap -- sleep "$(( $(scaled 30) * 1000 ))" >/dev/null &
	owner=$!
	# (a failure below ends the case: the owner goes with it)
	trap 'kill "$owner" 2>/dev/null || :' EXIT
	slowwait "$(scaled 10)" sh -c "$KTGEN sink show | grep -q ':5641 '" || fail "the rx user sink"
	out=$($KTGEN -j run tcp_stream to 127.0.0.1 port 5641 time $(( $(scaled 3) * 3 )) 2>/dev/null) || true
	log "a run into rx user memory unmapped mid-run: $(echo "$out" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["state"], d.get("error"), "after %.2f s," % (d["duration_ns"] / 1e9), d["rx"]["bytes"], "bytes received")')"
	# it received until the memory went, then its connection ended, long
	# before its time was up
	echo "$out" | json_check "d['state'] == 'failed' and d['errno'] in (32, 104) and
		d['rx']['bytes'] > 0 and d['duration_ns'] < $(( $(scaled 3) * 2 ))e9" ||
		fail "the run into the unmapped sink"
	kill "$owner"
	wait "$owner" || true
	slowwait "$(scaled 10)" sh -c "! $KTGEN sink show | grep -q ':5641 '" ||
		fail "the rx user sink outlived its owner"
	$KTGEN sink del all
	$KTGEN run del all
}
case_add user_unmap t_user_unmap 120

# Starts an owner (nlraw, in the background, its pid in OWNER) of a tx user
# run of test $1 (KTGEN_TEST_*) to 127.0.0.1 port $2, 10 min, from 1 MiB
# of its memory, which goes behind a userfaultfd it never reads after
# 300 ms; extra attributes and actions in "${@:3}" (before the stall), the
# command it runs under in OWNER_WRAP; waits until the run's worker waits
# on that userfaultfd. The owner lets go after 40 s (scaled), so that a
# module that never ends the wait still unloads after the failure.
OWNER=
OWNER_WRAP=
uffd_owner()
{
	local test=$1 port=$2

	shift 2
	# shellcheck disable=SC2086
	$OWNER_WRAP "$KTGEN_NLRAW" run-new 2:u32:"$test" 3:hex:7f000001 4:hex:"$(printf %04x "$port")" 10:u32:600000 \
		13:u32:4 14:u64:1048576 32:umem:1048576 "$@" -- sleep 300 -- uffd-stall \
		-- sleep "$(( $(scaled 40) * 1000 ))" >"$OWNER_LOG" 2>&1 &
	OWNER=$!
	slowwait "$(scaled 20)" uffd_waiting '^ktgen/run' >/dev/null ||
		fail "the run's worker is not waiting on the userfaultfd: '$(uffd_waiting '^ktgen/run')'" \
			"(threads: $(pgrep -l '^ktgen/'); owner: $(cat "$OWNER_LOG"))"
}

# The owner goes: its userfaultfd with it, which ends any wait on it.
uffd_owner_end()
{
	kill "$OWNER" 2>/dev/null || :
	wait "$OWNER" 2>/dev/null || :
}

# What each stuck-run check below found wrong, if anything.
STALL_ERRS=

# A stop ends the stuck run within seconds, failed with EFAULT or EINTR.
udp_stall_stop()
{
	local id st t0

	$KTGEN sink add udp port 5650 rx discard >/dev/null
	uffd_owner 1 5650
	id=$($KTGEN -j run show | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
	t0=$(date +%s%N)
	$KTGEN run stop "$id"
	if slowwait "$(scaled 10)" run_ended "$id"; then
		st=$($KTGEN -j run show "$id" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["state"], d.get("errno", 0))')
		log "stop: run $id $st, $(( ($(date +%s%N) - t0) / 1000000 )) ms after it"
		[[ $st == "failed 14" || $st == "failed 4" ]] ||
			STALL_ERRS+="stop: run $id ended '$st', want failed with EFAULT or EINTR; "
	else
		STALL_ERRS+="stop: run $id still going $(scaled 10) s after its stop; "
	fi
	kill -0 "$OWNER" || fail "the owner died: nothing tested"
	uffd_owner_end
	slowwait "$(scaled 10)" run_ended "$id" || fail "run $id did not end with its owner"
	$KTGEN run del all
	$KTGEN sink del all
}

# The delete of the run's namespace (its pre_exit) ends it: a detached run
# (17: detach) whose owner went back to the initial namespace, so that
# nothing but the run and a sink is left in this one.
udp_stall_netns()
{
	local ns t0

	ns=$(netns_add u)
	ip netns exec "$ns" $KTGEN sink add udp port 5651 rx discard >/dev/null
	OWNER_WRAP="nsenter --net=/run/netns/$ns" uffd_owner 1 5651 17:flag:1 -- setns /proc/1/ns/net
	OWNER_WRAP=
	t0=$(date +%s%N)
	ip netns del "$ns"
	if slowwait "$(scaled 10)" bash -c "! pgrep '^ktgen/' >/dev/null"; then
		log "namespace delete: its run and sink gone in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	else
		STALL_ERRS+="namespace delete: ktgen threads left $(scaled 10) s after it: $(pgrep -l '^ktgen/' | tr '\n' ' '); "
	fi
	kill -0 "$OWNER" || fail "the owner died: nothing tested (owner: $(cat "$OWNER_LOG"))"
	uffd_owner_end
	slowwait "$(scaled 10)" bash -c "! pgrep '^ktgen/' >/dev/null" ||
		fail "ktgen threads left with the owner gone: $(pgrep -l '^ktgen/')"
}

# rmmod (every namespace's pre_exit) ends it.
udp_stall_rmmod()
{
	local t0 pid

	$KTGEN sink add udp port 5652 rx discard >/dev/null
	uffd_owner 1 5652
	t0=$(date +%s%N)
	rmmod ktgen &
	pid=$!
	if slowwait "$(scaled 10)" bash -c "! [ -d /sys/module/ktgen ]"; then
		log "rmmod: done in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	else
		STALL_ERRS+="rmmod: still going $(scaled 10) s after it; "
	fi
	kill -0 "$OWNER" || fail "the owner died: nothing tested"
	uffd_owner_end
	wait $pid || fail "rmmod: exit $?"
}

# udp_stream tx user behind a userfaultfd nobody reads (life_user_stall
# is TCP's): a stop, the delete of the run's namespace and rmmod each end
# the stuck run within seconds. Before, only TCP's send marked its worker
# as in user memory: a stuck UDP worker was never interrupted, and each
# waited for as long as the owner lived (the stop for ever, the
# namespace's cleanup_net and rmmod with pernet_ops_rwsem held,
# host-wide). Each wait is bounded here: the case fails, the owner goes,
# the wait ends. Slow kernels try the namespace's delete only (the wait
# that holds the whole host).
t_user_stall_udp()
{
	not_on_uml "a task's wchan is where UML switched it (block_signals), not where it waits"
	[ -e /proc/sys/vm/unprivileged_userfaultfd ] ||
		skip "this kernel has no userfaultfd (CONFIG_USERFAULTFD)"
	OWNER_LOG=$(mktemp)
	load_module
	reduced || udp_stall_stop
	udp_stall_netns
	reduced || udp_stall_rmmod
	[ -z "$STALL_ERRS" ] || fail "$STALL_ERRS"
}
case_add user_stall_udp t_user_stall_udp 180

# udp_rr tx user sends its requests from the requester's memory: every
# request verifies at the sink, and the memory made inaccessible mid-run
# fails the run with EFAULT. (nocache_copy's kprobe cannot show it: UDP
# copies a user payload with copy_from_iter, ip_generic_getfrag(), never
# with the nocache copy.) Before, udp_rr took tx user and sent from
# kernel memory: the run never noticed its memory going, and an A/B of
# tx stack against tx user compared one copy path with itself.
t_user_udp_rr()
{
	local out run="$KTGEN_NLRAW run-new 2:u32:3 3:hex:7f000001 4:hex:1615 10:u32:$(( $(span 4) * 1000 ))
		13:u32:4 14:u64:1048576 32:umem:1048576 34:u32:1400 35:u32:64"

	not_on_uml "its uaccess copies PROT_NONE pages (arch/um: pte_present() counts them)"
	load_module
	$KTGEN sink add udp port 5653 rx verify rr >/dev/null
	$KTGEN -j run udp_rr to 127.0.0.1 port 5653 msgs 50 req 1400 resp 64 tx user |
		json_check "d['state'] == 'done' and d['tx_mode'] == 'user' and
			d['latency']['transactions'] == 50 == d['rx']['responses'] and
			d['latency']['timeouts'] == 0 and d['rx']['verify_errors'] == 0 and
			d['tx']['bytes'] == 50 * 1400"
	$KTGEN run del all
	# shellcheck disable=SC2086
	out=$($run -- sleep 500 -- mprotect none -- wait-runs "$(( $(span 4) + $(scaled 20) ))" |
		grep '^run ') || fail "the run did not end: $out"
	log "udp_rr tx user, its memory made inaccessible mid-run: $out"
	[[ $out == "run "[0-9]*" failed 14" ]] ||
		fail "udp_rr tx user, its memory made inaccessible mid-run: '$out', want 'failed 14'"
	$KTGEN run del all
	$KTGEN sink del all
}
case_add user_udp_rr t_user_udp_rr 60 kcsan
