#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The traffic engine: every tx path and rx mode over loopback and a veth
# pair between namespaces, IPv4 and IPv6; counters that must agree exactly;
# stop, owner death, detach, refused connections, unload during a run, and
# bad input refused with nothing left running.

TX_MODES="stack cached nocache zerocopy user"
RX_MODES="copy nocache touch discard verify recvmsg user"

# The reduced matrix: every tx path against verify, every rx mode against
# stack; what every kernel's record holds. PAIRS_REDUCED=1 asks for it
# where the full one would only repeat the loopback's combinations.
smoke_pair()
{
	[ "$2" = verify ] || [ "$1" = stack ]
}

pairs()
{
	local tx rx

	for tx in $TX_MODES; do
		for rx in $RX_MODES; do
			if reduced || [ -n "${PAIRS_REDUCED:-}" ]; then
				smoke_pair "$tx" "$rx" || continue
			fi
			echo "$tx $rx"
		done
	done
}

# A finished TCP run whose every count agrees; pages spliced but for tx
# stack and user (the stack copies).
TCP_OK="d['state'] == 'done' and d['tx']['bytes'] > 0 and
	d['tx']['acked'] == d['tx']['bytes'] and
	d['rx']['bytes'] == d['tx']['bytes'] and
	d['rx']['verify_errors'] == 0 and d['rx']['bad_headers'] == 0 and
	d['splice'] == ('none' if d['tx_mode'] in ('stack', 'user') else 'spliced')"

# What a stream showed, for the lane's record (record_each).
TCP_RECORD="dict(state=d['state'], sent=d['tx']['bytes'], received=d['rx']['bytes'],
	acked=d['tx']['acked'], verify_errors=d['rx']['verify_errors'], splice=d['splice'])"

# tcp_matrix RUN_PREFIX SINK_PREFIX ADDR4 ADDR6: one sink per rx mode and
# family, then every pair over it.
tcp_matrix()
{
	local run=$1 sink=$2 a4=$3 a6=$4 port=5100 tx rx a docs keys bytes=2M n=0
	local -A rx_port

	# The debug lane: 512K still wraps each flow's staging ring (32
	# pages) four times and takes every path of the pair; 2M only
	# repeats them.
	[ "$KTGEN_TIME_SCALE" -gt 1 ] && bytes=512K
	for rx in $RX_MODES; do
		$sink $KTGEN sink add tcp local "$a4" port $port rx $rx $(detached $rx) >/dev/null
		$sink $KTGEN sink add tcp local "$a6" port $port rx $rx $(detached $rx) >/dev/null
		rx_port[$rx]=$port
		port=$((port + 1))
	done
	docs=$(mktemp)
	keys=$(mktemp)
	# (builtins: a process costs ~0.4 s on the debug kernel)
	while read -r tx rx; do
		port=${rx_port[$rx]}
		n=$((n + 1))
		for a in "$a4" "$a6"; do
			$run $KTGEN -j run tcp_stream to "$a" port $port bytes $bytes tx $tx >>"$docs" ||
				fail "tcp $a tx $tx rx $rx (port $port): exit $?"
			if smoke_pair "$tx" "$rx"; then
				echo "tcp $a tx $tx rx $rx" >>"$keys"
			else
				echo - >>"$keys"
			fi
		done
	done <<<"$(pairs)"
	json_check_each "$TCP_OK" <"$docs" || fail "tcp: a run's counts disagree (port 5100 + rx mode)"
	record_each "$keys" "$TCP_RECORD" <"$docs"
	log "tcp: $n tx/rx pairs, IPv4 and IPv6"
}

veth_pair()
{
	NS_A=$(netns_add a)
	NS_B=$(netns_add b)
	ip link add ktg0 netns "$NS_A" type veth peer name ktg1 netns "$NS_B"
	ip -n "$NS_A" addr add 10.77.0.1/24 dev ktg0
	ip -n "$NS_B" addr add 10.77.0.2/24 dev ktg1
	ip -n "$NS_A" addr add fd77::1/64 dev ktg0 nodad
	ip -n "$NS_B" addr add fd77::2/64 dev ktg1 nodad
	ip -n "$NS_A" link set ktg0 up
	ip -n "$NS_B" link set ktg1 up
}

# Each end of veth_pair's link knows the other's address for good, both
# families: through netem loss, neighbour resolution is a gamble of its
# own (three ARP probes, each lost or unanswered 36 % of the time at 20 %
# each way: one run in twenty fails EHOSTUNREACH before a SYN is sent).
veth_neigh_fixed()
{
	local mac_a mac_b

	mac_a=$(ip netns exec "$NS_A" cat /sys/class/net/ktg0/address)
	mac_b=$(ip netns exec "$NS_B" cat /sys/class/net/ktg1/address)
	ip -n "$NS_A" neigh replace 10.77.0.2 dev ktg0 lladdr "$mac_b" nud permanent
	ip -n "$NS_A" neigh replace fd77::2 dev ktg0 lladdr "$mac_b" nud permanent
	ip -n "$NS_B" neigh replace 10.77.0.1 dev ktg1 lladdr "$mac_a" nud permanent
	ip -n "$NS_B" neigh replace fd77::1 dev ktg1 lladdr "$mac_a" nud permanent
}

