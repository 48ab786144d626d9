#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A sink reached by anyone: nothing a remote peer sends makes it send more
# than it was sent, unless the sink was added to answer requests (rr) and
# the request carries its token; what it refuses is counted, and a peer
# that keeps reading never keeps a worker from stopping. The forged
# requests come from plain sockets (python3), as an attacker's would.

# The ktgen wire (kmod/proto.h, version 2), for the forgers below.
REFLECT_PY='
import os, socket, struct, sys, threading, time

MAGIC_REQ, MAGIC_RESP, MAGIC_HELLO = 0x4b544751, 0x4b544752, 0x4b54474e
TEST_TCP_RR = 2
cookie = int.from_bytes(os.urandom(8), "big")

def dgram(flow, seq, length, resp, token):
    h = struct.pack("!IIQQIIQ", MAGIC_REQ, flow, cookie, seq, 1, resp, token)
    return h + bytes(length - len(h))

def hello(flow, req, resp, token):
    return struct.pack("!IHHQIIIIQ", MAGIC_HELLO, 2, TEST_TCP_RR, cookie, flow, 1,
                       req, resp, token)

# udp PORT WAIT_S REQ...: REQ is PORT2:LEN:RESP:TOKEN, sent with seq i; then
# what came back within WAIT_S of the last send: "seq:len" per reply.
def udp(argv):
    wait, reqs = float(argv[0]), argv[1:]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(("127.0.0.1", 0))
    for seq, r in enumerate(reqs):
        port, length, resp, token = (int(x, 0) for x in r.split(":"))
        s.sendto(dgram(7, seq, length, resp, token), ("127.0.0.1", port))
    got, total, end = [], 0, time.monotonic() + wait
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            data = s.recv(65536)
        except socket.timeout:
            break
        total += len(data)
        magic, flow, ck, seq = struct.unpack("!IIQQ", data[:24])
        got.append("%d:%d" % (seq, len(data)) if magic == MAGIC_RESP and ck == cookie
                   else "other:%d" % len(data))
    print("bytes %d replies %s" % (total, " ".join(sorted(got)) or "none"))

# tcp PORT TOKEN SECS: two connections to an rr sink, 1000 requests of one
# byte each: "greedy" asks 0xffffffff bytes back per byte without the token,
# "heavy" 16M per byte with it; both read whatever comes, up to SECS.
# Prints "ready" once both sent, then each one'"'"'s bytes and how it ended.
def tcp(argv):
    port, token, secs = int(argv[0]), int(argv[1], 0), float(argv[2])
    res, conns = {}, []
    for name, resp, tok in (("greedy", 0xffffffff, 0), ("heavy", 16 << 20, token)):
        c = socket.create_connection(("127.0.0.1", port))
        c.sendall(hello(len(conns), 1, resp, tok) + b"x" * 1000)
        conns.append((name, c))
    print("ready", flush=True)
    def reader(name, c):
        buf, total, how = bytearray(1 << 20), 0, "deadline"
        end = time.monotonic() + secs
        c.settimeout(0.2)
        while time.monotonic() < end:
            try:
                n = c.recv_into(buf)
            except socket.timeout:
                continue
            except OSError as e:
                how = "error:%d" % e.errno
                break
            if not n:
                how = "eof"
                break
            total += n
        res[name] = "%s %d %s" % (name, total, how)
    ts = [threading.Thread(target=reader, args=nc) for nc in conns]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    print(res["greedy"])
    print(res["heavy"])

{"udp": udp, "tcp": tcp}[sys.argv[1]](sys.argv[2:])
'

reflect_py() { /usr/bin/python3 -c "$REFLECT_PY" "$@"; }

# A plain UDP stream sink sent forged requests (a REQ header, from a socket
# of any address) for 60000 bytes and for their own size: nothing comes
# back, each is counted as refused, none as a response.
t_reflect_udp_stream()
{
	local out reqs=()

	load_module
	$KTGEN sink add udp port 6400 rx discard >/dev/null
	for _ in $(seq 10); do
		reqs+=(6400:40:60000:0 6400:1400:1400:0)
	done
	out=$(reflect_py udp "$(span 1)" "${reqs[@]}")
	log "20 forged requests to a stream sink: $out"
	[ "$out" = "bytes 0 replies none" ] || fail "a stream sink answered forged requests: $out"
	$KTGEN -j sink show | json_check "d[0]['rx'].get('responses', 0) == 0 and
		d[0]['rx']['refused'] == 20 and d[0]['rx']['msgs'] == 20" ||
		fail "the refused requests are not counted exactly"
}
case_add reflect_udp_stream t_reflect_udp_stream 60

