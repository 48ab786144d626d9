#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lifetimes and teardown: a request that builds a big run holds up no
# other caller; deleting a sink that traffic flows into, or the runs
# and sinks of a namespace, leaves no socket but TIME-WAIT, no thread
# and no budget byte behind; a namespace holds as many runs and sinks as
# its limits say, and dumps of hundreds of them come whole.

# The ktgen sockets of namespace $1 (ss, no header) in a state other
# than TIME-WAIT, one a line.
live_sockets()
{
	ip netns exec "$1" ss -Htuan | grep -v '^tcp *TIME-WAIT' || :
}

# The namespace's used buffer bytes (module-wide).
buffer_used()
{
	$KTGEN -j config | sed -n 's/.*"buffer_used": *\([0-9]*\).*/\1/p'
}

# A RUN_NEW that fills a big buffer is built outside the namespace's
# lock: while it is being built (its pages charged, the run not yet
# listed), run show, sink show and info (whose socket's close the module
# hears of) answer. Before, each waited for the whole build: run show
# answered only once the run was listed. The build is held a while
# after its fill (a test hook), so that a slow kernel's CLI gets its
# answers within it too.
t_life_build_unlocked()
{
	local size pid t0 t1 ms listed

	reduced && size=256M || size=512M
	load_module
	test_hook build_delay_ms $(( $(scaled 5) * 1000 ))
	# more than a small guest's default budget (a quarter of its memory)
	$KTGEN config set budget 1G
	$KTGEN sink add tcp port 7000 rx discard >/dev/null
	$KTGEN run tcp_stream to 127.0.0.1 port 7000 buffer $size time 1 >/dev/null 2>&1 &
	pid=$!
	# building: the source pages are charged before they are filled
	slowwait "$(scaled 20)" bash -c "[ \"\$($KTGEN -j config |
		sed -n 's/.*\"buffer_used\": *\([0-9]*\).*/\1/p')\" -gt $((200 << 20)) ]" ||
		fail "the run's buffer was never charged"
	t0=$(date +%s%N)
	listed=$($KTGEN -j run show)
	$KTGEN -j sink show >/dev/null
	$KTGEN info >/dev/null
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	log "run show, sink show and info took $ms ms while a $size run was built"
	# still being built when they answered: not listed yet, and its
	# requester still waiting for the reply
	[ "$listed" = "[]" ] ||
		fail "run show answered only once the run was listed ($ms ms): $listed"
	kill -0 $pid 2>/dev/null || fail "the run's request ended before the others answered"
	wait $pid || fail "the run failed"
	$KTGEN -j run show | json_check "len(d) == 1 and d[0]['state'] == 'done'"
	$KTGEN run del all
	$KTGEN sink del all
	[ "$(buffer_used)" = 0 ] || fail "$(buffer_used) bytes left charged"
	$KTGEN config set budget "$(default_budget)"
}
case_add life_build_unlocked t_life_build_unlocked 300