t_tcp_loopback()
{
	load_module
	tcp_matrix "" "" 127.0.0.1 ::1
}
# nodebug: under the debug kernel tcp_veth walks every path of this
# matrix once (reduced), between namespaces: the same code of the module
# under KASAN, and more of the stack's.
case_add tcp_loopback t_tcp_loopback 600 smoke nodebug

# Over a veth pair every path once: the device path is what is new here.
t_tcp_veth()
{
	load_module
	veth_pair
	PAIRS_REDUCED=1 tcp_matrix "ip netns exec $NS_A" "ip netns exec $NS_B" 10.77.0.2 fd77::2
}
case_add tcp_veth t_tcp_veth 600 full

# Every staging page in flight at once (many flows for a second, GRO
# holding their skbs): a send call's batch stages one chunk per page. It
# once picked a page twice when the ring ran dry and wrote one chunk over
# another (here: a verifying sink counted 0.3-0.5% of the bytes wrong with
# tx nocache, 4 and 8 flows, each time).
t_tcp_stage_full()
{
	local run tx flows

	load_module
	veth_pair
	ip netns exec "$NS_B" ethtool -K ktg1 gro on
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5120 rx verify >/dev/null
	# The debug lane: the pair that showed it every time.
	reduced && set -- "nocache 8" || set -- "nocache 8" "nocache 4" "cached 8" "cached 4"
	for run in "$@"; do
		read -r tx flows <<<"$run"
		ip netns exec "$NS_A" $KTGEN -j run tcp_stream to 10.77.0.2 port 5120 \
			flows "$flows" time 1 tx "$tx" | json_check "$TCP_OK" ||
			fail "tx $tx, $flows flows: the sink saw other bytes than were sent"
	done
}
case_add tcp_stage_full t_tcp_stage_full 120 kcsan

# Staging grows on demand: each flow starts with 32 pages and doubles them
# while every page is in flight, within the buffer budget; when the budget
# says no, the flow goes on with what it has. 8 flows once took twice
# tcp_wmem's maximum each up front (64 MiB here) and an 8 MiB budget
# refused the run.
t_stage_grow()
{
	local doc max=0 used base budget=$((8 << 20))

	load_module
	veth_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5121 rx verify >/dev/null
	$KTGEN config set budget 8M
	# what the sink holds (its receive buffer, its connections' state)
	base=$($KTGEN -j config | sed -n 's/.*"buffer_used": *\([0-9]*\).*/\1/p')
	doc=$(mktemp)
	ip netns exec "$NS_A" $KTGEN -j run tcp_stream to 10.77.0.2 port 5121 \
		flows 8 tx cached time "$(span 2)" >"$doc" &
	while kill -0 $! 2>/dev/null; do
		used=$($KTGEN -j config | sed -n 's/.*"buffer_used": *\([0-9]*\).*/\1/p')
		[ "${used:-0}" -gt "$max" ] && max=$used
		sleep 0.1
	done
	wait $! || fail "the run failed: $(cat "$doc")"
	json_check "$TCP_OK" <"$doc" || fail "the sink saw other bytes than were sent"
	# 8 flows x 32 pages and the 64 KiB source: 1.06 MiB before growing
	# (here 7.5 MiB at most on the stock kernel, 2.6 on the debug one)
	log "the sink held $base bytes, the run at most $((max - base)) more"
	[ $((max - base)) -gt $((3 << 19)) ] ||
		fail "staging never grew: at most $((max - base)) bytes in use by the run"
	[ "$max" -le "$budget" ] || fail "$max bytes in use, over the budget of $budget"
	# the finished run holds its flows until it is deleted
	ip netns exec "$NS_A" $KTGEN run del all
	$KTGEN -j config | json_check "d['buffer_used'] == $base" || fail "pages left charged"
	log "staging grew to $((max >> 10)) KiB of the $((budget >> 10)) KiB budget"
	rm -f "$doc"
}
case_add stage_grow t_stage_grow 120

# What the stack does with a page corked into a UDP datagram (udp) or one
# over IPv6 (udp6), by the module's load-time self-test, which info_text
# holds to the kernel's own answer. A run must find the same.
udp_splice()
{
	$KTGEN -j info | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["splice_selftest_'"$1"'"])'
}

