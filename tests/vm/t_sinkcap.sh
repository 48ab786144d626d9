#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# State a remote peer can make a sink hold, and datagrams it can make a
# sink count: connections beyond max-conns and ones that never send their
# hello are refused, UDP senders beyond max-conns take the place of idle
# ones (a long-lived sink keeps counting), and datagrams with a wrong
# checksum are dropped and counted as the stack counts them. The peers
# are python3 in the other namespace of a veth pair (veth_pair, t_engine).

# The peer: "tcp PORT N HELLOS PARTIAL" opens N connections, sends the
# first HELLOS a ktgen hello and the next PARTIAL 10 bytes of one, says
# "ready" and holds them, and for each that the sink ends prints "reset I
# SECS" (or "eof I SECS" for a FIN): connection I, SECS after its connect
# began. "udp PORT N..." sends N ktgen DATA datagrams of
# distinct senders (cookies) to each PORT. "raw IF DMAC N SRC,DST,PORT..." builds
# Ethernet/IP/UDP frames by hand on IF and sends them through an AF_PACKET
# socket: to each DST and PORT, N with a wrong UDP checksum, then one with
# the right one, each a DATA header and 1000 payload bytes of the pattern
# (verify finds nothing wrong in them).
SINKCAP_PEER='
import select, socket, struct, sys, time

MAGIC_HELLO, MAGIC_DATA = 0x4b54474e, 0x4b544744
PLEN = 1000

def hello(cookie):
    return struct.pack("!IHHQIIIIQ", MAGIC_HELLO, 2, 0, cookie, 0, 1, 0, 0, 0)

def dgram(cookie, seq, plen=0):
    pat = bytes((p + (p >> 8) * 3 + 1) & 0xff
                for p in ((seq * plen + i) & 4095 for i in range(plen)))
    return struct.pack("!IIQQIIQ", MAGIC_DATA, 0, cookie, seq, 1, 0, 0) + pat

def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff

def frame(ifname, dmac, src, dst, port, seq, bad):
    v6 = ":" in dst
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    s, d = socket.inet_pton(fam, src), socket.inet_pton(fam, dst)
    data = dgram(0x5ca1ab1e, seq, PLEN)
    ulen = 8 + len(data)
    if v6:
        pseudo = s + d + struct.pack("!IxxxB", ulen, 17)
    else:
        pseudo = s + d + struct.pack("!xBH", 17, ulen)
    c = csum(pseudo + struct.pack("!HHHH", 40000, port, ulen, 0) + data) or 0xffff
    if bad:
        c ^= 0x5a5a
    udp = struct.pack("!HHHH", 40000, port, ulen, c) + data
    if v6:
        ip = struct.pack("!IHBB", 6 << 28, ulen, 17, 64) + s + d
        etype = 0x86dd
    else:
        ip = struct.pack("!BBHHHBBH", 0x45, 0, 20 + ulen, seq & 0xffff, 0x4000, 64, 17, 0) + s + d
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        etype = 0x0800
    smac = open("/sys/class/net/%s/address" % ifname).read().strip()
    eth = bytes.fromhex(dmac.replace(":", "")) + bytes.fromhex(smac.replace(":", ""))
    return eth + struct.pack("!H", etype) + ip + udp

what = sys.argv[1]
if what == "tcp":
    port, n, hellos, partial = (int(a) for a in sys.argv[2:6])
    held, keep = {}, []
    for i in range(n):
        t = time.monotonic()
        try:
            c = socket.create_connection(("10.77.0.2", port))
            keep.append(c)
            if i < hellos:
                c.sendall(hello(0x7e570000 + i))
            elif i < hellos + partial:
                c.sendall(hello(0x7e570000 + i)[:10])
        except ConnectionResetError:
            print("reset %d %.3f" % (i, time.monotonic() - t), flush=True)
            continue
        held[c] = (i, t)
    print("ready", flush=True)
    end = time.monotonic() + 120
    while time.monotonic() < end:
        if not held:
            time.sleep(1)
            continue
        for c in select.select(list(held), [], [], 1)[0]:
            i, t = held.pop(c)
            try:
                how = "data" if c.recv(1) else "eof"
            except ConnectionResetError:
                how = "reset"
            print("%s %d %.3f" % (how, i, time.monotonic() - t), flush=True)