# An rr sink answers a request with at most its own size; more only to its
# token and up to its resp-max; everything else is refused and counted.
t_reflect_udp_rr()
{
	local a b ta tb out want

	load_module
	$KTGEN sink add udp port 6410 rx discard rr resp-max 60000 | grep -Eq '^sink [0-9]+ token 0x[0-9a-f]{16}$' ||
		fail "sink add rr printed no token: $($KTGEN sink show)"
	ta=$($KTGEN -j sink show | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["token"])')
	[ "$($KTGEN sink show | grep -c " rr resp-max 60000 token $ta\$")" = 1 ] ||
		fail "sink show: no rr, resp-max and token: $($KTGEN sink show)"
	tb=$(sink_token $KTGEN sink add udp port 6411 rx discard rr)
	a=6410 b=6411
	# seq: 0 1 answered at their size, 2 refused (no token), 3 answered
	# (token, within resp-max), 4 refused (above resp-max), 5 refused (the
	# other sink's token), 6 refused (a sink without resp-max), 7 answered
	out=$(reflect_py udp "$(span 1)" $a:100:100:0 $a:1400:40:0 $a:40:60000:0 \
		$a:40:60000:"$ta" $a:40:60001:"$ta" $a:40:60000:"$tb" $b:40:60000:"$tb" $b:100:100:0)
	log "rr sinks: $out"
	want="bytes $((100 + 40 + 60000 + 100)) replies 0:100 1:40 3:60000 7:100"
	[ "$out" = "$want" ] || fail "rr sinks answered '$out', expected '$want'"
	$KTGEN -j sink show | json_check "[(s['rx']['responses'], s['rx']['refused']) for s in d] ==
		[(3, 3), (1, 1)] and d[0]['resp_max'] == 60000 and 'resp_max' not in d[1] and
		d[0]['rr'] and d[1]['rr'] and d[0]['token'] != d[1]['token']" ||
		fail "responses and refusals not counted exactly"
	# a stream sink prints no token
	$KTGEN -j sink add udp port 6412 | json_check "'token' not in d" ||
		fail "a sink that answers nothing printed a token"
	expect_fail 2 "resp-max is for sinks that answer requests" $KTGEN sink add udp port 6413 resp-max 100
}
case_add reflect_udp_rr t_reflect_udp_rr 60 kcsan

# TCP: a hello asking for 4 GiB per byte without the token gets nothing
# (its connection refused and reset); one asking 16 MiB per byte with the
# token is answered and keeps reading, and sink del still returns at once.
t_reflect_tcp_hello()
{
	local token out pid t0 t1 ms bound doc

	load_module
	token=$(sink_token $KTGEN sink add tcp port 6420 rx discard rr resp-max 16M)
	out=$(mktemp)
	reflect_py tcp 6420 "$token" "$(scaled 20)" >"$out" &
	pid=$!
	slowwait "$(scaled 10)" grep -q ready "$out" || fail "the client never connected: $(cat "$out")"
	sleep 1
	doc=$($KTGEN -j sink show)
	t0=$(date +%s%N)
	$KTGEN sink del all
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	bound=$(( $(scaled 2) * 1000 ))
	wait $pid || fail "the client failed: $(cat "$out")"
	log "sink del took $ms ms with a reader of responses; client: $(tr '\n' ' ' <"$out")"
	[ "$ms" -lt "$bound" ] || fail "sink del took $ms ms (bound $bound) while a peer kept reading"
	/usr/bin/python3 - "$out" <<-'EOF' || fail "the greedy hello got more than its requests: $(cat "$out")"
		import sys
		res = {l.split()[0]: l.split()[1:] for l in open(sys.argv[1]) if l.strip() != "ready"}
		greedy, heavy = int(res["greedy"][0]), int(res["heavy"][0])
		# one byte a request at most; the heavy one was answered
		sys.exit(0 if greedy <= 1000 and res["greedy"][1] != "deadline" and heavy > 1000 else 1)
	EOF
	echo "$doc" | json_check "d[0]['rx']['refused'] == 1 and d[0]['rx']['conns'] == 2" ||
		fail "the greedy hello is not counted as refused once"
	rm -f "$out"
}
case_add reflect_tcp_hello t_reflect_tcp_hello 90