# udp_one RUN SINK ADDR PORT TX RX SIZE: one UDP stream into a new sink;
# the run's and the sink's documents go to $UDP_DOCS as one line.
udp_one()
{
	local run=$1 sink=$2 a=$3 port=$4 tx=$5 rx=$6 size=$7 id out splice=none

	if [ "$tx" != stack ] && [ "$tx" != user ]; then
		case $a in
		*:*) splice=$UDP6_SPLICE ;;
		*) splice=$UDP_SPLICE ;;
		esac
	fi
	# (the id by a builtin: a process costs ~0.4 s on the debug kernel)
	out=$($sink $KTGEN sink add udp local "$a" port "$port" rx "$rx" $(detached "$rx"))
	[[ $out =~ ^sink\ ([0-9]+) ]] || fail "udp $a port $port: no sink: $out"
	id=${BASH_REMATCH[1]}
	out=$($run $KTGEN -j run udp_stream to "$a" port "$port" msgs "$UDP_MSGS" size "$size" tx "$tx") ||
		fail "udp $a tx $tx rx $rx size $size: exit $?"
	echo "{\"run\": $out, \"sink\": $($sink $KTGEN -j sink show "$id"),"\
	     "\"rx_mode\": \"$rx\", \"size\": $size, \"splice\": \"$splice\", \"msgs\": $UDP_MSGS}" >>"$UDP_DOCS"
	# Every rx mode from stack, every page mode in datagrams of pages.
	if [ "$tx" = stack ] || [ "$size" = 9000 ]; then
		echo "udp $a tx $tx rx $rx size $size" >>"$UDP_KEYS"
	else
		echo - >>"$UDP_KEYS"
	fi
}

# sent == received + lost, exactly, late and dup counted apart; the sink's
# own count (from the senders' closing datagrams) agrees with the run's
# (sender and sink on one host); the page modes report what the stack did.
UDP_OK="d['run']['state'] == 'done' and d['run']['tx']['msgs'] > 0 and
	d['run']['tx']['msgs'] == d['run']['rx']['msgs'] - d['run']['rx']['dup'] + d['run']['rx']['lost'] and
	d['run']['tx']['msgs'] + d['run']['tx']['send_errors'] == d['msgs'] and
	d['run']['tx']['bytes'] == d['run']['tx']['msgs'] * d['size'] and
	d['run']['rx']['verify_errors'] == 0 and d['run']['rx']['bad_headers'] == 0 and
	d['run']['splice'] == d['splice'] and d['sink']['rx']['conns'] == 1 and
	d['sink']['rx']['msgs'] - d['sink']['rx']['dup'] + d['sink']['rx']['lost'] == d['run']['tx']['msgs']"

# Loss is the scheduler's: the record says only that every datagram was
# accounted for.
UDP_RECORD="dict(state=d['run']['state'], tried=d['run']['tx']['msgs'] + d['run']['tx']['send_errors'],
	accounted=d['run']['tx']['msgs'] == d['run']['rx']['msgs'] - d['run']['rx']['dup'] + d['run']['rx']['lost'],
	verify_errors=d['run']['rx']['verify_errors'], splice=d['run']['splice'])"

# Every rx mode from tx stack, and every page mode into verify, in
# datagrams of one page and of several (IP fragments on the veth).
udp_matrix()
{
	local run=$1 sink=$2 a4=$3 a6=$4 port=5200 tx rx a size modes=$RX_MODES sizes="1200 9000"

	UDP_SPLICE=$(udp_splice udp)
	UDP6_SPLICE=$(udp_splice udp6)
	UDP_DOCS=$(mktemp)
	UDP_KEYS=$(mktemp)
	UDP_MSGS=3000
	if [ "$KTGEN_TIME_SCALE" -gt 1 ]; then
		modes="verify recvmsg discard user"
		sizes=9000
		# 500 datagrams a run: the page modes' 9000 bytes (3 pages)
		# still wrap a flow's staging ring (32 pages at first) dozens
		# of times, and every rx mode takes its path with the first
		# datagram; 3000 only repeat them
		UDP_MSGS=500
	elif reduced; then
		sizes=9000
	fi
	for rx in $modes; do
		for a in "$a4" "$a6"; do
			udp_one "$run" "$sink" "$a" $port stack "$rx" 1200
			port=$((port + 1))
		done
	done
	for tx in cached nocache zerocopy user; do
		for size in $sizes; do
			for a in "$a4" "$a6"; do
				udp_one "$run" "$sink" "$a" $port "$tx" verify "$size"
				port=$((port + 1))
			done
		done
	done
	json_check_each "$UDP_OK" <"$UDP_DOCS" || fail "udp: counts disagree"
	record_each "$UDP_KEYS" "$UDP_RECORD" <"$UDP_DOCS"
	log "udp: every rx mode, every tx path, IPv4 and IPv6 (pages $UDP_SPLICE, over IPv6 $UDP6_SPLICE)"
}

# A sink that holds more than the staging ring: a big receive buffer keeps
# staged pages in flight until the ring runs short, and a datagram of 15
# pages must then wait for pages, never reuse one it already filled
# (verify would see the overwritten bytes).
t_udp_stage_ring()
{
	need_cpus 2
	load_module
	$KTGEN sink add udp port 5290 rx verify rcvbuf 64M cpus 1 >/dev/null
	$KTGEN -j run udp_stream to 127.0.0.1 port 5290 msgs 2000 size 60000 tx cached cpus 0 |
		json_check "d['state'] == 'done' and d['splice'] in ('spliced', 'copied') and
			d['tx']['msgs'] == d['rx']['msgs'] - d['rx']['dup'] + d['rx']['lost'] and
			d['rx']['msgs'] > 0 and d['rx']['verify_errors'] == 0"
}
case_add udp_stage_ring t_udp_stage_ring 120 kcsan