elif what == "udp":
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for port, n in zip(sys.argv[2::2], sys.argv[3::2]):
        for i in range(int(n)):
            u.sendto(dgram((int(port) << 32) + i, 0), ("10.77.0.2", int(port)))
elif what == "raw":
    ifname, dmac, n = sys.argv[2], sys.argv[3], int(sys.argv[4])
    r = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    r.bind((ifname, 0))
    for spec in sys.argv[5:]:
        src, dst, port = spec.split(",")
        for seq in range(n):
            r.send(frame(ifname, dmac, src, dst, int(port), seq, 1))
        r.send(frame(ifname, dmac, src, dst, int(port), 0, 0))
'

sinkcap_peer()
{
	ip netns exec "$NS_A" /usr/bin/python3 -c "$SINKCAP_PEER" "$@"
}

# sinkcap_hold OUT ARGS...: the peer holding connections in the
# background, its stdout to OUT, its pid in PEER_PID; back once it is
# ready.
sinkcap_hold()
{
	local out=$1

	shift
	ip netns exec "$NS_A" /usr/bin/python3 -c "$SINKCAP_PEER" "$@" >"$out" &
	PEER_PID=$!
	slowwait "$(scaled 30)" grep -q ready "$out" || fail "the peer did not connect"
}

# sinkcap_sink ARGS...: a sink in NS_B, its id on stdout.
sinkcap_sink()
{
	local id

	id=$(ip netns exec "$NS_B" $KTGEN sink add "$@" | sed -n '1s/^sink \([0-9]*\).*/\1/p')
	[ -n "$id" ] || fail "sink add $*: no sink"
	echo "$id"
}

# peer_resets OUT N: the peer (output in OUT) has seen N connections reset.
peer_resets()
{
	[ "$(grep -c '^reset ' "$1")" = "$2" ]
}

# Established TCP sockets of port PORT in NS_B: the sink's side.
sink_estab()
{
	ip netns exec "$NS_B" ss -Htn state established "( sport = :$1 )" | wc -l
}

# A TCP sink holds max-conns connections; the ones beyond are reset at
# once and refused, and nothing of them stays.
t_sinkcap_tcp_max()
{
	local id out=/tmp/ktg-sinkcap.$$

	load_module
	veth_pair
	id=$(sinkcap_sink tcp port 6400 max-conns 4)
	trap 'kill $PEER_PID 2>/dev/null || true; rm -f $out' EXIT
	sinkcap_hold "$out" tcp 6400 8 8 0
	slowwait "$(scaled 10)" peer_resets "$out" 4 ||
		fail "8 connections to max-conns 4: the peer saw $(grep -c '^reset ' "$out") reset," \
		     "$(sink_estab 6400) established: $(ip netns exec "$NS_B" $KTGEN sink show "$id")"
	[ "$(sink_estab 6400)" = 4 ] ||
		fail "$(sink_estab 6400) connections established on the sink's side, not 4"
	! grep -v '^reset ' "$out" | grep -v '^ready$' || fail "more than resets"
	ip netns exec "$NS_B" $KTGEN -j sink show "$id" |
		json_check "d['max_conns'] == 4 and d['rx']['conns'] == 4 and d['rx']['refused'] == 4"
	log "8 connections: 4 held, 4 reset: $(grep '^reset ' "$out" | cut -d' ' -f2 | tr '\n' ' ')"
}
case_add sinkcap_tcp_max t_sinkcap_tcp_max 60