# A sink deleted while four flows stream into it, with everything it
# sends lost (netem): its connections are reset, not closed, so that its
# namespace keeps no socket at once (before: orphans in FIN-WAIT-1,
# retransmitting a FIN nobody hears); once the path heals the sender
# learns it (its run fails, with the errno), and neither side keeps a
# socket but TIME-WAIT; no sink thread, no budget byte is left.
t_life_sink_del_flowing()
{
	local doc id rc=0 left

	need_cpus 2
	load_module
	veth_pair
	id=$(ip netns exec "$NS_B" $KTGEN -j sink add tcp port 7001 rx verify cpus 0,1 |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
	doc=$(mktemp)
	ip netns exec "$NS_A" $KTGEN -j run tcp_stream to 10.77.0.2 port 7001 flows 4 \
		time "$(scaled 60)" >"$doc" 2>/dev/null &
	slowwait "$(scaled 20)" bash -c "ip netns exec $NS_B $KTGEN -j sink show $id |
		grep -q '\"bytes\":[1-9]'" || fail "no traffic reached the sink"
	pgrep '^ktgen/sink' >/dev/null || fail "no sink worker while it receives"
	tc -n "$NS_B" qdisc add dev ktg1 root netem loss 100%
	ip netns exec "$NS_B" $KTGEN sink del "$id"
	# the sink's side: nothing at once, the workers gone
	left=$(live_sockets "$NS_B")
	[ -z "$left" ] || fail "the sink's namespace keeps sockets after its deletion: $left"
	! pgrep '^ktgen/sink' >/dev/null || fail "sink workers left: $(pgrep -l '^ktgen/sink')"
	# the path heals: the sender's next segment meets no socket there
	tc -n "$NS_B" qdisc del dev ktg1 root
	# the sender's: its run fails well before its time limit
	wait $! || rc=$?
	[ $rc = 1 ] || fail "the run exited $rc: $(cat "$doc")"
	json_check "d['state'] == 'failed' and d['errno'] in (104, 32) and
		d['duration_ns'] < $(scaled 50) * 1e9" <"$doc" || fail "the run's document"
	left=$(live_sockets "$NS_A")
	[ -z "$left" ] || fail "the sender keeps sockets after its run ended: $left"
	ip netns exec "$NS_A" $KTGEN run del all
	[ "$(buffer_used)" = 0 ] || fail "$(buffer_used) bytes left charged"
	rm -f "$doc"
}
case_add life_sink_del_flowing t_life_sink_del_flowing 240

# The sink's side of port $2 in namespace $1 in states named by ss's
# filter $3: one line each.
sink_side()
{
	ip netns exec "$1" ss -Htan state "$3" "( sport = :$2 )" || :
}

# A sink's connections end through loss (netem on both ends), and the
# peer namespace goes: the sink keeps nothing but TIME-WAIT (kernel
# sockets have no TIME-WAIT of their own here: nothing). Since tcp_close()
# stops a kernel socket's timers (151c9c724d05, 6.9, 6.1.84), an orphan
# whose FIN or its ACK was lost stays in LAST-ACK for ever. Before, the
# sink closed a finished connection with a FIN and let it go at once.
# (Not on the debug lane, whose turns are full: a protocol outcome, which
# the stock kernel shows.)
t_life_sink_close_loss()
{
	local pid left n=16 is_open out

	load_module
	veth_pair
	veth_neigh_fixed
	ip netns exec "$NS_B" $KTGEN sink add tcp port 7003 rx discard >/dev/null
	tc -n "$NS_A" qdisc add dev ktg0 root netem loss 20%
	tc -n "$NS_B" qdisc add dev ktg1 root netem loss 20%
	out=$(mktemp)
	ip netns exec "$NS_A" $KTGEN run tcp_stream to 10.77.0.2 port 7003 flows $n \
		bytes $((n * 64))K >"$out" 2>&1 &
	pid=$!
	# every connection came and the peer closed it (its FIN came through);
	# through 20 % loss both ways a flow may still be backing off when the
	# wait ends (seen once in a loaded lane): the sink holds that one, open
	is_open="ip netns exec $NS_B ss -Htan state established state close-wait '( sport = :7003 )'"
	slowwait "$(scaled 30)" bash -c "ip netns exec $NS_B $KTGEN -j sink show |
		grep -q '\"conns\": *$n\\b'" ||
		fail "not $n connections: $(ip netns exec "$NS_B" $KTGEN sink show); the run: $(cat "$out")"
	slowwait "$(scaled 30)" bash -c "[ -z \"\$($is_open)\" ]" ||
		log "not closed by their sender yet: $(bash -c "$is_open" | wc -l)"
	log "closing: $(sink_side "$NS_B" 7003 connected | awk '{ print $1 }' | sort | uniq -c | xargs)"
	# the sender goes, with its namespace: nothing answers the sink now
	kill $pid 2>/dev/null || :
	wait $pid 2>/dev/null || :
	rm -f "$out"
	ip netns del "$NS_A"
	sleep "$(scaled 4)"
	# no orphan: what the sink still holds open is its own, and goes with it
	left=$(sink_side "$NS_B" 7003 connected | grep -Ev '^(TIME-WAIT|ESTAB|CLOSE-WAIT)' || :)
	[ -z "$left" ] || fail "the sink's side keeps, $(scaled 4) s after its peer went:" $left
	ip netns exec "$NS_B" $KTGEN sink del all
	slowwait "$(scaled 5)" bash -c "[ -z \"\$(ip netns exec $NS_B ss -Htan state connected \
		'( sport = :7003 )' | grep -v '^TIME-WAIT')\" ]" ||
		fail "after sink del: $(sink_side "$NS_B" 7003 connected | grep -v '^TIME-WAIT')"
}
case_add life_sink_close_loss t_life_sink_close_loss 120 nodebug

# A run stopped while everything its sink sends is lost (netem): it is
# stopping, not deletable, while its drain waits; the drain gives up (30 s) and its connections are reset, not closed, so
# that its namespace keeps no socket once it has ended (before: orphans
# in FIN-WAIT-1 retransmitting into the void); nothing but TIME-WAIT on
# either side once the sink is deleted too, no thread, no budget byte.
t_life_run_stop_clean()
{
	local id left

	load_module
	veth_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 7002 rx discard >/dev/null
	id=$(ip netns exec "$NS_A" $KTGEN -j run tcp_stream to 10.77.0.2 port 7002 flows 4 \
		time "$(scaled 120)" detach |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
	slowwait "$(scaled 20)" bash -c "ip netns exec $NS_A $KTGEN -j run show $id |
		grep -q '\"bytes\":[1-9]'" || fail "the run sent nothing"
	tc -n "$NS_B" qdisc add dev ktg1 root netem loss 100%
	ip netns exec "$NS_A" $KTGEN run stop "$id"
	# its drain waits for acks that never come (30 s): it says so, and it
	# cannot be deleted before it has ended
	ip netns exec "$NS_A" $KTGEN -j run show "$id" | json_check "d['state'] == 'stopping'" ||
		fail "a stopped run that drains is not shown as stopping"
	expect_fail 1 "the run is stopping: delete it once it has ended" \
		ip netns exec "$NS_A" $KTGEN run del "$id"
	slowwait "$(scaled 60)" bash -c "ip netns exec $NS_A $KTGEN -j run show $id |
		grep -q '\"state\":\"stopped\"'" || fail "the run did not stop"
	left=$(live_sockets "$NS_A")
	[ -z "$left" ] || fail "the sender keeps sockets once its run ended: $left"
	tc -n "$NS_B" qdisc del dev ktg1 root
	ip netns exec "$NS_A" $KTGEN run del "$id"
	ip netns exec "$NS_B" $KTGEN sink del all
	left=$(live_sockets "$NS_B")
	[ -z "$left" ] || fail "the sink's namespace keeps sockets: $left"
	! pgrep '^ktgen/' >/dev/null || fail "threads left: $(pgrep -l '^ktgen/')"
	[ "$(buffer_used)" = 0 ] || fail "$(buffer_used) bytes left charged"
}
case_add life_run_stop_clean t_life_run_stop_clean 240

# How many runs and sinks a namespace holds: the limits refuse the one
# beyond, name the setting, and count per namespace; deleting makes
# room; a finished run counts until it is deleted.
t_life_limits()
{
	local ns i

	load_module
	ns=$(netns_add l)
	$KTGEN config set max-runs 2 max-sinks 2
	$KTGEN -j config | json_check "d['max_runs'] == 2 and d['max_sinks'] == 2"
	$KTGEN sink add udp port 7010 >/dev/null
	$KTGEN sink add udp port 7011 >/dev/null
	expect_fail 1 "as many sinks as it may \(ktgen config max-sinks\)" \
		$KTGEN sink add udp port 7012
	# another namespace has its own count
	ip netns exec "$ns" $KTGEN sink add udp port 7012 >/dev/null
	for i in 1 2; do
		$KTGEN run udp_stream to 127.0.0.1 port 7010 msgs 10 >/dev/null
	done
	expect_fail 1 "as many runs as it may \(ktgen config max-runs\)" \
		$KTGEN run udp_stream to 127.0.0.1 port 7010 msgs 10
	$KTGEN -j run show | json_check "len(d) == 2"
	$KTGEN run del all
	$KTGEN run udp_stream to 127.0.0.1 port 7010 msgs 10 >/dev/null
	$KTGEN sink del all
	$KTGEN sink add udp port 7012 >/dev/null
	expect_fail 1 "\(attribute max-runs\)" "$KTGEN_NLRAW" set-config 3:u32:0
	expect_fail 1 "\(attribute max-sinks\)" "$KTGEN_NLRAW" set-config 4:u32:65537
	expect_fail 1 "\(attribute buffer-used\)" "$KTGEN_NLRAW" set-config 2:u64:0
	$KTGEN config set max-runs 4096 max-sinks 4096
	$KTGEN run del all
	$KTGEN sink del all
	ip netns exec "$ns" $KTGEN sink del all
	[ "$(buffer_used)" = 0 ] || fail "$(buffer_used) bytes left charged"
}
case_add life_limits t_life_limits 180

# A thousand sinks and runs (hundreds on slow kernels), made by one
# process: every one listed once, in order of id, by dumps that span many
# messages (a sink's message is about 200 bytes, a run's 600; a dump
# message holds at most 32 KiB). A dump in progress holds the module:
# rmmod is refused while one waits between its messages, and the dump
# then ends whole. Deleting them all leaves nothing.
t_life_many()
{
	local n i out req=() dump

	load_module
	reduced && n=300 || n=1000
	dump=$(mktemp)
	# udp sinks on 20000.., at most 16 senders each; udp_stream runs of
	# 2 datagrams of 64 bytes from a 4 KiB buffer, detached, one to each
	for ((i = 0; i < n; i++)); do
		req+=(-- sink-new 2:u32:1 4:hex:"$(printf %04x $((20000 + i)))" 18:u32:16)
	done
	"$KTGEN_NLRAW" "${req[@]:1}" >/dev/null || fail "$n sinks were not all made"
	$KTGEN -j sink show | json_check "[s['port'] for s in d] == list(range(20000, 20000 + $n)) and
		sorted(s['id'] for s in d) == [s['id'] for s in d] and len(set(s['id'] for s in d)) == $n"
	req=()
	for ((i = 0; i < n; i++)); do
		req+=(-- run-new 2:u32:1 3:hex:7f000001 4:hex:"$(printf %04x $((20000 + i)))"
		      7:u32:64 12:u64:2 14:u64:4096 17:flag:1)
	done
	out=$("$KTGEN_NLRAW" "${req[@]:1}" -- wait-runs "$(scaled 60)" | grep -c '^run [0-9]* done 0$') ||
		fail "$n runs were not all made and done: $out done"
	[ "$out" = "$n" ] || fail "$out of $n runs done"
	$KTGEN -j run show | json_check "len(d) == $n and
		all(r['state'] == 'done' and r['tx']['msgs'] == 2 for r in d) and
		sorted(r['id'] for r in d) == [r['id'] for r in d]"
	# a dump held between its messages holds the module
	"$KTGEN_NLRAW" dump-hold run-get "$(( $(scaled 3) * 1000 ))" >"$dump" &
	sleep "$(scaled 1)"
	out=$(rmmod ktgen 2>&1) && fail "rmmod while a dump is in progress worked"
	[[ $out == *"in use"* ]] || fail "rmmod while a dump is in progress: $out"
	wait $! || fail "the held dump failed"
	out=$(cat "$dump")
	log "rmmod during the dump: refused ($out)"
	[[ $out =~ ^dump\ $n\ in\ ([0-9]+)\ batches$ ]] && [ "${BASH_REMATCH[1]}" -gt 1 ] ||
		fail "the held dump: '$out', want $n runs in more than one batch"
	$KTGEN run del all
	$KTGEN sink del all
	$KTGEN -j run show | json_check "d == []"
	$KTGEN -j sink show | json_check "d == []"
	! pgrep '^ktgen/' >/dev/null || fail "threads left: $(pgrep -l '^ktgen/' | head)"
	[ "$(buffer_used)" = 0 ] || fail "$(buffer_used) bytes left charged"
	rmmod ktgen || fail "rmmod after the dump"
}
case_add life_many t_life_many 600

# life_stress_worker N SECS LOG: one of many processes that create,
# dump, stop and delete runs and sinks in the same namespace at once.
# Every call either works or is refused for what the others did (a run
# another deleted, one still running, a port taken): anything else,
# logged to LOG, fails the case.
life_stress_worker()
{
	local n=$1 end=$(( $(date +%s) + $2 )) log=$3 port out rc i=0

	while [ "$(date +%s)" -lt $end ]; do
		port=$((21000 + n * 100 + i % 100))
		i=$((i + 1))
		for cmd in "sink add udp port $port max-conns 16" \
			   "run udp_stream to 127.0.0.1 port $port msgs 3 detach" \
			   "run show" "sink show" "run stop all" "run del all" \
			   "run show 1" "sink del all"; do
			rc=0
			# shellcheck disable=SC2086
			out=$($KTGEN -j $cmd 2>&1 >/dev/null) || rc=$?
			[ $rc = 0 ] && continue
			[ $rc = 1 ] && echo "$out" | grep -Eq "no such (run|sink)|still running|is stopping|port is in use" &&
				continue
			echo "worker $n: '$cmd' exited $rc: $out" >>"$log"
		done
	done
}

# Sixteen processes create, stop, delete and dump runs and sinks for 30 s
# in one namespace (on a debug kernel, whose every call is ten times
# slower, eight for a minute): no report from the kernel (KASAN,
# lockdep, refcounts), no refusal but those the races explain, and
# nothing left once they are done and everything is deleted.
t_life_stress()
{
	local log=/tmp/ktg-stress.$$ secs=30 procs=16 i pids=()

	load_module
	: >"$log"
	[ "$KTGEN_TIME_SCALE" -gt 1 ] && { secs=60; procs=8; }
	for ((i = 0; i < procs; i++)); do
		life_stress_worker $i "$secs" "$log" &
		pids+=($!)
	done
	wait "${pids[@]}"
	[ ! -s "$log" ] || { head -n 20 "$log" >&2; fail "unexpected refusals"; }
	slowwait "$(scaled 30)" bash -c "! $KTGEN -j run show | grep -q '\"state\":\"running\"'" ||
		fail "runs still running"
	$KTGEN run del all
	$KTGEN sink del all
	$KTGEN -j run show | json_check "d == []"
	$KTGEN -j sink show | json_check "d == []"
	slowwait "$(scaled 10)" bash -c "! pgrep '^ktgen/' >/dev/null" ||
		fail "threads left: $(pgrep -l '^ktgen/' | head)"
	[ "$(buffer_used)" = 0 ] || fail "$(buffer_used) bytes left charged"
	rm -f "$log"
}
case_add life_stress t_life_stress 600

# The device a dev-bound run sends through is deleted mid-run (the veth
# pair goes): the run fails at once with ENODEV, without a drain that
# nothing could answer; no thread, socket or budget byte is left, and
# both namespaces go. Before, it sent into nothing until its time limit
# and ended "done".
t_life_dev_gone()
{
	local doc rc=0 left

	load_module
	veth_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 7003 rx discard >/dev/null
	doc=$(mktemp)
	ip netns exec "$NS_A" $KTGEN -j run tcp_stream to 10.77.0.2 port 7003 dev ktg0 flows 2 \
		time "$(scaled 120)" >"$doc" 2>/dev/null &
	slowwait "$(scaled 20)" bash -c "ip netns exec $NS_B $KTGEN -j sink show |
		grep -q '\"bytes\":[1-9]'" || fail "no traffic reached the sink"
	ip -n "$NS_A" link del ktg0
	wait $! || rc=$?
	[ $rc = 1 ] || fail "the run exited $rc: $(head -c 600 "$doc")"
	json_check "d['state'] == 'failed' and d['errno'] == 19 and d['tx']['bytes'] > 0 and
		d['duration_ns'] < $(scaled 40) * 1e9" <"$doc" || fail "the run's document"
	left=$(live_sockets "$NS_A")
	[ -z "$left" ] || fail "the sender keeps sockets after its run ended: $left"
	ip netns exec "$NS_A" $KTGEN run del all
	ip netns exec "$NS_B" $KTGEN sink del all
	! pgrep '^ktgen/' >/dev/null || fail "threads left: $(pgrep -l '^ktgen/')"
	[ "$(buffer_used)" = 0 ] || fail "$(buffer_used) bytes left charged"
	ip netns del "$NS_A"
	ip netns del "$NS_B"
	rm -f "$doc"
}
case_add life_dev_gone t_life_dev_gone 300

# A run's worker CPU goes offline mid-run: the worker goes on elsewhere
# (the scheduler moves a bound kthread off a dying CPU), the run ends at
# its limit with every byte counted, and the CPU comes back. Its counters
# (software events stand in) stopped with it: the run's group has its
# events absent (ENODEV) and its cycles by busy time, never a count of
# part of the window; the other CPUs' events are counted. A CPU that goes
# offline after the request was checked and before its worker was bound
# (the test hook start_delay_ms holds the run between its workers' starts) fails
# the run with ENODEV at that flow: before, the worker ran wherever the
# scheduler fell back to, and the run said it had CPU 1.
t_life_cpu_offline()
{
	local cpu=/sys/devices/system/cpu/cpu1/online doc

	[ -w $cpu ] || skip "cpu1 cannot go offline here"
	need_perf
	load_module cpu_event=sw
	$KTGEN sink add tcp port 7004 rx verify cpus 0 >/dev/null
	doc=$(mktemp)
	$KTGEN -j run tcp_stream to 127.0.0.1 port 7004 cpus 1 time "$(span 6)" \
		events cycles,instructions >"$doc" &
	slowwait "$(scaled 20)" bash -c "$KTGEN -j sink show | grep -q '\"bytes\":[1-9]'" ||
		fail "no traffic reached the sink"
	echo 0 >$cpu
	wait $! || { echo 1 >$cpu; fail "the run failed: $(cat "$doc")"; }
	echo 1 >$cpu
	json_check "$TCP_OK" <"$doc" || fail "the run's counts"
	json_check "d['cpu']['method'] == 'busy-time' and
		all(d['pmu']['run'][k]['absent'] is True and d['pmu']['run'][k]['error'] == 'ENODEV' and
		    'count' not in d['pmu']['run'][k] for k in ('cycles', 'instructions')) and
		all(d['pmu']['other'][k]['count'] > 0 for k in ('cycles', 'instructions'))" <"$doc" ||
		fail "the events of the CPU that went offline: $(cat "$doc")"
	$KTGEN run del all
	$KTGEN sink del all
	! pgrep '^ktgen/' >/dev/null || fail "threads left: $(pgrep -l '^ktgen/')"
	[ "$(buffer_used)" = 0 ] || fail "$(buffer_used) bytes left charged"
	$KTGEN sink add tcp port 7004 rx verify cpus 0 >/dev/null
	test_hook start_delay_ms $(( $(scaled 3) * 1000 ))
	$KTGEN -j run tcp_stream to 127.0.0.1 port 7004 cpus 0,1 flows 2 time 1 >"$doc" &
	# published (its CPUs checked) before its first worker starts
	slowwait "$(scaled 10)" bash -c "$KTGEN -j run show | grep -q '\"id\"'" ||
		fail "the run was not listed"
	echo 0 >$cpu
	wait $! && { echo 1 >$cpu; fail "a run on an offline CPU: $(cat "$doc")"; }
	echo 1 >$cpu
	test_hook start_delay_ms 0
	json_check "d['state'] == 'failed' and d['errno'] == 19 and d['error_flow'] == 1" <"$doc" ||
		fail "the run whose CPU went before its worker: $(cat "$doc")"
	$KTGEN run del all
	$KTGEN sink del all
	! pgrep '^ktgen/' >/dev/null || fail "threads left: $(pgrep -l '^ktgen/')"
	[ "$(buffer_used)" = 0 ] || fail "$(buffer_used) bytes left charged"
	rm -f "$doc"
}
case_add life_cpu_offline t_life_cpu_offline 240

# An rx user sink is its creator's: `sink add ... rx user` stays in the
# foreground, and the sink (with its hold on that process's memory) goes
# when the process does, SIGKILLed (the module sees its netlink socket
# close) or asked to stop (the CLI deletes it). detach keeps the old
# way: the sink outlives the process. Before, every rx user sink pinned
# its dead creator's address space until someone deleted it.
t_life_rx_user_owned()
{
	local pid

	load_module
	$KTGEN sink add tcp port 7020 rx user >/dev/null &
	pid=$!
	slowwait "$(scaled 10)" bash -c "$KTGEN sink show | grep -q 'rx user'" ||
		fail "the sink was not added"
	$KTGEN -j run tcp_stream to 127.0.0.1 port 7020 bytes 4M |
		json_check "d['state'] == 'done' and d['rx']['bytes'] == 4 << 20"
	kill -0 $pid || fail "sink add did not stay with its sink"
	kill -9 $pid
	wait $pid 2>/dev/null || :
	slowwait "$(scaled 10)" bash -c "[ \"\$($KTGEN -j sink show)\" = '[]' ]" ||
		fail "the sink outlived its creator: $($KTGEN sink show)"
	slowwait "$(scaled 10)" bash -c "! pgrep '^ktgen/sink' >/dev/null" ||
		fail "sink workers left"
	# asked to stop: deleted before the CLI exits
	$KTGEN sink add udp port 7021 rx user >/dev/null &
	pid=$!
	slowwait "$(scaled 10)" bash -c "$KTGEN sink show | grep -q 'rx user'" ||
		fail "the second sink was not added"
	kill -INT $pid
	wait $pid || fail "sink add exited $? on SIGINT"
	$KTGEN -j sink show | json_check "d == []"
	# detached: it stays, and says so
	$KTGEN sink add udp port 7022 rx user detach >/dev/null
	$KTGEN -j sink show | json_check "len(d) == 1 and d[0]['detach'] is True"
	$KTGEN sink del all
	expect_fail 2 "detach is for rx user sinks" $KTGEN sink add udp port 7023 detach
	# the module's own refusal, naming the attribute: proto udp, port
	# 7023, rx copy, detach
	expect_fail 1 "detach is for rx user sinks.*\(attribute detach\)" \
		"$KTGEN_NLRAW" sink-new 2:u32:1 4:hex:1b6f 5:u32:0 20:flag:1
	$KTGEN -j sink show | json_check "d == []"
	$KTGEN run del all
	[ "$(buffer_used)" = 0 ] || fail "$(buffer_used) bytes left charged"
}
case_add life_rx_user_owned t_life_rx_user_owned 240

# Holds $1 connections to 127.0.0.1:$2 (without a hello: the sink keeps
# them pending), says "ready" and sleeps.
RACE_HOLD='
import socket, sys, time
n, port = int(sys.argv[1]), int(sys.argv[2])
held = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
print("ready", flush=True)
time.sleep(600)
'

# An rx user sink goes with its owner, in a work of its own: that work
# races the owner's namespace going (the process was what kept it) and
# the module going (rmmod right after the kill). The sink holds many
# connections, so that its teardown takes a while. Before, the work took
# the sink out of its table and tore it down outside the lock, where the
# namespace's pre_exit did not see it: the namespace's state, or the
# module's, was freed while the work still released sockets in it (a
# use-after-free KASAN reports on the debug kernel; silent on a stock
# one). Rounds 3 and 4 hold the work in that window (the test hook
# the test hook owner_delay_ms: 3 s between taking the sink out of its table and
# tearing it down), so that the namespace's exit or rmmod surely comes
# inside it; rounds 1 and 2 race freely. Each round: no report (run.sh
# reads the log), no thread left, nothing charged. It is the debug
# kernel's KASAN that sees the old bug.
t_life_rx_user_race()
{
	local i ns pid hold out=/tmp/ktg-race.$$ n=200

	for i in 1 2 3 4; do
		load_module
		[ $i -le 2 ] || test_hook owner_delay_ms 3000
		ns=$(netns_add "race$i")
		ip netns exec "$ns" $KTGEN sink add tcp port 7040 rx user idle-ms 600000 \
			>/dev/null &
		pid=$!
		slowwait "$(scaled 10)" bash -c "ip netns exec $ns $KTGEN sink show | grep -q 'rx user'" ||
			fail "round $i: the sink was not added"
		ip netns exec "$ns" /usr/bin/python3 -c "$RACE_HOLD" $n 7040 >"$out" &
		hold=$!
		slowwait "$(scaled 30)" grep -q ready "$out" || fail "round $i: the peer did not connect"
		slowwait "$(scaled 10)" bash -c "ip netns exec $ns $KTGEN -j sink show |
			grep -q '\"conns\": *$n\\b'" ||
			fail "round $i: $(ip netns exec "$ns" $KTGEN sink show)"
		# owner and peer killed, namespace deleted (odd rounds) or
		# module removed (even), at once
		{ kill -9 $pid $hold; wait $pid $hold; } 2>/dev/null || :
		if (( i % 2 )); then
			ip netns del "$ns"
		else
			unload_module || fail "round $i: rmmod failed"
			ip netns del "$ns"
		fi
		slowwait "$(scaled 20)" bash -c "! pgrep '^ktgen/sink' >/dev/null" ||
			fail "round $i: sink workers left: $(pgrep -l '^ktgen/')"
		if module_loaded; then
			slowwait "$(scaled 10)" bash -c "[ \"\$($KTGEN -j config |
				sed -n 's/.*\"buffer_used\": *\([0-9]*\).*/\1/p')\" = 0 ]" ||
				fail "round $i: $(buffer_used) bytes left charged"
		fi
		module_loaded && test_hook owner_delay_ms 0
		log "round $i: $(( i % 2 ? 0 : 1 )) rmmod$([ $i -le 2 ] || echo ", the owner work held 3 s"), sink and namespace gone"
	done
	rm -f "$out"
}
case_add life_rx_user_race t_life_rx_user_race 240 kcsan

# Whether the first kthread named $1 (a pgrep pattern) waits on a
# userfaultfd; its wait channel on stdout.
uffd_waiting()
{
	local tid wchan=

	tid=$(pgrep "$1" | head -1)
	[ -n "$tid" ] && wchan=$(cat "/proc/$tid/wchan" 2>/dev/null)
	echo "$wchan"
	[[ $wchan == *userfault* ]]
}

# Whether run $1 has ended.
run_ended()
{
	! $KTGEN -j run show "$1" | grep -q '"state": *"\(running\|stopping\)"'
}

# A worker stuck in user memory ends when it must: the owner's pages are
# behind a userfaultfd that it never reads, so the worker's copy from or
# to them waits in handle_userfault for as long as the owner lives (as
# behind a FUSE server that does not answer). A tx user run so stuck
# ends within seconds of its stop, failed (the copy's EFAULT, or EINTR);
# an rx user sink so stuck is deleted at once. Before, the run stayed
# running and the sink's delete waited, for as long as the owner lived
# (and with them whatever deleted the namespace or unloaded the module).
t_life_user_stall()
{
	local pid rpid id t0 ms st out owner

	not_on_uml "a task's wchan is where UML switched it (block_signals), not where it waits"
	# (the sysctl is there only with CONFIG_USERFAULTFD: the debug kernel
	# has none)
	[ -e /proc/sys/vm/unprivileged_userfaultfd ] ||
		skip "this kernel has no userfaultfd (CONFIG_USERFAULTFD)"
	# (each owner lets go after a while, so that a module that never
	# ends the wait still unloads after the failure)
	owner=$(mktemp)
	load_module
	$KTGEN sink add tcp port 7030 rx discard >/dev/null
	# tcp_stream to 127.0.0.1:7030 (0x1b76), 10 min, tx user from 1 MiB
	"$KTGEN_NLRAW" run-new 2:u32:0 3:hex:7f000001 4:hex:1b76 10:u32:600000 \
		13:u32:4 14:u64:1048576 32:umem:1048576 \
		-- sleep 300 -- uffd-stall -- sleep "$(( $(scaled 40) * 1000 ))" >"$owner" 2>&1 &
	pid=$!
	slowwait "$(scaled 20)" uffd_waiting '^ktgen/run' >/dev/null ||
		fail "the run's worker is not waiting on the userfaultfd: '$(uffd_waiting '^ktgen/run')'" \
			"(threads: $(pgrep -l '^ktgen/'); owner: $(cat "$owner"))"
	id=$($KTGEN -j run show | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
	log "run $id's worker waits in $(uffd_waiting '^ktgen/run')"
	t0=$(date +%s%N)
	$KTGEN run stop "$id"
	slowwait "$(scaled 10)" run_ended "$id" ||
		fail "run $id still going $(scaled 10) s after its stop: $($KTGEN run show "$id")"
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	st=$($KTGEN -j run show "$id" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["state"], d.get("errno", 0))')
	log "run $id: $st, $ms ms after its stop"
	[[ $st == "failed 14" || $st == "failed 4" ]] ||
		fail "run $id ended '$st', want failed with EFAULT or EINTR"
	kill -0 $pid || fail "the run's owner died: nothing tested"
	$KTGEN run del "$id"
	slowwait "$(scaled 10)" bash -c "! pgrep '^ktgen/run' >/dev/null" || fail "run workers left"
	kill $pid
	wait $pid 2>/dev/null || :

	# rx user: a tcp sink on 7031 (0x1b77), its 1 MiB let go while a
	# run sends into it
	"$KTGEN_NLRAW" sink-new 4:hex:1b77 5:u32:6 11:umem:1048576 12:u64:1048576 \
		-- sleep 300 -- uffd-stall -- sleep "$(( $(scaled 40) * 1000 ))" >"$owner" 2>&1 &
	pid=$!
	slowwait "$(scaled 10)" bash -c "$KTGEN sink show | grep -q ':7031 '" || fail "the rx user sink"
	$KTGEN run tcp_stream to 127.0.0.1 port 7031 time "$(scaled 60)" >/dev/null 2>&1 &
	rpid=$!
	slowwait "$(scaled 20)" uffd_waiting '^ktgen/sink2:' >/dev/null ||
		fail "the sink's worker is not waiting on the userfaultfd: '$(uffd_waiting '^ktgen/sink2:')'" \
			"(threads: $(pgrep -l '^ktgen/'); owner: $(cat "$owner"))"
	log "sink 2's worker waits in $(uffd_waiting '^ktgen/sink2:')"
	t0=$(date +%s%N)
	out=$(timeout "$(scaled 10)" $KTGEN sink del 2 2>&1) ||
		fail "sink del of the stuck sink: exit $?: $out"
	log "sink 2 deleted in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	kill -0 $pid || fail "the sink's owner died: nothing tested"
	$KTGEN run stop all
	wait $rpid 2>/dev/null || :
	kill $pid
	wait $pid 2>/dev/null || :
	$KTGEN sink del all
	$KTGEN run del all
	slowwait "$(scaled 10)" bash -c "! pgrep '^ktgen/' >/dev/null" ||
		fail "ktgen threads left: $(pgrep -l '^ktgen/')"
	out=$(ss -Htan | grep -E ':703[01]\b' | grep -v '^TIME-WAIT' || :)
	[ -z "$out" ] || fail "sockets left: $out"
	[ "$(buffer_used)" = 0 ] || fail "$(buffer_used) bytes left charged"
}
case_add life_user_stall t_life_user_stall 180

# The most flows a run may have, 1024, all connected and counted, each a
# connection of the sink, the budget back where it was after; 1025 is
# refused naming the attribute. (somaxconn: the sink's listen backlog
# holds them all while they connect at once.)
t_life_flows_max()
{
	need_cpus 2
	load_module
	veth_pair
	ip netns exec "$NS_B" sysctl -qw net.core.somaxconn=1024
	ip netns exec "$NS_B" $KTGEN sink add tcp port 7030 rx discard cpus 0-1 >/dev/null
	expect_fail 1 "\(attribute flows\)" \
		ip netns exec "$NS_A" $KTGEN run tcp_stream to 10.77.0.2 port 7030 flows 1025 bytes 1M
	ip netns exec "$NS_A" $KTGEN -j run tcp_stream to 10.77.0.2 port 7030 flows 1024 \
		cpus 0-1 size 4096 bytes 8M |
		json_check "d['state'] == 'done' and d['flows'] == 1024 and
			d['tx']['bytes'] == 8 << 20 and d['rx']['bytes'] == 8 << 20 and
			d['rx']['conns'] == 1024 and d['tx']['acked'] == 8 << 20"
	ip netns exec "$NS_A" $KTGEN run del all
	ip netns exec "$NS_B" $KTGEN sink del all
	! pgrep '^ktgen/' >/dev/null || fail "threads left: $(pgrep -l '^ktgen/')"
	[ "$(buffer_used)" = 0 ] || fail "$(buffer_used) bytes left charged"
}
case_add life_flows_max t_life_flows_max 600

# A run whose only worker is done before ktg_run_start() has counted it
# (the test hook holds the starter after each worker's wake-up, as a slow
# or preempted one is held): its done work must still stop that worker.
# Seen under the debug kernel in life_many (a "ktgen/run6:0" left parked
# after its run was done and deleted: a kthread in module code, and its
# task_struct, outliving the run, and the module).
t_life_worker_race()
{
	local i

	load_module
	test_hook start_delay_ms 300
	$KTGEN sink add udp port 7010 rx discard >/dev/null
	for i in 1 2 3; do
		$KTGEN run udp_stream to 127.0.0.1 port 7010 size 64 msgs 2 >/dev/null ||
			fail "run $i: exit $?"
	done
	$KTGEN run del all
	$KTGEN sink del all
	slowwait "$(scaled 5)" bash -c "! pgrep '^ktgen/' >/dev/null" ||
		fail "workers left after their runs were done and deleted: $(pgrep -l '^ktgen/' | tr '\n' ' ')"
	[ "$(buffer_used)" = 0 ] || fail "$(buffer_used) bytes left charged"
}
case_add life_worker_race t_life_worker_race 120 core

# RUN_NEW keeps a reference of its own on the run it listed until its
# workers are started: a run that is done, and deleted, while its starter
# is still at work (the test hook holds RUN_NEW after the last worker's
# wake-up) stays allocated, its flows' and workers' bytes charged, until
# the starter lets go. Before, the delete freed it under the starter,
# which then read it: the stock kernel oopsed in ktg_run_start() (NULL
# pointer in _find_next_bit). Not on the debug lane: its turns are full,
# and the stock kernel shows the fault.
t_life_new_ref()
{
	local delay pid base used

	delay=$(( $(scaled 10) < 30 ? $(scaled 10) : 30 ))
	load_module
	test_hook start_delay_ms $((delay * 1000))
	$KTGEN sink add udp port 7011 rx discard >/dev/null
	base=$(buffer_used)
	# RUN_NEW runs in the CLI's send: it returns when the starter does
	$KTGEN run udp_stream to 127.0.0.1 port 7011 size 64 msgs 2 >/dev/null &
	pid=$!
	slowwait "$delay" bash -c "$KTGEN -j run show | grep -Eq '\"state\": *\"done\"'" ||
		fail "the run was not done in $delay s: $($KTGEN -j run show)"
	$KTGEN run del all
	used=$(buffer_used)
	kill -0 $pid 2>/dev/null ||
		skip "RUN_NEW returned before the run was deleted (held $delay s)"
	log "charged: $base bytes before the run, $used once it was deleted"
	[ "$used" -gt "$base" ] ||
		fail "the run was freed while RUN_NEW's starter held it: its bytes uncharged"
	# it finds its run deleted: what it says of it does not matter here
	wait $pid || :
	[ "$(buffer_used)" = "$base" ] ||
		fail "$(( $(buffer_used) - base )) bytes left charged once RUN_NEW returned"
	test_hook start_delay_ms 0
	$KTGEN sink del all
}
case_add life_new_ref t_life_new_ref 120 nodebug

# A run's replies are prepared outside run->lock, which
# ktg_runs_dev_gone() takes under RTNL: the device a run is bound to goes
# (`ip link del`) as fast while unprivileged readers dump the run and its
# flows, each reply held after its histograms are merged (a test hook
# standing in for a slow merge of 1024 flows). Before, RUN_GET merged
# every flow's histogram under run->lock, FLOW_GET held it for a whole
# dump, and RTNL (every ip command of the host) waited for them. Not on
# the debug lane: its bound is wall-clock time, which that kernel's speed
# blurs, and its debug turns are full (the paths run there in life_dev_gone
# and per_flow).
t_life_dev_gone_readers()
{
	local hold id reqs i t0 ms pids=()

	hold=$(( $(scaled 16) < 60 ? $(scaled 16) : 60 ))
	load_module
	veth_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 7012 rx discard rr >/dev/null
	id=$(ip netns exec "$NS_A" $KTGEN -j run tcp_rr to 10.77.0.2 port 7012 dev ktg0 \
		flows 256 time "$(scaled 300)" detach |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
	slowwait "$(scaled 60)" bash -c "ip netns exec $NS_A $KTGEN -j run show $id |
		grep -Eq '\"transactions\": *[1-9]'" || fail "no transaction in $(scaled 60) s"
	test_hook fill_delay_ms $((hold * 1000))
	reqs="run-get"
	for i in 1 2 3 4 5 6 7; do
		reqs+=" -- flow-get 1:u32:$id -- run-get"
	done
	for i in 1 2 3 4; do
		# shellcheck disable=SC2086 # the requests are words
		ip netns exec "$NS_A" setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$KTGEN_NLRAW" $reqs >/dev/null 2>&1 &
		pids+=($!)
	done
	# the readers are in their first replies, held
	sleep 1
	t0=$(date +%s%N)
	ip -n "$NS_A" link del ktg0
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	test_hook fill_delay_ms 0
	log "ip link del took $ms ms beside 4 readers held $hold s each"
	kill "${pids[@]}" 2>/dev/null || :
	wait "${pids[@]}" 2>/dev/null || :
	[ "$ms" -lt $((hold * 1000 / 2)) ] ||
		fail "ip link del took $ms ms: RTNL waited for the run's readers ($hold s each)"
	slowwait "$(scaled 30)" bash -c "ip netns exec $NS_A $KTGEN -j run show $id |
		grep -Eq '\"state\": *\"failed\"'" ||
		fail "the run did not fail with its device: $(ip netns exec "$NS_A" $KTGEN -j run show "$id")"
	ip netns exec "$NS_A" $KTGEN -j run show "$id" | json_check "d['errno'] == 19"
	ip netns exec "$NS_A" $KTGEN run del all
	ip netns exec "$NS_B" $KTGEN sink del all
	[ "$(buffer_used)" = 0 ] || fail "$(buffer_used) bytes left charged"
	ip netns del "$NS_A"
	ip netns del "$NS_B"
}
case_add life_dev_gone_readers t_life_dev_gone_readers 300 nodebug

# Holds $1 connections to 127.0.0.1:$2, each having sent a few bytes (so
# the sink places it on a worker), says "ready" and sleeps; at the end says
# how many were reset.
HOLD_SENT='
import socket, sys, time
n, port = int(sys.argv[1]), int(sys.argv[2])
held = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
for s in held:
    s.sendall(b"x" * 64)
print("ready", flush=True)
sys.stdin.read()
reset = 0
for s in held:
    s.settimeout(1)
    try:
        if s.recv(1) == b"":
            reset += 1
    except socket.timeout:
        pass
    except OSError:
        reset += 1
print("reset", reset, flush=True)
'

# A TCP sink's worker stopped before it ever ran: kthread_stop() of a
# thread that has not yet run skips its function, so the connections worker
# 0 had handed it were never closed (their sockets left established, for
# ever). A real-time spinner holds the worker's CPU while the sink is added,
# its connections placed (worker 0 hands them to the other CPU's worker)
# and the delete begins; then the spinner goes and the worker's first run
# is its stop. Every connection must be reset, and none left in the
# namespace. Not on the debug kernel: there the window takes a minute,
# and a CPU held that long is an RCU stall and a workqueue lockup report
# (seen), not this bug.
t_life_worker_never_ran()
{
	local ns pid spin wd w1 ran0 ran out=/tmp/ktg-nr.$$ n=8 rt left

	need_cpus 2
	load_module
	ns=$(netns_add nr)
	rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
	mkfifo "$out.in"
	# (it opens its stdin, the fifo, when the sink is there: exec 9>)
	ip netns exec "$ns" /usr/bin/python3 -c "$HOLD_SENT" $n 7050 >"$out" <"$out.in" 2>&1 &
	# the spinner: SCHED_FIFO on CPU 1, throttling off while it spins
	echo -1 >/proc/sys/kernel/sched_rt_runtime_us
	# (its pid is the spinning bash's: taskset and chrt exec; nothing
	# else runs on CPU 1 while it spins, a timeout there neither, so it
	# is killed from here, or by the watchdog on CPU 0)
	taskset -c 1 chrt -f 50 bash -c 'while :; do :; done' &
	spin=$!
	(sleep "$(scaled 60)"; kill -9 $spin 2>/dev/null) &
	wd=$!
	sleep 0.5
	ip netns exec "$ns" $KTGEN sink add tcp port 7050 rx discard cpus 0,1 >/dev/null
	# its run time so far: its creation's, on CPU 0, before it was bound
	w1=$(pgrep '^ktgen/sink[0-9]+:1$' || :)
	[ -n "$w1" ] && read -r ran0 _ <"/proc/$w1/schedstat" || {
		kill -9 $spin; echo "$rt" >/proc/sys/kernel/sched_rt_runtime_us; fail "no worker on CPU 1"; }
	exec 9>"$out.in"
	slowwait "$(scaled 10)" grep -q ready "$out" || {
		kill -9 $spin; echo "$rt" >/proc/sys/kernel/sched_rt_runtime_us; fail "the peer did not connect: $(cat "$out")"; }
	# the worker on CPU 1 has not run since: the window is held
	read -r ran _ <"/proc/$w1/schedstat"
	[ "$ran" = "$ran0" ] || {
		kill -9 $spin; echo "$rt" >/proc/sys/kernel/sched_rt_runtime_us
		fail "the worker on CPU 1 ran before the delete: $ran0 then $ran ns"; }
	ip netns exec "$ns" $KTGEN sink del all &
	pid=$!
	sleep 1
	kill -9 $spin 2>/dev/null || :
	wait $spin 2>/dev/null || :
	kill $wd 2>/dev/null || :
	echo "$rt" >/proc/sys/kernel/sched_rt_runtime_us
	wait $pid || fail "sink del: exit $?"
	exec 9>&-
	slowwait "$(scaled 20)" grep -q "^reset" "$out" || fail "the peer did not finish: $(cat "$out")"
	grep -qx "reset $n" "$out" || fail "of $n connections, $(sed -n 's/^reset //p' "$out") reset"
	left=$(ip netns exec "$ns" ss -Htn state established '( sport = :7050 )' | grep -c . || :)
	[ "$left" = 0 ] || fail "$left of the sink's connections left established after its delete"
	rm -f "$out" "$out.in"
	log "a worker whose first run was its stop: all $n connections reset, none left"
}
case_add life_worker_never_ran t_life_worker_never_ran 120 nodebug