t_udp_loopback()
{
	load_module
	udp_matrix "" "" 127.0.0.1 ::1
}
# nodebug: udp_veth walks every path of it on the debug kernel (reduced).
case_add udp_loopback t_udp_loopback 300 smoke nodebug

t_udp_veth()
{
	load_module
	veth_pair
	udp_matrix "ip netns exec $NS_A" "ip netns exec $NS_B" 10.77.0.2 fd77::2
}
case_add udp_veth t_udp_veth 300 full

# dev_tx_packets NS DEV: the device's transmitted packets (skbs for veth).
dev_tx_packets()
{
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_packets"
}

# UDP GSO (gso N): a run's datagrams leave N per send call as one GSO skb,
# each with its own header, so a verifying sink counts and checks them as
# any others. A veth that offers tx-udp-segmentation (6.1 and later) takes
# GSO whole: its packet count shows the batching (about msgs/N skbs with
# gso, msgs without); 5.10's has none, and the core cuts the batch before
# it (msgs either way). A byte limit shortens the last datagram of the
# last batch; IPv6 the same; the stack's own limits (checksum offload, the
# MTU) and the attribute's are refused by name.
GSO_OK="d['state'] == 'done' and d['gso'] == 64 and d['tx']['msgs'] > 0 and
	d['tx']['msgs'] == d['rx']['msgs'] - d['rx']['dup'] + d['rx']['lost'] and
	d['tx']['bytes'] == d['tx']['msgs'] * 64 and
	d['rx']['verify_errors'] == 0 and d['rx']['bad_headers'] == 0"

t_udp_gso()
{
	local run tx0 tx1 a uso=0

	load_module
	veth_pair
	run="ip netns exec $NS_A $KTGEN"
	ip netns exec "$NS_A" ethtool -k ktg0 | grep -q '^tx-udp-segmentation: on' && uso=1
	for a in 10.77.0.2 fd77::2; do
		ip netns exec "$NS_B" $KTGEN sink add udp local "$a" port 5400 rx verify rcvbuf 16M >/dev/null
	done
	tx0=$(dev_tx_packets "$NS_A" ktg0)
	$run -j run udp_stream to 10.77.0.2 port 5400 msgs 6400 size 64 gso 64 |
		json_check "$GSO_OK and d['tx']['msgs'] + d['tx']['send_errors'] == 6400"
	tx1=$(dev_tx_packets "$NS_A" ktg0)
	if [ $uso = 1 ]; then
		[ $((tx1 - tx0)) -le $((6400 / 64 + 20)) ] ||
			fail "gso 64: 6400 datagrams left as $((tx1 - tx0)) skbs, not about 100"
	else
		[ $((tx1 - tx0)) -ge 6400 ] ||
			fail "gso 64, no UDP segmentation offload: $((tx1 - tx0)) frames for 6400 datagrams"
	fi
	log "gso 64: 6400 datagrams of 64 bytes in $((tx1 - tx0)) skbs over the veth" \
	    "(tx-udp-segmentation $([ $uso = 1 ] && echo on || echo off))"
	# a sink that takes GRO batches reads each GSO skb whole: a read each
	if [ $uso = 1 ]; then
		ip netns exec "$NS_B" $KTGEN sink add udp port 5401 rx verify gro rcvbuf 16M >/dev/null
		$run -j run udp_stream to 10.77.0.2 port 5401 msgs 3200 size 64 gso 64 |
			json_check "$GSO_OK and d['rx']['msgs'] + d['rx']['lost'] == 3200 and
				d['rx']['bytes'] == 64 * d['rx']['msgs'] and
				0 < d['rx']['reads'] <= 3200 // 64 + 4"
	fi
	tx1=$(dev_tx_packets "$NS_A" ktg0)
	$run -j run udp_stream to 10.77.0.2 port 5400 msgs 6400 size 64 | json_check "d['state'] == 'done'"
	tx0=$(dev_tx_packets "$NS_A" ktg0)
	[ $((tx0 - tx1)) -ge 6400 ] || fail "without gso: $((tx0 - tx1)) skbs for 6400 datagrams"
	# 6000 bytes: 93 datagrams of 64 and the last of 48, in two calls
	$run -j run udp_stream to fd77::2 port 5400 bytes 6000 size 64 gso 64 |
		json_check "d['state'] == 'done' and d['tx']['bytes'] == 6000 and d['tx']['msgs'] == 94 and
			d['rx']['verify_errors'] == 0 and d['rx']['bad_headers'] == 0 and
			d['rx']['msgs'] + d['rx']['lost'] == 94"

	expect_fail 1 "udp_stream.*\(attribute gso\)" $run run tcp_stream to 10.77.0.2 port 5400 gso 8
	expect_fail 1 "tx stack.*\(attribute gso\)" $run run udp_stream to 10.77.0.2 port 5400 gso 8 tx cached
	expect_fail 1 "65507.*\(attribute gso\)" $run run udp_stream to 10.77.0.2 port 5400 size 1400 gso 64
	expect_fail 1 "\(attribute gso\)" $run run udp_stream to 10.77.0.2 port 5400 gso 1
	expect_fail 1 "\(attribute gso\)" $run run udp_stream to 10.77.0.2 port 5400 gso 65
	expect_fail 1 "gso: .*MTU" $run run udp_stream to 10.77.0.2 port 5400 size 1480 gso 2
	ip netns exec "$NS_A" ethtool -K ktg0 tx off >/dev/null 2>&1
	expect_fail 1 "gso: .*checksums" $run run udp_stream to 10.77.0.2 port 5400 gso 2
	ip netns exec "$NS_A" ethtool -K ktg0 tx on >/dev/null 2>&1
	# the refused runs left nothing; the results stay readable
	$run -j run show | json_check "[r['state'] for r in d] == ['done'] * (3 + $uso)"
	# the finished runs and the sinks hold what was charged for them
	$run run del all
	ip netns exec "$NS_B" $KTGEN sink del all
	$run -j config | json_check "d['buffer_used'] == 0"
}
case_add udp_gso t_udp_gso 120 smoke