# A connection that sends nothing, or part of its hello, is reset once
# idle-ms have passed since it was accepted; one that sent its hello and
# nothing after it, idle-ms after that (sinkcap_tcp_idle_hello).
t_sinkcap_tcp_idle()
{
	local id idle secs out=/tmp/ktg-sinkcap.$$

	load_module
	veth_pair
	idle=$(span 500)
	id=$(sinkcap_sink tcp port 6401 idle-ms "$idle")
	ip netns exec "$NS_B" $KTGEN sink show "$id" | grep -q " idle-ms $idle$" ||
		fail "sink show: $(ip netns exec "$NS_B" $KTGEN sink show "$id")"
	# one connection with a hello, one with 10 bytes of one, one silent
	trap 'kill $PEER_PID 2>/dev/null || true; rm -f $out' EXIT
	sinkcap_hold "$out" tcp 6401 3 1 1
	slowwait "$(scaled 10)" peer_resets "$out" 3 ||
		fail "idle-ms $idle: the peer saw $(grep -c '^reset ' "$out") reset," \
		     "$(sink_estab 6401) established: $(ip netns exec "$NS_B" $KTGEN sink show "$id")"
	# connections 0 (a hello), 1 (10 bytes) and 2 (nothing), after idle-ms and within
	# a bound: a worker's 100 ms wake-up, a loaded machine's delays
	for i in 0 1 2; do
		secs=$(sed -n "s/^reset $i //p" "$out")
		log "connection $i reset after ${secs}s"
		[ -n "$secs" ] && [ "$(echo "$secs >= $idle / 1000 - 0.01" | bc -l)" = 1 ] &&
			[ "$(echo "$secs < $idle / 1000 + $(scaled 3)" | bc -l)" = 1 ] ||
			fail "connection $i: $(cat "$out")"
	done
	[ "$(sink_estab 6401)" = 0 ] || fail "$(sink_estab 6401) established after the resets"
	ip netns exec "$NS_B" $KTGEN -j sink show "$id" |
		json_check "d['idle_ms'] == $idle and d['rx']['conns'] == 3 and d['rx']['refused'] == 3 and
			d['rx']['bad_headers'] == 0"
}
case_add sinkcap_tcp_idle t_sinkcap_tcp_idle 60

# A connection that sent its hello and then nothing is reset once idle-ms
# have passed since it last sent, and counted refused, while a ktgen
# stream into the same sink goes on; and the sink reads only connections
# that have something (a wake-up of their own): the reads that found
# nothing stay within a few per connection, not a pass's worth of idle
# ones for every segment of the stream. Before, a connection could idle
# for ever after its hello, and every worker pass read every connection.
t_sinkcap_tcp_idle_hello()
{
	local id idle secs doc n=40 out=/tmp/ktg-sinkcap.$$

	load_module
	veth_pair
	idle=$(span 1000)
	id=$(sinkcap_sink tcp port 6402 rx discard idle-ms "$idle")
	trap 'kill $PEER_PID 2>/dev/null || true; rm -f $out' EXIT
	sinkcap_hold "$out" tcp 6402 $n $n 0
	doc=$(ip netns exec "$NS_A" $KTGEN -j run tcp_stream to 10.77.0.2 port 6402 \
		time "$(echo "$idle / 1000 + $(span 1)" | bc)") || fail "the stream failed: $doc"
	echo "$doc" | json_check "d['state'] == 'done' and d['rx'].get('refused', 0) == 0 and
		d['rx']['bytes'] > 0" || fail "the stream was cut"
	slowwait "$(scaled 10)" peer_resets "$out" $n ||
		fail "idle-ms $idle: $(grep -c '^reset ' "$out") of $n silent connections reset," \
		     "$(sink_estab 6402) established: $(ip netns exec "$NS_B" $KTGEN sink show "$id")"
	secs=$(grep '^reset ' "$out" | cut -d' ' -f3 | sort -n | sed -n '1p;$p' | xargs)
	log "$n connections silent after their hello reset after ${secs// /..} s"
	for s in $secs; do
		[ "$(echo "$s >= $idle / 1000 - 0.01 && $s < $idle / 1000 + $(scaled 3)" | bc -l)" = 1 ] ||
			fail "a reset after $s s, idle-ms $idle: $(cat "$out")"
	done
	doc=$(ip netns exec "$NS_B" $KTGEN -j sink show "$id")
	echo "$doc" | json_check "d['rx']['conns'] == $n + 1 and d['rx']['refused'] == $n and
		0 <= d['rx']['reads'] - d['rx']['msgs'] <= 3 * $n + 20" ||
		fail "refusals or reads not as expected: $doc"
}
case_add sinkcap_tcp_idle_hello t_sinkcap_tcp_idle_hello 120 nodebug

