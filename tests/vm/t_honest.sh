#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Failures are failures, counters exact at real rates: a connect that fails
# at once fails the run (errno, flow and address, exit 1); acked stays
# exact past 4 GiB per flow; run cookies are random, not a sequence; a run
# deleted right after it finished is not freed under its done work.

# connect_fails NS TEST ADDR ERRNO TEXT: a run of TEST to ADDR (port 5000)
# from NS fails with ERRNO, its flow and address named on stderr (JSON);
# its document goes to $docs.
connect_fails()
{
	local ns=$1 test=$2 addr=$3 errno=$4 text=$5 err rc=0 ep=$3:5000

	[[ $addr == *:* ]] && ep=[$addr]:5000
	err=$(ip netns exec "$ns" $KTGEN -j run "$test" to "$addr" port 5000 time 1 \
		2>&1 >>"$docs") || rc=$?
	log "$test to $addr: exit $rc: $err"
	[ $rc = 1 ] || fail "$test to $addr: exit $rc"
	echo "$err" | grep -qF "flow 0: connect to $ep: $text" ||
		fail "$test to $addr: no 'flow 0: connect to $ep: $text' on stderr"
	echo "d['errno'] == $errno and d['remote_addr'] == '$addr'" >>"$want"
}

# No route (a fresh namespace has none), an unreachable route, and a port
# nobody listens on: TCP and UDP, IPv4 and IPv6 where the stack says so at
# connect. These ended 'done' with 0 bytes and exit 0.
t_connect_fails()
{
	local ns docs=/tmp/ktg-cf-docs.$$ want=/tmp/ktg-cf-want.$$ out rc=0

	load_module
	ns=$(netns_add x)
	ip -n "$ns" route add unreachable 10.98.0.0/16
	: >"$docs"
	: >"$want"
	connect_fails "$ns" tcp_stream 10.99.0.1 101 "Network is unreachable"
	connect_fails "$ns" udp_stream 10.99.0.1 101 "Network is unreachable"
	connect_fails "$ns" tcp_stream fd99::1 101 "Network is unreachable"
	connect_fails "$ns" tcp_stream 10.98.0.1 113 "No route to host"
	connect_fails "$ns" udp_stream 10.98.0.1 113 "No route to host"
	# refused: the RST comes after connect() returned, during the run
	connect_fails "$ns" tcp_stream 127.0.0.1 111 "Connection refused"
	# Every document failed on flow 0 with nothing sent, and its errno.
	/usr/bin/python3 -c '
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
want = [l.strip() for l in open(sys.argv[2])]
assert len(docs) == len(want) == 6, (len(docs), len(want))
for d, w in zip(docs, want):
    ok = d["state"] == "failed" and d["error_flow"] == 0 and d["tx"]["bytes"] == 0 and eval(w)
    assert ok, "%s on %s" % (w, {k: d.get(k) for k in ("state", "errno", "error_flow", "remote_addr")})
' "$docs" "$want" || fail "a failed run's document"
	# The text result line says it too.
	out=$(ip netns exec "$ns" $KTGEN run udp_stream to 10.99.0.1 port 5000 time 1 2>&1) || rc=$?
	[ $rc = 1 ] || fail "text: exit $rc"
	echo "$out" | grep -q "failed after .*: flow 0: connect to 10.99.0.1:5000: Network is unreachable" ||
		fail "text: $out"
	# Nothing left running.
	[ "$(ip netns exec "$ns" $KTGEN run show | grep -c ': failed')" = 7 ] ||
		fail "runs left: $(ip netns exec "$ns" $KTGEN run show)"
	rm -f "$docs" "$want"
}
case_add connect_fails t_connect_fails 240

# A run whose peer stops acknowledging before its end (netem drops all
# the sink's side sends, once data flows): its drain waits for acks that
# never come. It fails, ETIMEDOUT on its flow, acked short of what it
# sent; before, it was done (exit 0) with the last bytes never acked.
# The drain gives up after 2 s here (the test hook drain_timeout_ms), not 30: the
# same deadline's path, not its length. ("nodebug": a verdict's wait, not
# a path a sanitizer would see anew.)
t_drain_unacked_fails()
{
	local doc pid rc=0

	load_module
	test_hook drain_timeout_ms 2000
	veth_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 7003 rx discard >/dev/null
	doc=$(mktemp)
	ip netns exec "$NS_A" $KTGEN -j run tcp_stream to 10.77.0.2 port 7003 \
		time "$(span 3)" >"$doc" &
	pid=$!
	slowwait "$(scaled 20)" bash -c "ip netns exec $NS_B $KTGEN -j sink show |
		grep -q '\"bytes\":[1-9]'" || fail "no traffic reached the sink"
	tc -n "$NS_B" qdisc add dev ktg1 root netem loss 100%
	wait $pid || rc=$?
	tc -n "$NS_B" qdisc del dev ktg1 root
	[ $rc = 1 ] || fail "the run exited $rc: $(head -c 400 "$doc")"
	json_check "d['state'] == 'failed' and d['errno'] == 110 and d['error_flow'] == 0 and
		0 < d['tx']['acked'] < d['tx']['bytes']" <"$doc"
	rm -f "$doc"
}
case_add drain_unacked_fails t_drain_unacked_fails 120 nodebug