# verify finds a corrupted byte: the test hook flips byte 100 of every
# source ring (64 KiB), so a 1 MiB stream carries 16 bad bytes, the first
# at offset 100.
t_verify_detects()
{
	load_module
	test_hook flip_byte 100
	$KTGEN sink add tcp port 5300 rx verify >/dev/null
	$KTGEN -j run tcp_stream to 127.0.0.1 port 5300 bytes 1M buffer 64K |
		json_check "d['rx']['verify_errors'] == 16 and
			d['rx']['verify_first_offset'] == 100"
	$KTGEN sink add udp port 5301 rx verify >/dev/null
	$KTGEN -j run udp_stream to 127.0.0.1 port 5301 msgs 100 size 1056 buffer 64K |
		json_check "d['rx']['verify_errors'] > 0"
	test_hook flip_byte -1
	$KTGEN -j run tcp_stream to 127.0.0.1 port 5300 bytes 1M buffer 64K |
		json_check "d['rx']['verify_errors'] == 0"
}
case_add verify_detects t_verify_detects 60

t_many_flows()
{
	need_cpus 2
	load_module
	$KTGEN sink add tcp port 5400 rx discard cpus 0-1 >/dev/null
	$KTGEN -j run tcp_stream to 127.0.0.1 port 5400 flows 64 cpus 0-1 bytes 16M tx cached |
		json_check "d['state'] == 'done' and d['tx']['bytes'] == 16 << 20 and
			d['rx']['bytes'] == 16 << 20 and d['rx']['conns'] == 64 and
			d['tx']['acked'] == 16 << 20"
}
case_add many_flows t_many_flows 300 kcsan

# CPU ticks (user + system) of the kthread named $1.
kthread_ticks()
{
	local pid

	pid=$(ps -eo pid=,comm= | awk -v c="$1" '$2 == c { print $1 }')
	[ -n "$pid" ] || fail "no thread $1"
	awk '{ print $14 + $15 }' "/proc/$pid/stat"
}