# sink_seen ID N: sink ID accounted for N datagrams: counted, refused, or
# taken as bad headers (what a full sink did before max-conns).
sink_seen()
{
	local line

	line=$(ip netns exec "$NS_B" $KTGEN sink show "$1" | sed -n 2p)
	[ $(( $(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) msgs .*/\1/p') +
	      $(echo "$line" | sed -n 's/.*  refused \([0-9][0-9]*\).*/\1/p') +
	      $(echo "$line" | sed -n 's/.*  bad headers \([0-9][0-9]*\).*/\1/p') + 0 )) = "$2" ]
}

# sinkcap_check EXPR < DOC: as json_check, but a failure shows only the
# counters (of sinks and runs: a run's document is long).
sinkcap_check()
{
	/usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
if eval("(" + sys.argv[1] + ")"):
    sys.exit(0)
def brief(v):
    return {k: v[k] for k in ("id", "port", "rx_mode", "state", "tx", "rx") if k in v}
print("check failed: %s\non %s" % (sys.argv[1], json.dumps({k: brief(v) for k, v in d.items()})),
      file=sys.stderr)
sys.exit(1)' "$1"
}

# A run's document (r) with its rx counters (x, from the sink): counted
# whole, sent == received + lost, nothing charged as a bad header.
UDP_RUN_OK="(lambda r, x: r['state'] == 'done' and r['tx']['msgs'] > 0 and
	x.get('msgs', 0) > 0 and x.get('bad_headers', 0) == 0 and x.get('conns', 0) == 1 and
	r['tx']['msgs'] == x.get('msgs', 0) - x.get('dup', 0) + x.get('lost', 0))"

# UDP senders: max-conns of them tracked, the rest refused until one has
# been silent for idle-ms; a sink that saw more senders than it tracks
# (5000 > 4096, the old fixed cap) still counts the next run.
t_sinkcap_udp_flows()
{
	local small big idle run_big run_small

	load_module
	veth_pair
	idle=$(span 500)
	big=$(sinkcap_sink udp port 6403 idle-ms "$idle" rcvbuf 32M rx discard)
	small=$(sinkcap_sink udp port 6402 max-conns 16 idle-ms "$((idle * 2))" rx verify)
	sinkcap_peer udp 6403 5000 6402 64
	slowwait "$(scaled 30)" sink_seen "$big" 5000 && slowwait "$(scaled 10)" sink_seen "$small" 64 ||
		fail "not all senders seen: $(ip netns exec "$NS_B" $KTGEN sink show)"
	log "after 5000 senders: $(ip netns exec "$NS_B" $KTGEN sink show "$big" | sed -n 2p)"
	log "after 64 senders: $(ip netns exec "$NS_B" $KTGEN sink show "$small" | sed -n 2p)"
	# every one of them idle now
	sleep "$(echo "$idle * 2 / 1000 + 0.2" | bc -l)"
	run_big=$(ip netns exec "$NS_A" $KTGEN -j run udp_stream to 10.77.0.2 port 6403 msgs 300 size 256)
	run_small=$(ip netns exec "$NS_A" $KTGEN -j run udp_stream to 10.77.0.2 port 6402 msgs 300 size 256)
	log "after the runs: $(ip netns exec "$NS_B" $KTGEN sink show | grep '^  rx')"
	# every sender either tracked (conns) or refused, the run's flow too
	echo "{\"big\": $(ip netns exec "$NS_B" $KTGEN -j sink show "$big"),
	       \"small\": $(ip netns exec "$NS_B" $KTGEN -j sink show "$small"),
	       \"run_big\": $run_big, \"run_small\": $run_small}" |
		sinkcap_check "$UDP_RUN_OK(d['run_big'], d['run_big'].get('rx', {})) and
			$UDP_RUN_OK(d['run_small'], d['run_small'].get('rx', {})) and
			d['big']['rx']['conns'] - 1 + d['big']['rx']['refused'] == 5000 and
			d['big']['rx']['bad_headers'] == 0 and
			d['small']['rx']['conns'] == 17 and d['small']['rx']['refused'] == 48 and
			d['small']['rx']['msgs'] == 16 + d['run_small']['rx']['msgs'] and
			d['small']['rx']['verify_errors'] == 0 and d['small']['rx']['bad_headers'] == 0" ||
		fail "the sinks stopped counting, or counted wrong"
}
case_add sinkcap_udp_flows t_sinkcap_udp_flows 120 kcsan