# A TCP flow whose run ends (its time, a stop) after its connect and
# before its hello went out: it wrote nothing, so nothing is owed. Its
# drain waited for the acks of a whole hello (30 s) and then failed the
# run, ETIMEDOUT. Here the sink's side is 1 s away (netem), the run's time
# 0.1 s: the flow connects after its time is up. The run is done at once,
# with nothing sent, and its flow not failed.
t_drain_no_hello()
{
	local doc t0 took rc=0

	load_module
	veth_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 7004 rx discard >/dev/null
	tc -n "$NS_B" qdisc add dev ktg1 root netem delay 1s
	doc=$(mktemp)
	t0=$(date +%s)
	ip netns exec "$NS_A" $KTGEN -j run tcp_stream to 10.77.0.2 port 7004 time 0.1 \
		>"$doc" || rc=$?
	took=$(( $(date +%s) - t0 ))
	tc -n "$NS_B" qdisc del dev ktg1 root
	[ $rc = 0 ] || fail "the run exited $rc: $(head -c 400 "$doc")"
	[ "$took" -lt "$(scaled 20)" ] || fail "the run took $took s"
	json_check "d['state'] == 'done' and d['tx']['bytes'] == 0 and d['tx']['acked'] == 0" <"$doc"
	rm -f "$doc"
}
case_add drain_no_hello t_drain_no_hello 120

# One TCP flow of 4.25 GiB: acked was the low 32 bits of snd_una - seq0
# (268435457 here), now TCP's 64-bit bytes_acked. Zerocopy into a
# discarding sink is the fastest path (~10 s under TCG; 206 s for 5 GiB on
# the debug kernel, for a counter's width, not a path a sanitizer would
# see anew: "nodebug").
t_acked_past_4g()
{
	load_module
	$KTGEN sink add tcp port 6410 rx discard >/dev/null
	$KTGEN -j run tcp_stream to 127.0.0.1 port 6410 bytes 4352M tx zerocopy | json_check "
		d['state'] == 'done' and d['tx']['bytes'] == 4352 << 20 and
		d['tx']['acked'] == 4352 << 20 and d['rx']['bytes'] == 4352 << 20 and
		d['per_flow'][0]['acked'] == 4352 << 20"
}
case_add acked_past_4g t_acked_past_4g 240 nodebug

# A run's cookie names it to the sinks of its host: one run's cookie seen
# on the wire must not tell another's. A plain UDP socket reads them from
# the datagrams' headers (bytes 8-15) of three runs in a row; they were a
# sequence (+1 each).
t_cookies_random()
{
	local pid i

	load_module
	/usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 6420))
s.settimeout(float(sys.argv[1]))
seen = []
while len(seen) < 3:
    b = s.recv(65536)
    c = int.from_bytes(b[8:16], "big")
    if len(b) >= 40 and c not in seen:
        seen.append(c)
print("# cookies: %s" % seen)
ok = 0 not in seen and all(abs(a - b) > 1 << 32 for a in seen for b in seen if a != b)
sys.exit(0 if ok else "cookies %s: a sequence, or near one another" % seen)' "$(scaled 100)" &
	pid=$!
	slowwait "$(scaled 60)" bash -c "ss -lun | grep -q '127.0.0.1:6420'" || fail "no receiver"
	for i in 1 2 3; do
		$KTGEN run udp_stream to 127.0.0.1 port 6420 msgs 1 size 64 | grep -q ": done in" ||
			fail "run $i did not end done"
	done
	wait $pid || fail "the cookies of three runs"
}
case_add cookies_random t_cookies_random 180