# A sink reads away from where its connections' receive softirq runs: on
# loopback that is the sender's CPU, so with the run on CPU 0 the sink's
# worker on CPU 1 serves every connection and the one on CPU 0 only
# accepts them.
t_sink_apart()
{
	local id idle busy mb=128

	need_cpus 2
	# enough reading for a fair count of ticks: a fast kernel reads 32M in 4
	[ "$KTGEN_TIME_SCALE" -gt 1 ] && mb=32
	load_module
	id=$($KTGEN -j sink add tcp port 5450 rx touch cpus 0-1 |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
	$KTGEN -j run tcp_stream to 127.0.0.1 port 5450 flows 4 cpus 0 bytes ${mb}M |
		json_check "d['state'] == 'done' and d['rx']['bytes'] == $mb << 20"
	idle=$(kthread_ticks "ktgen/sink$id:0")
	busy=$(kthread_ticks "ktgen/sink$id:1")
	log "sink worker ticks: cpu 0 $idle, cpu 1 $busy"
	# Round robin would split the work evenly: gating, the reading CPU
	# did more than the other; by time (not gating), four times more.
	[ "$busy" -gt 4 ] && [ "$idle" -lt "$busy" ] ||
		fail "the sink read on the softirq's CPU (cpu 0 $idle ticks, cpu 1 $busy)"
	[ $((idle * 4)) -le "$busy" ] ||
		timing_fail "the sink read on the softirq's CPU too (cpu 0 $idle ticks, cpu 1 $busy)"
}
case_add sink_apart t_sink_apart 120 kcsan

# sink_reach PROTO ADDR PORT: whether a short run from NS_A to ADDR:PORT
# got through (0) or was refused (1).
sink_reach()
{
	local out rc=0

	out=$(ip netns exec "$NS_A" $KTGEN run "$1"_stream to "$2" port "$3" msgs 2000 size 100 2>&1) || rc=$?
	[ $rc = 0 ] && return 0
	[ $rc = 1 ] && echo "$out" | grep -q "Connection refused" && return 1
	fail "$1 run to $2 port $3: exit $rc: $out"
}

# A sink without an address serves both families, with one IPv6 socket
# whose IPV6_V6ONLY is off whatever net.ipv6.bindv6only says; ipv4 or
# ipv6 restricts it to one, and sink show says which it serves.
t_sink_families()
{
	local proto words port=5460 want sock v4 v6 rc show

	load_module
	veth_pair
	ip netns exec "$NS_B" sysctl -qw net.ipv6.bindv6only=1
	for proto in tcp udp; do
		for words in "" ipv4 ipv6 "ipv4 ipv6"; do
			port=$((port + 1))
			ip netns exec "$NS_B" $KTGEN sink add $proto port $port rx verify $words >/dev/null ||
				fail "sink add $proto port $port $words"
			case $words in
			"" | "ipv4 ipv6") want="['ipv4', 'ipv6']" sock="*" v4=0 v6=0 ;;
			ipv4) want="['ipv4']" sock=0.0.0.0 v4=0 v6=1 ;;
			ipv6) want="['ipv6']" sock="[::]" v4=1 v6=0 ;;
			esac
			rc=0
			sink_reach $proto 10.77.0.2 $port || rc=$?
			[ $rc = $v4 ] || fail "$proto sink '$words': an IPv4 run $([ $v4 = 0 ] && echo refused || echo served)"
			rc=0
			sink_reach $proto fd77::2 $port || rc=$?
			[ $rc = $v6 ] || fail "$proto sink '$words': an IPv6 run $([ $v6 = 0 ] && echo refused || echo served)"
			# one socket of the family ss should list (IPV6_V6ONLY, which ss
			# prints as "*" or "[::]", is not reported by every kernel:
			# the runs above tell it)
			show=$(ip netns exec "$NS_B" ss -Hln"${proto:0:1}" "sport = :$port" | awk '{ print $4 }')
			[ "$show" = "$sock:$port" ] || { [ "$sock" != 0.0.0.0 ] &&
				[[ $show == "*:$port" || $show == "[::]:$port" ]]; } ||
				fail "$proto sink '$words': sockets '$show', not '$sock:$port'"
			ip netns exec "$NS_B" $KTGEN -j sink show |
				json_check "[(s['families'], s['local_addr']) for s in d if s['port'] == $port] ==
					[($want, '$([ "$sock" = 0.0.0.0 ] && echo 0.0.0.0 || echo ::)')]" ||
				fail "$proto sink '$words': sink show"
		done
	done
	# every byte or datagram of the runs that got through, counted
	ip netns exec "$NS_A" $KTGEN -j run show |
		json_check "sum(r['state'] == 'done' for r in d) == 12 and
			all(r['rx']['bytes'] == r['tx']['bytes'] if r['test'] == 'tcp_stream' else
			    r['rx']['msgs'] + r['rx']['lost'] == r['tx']['msgs']
			    for r in d if r['state'] == 'done') and
			all(r['rx']['verify_errors'] == 0 for r in d if r['state'] == 'done')" ||
		fail "the runs' counts"
}
case_add sink_families t_sink_families 120

run_state()
{
	$KTGEN -j run show "$1" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])'
}