# What NS_B's stack counted: "Udp InCsumErrors, Udp InErrors, Udp6
# InCsumErrors".
snmp_udp()
{
	ip netns exec "$NS_B" awk '
		$1 == "Udp:" && !n { for (i = 2; i <= NF; i++) col[$i] = i; n = 1; next }
		$1 == "Udp:" { csum = $col["InCsumErrors"]; err = $col["InErrors"] }
		$1 == "Udp6InCsumErrors" { csum6 = $2 }
		END { print csum, err, csum6 }' /proc/net/snmp /proc/net/snmp6
}

# NS_B's sinks have all counted something.
sinks_counted()
{
	[ "$(ip netns exec "$NS_B" $KTGEN sink show | grep -c ' [1-9][0-9]* msgs ')" = "$1" ]
}

# Datagrams with a wrong UDP checksum (after CHECKSUM_BREAK: the stack
# leaves the check to the reader) are dropped by every rx mode, counted
# as csum errors on the sink and as InCsumErrors and InErrors in the
# namespace; one with the right checksum is counted. recvmsg was always
# right (udp_recvmsg checks); the skb read modes were not.
t_sinkcap_udp_csum()
{
	local dmac port mode csum0 err0 csum60 csum err csum6 n=5 to=()

	load_module
	veth_pair
	dmac=$(ip netns exec "$NS_B" cat /sys/class/net/ktg1/address)
	port=6410
	for mode in verify discard touch recvmsg; do
		sinkcap_sink udp port $port rx $mode >/dev/null
		port=$((port + 1))
	done
	sinkcap_sink udp local fd77::2 port $port rx verify >/dev/null
	read -r csum0 err0 csum60 <<<"$(snmp_udp)"
	for port in 6410 6411 6412 6413; do
		to+=("10.77.0.1,10.77.0.2,$port")
	done
	to+=("fd77::1,fd77::2,6414")
	sinkcap_peer raw ktg0 "$dmac" $n "${to[@]}"
	slowwait "$(scaled 10)" sinks_counted 5 ||
		fail "not every sink counted: $(ip netns exec "$NS_B" $KTGEN sink show)"
	log "$(ip netns exec "$NS_B" $KTGEN sink show)"
	ip netns exec "$NS_B" $KTGEN -j sink show |
		json_check "len(d) == 5 and all(s['rx']['msgs'] == 1 and s['rx']['bytes'] == 1040 and
			s['rx'].get('csum_errors', 0) == (0 if s['rx_mode'] == 'recvmsg' else $n) and
			s['rx']['verify_errors'] == 0 and s['rx']['bad_headers'] == 0 and
			s['rx']['conns'] == 1 for s in d)" ||
		fail "$n bad datagrams and a good one to each: not 1 counted and $n csum errors"
	read -r csum err csum6 <<<"$(snmp_udp)"
	[ $((csum - csum0)) = $((4 * n)) ] && [ $((err - err0)) = $((4 * n)) ] &&
		[ $((csum6 - csum60)) = $n ] ||
		fail "Udp InCsumErrors $csum0 -> $csum, InErrors $err0 -> $err (not +$((4 * n)))," \
		     "Udp6InCsumErrors $csum60 -> $csum6 (not +$n)"
	log "$n bad datagrams to each of 5 sinks dropped and counted; the good ones counted"
}
case_add sinkcap_udp_csum t_sinkcap_udp_csum 120