# A sender's closing datagram may overtake its data (another tx queue, a
# qdisc's other flow; on e1000e a 9000-byte IPv6 stream's close came
# before 275 of its datagrams): what comes after the close was counted
# lost and is found again, exactly. A sender that lies (a close below what
# it sent) never drives the loss below zero. Plain sockets send, to sink
# 6425, flow 1 data 0-4, close 10, data 5-9 and 3 again (a duplicate);
# flow 2 data 100, close 3, then data 0 1 2 0 (late, the last a repeat too
# far back to be known). To sink 6426, which tracks one sender: flow 1
# data 0-4 and close 10, flow 2 data 0 (no room: flow 1 still has five on
# their way), flow 1 data 5-9, flow 2 data 1 (room now: flow 1 is whole).
close_first_settled()
{
	$KTGEN -j sink show | json_check "d[0]['rx']['msgs'] == 16 and
		d[1]['rx']['msgs'] + d[1]['rx']['refused'] == 12" >/dev/null 2>&1
}

t_udp_close_first()
{
	local want="msgs 16 dup 1 late 4 lost 0 refused 0 conns 2
msgs 11 dup 0 late 0 lost 0 refused 1 conns 2" got

	load_module
	$KTGEN sink add udp port 6425 rx discard >/dev/null
	$KTGEN sink add udp port 6426 rx discard max-conns 1 >/dev/null
	/usr/bin/python3 -c '
import os, socket, struct
DATA, CLOSE = 0x4b544744, 0x4b544743
cookie = int.from_bytes(os.urandom(8), "big") | 1
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
def send(port, magic, flow, seq):
    s.sendto(struct.pack("!IIQQIIQ", magic, flow, cookie, seq, 1, 0, 0) + bytes(64),
             ("127.0.0.1", port))
for q in range(5): send(6425, DATA, 1, q)
send(6425, CLOSE, 1, 10)
for q in (5, 6, 7, 8, 9, 3): send(6425, DATA, 1, q)
send(6425, DATA, 2, 100)
send(6425, CLOSE, 2, 3)
for q in (0, 1, 2, 0): send(6425, DATA, 2, q)
for q in range(5): send(6426, DATA, 1, q)
send(6426, CLOSE, 1, 10)
send(6426, DATA, 2, 0)
for q in range(5, 10): send(6426, DATA, 1, q)
send(6426, DATA, 2, 1)' || fail "the sender"
	# every datagram to 6426 counted or refused
	slowwait "$(scaled 10)" close_first_settled ||
		fail "the sinks did not count every datagram: $($KTGEN sink show)"
	got=$($KTGEN -j sink show | /usr/bin/python3 -c 'import json, sys
for d in json.load(sys.stdin):
    r = d["rx"]
    print(" ".join("%s %d" % (k, r[k]) for k in ("msgs", "dup", "late", "lost", "refused", "conns")))')
	log "data after the close: $(echo "$got" | tr '\n' ';')"
	[ "$got" = "$want" ] || fail "data after the close: $got, expected $want"
}
case_add udp_close_first t_udp_close_first 60

# Is a ktgen done work running (the test hook holds it)?
done_work_running()
{
	grep -qs ktg_run_done_work /proc/[0-9]*/stack
}

# RUN_DEL right after RUN_DONE: the run was published as finished, and
# could be freed, before its done work completed run->done. The test hook
# holds the done work between the two; the delete must wait for it. Before,
# the stock kernel spun for good in complete_all() on the freed run (the
# debug kernel: KASAN's use after free).
t_del_during_done()
{
	local delay=5000 t0 t1 id

	[ "$KTGEN_TIME_SCALE" -gt 1 ] && delay=10000
	load_module
	test_hook done_delay_ms $delay
	$KTGEN sink add tcp port 6430 rx discard >/dev/null
	# attached: it returns on the run-done notification, sent before the delay
	id=$($KTGEN run tcp_stream to 127.0.0.1 port 6430 bytes 1M | sed -n 's/^run \([0-9]*\) .*/\1/p')
	done_work_running || fail "the done work's $delay ms were over before the delete"
	t0=$(date +%s%N)
	$KTGEN run del "$id"
	t1=$(date +%s%N)
	log "run del $id returned after $(( (t1 - t0) / 1000000 )) ms (done work held $delay ms)"
	! done_work_running || fail "run del returned while the done work still held the run"
	$KTGEN -j run show | json_check "d == []"
	# Nothing broke: another run, and the unload.
	test_hook done_delay_ms 0
	$KTGEN run tcp_stream to 127.0.0.1 port 6430 bytes 1M | grep -q ": done in" || fail "next run"
	$KTGEN run del all
	$KTGEN sink del all
	unload_module
}
case_add del_during_done t_del_during_done 180 core