t_stop_midrun()
{
	local id

	load_module
	# Small socket buffers: what is in flight when the stop comes drains
	# quickly even through a verifying sink on a debug kernel.
	$KTGEN sink add tcp port 5500 rx verify rcvbuf 64K >/dev/null
	id=$($KTGEN -j run tcp_stream to 127.0.0.1 port 5500 time 60 sndbuf 64K detach |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
	sleep 1
	[ "$(run_state "$id")" = running ] || fail "not running"
	# Stopped, not timed out: well before the 60 s limit even when a
	# loaded debug kernel takes long to get here.
	$KTGEN run stop "$id"
	slowwait "$(scaled 10)" bash -c "[ \"\$($KTGEN -j run show $id | grep -o '\"state\":\"[a-z]*\"')\" = '\"state\":\"stopped\"' ]" ||
		fail "did not stop"
	$KTGEN -j run show "$id" | json_check "d['tx']['bytes'] > 0 and
		d['tx']['acked'] == d['tx']['bytes'] and d['rx']['bytes'] == d['tx']['bytes'] and
		d['rx']['verify_errors'] == 0 and d['duration_ns'] < 55e9"
	$KTGEN run del "$id"
	expect_fail 1 "no such run" $KTGEN run show "$id"
	# A running run is not deleted, and is not changed by the attempt.
	id=$($KTGEN -j run tcp_stream to 127.0.0.1 port 5500 time 60 sndbuf 64K detach |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
	[ "$(run_state "$id")" = running ] || fail "the second run is not running"
	expect_fail 1 "still running: stop it first" $KTGEN run del "$id"
	[ "$(run_state "$id")" = running ] || fail "refusing to delete changed it: $(run_state "$id")"
	# (a loaded debug kernel may see its 60 s out first: done will do)
	$KTGEN run stop "$id"
	slowwait "$(scaled 30)" bash -c "$KTGEN -j run show $id | grep -Eq '\"state\":\"(stopped|done)\"'" ||
		fail "the second run did not stop: $(run_state "$id")"
	$KTGEN run del "$id"
	expect_fail 1 "no such run" $KTGEN run show "$id"
}
case_add stop_midrun t_stop_midrun 120 core

# The owner dies: traffic stops within a second (scaled).
t_owner_sigkill()
{
	local pid id b1 b2

	load_module
	$KTGEN sink add tcp port 5600 rx discard >/dev/null
	$KTGEN run tcp_stream to 127.0.0.1 port 5600 time 60 >/dev/null 2>&1 &
	pid=$!
	slowwait "$(scaled 10)" bash -c "$KTGEN -j run show | grep -q running" || fail "no run"
	id=$($KTGEN -j run show | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
	kill -9 $pid
	wait $pid 2>/dev/null || true
	slowwait "$(scaled 1)" bash -c "! $KTGEN -j run show $id | grep -q '\"state\":\"running\"'" ||
		fail "still running a second after its owner died"
	b1=$($KTGEN -j run show "$id" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["tx"]["bytes"])')
	sleep 1
	b2=$($KTGEN -j run show "$id" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["tx"]["bytes"])')
	[ "$b1" = "$b2" ] || fail "traffic went on: $b1 then $b2 bytes"
	[ "$(run_state "$id")" = stopped ] || fail "state $(run_state "$id")"
}
case_add owner_sigkill t_owner_sigkill 120

t_detach_survives()
{
	local id

	load_module
	$KTGEN sink add tcp port 5700 rx discard >/dev/null
	id=$($KTGEN -j run tcp_stream to 127.0.0.1 port 5700 time 2 detach |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
	# The CLI that started it has exited; the run goes on and finishes.
	slowwait "$(scaled 10)" bash -c "$KTGEN -j run show $id | grep -q '\"state\":\"done\"'" ||
		fail "the detached run did not finish: $(run_state "$id")"
	$KTGEN -j run show "$id" | json_check "d['tx']['bytes'] > 0 and d['rx']['bytes'] == d['tx']['bytes']"
	expect_fail 1 "needs a time, byte or message limit" \
		$KTGEN run tcp_stream to 127.0.0.1 port 5700 detach
}
case_add detach_survives t_detach_survives 120

t_refused()
{
	local out rc=0

	load_module
	out=$($KTGEN run tcp_stream to 127.0.0.1 port 5999 time 1 2>&1) || rc=$?
	log "$out"
	[ $rc = 1 ] || fail "exit $rc"
	echo "$out" | grep -q "failed.*flow 0: connect to 127.0.0.1:5999: Connection refused" || fail "no reason given"
	$KTGEN -j run show | json_check "d[0]['state'] == 'failed' and d[0]['errno'] == 111"
	out=$($KTGEN run udp_stream to 127.0.0.1 port 5999 time 2 2>&1) || rc=$?
	echo "$out" | grep -q "Connection refused" || fail "udp: $out"
}
case_add refused t_refused

# What a module's runs and sinks leave once they are gone: no kthread of
# its, no socket of theirs bound or connected to PORT... but TIME-WAIT.
nothing_left()
{
	local p left

	left=$(ps -e -o comm= | grep '^ktgen/' || true)
	[ -z "$left" ] || { log "threads left: $left"; return 1; }
	for p in "$@"; do
		left=$(ss -Htuan "( sport = :$p or dport = :$p )" | grep -v TIME-WAIT || true)
		[ -z "$left" ] || { log "sockets left on $p: $left"; return 1; }
	done
}

t_unload_during_run()
{
	local t u

	load_module
	$KTGEN sink add tcp port 5800 rx verify >/dev/null
	$KTGEN sink add udp port 5801 >/dev/null
	t=$($KTGEN -j run tcp_stream to 127.0.0.1 port 5800 time 60 flows 4 detach |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
	u=$($KTGEN -j run udp_stream to 127.0.0.1 port 5801 time 60 detach |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
	sleep 1
	[ "$(run_state "$t")" = running ] && [ "$(run_state "$u")" = running ] ||
		fail "not both running: tcp $(run_state "$t"), udp $(run_state "$u")"
	$KTGEN -j run show "$t" | json_check "d['tx']['bytes'] > 0"
	rmmod ktgen
	! module_loaded || fail "still loaded"
	slowwait "$(scaled 5)" nothing_left 5800 5801 || fail "the unload left something behind"
}
case_add unload_during_run t_unload_during_run 120 core

t_netns_exit_during_run()
{
	local ns id

	load_module
	ns=$(netns_add x)
	ip netns exec "$ns" $KTGEN sink add tcp port 5900 >/dev/null
	id=$(ip netns exec "$ns" $KTGEN -j run tcp_stream to 127.0.0.1 port 5900 time 60 detach |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
	sleep 1
	ip netns exec "$ns" $KTGEN -j run show "$id" |
		json_check "d['state'] == 'running' and d['tx']['bytes'] > 0"
	ip netns del "$ns"
	# The namespace's workers go with it (pre_exit), and nothing of it
	# keeps the module: it unloads.
	slowwait "$(scaled 10)" nothing_left || fail "its workers outlived the namespace"
	$KTGEN -j run show | json_check "d == []"
	rmmod ktgen || fail "the module did not unload after the namespace went"
	load_module
}
case_add netns_exit_during_run t_netns_exit_during_run 120 core

t_bad_input()
{
	load_module
	$KTGEN sink add tcp port 6000 >/dev/null
	expect_fail 1 "\(attribute size\)" $KTGEN run tcp_stream to 127.0.0.1 port 6000 size 0
	expect_fail 1 "\(attribute flows\)" $KTGEN run tcp_stream to 127.0.0.1 port 6000 flows 0
	expect_fail 1 "\(attribute flows\)" $KTGEN run tcp_stream to 127.0.0.1 port 6000 flows 5000
	expect_fail 1 "remote-port" $KTGEN run tcp_stream to 127.0.0.1 port 0
	expect_fail 1 "offline CPU.*\(attribute cpus\)" $KTGEN run tcp_stream to 127.0.0.1 port 6000 cpus 7
	expect_fail 1 "65507" $KTGEN run udp_stream to 127.0.0.1 port 6000 size 65508
	expect_fail 2 "unknown test or command 'tcp_maerts'" $KTGEN run tcp_maerts to 127.0.0.1 port 6000
	expect_fail 2 "to ADDR" $KTGEN run tcp_stream port 6000
	expect_fail 2 "IPv4 address but local is an IPv6" $KTGEN run tcp_stream to 127.0.0.1 local ::1 port 6000
	expect_fail 1 "port is in use" $KTGEN sink add tcp port 6000
	expect_fail 1 "\(attribute port\)" $KTGEN sink add tcp port 0
	# Nothing was left behind by any of it (the sink holds its
	# receive buffer and connection state, charged, until it goes).
	$KTGEN -j run show | json_check "d == []"
	$KTGEN -j config | json_check "d['buffer_used'] > 65536"
	$KTGEN sink del all
	$KTGEN -j config | json_check "d['buffer_used'] == 0"
	$KTGEN config set budget 1M
	expect_fail 1 "budget" $KTGEN run tcp_stream to 127.0.0.1 port 6000 buffer 4M
	expect_fail 1 "connection state exceed the module's budget" \
		$KTGEN sink add tcp port 6000 max-conns 65536
	$KTGEN config set budget "$(default_budget)"
	$KTGEN -j config | json_check "d['buffer_used'] == 0"
}
case_add bad_input t_bad_input 60

# Ctrl-C on an attached run: the CLI stops it and prints partial results.
t_ctrl_c()
{
	local pid out=/tmp/ktg-ctrl-c.$$

	load_module
	$KTGEN sink add tcp port 6100 rx discard >/dev/null
	$KTGEN run tcp_stream to 127.0.0.1 port 6100 time 60 >"$out" 2>&1 &
	pid=$!
	slowwait "$(scaled 10)" bash -c "$KTGEN -j run show | grep -q running" || fail "no run"
	kill -INT $pid
	wait $pid || fail "exit $? after Ctrl-C"
	log "$(cat "$out")"
	grep -q "stopped after" "$out" || fail "no partial result"
	grep -q "acked" "$out" || fail "no tx counters"
	rm -f "$out"
}
case_add ctrl_c t_ctrl_c 120

# Any receiver will do: a plain TCP server that reads to the end.
t_plain_receiver()
{
	local got=/tmp/ktg-plain.$$ pid

	load_module
	/usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("::1", 6200)); s.listen(1)
print("ready", flush=True)
c, _ = s.accept(); n = 0
while True:
    b = c.recv(1 << 16)
    if not b:
        break
    n += len(b)
c.close()
open(sys.argv[1], "w").write(str(n))' "$got" >/dev/null &
	pid=$!
	slowwait "$(scaled 10)" bash -c "ss -ltn | grep -q '\[::1\]:6200'" || fail "no server"
	$KTGEN -j run tcp_stream to ::1 port 6200 bytes 3M | json_check "d['state'] == 'done' and
		d['tx']['bytes'] == 3 << 20 and d['tx']['acked'] == 3 << 20 and 'rx' not in d"
	wait $pid
	# The plain receiver saw the 40-byte hello and then every payload byte.
	[ "$(cat "$got")" = $(( (3 << 20) + 40 )) ] || fail "the receiver got $(cat "$got") bytes"
	rm -f "$got"
}
case_add plain_receiver t_plain_receiver 120