# ktgen's own runs against sinks that may not answer them: tcp_rr to a
# sink without rr fails (its connection reset at the hello) with the
# refusal counted; udp_rr times out, each request refused; a response
# larger than the request is refused without the token and given with it.
t_reflect_runs()
{
	local token out docs

	load_module
	$KTGEN sink add tcp port 6430 rx discard >/dev/null
	$KTGEN sink add udp port 6431 rx discard >/dev/null
	out=$($KTGEN run tcp_rr to 127.0.0.1 port 6430 msgs 10) && fail "tcp_rr to a sink without rr: exit 0: $out"
	[[ $out == *"failed after "*"Connection reset by peer"*"refused 1"* ]] ||
		fail "tcp_rr to a sink without rr: $out"
	docs=$(mktemp)
	$KTGEN -j run udp_rr to 127.0.0.1 port 6431 msgs 3 timeout 0.2 >>"$docs"
	token=$(sink_token $KTGEN sink add tcp port 6432 rx discard rr resp-max 2000)
	$KTGEN -j run tcp_rr to 127.0.0.1 port 6432 msgs 10 req 100 resp 2000 >>"$docs" || :
	$KTGEN -j run tcp_rr to 127.0.0.1 port 6432 msgs 11 req 100 resp 2000 token "$token" >>"$docs"
	json_check_each "{
		3: d['latency']['timeouts'] == 3 and d['rx']['refused'] == 3 and
		   d['rx'].get('responses', 0) == 0,
		10: d['state'] == 'failed' and d['errno'] == 104 and d['rx']['refused'] == 1,
		11: d['state'] == 'done' and d['latency']['transactions'] == 11 and
		    d['rx']['responses'] == 11 and d['rx']['refused'] == 0}[d['limit_msgs']]" <"$docs" ||
		fail "runs refused or answered wrongly"
	$KTGEN sink show | grep -c ' refused 1$' | grep -qx 2 ||
		fail "the sinks' refusals: $($KTGEN sink show)"
	expect_fail 2 "token needs the sink's token" $KTGEN run tcp_rr to 127.0.0.1 port 6432 token 0
	rm -f "$docs"
}
case_add reflect_runs t_reflect_runs 120

# udp_bind_as_nobody ADDR PORT: nobody binds a UDP socket with SO_REUSEADDR
# to ADDR:PORT; "bound" or the errno's name on stdout.
udp_bind_as_nobody()
{
	setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c '
import errno, socket, sys
s = socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind((sys.argv[1], int(sys.argv[2])))
    print("bound")
except OSError as e:
    print(errno.errorcode[e.errno])' "$1" "$2"
}

# A UDP sink's port is its own: an unprivileged socket with SO_REUSEADDR
# cannot bind the sink's address and port (nor the wildcard sink's port on
# an exact address, which would win its datagrams). Before, the sink set
# SO_REUSEADDR as TCP sinks do, and such a socket bound next to it and took
# the datagrams sent to it. A TCP sink's port takes no UDP socket anyway:
# nothing to check there.
t_reflect_udp_port()
{
	local out

	load_module
	$KTGEN sink add udp local 127.0.0.1 port 6440 rx discard rr >/dev/null
	$KTGEN sink add udp port 6441 rx discard rr >/dev/null
	for a in 127.0.0.1:6440 127.0.0.1:6441 ::1:6441 0.0.0.0:6441; do
		out=$(udp_bind_as_nobody "${a%:*}" "${a##*:}")
		log "nobody binds $a with SO_REUSEADDR: $out"
		[ "$out" = EADDRINUSE ] || fail "nobody's SO_REUSEADDR socket on a sink's $a: $out"
	done
	# the sinks still serve
	out=$(reflect_py udp "$(span 1)" 6440:100:100:0 6441:100:100:0)
	[ "$out" = "bytes 200 replies 0:100 1:100" ] || fail "the sinks after the binds: $out"
}
case_add reflect_udp_port t_reflect_udp_port 60
