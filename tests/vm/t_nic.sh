#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The virtual NIC pair (link kind ktgen-nic): every receive style carries
# identical payload and moves only its own counters, exactly; styles and
# DMA mode toggled under traffic; ring and channel resets under traffic;
# XPS and interrupt CPUs steer where they should; ethtool's view and its
# refusals; unload and namespace removal with traffic running.

NIC_ADDR_A=10.79.0.1
NIC_ADDR_B=10.79.0.2

# nic_pair [ktgen nic add options...]: ktn0 in $NS_A, ktn1 in $NS_B, up,
# with carrier. NIC_IPV6=0 keeps IPv6 off the pair (exact counters need a
# link without the stack's own chatter).
nic_pair()
{
	local ns

	NS_A=$(netns_add a)
	NS_B=$(netns_add b)
	if [ "${NIC_IPV6:-1}" = 0 ]; then
		for ns in "$NS_A" "$NS_B"; do
			ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
		done
	fi
	$KTGEN nic add ktn0 peer ktn1 netns "$NS_A" peer-netns "$NS_B" "$@"
	ip -n "$NS_A" addr add $NIC_ADDR_A/24 dev ktn0
	ip -n "$NS_B" addr add $NIC_ADDR_B/24 dev ktn1
	if [ "${NIC_IPV6:-1}" != 0 ]; then
		ip -n "$NS_A" addr add fd79::1/64 dev ktn0 nodad
		ip -n "$NS_B" addr add fd79::2/64 dev ktn1 nodad
	fi
	ip -n "$NS_A" link set ktn0 up
	ip -n "$NS_B" link set ktn1 up
	slowwait "$(scaled 5)" nic_carrier "$NS_A" ktn0 || fail "ktn0: no carrier"
	slowwait "$(scaled 5)" nic_carrier "$NS_B" ktn1 || fail "ktn1: no carrier"
}

# must_refuse PATTERN CMD...: CMD fails (any non-zero status) saying
# something matching PATTERN (extended regex).
must_refuse()
{
	local pat=$1 err rc=0

	shift
	err=$("$@" 2>&1) || rc=$?
	[ "$rc" != 0 ] || fail "'$*' was not refused"
	echo "$err" | grep -Eq -- "$pat" || fail "'$*' said '$err', expected /$pat/"
	log "refused as expected: $(echo "$err" | tr '\n' ' ')"
}

nic_carrier()
{
	[ "$(ip netns exec "$1" cat "/sys/class/net/$2/carrier" 2>/dev/null)" = 1 ]
}

# nic_stats NS DEV: ethtool -S as one JSON object.
nic_stats()
{
	local name val out='{'

	# builtins but for ethtool: a process is ~0.4 s on the debug kernel,
	# and a snapshot takes several of these
	while read -r name val; do
		[[ $name =~ ^[a-z0-9_]+:$ && $val =~ ^[0-9]+$ ]] && out+="\"${name%:}\": $val, "
	done <<<"$(ip netns exec "$1" ethtool -S "$2")"
	printf '%s"_": 0}\n' "$out"
}

# nic_counter NS DEV NAME: one counter of ethtool -S (0 when absent).
nic_counter()
{
	local name val

	while read -r name val; do
		[ "$name" = "$3:" ] && { echo "$val"; return; }
	done <<<"$(ip netns exec "$1" ethtool -S "$2")"
	echo 0
}

# nic_counter_moves NS DEV NAME SECS: wait until that counter moves
# (bounded); false if it did not.
nic_counter_moves()
{
	local from deadline

	from=$(nic_counter "$1" "$2" "$3")
	deadline=$((SECONDS + $4))
	while [ "$(nic_counter "$1" "$2" "$3")" = "$from" ]; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.05
	done
}

# nic_delta_check A0 A1 B0 B1 EXPR: EXPR over a (ktn0's deltas) and b
# (ktn1's) must hold; on failure both are printed.
nic_delta_check()
{
	# one document for the case's Python (pycheck): a Python's own start
	# is seconds on the debug kernel
	printf '{"a0": %s, "a1": %s, "b0": %s, "b1": %s}' "$1" "$2" "$3" "$4" | json_check "
		(lambda a, b: ($5))(
			{k: d['a1'][k] - d['a0'].get(k, 0) for k in d['a1']},
			{k: d['b1'][k] - d['b0'].get(k, 0) for k in d['b1']})" ||
		{ echo "nic counters: $5 failed (ktn0 $1 -> $2; ktn1 $3 -> $4)" >&2; return 1; }
}

# Receive style NAME on ktn1 (and back to defaults for the others).
nic_style()
{
	local b="ip netns exec $NS_B" cb=0

	$b ethtool --set-priv-flags ktn1 legacy-rx off rx-frags off dma-nocache off
	case $1 in
	build) ;;
	legacy) $b ethtool --set-priv-flags ktn1 legacy-rx on ;;
	frags) $b ethtool --set-priv-flags ktn1 rx-frags on ;;
	copybreak) cb=2048 ;;
	nocache) $b ethtool --set-priv-flags ktn1 dma-nocache on ;;
	esac
	$b ethtool --set-tunable ktn1 rx-copybreak $cb
}

TCP_DONE="d['state'] == 'done' and d['tx']['bytes'] > 0 and
	d['tx']['acked'] == d['tx']['bytes'] and d['rx']['bytes'] == d['tx']['bytes'] and
	d['rx']['verify_errors'] == 0 and d['rx']['bad_headers'] == 0"
UDP_DONE="d['state'] == 'done' and d['tx']['msgs'] > 0 and
	d['tx']['msgs'] == d['rx']['msgs'] + d['rx']['lost'] and
	d['rx']['verify_errors'] == 0 and d['rx']['bad_headers'] == 0"

# nic_in_flight: frames one engine placed that the other side's NAPI has
# not taken yet, both ways (0 on a quiet link).
nic_in_flight()
{
	local a b

	a=$(nic_stats "$NS_A" ktn0)
	b=$(nic_stats "$NS_B" ktn1)
	[[ $a =~ \"dma_frames\":\ ([0-9]+) ]] && local a_placed=${BASH_REMATCH[1]}
	[[ $a =~ \"rx_packets\":\ ([0-9]+) ]] && local a_rx=${BASH_REMATCH[1]}
	[[ $b =~ \"dma_frames\":\ ([0-9]+) ]] && local b_placed=${BASH_REMATCH[1]}
	[[ $b =~ \"rx_packets\":\ ([0-9]+) ]] && local b_rx=${BASH_REMATCH[1]}
	echo $(( (${a_placed:-0} - ${b_rx:-0}) + (${b_placed:-0} - ${a_rx:-0}) ))
}

# nic_settle: wait (bounded) until nothing is in flight and stays so for a
# moment: a run's last segments (FIN, the final ACK) are in.
nic_settle()
{
	local i quiet=0 since=

	# quiet for 0.3 s and two reads in a row (a read is ~2 s on the
	# debug kernel, ~0.1 s on a stock one)
	for ((i = 0; i < 20 * KTGEN_TIME_SCALE; i++)); do
		if [ "$(nic_in_flight)" = 0 ]; then
			quiet=$((quiet + 1))
			[ -n "$since" ] || since=${EPOCHREALTIME/./}
			[ $quiet -ge 2 ] && [ $((${EPOCHREALTIME/./} - since)) -ge 300000 ] && return 0
		else
			quiet=0 since=
		fi
		sleep 0.1
	done
	log "nic_settle: $(nic_in_flight) frames still in flight"
}

# nic_snapshot VAR_A VAR_B: ktn0's and ktn1's counters as one consistent
# pair: nothing ktn0 placed is missing from ktn1's count. A late frame (a
# delayed ACK, a FIN's answer) can leave ktn0 after a quiet spell, so the
# pair is taken again until ktn0 placed nothing while ktn1 was read.
nic_snapshot()
{
	local i a b a2 re='"dma_frames": ([0-9]+)' fa fa2

	for i in 1 2 3 4 5; do
		fa= fa2=
		a=$(nic_stats "$NS_A" ktn0)
		nic_settle
		b=$(nic_stats "$NS_B" ktn1)
		a2=$(nic_stats "$NS_A" ktn0)
		[[ $a =~ $re ]] && fa=${BASH_REMATCH[1]}
		[[ $a2 =~ $re ]] && fa2=${BASH_REMATCH[1]}
		[ "${fa:-}" = "${fa2:-}" ] && break
		log "nic_snapshot: ktn0 placed frames while ktn1 was read, again"
	done
	printf -v "$1" '%s' "$a"
	printf -v "$2" '%s' "$b"
}

# Counters that must move for a style, all the others staying put: every
# frame ktn0's engine placed is one ktn1 received, none dropped.
nic_style_expr()
{
	local common="b['rx_packets'] > 0 and a['dma_frames'] == b['rx_packets'] and
		b['rx_drops'] == 0 and a['dma_drops'] == 0 and
		b['rx_page_reuse'] == b['rx_copied']"

	case $1 in
	build|nocache)
		echo "$common and b['rx_built'] == b['rx_packets'] and b['rx_copied'] == 0 and
			b['rx_split'] == 0 and b['rx_frags'] == 0 and b['rx_copied_bytes'] == 0 and
			(a['dma_nocache'] == a['dma_frames']) == ('$1' == 'nocache') and
			(a['dma_nocache'] == 0) == ('$1' == 'build')" ;;
	legacy)
		echo "$common and b['rx_built'] == 0 and b['rx_frags'] == 0 and
			b['rx_copied'] > 0 and b['rx_split'] > 0 and
			b['rx_copied'] + b['rx_split'] == b['rx_packets'] and
			b['rx_copied_bytes'] > 0 and a['dma_nocache'] == 0" ;;
	frags)
		echo "$common and b['rx_frags'] == b['rx_packets'] and b['rx_built'] == 0 and
			b['rx_copied'] == 0 and b['rx_split'] == 0 and a['dma_nocache'] == 0" ;;
	copybreak)
		echo "$common and b['rx_copied'] == b['rx_packets'] and b['rx_built'] == 0 and
			b['rx_split'] == 0 and b['rx_frags'] == 0 and
			b['rx_copied_bytes'] == b['rx_bytes']" ;;
	esac
}

t_nic_styles()
{
	local a style docs keys a0 a1 b0 b1 bytes=4M msgs=2000

	# Each style's path is taken as surely by less (debug, smoke).
	reduced && bytes=1M msgs=500
	load_module
	NIC_IPV6=0 nic_pair
	a="ip netns exec $NS_A"
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5200 rx verify >/dev/null
	ip netns exec "$NS_B" $KTGEN sink add udp port 5201 rx verify >/dev/null
	docs=$(mktemp)
	keys=$(mktemp)
	for style in build legacy frags copybreak nocache; do
		nic_style $style
		# Quiet link: the previous run's last segments are in.
		nic_snapshot a0 b0
		$a $KTGEN -j run tcp_stream to $NIC_ADDR_B port 5200 bytes $bytes flows 2 >>"$docs" ||
			fail "$style: tcp run exit $?"
		$a $KTGEN -j run udp_stream to $NIC_ADDR_B port 5201 msgs $msgs size 64 >>"$docs" ||
			fail "$style: udp run exit $?"
		printf 'nic %s tcp_stream\nnic %s udp_stream\n' $style $style >>"$keys"
		nic_snapshot a1 b1
		nic_delta_check "$a0" "$a1" "$b0" "$b1" "$(nic_style_expr $style)" ||
			fail "style $style: counters"
		log "$style: ktn1 totals $(echo "$b1" | tr -d '\n' | head -c 150)..."
	done
	json_check_each "('tcp_stream' != d['test'] or $TCP_DONE) and
			 ('udp_stream' != d['test'] or $UDP_DONE)" <"$docs" ||
		fail "a run over the pair lost or corrupted payload"
	# Each style's counters held (checked above); the runs' outcomes:
	record_each "$keys" "dict(state=d['state'], verify_errors=d['rx']['verify_errors'],
		exact=(d['rx']['bytes'] == d['tx']['bytes'] if d['test'] == 'tcp_stream' else
		       d['tx']['msgs'] == d['rx']['msgs'] + d['rx']['lost']))" <"$docs"
}
case_add nic_styles t_nic_styles 300 smoke core

# Failures where the packets are: allocations that cannot sleep fail at
# random where a call stack runs through ktgen_nic's code, in any context
# (failslab and fail_page_alloc with the stack-trace filter, no task
# filter, ignore-gfp-wait; 2 in 100), while TCP and UDP cross the pair in
# each receive style: the NAPI poll's skbs and page-pool refills, the
# stack's receive path and TCP's acks under it, the DMA engine's segments.
# Each device accounts for every frame (placed == polled == handed up +
# dropped, alloc_fail where a refill failed), TCP is exact, UDP counts
# every datagram received or lost, nothing is corrupted or left; and every
# failure whose stack the injectors printed ran through ktgen_nic.
nic_atomic_faults()
{
	local a

	for a in failslab fail_page_alloc; do
		echo "$1" >"$DEBUGFS"/$a/ignore-gfp-wait
		# each failure's stack to the log (not the console: the
		# filter is judged from it)
		echo "$3" >"$DEBUGFS"/$a/verbose
		echo 0 >"$DEBUGFS"/$a/verbose_ratelimit_interval_ms
	done
	fault_arm N "$2" failslab fail_page_alloc
}

# After the case's marker: every failure's stack (verbose 2) has a frame in
# ktgen_nic (not a "? " word the unwinder only found on the stack). A stack
# begins with its "CPU: N PID: ..." line (dump_stack() holds the printk
# CPU lock for the whole stack: two CPUs' stacks do not interleave, their
# "forcing a failure" lines may). Prints how many there were.
nic_atomic_stacks()
{
	dmesg | sed -n "/ktgen-test: begin $1\$/,\$p" | /usr/bin/python3 -c 'import re, sys
blocks, cur = [], None
for line in sys.stdin:
    msg = re.sub(r"^\[ *[0-9.]+\] ", "", line.rstrip("\n"))
    if re.match(r"CPU: [0-9]+ PID: [0-9]+ Comm: ", msg):
        cur = []
        blocks.append(cur)
    elif cur is not None and not msg.lstrip().startswith("? "):
        cur.append(msg)
outside = [b for b in blocks if not any("[ktgen_nic]" in l for l in b)]
print(len(blocks))
for b in outside[:1]:
    print("\n".join(b[:40]), file=sys.stderr)
sys.exit(1 if outside else 0)'
}

# nic_atomic_run DOCS RUN-ARGS...: from $NS_A, its JSON appended to DOCS
# (a failed run exits 1; its document says why).
nic_atomic_run()
{
	local docs=$1 rc=0
	shift

	ip netns exec "$NS_A" $KTGEN -j run "$@" >>"$docs" || rc=$?
	[ $rc = 0 ] || [ $rc = 1 ] || fail "run $*: exit status $rc"
}

t_fault_live_atomic()
{
	local style docs a0 a1 b0 b1 failed=0 injected=0 handed printk stacks

	handed="b['rx_built'] + b['rx_copied'] + b['rx_split'] + b['rx_frags'] + b['rx_drops'] ==
		b['rx_packets'] == a['dma_frames'] and
		a['rx_built'] + a['rx_copied'] + a['rx_split'] + a['rx_frags'] + a['rx_drops'] ==
		a['rx_packets'] == b['dma_frames'] and b['rx_page_reuse'] == b['rx_copied']"
	fault_setup
	load_module
	NIC_IPV6=0 nic_pair
	fault_stack ktgen_nic
	# the console quiet while stacks go to the log; as it was however the
	# case ends (it runs in a shell of its own)
	printk=$(cat /proc/sys/kernel/printk)
	# shellcheck disable=SC2064 # its value now: the local is gone at exit
	trap "echo '$printk' >/proc/sys/kernel/printk" EXIT
	echo 1 >/proc/sys/kernel/printk
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5200 rx verify >/dev/null
	ip netns exec "$NS_B" $KTGEN sink add udp port 5201 rx verify >/dev/null
	docs=$(mktemp)
	for style in build legacy frags copybreak; do
		nic_style $style
		nic_snapshot a0 b0
		nic_atomic_faults Y 2 2
		nic_atomic_run "$docs" tcp_stream to $NIC_ADDR_B port 5200 bytes 1M flows 2
		nic_atomic_run "$docs" udp_stream to $NIC_ADDR_B port 5201 msgs 500 size 64
		injected=$((injected + $(fault_live_injected failslab fail_page_alloc)))
		nic_atomic_faults N 0 0
		nic_snapshot a1 b1
		nic_delta_check "$a0" "$a1" "$b0" "$b1" "$handed" || fail "style $style: counters"
		failed=$((failed + $(/usr/bin/python3 -c 'import json, sys
a0, a1, b0, b1 = (json.loads(x) for x in sys.argv[1:5])
print(sum(s1[k] - s0.get(k, 0) for s0, s1 in ((a0, a1), (b0, b1))
	  for k in ("rx_alloc_fail", "rx_drops")))' "$a0" "$a1" "$b0" "$b1")))
	done
	fault_stack_off
	echo "$printk" >/proc/sys/kernel/printk
	# (a failure of an allocation that asked for no warning, __GFP_NOWARN
	# as the page-pool refill's, prints nothing)
	stacks=$(nic_atomic_stacks fault_live_atomic) ||
		fail "a failure outside ktgen_nic's code (the stack-trace filter)"
	[ "$stacks" -gt 0 ] && [ "$stacks" -le "$injected" ] ||
		fail "$injected failures injected, $stacks stacks printed"
	log "atomic failures injected: $injected; the $stacks that printed their stack" \
		"ran through ktgen_nic's code; $failed in ktgen-nic's poll (alloc_fail, drops)"
	# A run ends done, exact (TCP: every byte acked), or failed with the
	# errno of what failed (a connect's route: ENOBUFS; a run that failed
	# before its flows reached the sink reports no rx), its counts still
	# agreeing; each test was done at least once, so that exactness was
	# judged.
	json_check_each "d['state'] == 'failed' and d['errno'] > 0 and
			 d.get('rx', {'bytes': 0})['bytes'] <= d['tx']['bytes'] and
			 d.get('rx', {}).get('verify_errors', 0) == 0 or
			 ('tcp_stream' != d['test'] or $TCP_DONE) and
			 ('udp_stream' != d['test'] or $UDP_DONE)" <"$docs" ||
		fail "a run lost or corrupted payload under failing atomic allocations"
	/usr/bin/python3 -c 'import json, sys
docs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
done = {d["test"] for d in docs if d["state"] == "done"}
print("# runs done: %d of %d" % (sum(d["state"] == "done" for d in docs), len(docs)))
sys.exit(done != {"tcp_stream", "udp_stream"})' "$docs" || fail "no tcp or no udp run was done"
	[ "$failed" -gt 0 ] || fail "no allocation of ktgen-nic's receive path failed"
	ip netns exec "$NS_A" $KTGEN nic del ktn0
	ip netns exec "$NS_B" $KTGEN sink del all
	unload_module
	kmemleak_check
}
case_add fault_live_atomic t_fault_live_atomic 600

# Receive style and DMA mode flipped every 100 ms under TCP (IPv4, IPv6)
# and UDP traffic: nothing lost, nothing corrupted, every style ran.
t_nic_toggle()
{
	local a docs b0 b1 pid flags

	load_module
	nic_pair
	a="ip netns exec $NS_A"
	# one sink for both families (fd79::2 too)
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5210 rx verify >/dev/null
	ip netns exec "$NS_B" $KTGEN sink add udp port 5211 rx verify >/dev/null
	b0=$(nic_stats "$NS_B" ktn1)
	# each setting held until a frame came in its style (bounded: a slow
	# guest's toggles must not miss one)
	(
		while :; do
			for flags in "legacy-rx on:rx_split" "legacy-rx off rx-frags on:rx_frags" \
				     "rx-frags off dma-nocache on:rx_built" "dma-nocache off:rx_built"; do
				# shellcheck disable=SC2086
				ip netns exec "$NS_B" ethtool --set-priv-flags ktn1 ${flags%:*}
				nic_counter_moves "$NS_B" ktn1 "${flags#*:}" 2 || :
			done
		done
	) &
	pid=$!
	docs=$(mktemp)
	if ! $a $KTGEN -j run tcp_stream to $NIC_ADDR_B port 5210 time "$(span 2)" flows 2 \
		>>"$docs"; then
		kill $pid
		fail "tcp over IPv4 while toggling"
	fi
	if ! $a $KTGEN -j run tcp_stream to fd79::2 port 5210 time "$(span 2)" >>"$docs"; then
		kill $pid
		fail "tcp over IPv6 while toggling"
	fi
	if ! $a $KTGEN -j run udp_stream to $NIC_ADDR_B port 5211 time "$(span 1)" size 1000 \
		>>"$docs"; then
		kill $pid
		fail "udp while toggling"
	fi
	kill $pid
	wait $pid 2>/dev/null || true
	b1=$(nic_stats "$NS_B" ktn1)
	json_check_each "('tcp_stream' != d['test'] or $TCP_DONE) and
			 ('udp_stream' != d['test'] or $UDP_DONE)" <"$docs" ||
		fail "payload lost or corrupted while toggling"
	nic_delta_check "$b0" "$b1" "$b0" "$b1" \
		"b['rx_built'] > 0 and b['rx_split'] > 0 and b['rx_frags'] > 0 and b['rx_drops'] == 0" ||
		fail "not every style ran"
}
case_add nic_toggle t_nic_toggle 300

# Channels (fewer, then more) and rings changed on both ends while TCP
# runs: the carrier drops and returns each time, the connection survives,
# every byte lands.
t_nic_reset()
{
	local a docs c0 c1 pid

	# a channel per CPU: with one, there is no channel count to change to
	need_cpus 2
	load_module
	nic_pair
	a="ip netns exec $NS_A"
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5220 rx verify >/dev/null
	c0=$(ip netns exec "$NS_B" cat /sys/class/net/ktn1/carrier_changes)
	docs=$(mktemp)
	$a $KTGEN -j run tcp_stream to $NIC_ADDR_B port 5220 time "$(span 4)" flows 2 >"$docs" &
	pid=$!
	sleep "$(span 1)"
	ip netns exec "$NS_B" ethtool -L ktn1 combined 1
	sleep 0.5
	ip netns exec "$NS_B" ethtool -G ktn1 rx 128 tx 128
	sleep 0.5
	ip netns exec "$NS_A" ethtool -L ktn0 combined 1
	sleep 0.5
	ip netns exec "$NS_B" ethtool -L ktn1 combined 2
	wait $pid || fail "run across resets: exit $?"
	json_check "$TCP_DONE" <"$docs" || fail "bytes lost across resets"
	c1=$(ip netns exec "$NS_B" cat /sys/class/net/ktn1/carrier_changes)
	[ $((c1 - c0)) -ge 8 ] || fail "carrier changed $((c1 - c0)) times, want >= 8 (four resets)"
	nic_carrier "$NS_B" ktn1 || fail "no carrier after the resets"
	ip netns exec "$NS_B" ethtool -l ktn1 | grep -A4 Current | grep -q 'Combined:[[:space:]]*2$' ||
		fail "channels not 2"
	ip netns exec "$NS_B" ethtool -g ktn1 | grep -A2 Current | grep -q 'RX:[[:space:]]*128$' ||
		fail "rx ring not 128"
	log "carrier changes across four resets: $((c1 - c0))"
}
case_add nic_reset t_nic_reset 180

# tx_queue_counts NS: "tx0 tx1" packet counts of ktn0.
tx_queue_counts()
{
	ip netns exec "$1" ethtool -S ktn0 |
		awk '/^ *tx0_packets:/ { a = $2 } /^ *tx1_packets:/ { b = $2 } END { print a, b }'
}

# xps_run CPU: a UDP stream from a kthread on CPU; prints the packets it
# put on tx queue 0 and 1.
xps_run()
{
	local q0 q1 r0 r1

	read -r q0 q1 <<<"$(tx_queue_counts "$NS_A")"
	ip netns exec "$NS_A" $KTGEN run udp_stream to $NIC_ADDR_B port 5230 msgs 500 size 100 \
		cpus "$1" >/dev/null || fail "udp run on cpu $1: exit $?"
	read -r r0 r1 <<<"$(tx_queue_counts "$NS_A")"
	echo $((r0 - q0)) $((r1 - q1))
}

# softirq_net_rx CPU: NET_RX softirqs served on CPU so far.
softirq_net_rx()
{
	awk -v c=$(($1 + 2)) '$1 == "NET_RX:" { print $c }' /proc/softirqs
}

# XPS: a queue per CPU, then swapped; each run lands on its CPU's queue
# only. Interrupt CPUs: receive processing follows irq-cpus.
t_nic_xps()
{
	local q0 q1 x n0 n1 m0 m1

	[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
	load_module
	NIC_IPV6=0 nic_pair
	ip netns exec "$NS_B" $KTGEN sink add udp port 5230 rx discard >/dev/null
	# a neighbour that never expires: no ARP probe from a timer on the
	# other CPU's queue in the middle of a run (seen on the debug kernel)
	ip -n "$NS_A" neigh replace $NIC_ADDR_B dev ktn0 nud permanent \
		lladdr "$(ip netns exec "$NS_B" cat /sys/class/net/ktn1/address)"
	xps_run 0 >/dev/null
	for x in "1 2" "2 1"; do
		read -r q0 q1 <<<"$x"
		ip netns exec "$NS_A" sh -c "echo $q0 >/sys/class/net/ktn0/queues/tx-0/xps_cpus &&
			echo $q1 >/sys/class/net/ktn0/queues/tx-1/xps_cpus"
		read -r n0 n1 <<<"$(xps_run 0)"
		read -r m0 m1 <<<"$(xps_run 1)"
		log "xps tx-0=$q0 tx-1=$q1: cpu 0 sent $n0/$n1 on queue 0/1, cpu 1 $m0/$m1"
		if [ "$q0" = 1 ]; then
			[ "$n0" -ge 500 ] && [ "$n1" = 0 ] && [ "$m0" = 0 ] && [ "$m1" -ge 500 ] ||
				fail "xps: packets on the wrong queue"
		else
			[ "$n0" = 0 ] && [ "$n1" -ge 500 ] && [ "$m0" -ge 500 ] && [ "$m1" = 0 ] ||
				fail "xps: packets on the wrong queue after the swap"
		fi
	done

	# Every receive queue of ktn1 interrupts CPU $c: its NAPI runs there.
	for c in 0 1; do
		ip netns exec "$NS_B" $KTGEN nic set ktn1 irq-cpus $c
		ip netns exec "$NS_A" $KTGEN nic set ktn0 irq-cpus $c
		ip netns exec "$NS_B" $KTGEN -j nic show ktn1 |
			json_check "d[0]['irq_cpus'] == [$c, $c]" || fail "irq-cpus not $c"
		n0=$(softirq_net_rx 0)
		n1=$(softirq_net_rx 1)
		ip netns exec "$NS_A" $KTGEN run udp_stream to $NIC_ADDR_B port 5230 msgs 20000 \
			size 100 cpus $((1 - c)) >/dev/null || fail "udp run: exit $?"
		n0=$(($(softirq_net_rx 0) - n0))
		n1=$(($(softirq_net_rx 1) - n1))
		log "irq-cpus $c: NET_RX softirqs cpu0 +$n0 cpu1 +$n1"
		# gating: most of it there; by time (not gating), 4x the other
		if [ $c = 0 ]; then
			[ "$n0" -gt "$n1" ] || fail "receive did not follow irq-cpus 0"
			[ "$n0" -gt $((n1 * 4)) ] || timing_fail "receive followed irq-cpus 0 loosely"
		else
			[ "$n1" -gt "$n0" ] || fail "receive did not follow irq-cpus 1"
			[ "$n1" -gt $((n0 * 4)) ] || timing_fail "receive followed irq-cpus 1 loosely"
		fi
	done
}
case_add nic_xps t_nic_xps 180

# What ethtool and ip see, what they may not set, and the CLI's own view.
t_nic_ethtool()
{
	local e m

	need_cpus 2
	load_module
	nic_pair
	e="ip netns exec $NS_B"
	$e ethtool -i ktn1 | grep -q '^driver: ktgen-nic$' || fail "ethtool -i: driver"
	$e ethtool --show-priv-flags ktn1 | grep -q '^legacy-rx *: off' || fail "priv-flags"
	must_refuse 'power of 2' $e ethtool -G ktn1 rx 100
	must_refuse '[Ii]nvalid' $e ethtool --set-priv-flags ktn1 legacy-rx on rx-frags on
	must_refuse '[Ii]nvalid' $e ethtool --set-tunable ktn1 rx-copybreak 5000
	must_refuse 'mtu|MTU|[Ii]nvalid|range' $e ip link set ktn1 mtu 9000
	$e ethtool --set-tunable ktn1 rx-copybreak 300
	$e ethtool --get-tunable ktn1 rx-copybreak | grep -q 'rx-copybreak: 300' ||
		fail "rx-copybreak did not read back"
	$e ethtool -K ktn1 tx-nocache-copy on
	$e ethtool -k ktn1 | grep -q '^tx-nocache-copy: on' || fail "tx-nocache-copy"
	$e ethtool --set-priv-flags ktn1 rx-frags on
	# the ioctl (ETHTOOL_SPFLAGS) passes its u32 as given, where the
	# netlink path masks it: a bit past the flags is refused, none stored
	for m in 0x80000002 0x40000002 0x100; do
		[ "$($e /usr/bin/python3 "$KTGEN_TESTS/nicnl.py" pflags ktn1 $m)" = "EINVAL 0x2" ] ||
			fail "SPFLAGS $m: $($e /usr/bin/python3 "$KTGEN_TESTS/nicnl.py" pflags ktn1 $m)"
	done
	[ "$($e /usr/bin/python3 "$KTGEN_TESTS/nicnl.py" pflags ktn1 0x2)" = "ok 0x2" ] ||
		fail "SPFLAGS 0x2 (rx-frags) through the ioctl"
	$e $KTGEN -j nic show | json_check "len(d) == 1 and d[0]['ifname'] == 'ktn1' and
		d[0]['rx_style'] == 'frags' and d[0]['peer_ifindex'] > 0 and 'peer' not in d[0]" ||
		fail "nic show"
	$e $KTGEN nic show | grep -Eq '^ktn1 peer ifindex [0-9]+ \(another namespace\) up .*rx-style frags' ||
		fail "nic show text: $($e $KTGEN nic show)"

	expect_fail 1 'DMA engine CPU is not online' $KTGEN nic add ktx0 dma-cpu 999
	expect_fail 1 'interrupt CPU is not online' $KTGEN nic add ktx0 irq-cpus 0,999
	# the peer's name taken: ktgen_nic's message (5.10 and 6.1 lost it
	# before 6.3's NL_SET_ERR_MSG_WEAK, compat.h), then the errno's
	expect_fail 1 'Error: ktgen-nic: cannot register the peer: File exists' \
		$KTGEN nic add ktx0 peer lo
	expect_fail 1 'not a ktgen-nic device' $KTGEN nic del lo
	expect_fail 1 'no such device' $KTGEN nic del ktx9
	ip link show ktx0 >/dev/null 2>&1 && fail "a refused add left ktx0 behind"
	$KTGEN nic add ktx0 dma-cpu 0
	$KTGEN nic show | grep -q '^ktx0 peer ktgn[0-9]* down .*dma-cpu 0' ||
		fail "nic show: $($KTGEN nic show)"
	$KTGEN nic set ktx0 dma-cpu 1 irq-cpus 1,0
	$KTGEN -j nic show ktx0 | json_check "d[0]['dma_cpu'] == 1 and d[0]['irq_cpus'][:2] == [1, 0]" ||
		fail "nic set did not take"
	# iproute2 makes one too, peer named by the module.
	ip link add ktx1 type ktgen-nic
	[ "$(ip -d link show ktx1 | grep -c ktgen-nic)" = 1 ] || fail "ip link add"
	$KTGEN nic del ktx0
	ip link del ktx1
	[ -z "$($KTGEN nic show)" ] || fail "devices left: $($KTGEN nic show)"
}
case_add nic_ethtool t_nic_ethtool 120

# The used buffer bytes (module-wide).
nic_budget_used()
{
	cat /sys/module/ktgen_nic/parameters/budget_used
}

nic_budget_set()
{
	echo "$1" >/sys/module/ktgen_nic/parameters/budget
}

# A pair's receive rings hold a page a descriptor while they are up, and
# those pages count against ktgen_nic's budget (its own, as runs' and
# sinks' count against ktgen's): a device that would exceed it does not
# come up (ENOSPC, and the log says why), a ring change that would is
# refused by ethtool with the old rings kept, and a device down or gone
# gives its pages back. The budget is never set below what is held.
t_nic_budget()
{
	local ring=512 q pair out default

	load_module
	default=$(cat /sys/module/ktgen_nic/parameters/budget)
	[ "$default" = "$(default_budget)" ] || fail "ktgen_nic's default budget $default, want $(default_budget)"
	$KTGEN nic add ktb0 peer ktb1
	[ "$(nic_budget_used)" = 0 ] || fail "a pair down holds $(nic_budget_used) bytes"
	ethtool -G ktb0 rx $ring
	ethtool -G ktb1 rx $ring
	ip link set ktb0 up
	ip link set ktb1 up
	# $ring pages a ring, a ring a channel
	q=$(ethtool -l ktb0 | awk '/^Current/ { c = 1 } c && $1 == "Combined:" { print $2 }')
	pair=$(( 2 * q * ring * $(getconf PAGESIZE) ))
	[ "$(nic_budget_used)" = $pair ] ||
		fail "the pair up holds $(nic_budget_used) bytes, want $pair"
	$KTGEN -j config | json_check "d['buffer_used'] == 0"
	must_refuse "Device or resource busy" nic_budget_set $(( pair - 4096 ))
	must_refuse "Invalid argument" nic_budget_set 12x
	nic_budget_set $(( pair + (1 << 20) ))
	must_refuse "page budget.*nothing changed" ethtool -G ktb0 rx $(( 4 * ring ))
	ethtool -g ktb0 | awk '$1 == "RX:" { n++ } n == 2 && $1 == "RX:" { print $2 }' | grep -qx $ring ||
		fail "ktb0's ring changed: $(ethtool -g ktb0)"
	[ "$(nic_budget_used)" = $pair ] || fail "after the refusal: $(nic_budget_used) bytes"
	ip link set ktb1 down
	[ "$(nic_budget_used)" = $(( pair / 2 )) ] || fail "ktb1 down: $(nic_budget_used) bytes"
	ip link set ktb0 down
	[ "$(nic_budget_used)" = 0 ] || fail "both down: $(nic_budget_used) bytes"
	nic_budget_set 1M
	out=$(ip link set ktb1 up 2>&1) && fail "ktb1 came up beyond the budget"
	[[ $out == *"No space left"* ]] || fail "ktb1 up beyond the budget: $out"
	dmesg | tail -5 | grep -q "ktb1: its rings' pages exceed ktgen_nic's page budget" ||
		fail "the log does not say why ktb1 did not come up"
	log "refused as expected: ip link set ktb1 up: $out"
	nic_budget_set 1G
	ip link set ktb0 up
	ip link set ktb1 up
	[ "$(nic_budget_used)" = $pair ] || fail "ktb1 back up: $(nic_budget_used) bytes"
	$KTGEN nic del ktb0
	[ "$(nic_budget_used)" = 0 ] || fail "the pair gone, $(nic_budget_used) bytes left"
}
case_add nic_budget t_nic_budget 60

# A pair holds host-wide resources (a DMA-engine thread, page pools, CPU
# pinning, interrupts to any CPU): root of a user namespace makes none,
# by ip or by ktgen, in its own network namespace or with the peer in
# another (the core checks only the device's namespace, and 7.x's peer
# check covers only drivers that declare a peer attribute), and nothing
# is left; root puts a peer in another namespace.
t_nic_peer_netns()
{
	local ns msg="ktgen-nic needs CAP_NET_ADMIN in the initial user namespace" left

	load_module
	ns=$(netns_add p)
	expect_fail 1 "$msg" unshare -Urn $KTGEN nic add ktx0 peer ktx1 peer-netns "$ns"
	ip -n "$ns" link show ktx1 >/dev/null 2>&1 && fail "a peer went into $ns"
	expect_fail 2 "Error: $msg" unshare -Urn ip link add ktx0 type ktgen-nic
	expect_fail 1 "$msg" unshare -Urn $KTGEN nic add ktx0 peer ktx1
	# In one namespace: nothing a later command finds, no engine started.
	left=$(unshare -Urn sh -c "ip link add ktx0 type ktgen-nic; $KTGEN nic add ktx2 peer ktx3
		ip link set ktx0 up; ip link set ktx2 up
		ip -d -o link show | grep ktgen-nic
		grep -h '^ktgen-nic/' /proc/[0-9]*/comm" 2>/dev/null) || true
	[ -z "$left" ] || fail "root of a user namespace made: $left"
	$KTGEN nic add ktx0 peer ktx1 peer-netns "$ns"
	ip -n "$ns" link show ktx1 >/dev/null || fail "root's peer did not go into $ns"
	$KTGEN nic del ktx0
}
case_add nic_peer_netns t_nic_peer_netns 60 smoke

# The pair's page pools in a run's counters: netdev netlink lists them
# under their device (6.8+), with statistics where the kernel keeps them
# (CONFIG_PAGE_POOL_STATS: sid). The run's numbers are checked against
# ktn0's own ethtool counters in the same document: every frame its NAPI
# took was refilled by one allocation (each successful one counts once:
# fast, refill, slow or slow_high_order), and the udp_rr responses' pages
# came back. Where the kernel has no page-pool-stats-get (genl's list of
# the netdev family's operations), the document must not claim any.
t_nic_page_pool()
{
	local stats=0 doc token

	load_module
	NIC_IPV6=0 nic_pair
	genl ctrl get name netdev 2>/dev/null | grep -q 'ID-0x9 ' && stats=1
	log "page-pool-stats-get: $([ $stats = 1 ] && echo present || echo absent) ($(uname -r))"
	token=$(sink_token ip netns exec "$NS_B" $KTGEN sink add udp port 5260 rx verify rr resp-max 1000)
	doc=$(ip netns exec "$NS_A" $KTGEN -j run udp_rr to $NIC_ADDR_B port 5260 msgs 200 req 64 resp 1000 \
		token "$token")
	if [ $stats = 0 ]; then
		echo "$doc" | json_check "d['latency']['transactions'] == 200 and
			'page_pool' not in d['counters']['devices']['ktn0']"
		return 0
	fi
	echo "$doc" | json_check "d['latency']['transactions'] == 200 and
		(lambda p, e: e['rx_packets'] >= 200 and e['rx_alloc_fail'] == 0 and
		 p['alloc_fast'] + p['alloc_refill'] + p['alloc_slow'] +
		     p['alloc_slow_high_order'] == e['rx_packets'] and
		 p['recycle_cached'] + p['recycle_ring'] + p['recycle_ring_full'] +
		     p['recycle_released_refcnt'] >= 200)(
			d['counters']['devices']['ktn0']['page_pool'],
			d['counters']['devices']['ktn0']['ethtool'])"
	log "ktn0 page pools: $(echo "$doc" | /usr/bin/python3 -c '
import json, sys
print({k: v for k, v in json.load(sys.stdin)["counters"]["devices"]["ktn0"]["page_pool"].items() if v})')"
	ip netns exec "$NS_A" $KTGEN run udp_rr to $NIC_ADDR_B port 5260 msgs 50 req 64 resp 1000 \
		token "$token" |
		grep -q 'ktn0\.page_pool\.alloc_' || fail "no page_pool counter in the text's changed list"
}
case_add nic_page_pool t_nic_page_pool 60 smoke kcsan

# UDP GSO into a device without UDP segmentation offload: the core
# segments the batch before ktn0's transmit, so the driver sends (and
# counts) every 64-byte datagram as a frame, and ktn1's NAPI receives
# them one by one: a verifying sink finds each intact. (veth, which takes
# GSO whole, is udp_gso's case.)
t_nic_udp_gso()
{
	local tx0 tx1 rx doc

	load_module
	NIC_IPV6=0 nic_pair
	ip netns exec "$NS_A" ethtool -k ktn0 | grep -q '^tx-udp-segmentation: off' ||
		fail "ktn0 offers UDP segmentation: $(ip netns exec "$NS_A" ethtool -k ktn0 | grep udp-seg)"
	ip netns exec "$NS_B" $KTGEN sink add udp port 5270 rx verify rcvbuf 16M >/dev/null
	tx0=$(dev_tx_packets "$NS_A" ktn0)
	doc=$(ip netns exec "$NS_A" $KTGEN -j run udp_stream to $NIC_ADDR_B port 5270 msgs 3200 size 64 gso 64)
	echo "$doc" | json_check "$GSO_OK and d['tx']['msgs'] + d['tx']['send_errors'] == 3200 and
		d['rx']['msgs'] > 0"
	tx1=$(dev_tx_packets "$NS_A" ktn0)
	rx=$(echo "$doc" | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["rx"]["msgs"])')
	# A GSO skb would be one packet to the driver (its engine cuts TSO):
	# every datagram received must have been a frame of its own.
	log "gso 64 into ktn0: 3200 datagrams, $((tx1 - tx0)) frames, $rx received;" \
	    "$(ip netns exec "$NS_A" tc -s qdisc show dev ktn0 | grep -o 'dropped [0-9]*' | head -n 1)"
	[ $((tx1 - tx0)) -ge "$rx" ] || fail "gso into ktn0: $((tx1 - tx0)) frames for $rx datagrams received"
}
case_add nic_udp_gso t_nic_udp_gso 60 kcsan

# Sinks that take GRO batches (gro, UDP_GRO): ktn1's NAPI merges a flow's
# 64-byte datagrams, and each read path walks the batch a datagram at a
# time - the skb (verify), recvmsg's UDP_GRO cmsg, user memory - so every
# datagram is counted once, at its own size, intact, in fewer reads than
# datagrams; a sink without gro reads one datagram a read (and the
# sender's end-of-run markers, reads too). The kernel names the attribute
# it refuses. (udp_gso: a veth's GSO skbs, read whole.)
t_udp_gro()
{
	local mode port doc ok

	load_module
	NIC_IPV6=0 nic_pair
	ok="d['state'] == 'done' and d['rx']['msgs'] > 0 and
	    d['rx']['msgs'] + d['rx']['lost'] == 3200 and d['rx']['bytes'] == 64 * d['rx']['msgs'] and
	    d['rx']['verify_errors'] == 0 and d['rx']['bad_headers'] == 0 and d['rx']['dup'] == 0"
	port=5280
	for mode in verify recvmsg user discard; do
		ip netns exec "$NS_B" $KTGEN sink add udp port $port rx $mode $(detached $mode) gro rcvbuf 16M >/dev/null
		doc=$(ip netns exec "$NS_A" $KTGEN -j run udp_stream to $NIC_ADDR_B port $port \
			msgs 3200 size 64)
		echo "$doc" | json_check "$ok and 0 < d['rx']['reads'] < d['rx']['msgs']"
		log "gro, rx $mode: $(echo "$doc" | /usr/bin/python3 -c 'import json, sys
r = json.load(sys.stdin)["rx"]
print("%d datagrams in %d reads, %d lost" % (r["msgs"], r["reads"], r["lost"]))')"
		port=$((port + 1))
	done
	ip netns exec "$NS_B" $KTGEN -j sink show | json_check "[s.get('gro') for s in d] == [True] * 4"
	ip netns exec "$NS_B" $KTGEN sink add udp port $port rx verify rcvbuf 16M >/dev/null
	ip netns exec "$NS_A" $KTGEN -j run udp_stream to $NIC_ADDR_B port $port msgs 3200 size 64 |
		json_check "$ok and d['rx']['reads'] >= d['rx']['msgs']"
	ip netns exec "$NS_B" $KTGEN -j sink show | json_check "'gro' not in d[-1]"

	expect_fail 2 "gro is for udp sinks" $KTGEN sink add tcp port 5290 gro
	expect_fail 1 "gro is for UDP sinks.*\(attribute gro\)" \
		"$KTGEN_NLRAW" sink-new 4:u16:5290 14:flag:1
	$KTGEN -j sink show | json_check "d == []"
}
case_add udp_gro t_udp_gro 180 smoke kcsan

# probe-rx proves the receive path from the kernel's side, on a NIC whose
# styles give a known answer: the module's kprobes count how ktn1's NAPI
# built its skbs over a UDP run's window. At least 90 % as many skbs of the
# style's way as datagrams the sink received (those a loaded guest's socket
# dropped were built too), and >= 90 % of the skbs counted of that way:
# build (napi_build_skb; into a sink taking GRO batches, over a window after
# a warmup: GRO's merges show), legacy-rx (napi_alloc_skb, 1400-byte
# datagrams split: the payload attached as a fragment) and rx-frags
# (napi_get_frags, whose own skb allocation is no copy). An ab whose knob
# leaves the path as it was (dma-nocache) says so. Without kprobes nothing
# is available, and nothing claims 0.
t_nic_rx_proof()
{
	local a style n doc out rc

	load_module
	NIC_IPV6=0 nic_pair
	a="ip netns exec $NS_A"
	ip netns exec "$NS_B" $KTGEN sink add udp port 5300 rx discard rcvbuf 16M >/dev/null
	ip netns exec "$NS_B" $KTGEN sink add udp port 5301 rx discard gro rcvbuf 16M >/dev/null
	if ! grep -qw register_kprobe /proc/kallsyms; then
		$a $KTGEN -j run udp_stream to $NIC_ADDR_B port 5300 msgs 50 size 64 probe-rx |
			json_check "d['probe_rx'] and d['rx_path'] == {'available': []}"
		return 0
	fi
	for style in build legacy frags; do
		nic_style $style
		case $style in
		build)
			doc=$($a $KTGEN -j run udp_stream to $NIC_ADDR_B port 5301 time 0.5 warmup 0.2 \
				size 64 probe-rx) || fail "$style: exit $?"
			n="p['build_skb']" ;;
		legacy|frags)
			doc=$($a $KTGEN -j run udp_stream to $NIC_ADDR_B port 5300 msgs 500 size 1400 \
				probe-rx) || fail "$style: exit $?"
			n="p[{'legacy': 'alloc_skb', 'frags': 'get_frags'}['$style']]" ;;
		esac
		# add_frag, where this kernel lets it be probed (7.2 inlines it),
		# for every split or fragment
		echo "$doc" | json_check "$UDP_DONE and d['probe_rx'] and
			(lambda p, rx: rx >= 250 and $n >= 0.9 * rx and $n >= 0.9 * p['skbs'] and
			 set(['build_skb', 'alloc_skb', 'get_frags', 'gro_merged']) <=
			     set(p['available']) and
			 ('add_frag' in p) == ('add_frag' in p['available']) and
			 ('add_frag' not in p or (p['add_frag'] >= 0.9 * rx) == ('$style' != 'build')) and
			 ('$style' != 'build' or 0 < p['gro_merged'] < p['skbs']))(
			d['rx_path'], d['window']['rx_msgs'] if 'window' in d else d['rx']['msgs'])" ||
			fail "style $style: rx path"
		log "$style: $(echo "$doc" | /usr/bin/python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d.get("window", d["rx"])["rx_msgs" if "window" in d else "msgs"], "received,", d["rx_path"])')"
	done

	# ab: a knob that left the path as it was is said to have
	nic_style build
	rc=0
	out=$($a $KTGEN -j ab repeat 2 a "" b "knob ktn1@$NS_B priv-flag dma-nocache on" \
		show rx_build_pct -- run udp_stream to $NIC_ADDR_B port 5300 msgs 100 size 64 \
		probe-rx 2>/dev/null) || rc=$?
	[ $rc = 0 ] || [ $rc = 1 ] || [ $rc = 3 ] || fail "ab dma-nocache: exit $rc"
	echo "$out" | json_check "d['warnings'] == ['rx path unchanged: both variants built at least 99 %% of their skbs with build_skb in every run (a %.1f %%, b %.1f %%)' %
		(min(d['a']['metrics']['rx_build_pct']['samples']),
		 min(d['b']['metrics']['rx_build_pct']['samples']))]" || fail "ab dma-nocache: no warning"
	log "ab dma-nocache: $(echo "$out" | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["warnings"])')"
}
case_add nic_rx_proof t_nic_rx_proof 120 nodebug

# Unload with traffic on the pair, then a namespace removed under traffic:
# the devices go, the kernel says nothing (run.sh checks).
t_nic_unload()
{
	load_module
	nic_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5240 rx verify >/dev/null
	ip netns exec "$NS_A" $KTGEN run tcp_stream to $NIC_ADDR_B port 5240 time 60 detach \
		>/dev/null || fail "detached run: exit $?"
	ip netns exec "$NS_B" $KTGEN sink add udp port 5241 rx verify >/dev/null
	ip netns exec "$NS_A" $KTGEN run udp_stream to $NIC_ADDR_B port 5241 time 60 detach \
		>/dev/null || fail "detached udp run: exit $?"
	sleep "$(span 1)"
	unload_module || fail "rmmod with traffic on the pair"
	ip -n "$NS_A" link show ktn0 >/dev/null 2>&1 && fail "ktn0 outlived the module"
	ip -n "$NS_B" link show ktn1 >/dev/null 2>&1 && fail "ktn1 outlived the module"

	load_module
	ip netns del "$NS_A"
	ip netns del "$NS_B"
	nic_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5240 rx verify >/dev/null
	id=$(ip netns exec "$NS_A" $KTGEN -j run tcp_stream to $NIC_ADDR_B port 5240 time 60 detach |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])') ||
		fail "detached run: exit $?"
	sleep "$(span 1)"
	ip netns del "$NS_B"
	slowwait "$(scaled 5)" sh -c "! ip -n $NS_A link show ktn0 >/dev/null 2>&1" ||
		fail "ktn0 outlived its peer's namespace"
	# The run whose device vanished: still trying (TCP retransmits into no
	# route), failing (its other flows drain) or failed with the reason,
	# never done; stopped, it says what it sent and that the peer never
	# acknowledged the rest.
	ip netns exec "$NS_A" $KTGEN -j run show "$id" >/tmp/ktg-nu.json
	log "after the device went: $(cat /tmp/ktg-nu.json)"
	json_check "d['state'] in ('running', 'stopping', 'failed') and
		(d['state'] == 'running' or d['errno'] > 0)" </tmp/ktg-nu.json
	if grep -q '"state":"running"' /tmp/ktg-nu.json; then
		ip netns exec "$NS_A" $KTGEN run stop "$id"
	fi
	slowwait "$(scaled 40)" sh -c "ip netns exec $NS_A $KTGEN -j run show $id |
		grep -Eq '\"state\":\"(stopped|failed)\"'" || fail "did not end"
	ip netns exec "$NS_A" $KTGEN -j run show "$id" | json_check "d['tx']['bytes'] > 0 and
		d['tx']['acked'] <= d['tx']['bytes'] and d['state'] in ('stopped', 'failed')"
	unload_module
}
case_add nic_unload t_nic_unload 180

# nicnl ARGS...: tests/vm/nicnl.py, the rtnetlink and ethtool requests ip
# and ethtool do not make.
nicnl()
{
	/usr/bin/python3 "$KTGEN_TESTS/nicnl.py" "$@"
}

# nic_in NS CMD...: CMD in network namespace NS ("-": this one).
nic_in()
{
	local ns=$1

	shift
	if [ "$ns" = - ]; then
		"$@"
	else
		ip netns exec "$ns" "$@"
	fi
}

# nic_cur NS DEV OPT FIELD: FIELD's current setting in `ethtool OPT DEV`
# (-l Combined:, -g RX: or TX:, -c rx-usecs:); nic_most: its maximum.
nic_cur()
{
	nic_in "$1" ethtool "$3" "$2" |
		awk -v f="$4" '/^Current/ { c = 1 } $1 == f { v[c + 0] = $2 }
			END { print (1 in v) ? v[1] : v[0] }'
}

nic_most()
{
	nic_in "$1" ethtool "$3" "$2" | awk -v f="$4" '/^Current/ { exit } $1 == f { print $2; exit }'
}

# nic_left: what a case left of ktgen-nic (devices in any namespace, engine
# threads, ring pages), nothing when all is gone.
nic_left()
{
	local ns

	for ns in - $(ip netns list | awk '{ print $1 }'); do
		nic_in "$ns" ip -d -o link show 2>/dev/null | grep -o '^[0-9]*: [^:@]*.*ktgen-nic' |
			cut -d: -f2
	done
	grep -h '^ktgen-nic/' /proc/[0-9]*/comm 2>/dev/null || true
	[ "$(cat /sys/module/ktgen_nic/parameters/budget_used)" = 0 ] ||
		echo "ring pages: $(cat /sys/module/ktgen_nic/parameters/budget_used) bytes"
}

# Every per-queue array of a device holds 8 entries: rtnetlink's queue
# counts (IFLA_NUM_TX_QUEUES, IFLA_NUM_RX_QUEUES: up to 4096 in the core)
# above that are refused for the device and for its peer, saying which
# attribute, and ethtool offers no more channels than the device has
# queues both ways. The maintainer's reproducer (16 queues, 16 channels,
# up) oopsed in the DMA engine and in transmit, and `ip -d link show`
# read past an array on the stack.
t_nic_queues()
{
	local n

	trap 'ip link del kq0 2>/dev/null || :; ip link del kq2 2>/dev/null || :' EXIT
	load_module
	for n in 9 16 4096; do
		must_refuse "IFLA_NUM_TX_QUEUES" ip link add kq0 numtxqueues $n type ktgen-nic
		must_refuse "IFLA_NUM_RX_QUEUES" ip link add kq0 numrxqueues $n type ktgen-nic
	done
	must_refuse "IFLA_NUM_(TX|RX)_QUEUES" \
		ip link add kq0 numtxqueues 16 numrxqueues 16 type ktgen-nic
	# the peer's own counts (ip gives a ktgen-nic peer none)
	nicnl walk <<-EOT || fail "the peer's queue counts"
	EINVAL:.*IFLA_NUM_TX_QUEUES new kq0 txq 16 peer kq1 txq 16
	EINVAL:.*peer.*IFLA_NUM_TX_QUEUES new kq0 peer kq1 txq 9
	EINVAL:.*peer.*IFLA_NUM_TX_QUEUES new kq0 peer kq1 txq 16
	EINVAL:.*peer.*IFLA_NUM_RX_QUEUES new kq0 peer kq1 rxq 4096
	EINVAL:.*peer.*IFLA_NUM_RX_QUEUES new kq0 txq 8 rxq 8 peer kq1 txq 8 rxq 16
	EOT
	[ -z "$(nic_left)" ] || fail "a refusal left behind: $(nic_left)"
	nicnl walk <<<"ok new kq0 txq 8 rxq 8 peer kq1 txq 8 rxq 8" || fail "8 queues each"
	[ "$(nic_most - kq0 -l Combined:)" = 8 ] || fail "kq0 offers $(nic_most - kq0 -l Combined:) channels"
	must_refuse 'exceeds maximum' ethtool -L kq0 combined 9
	must_refuse 'exceeds maximum' ethtool -L kq1 combined 16
	ethtool -L kq0 combined 8
	ethtool -L kq1 combined 8
	ip link set kq0 up
	ip link set kq1 up
	slowwait "$(scaled 5)" grep -qx 1 /sys/class/net/kq0/carrier ||
		fail "kq0: no carrier with 8 channels"
	# the reproducer's own steps, and its pair's view through ip and ktgen
	ip -d link show kq0 | grep -q 'ktgen-nic' || fail "ip -d link show kq0"
	$KTGEN -j nic show kq0 | json_check "len(d[0]['irq_cpus']) == 8" ||
		fail "kq0's irq-cpus: $($KTGEN nic show kq0)"
	ip link del kq0
	# fewer receive queues than transmit ones: channels are the fewer
	ip link add kq2 numtxqueues 4 numrxqueues 2 type ktgen-nic
	[ "$(nic_most - kq2 -l Combined:)" = 2 ] ||
		fail "kq2 (4 tx, 2 rx queues) offers $(nic_most - kq2 -l Combined:) channels"
	must_refuse 'exceeds maximum' ethtool -L kq2 combined 4
	ip link del kq2
	[ -z "$(nic_left)" ] || fail "left behind: $(nic_left)"
}
case_add nic_queues t_nic_queues 60

# Interrupts the sender's engine held for moderation (rx-usecs on the
# receiver) are raised when that engine parks (a ring change, a reset by
# priv-flag) or stops (link down) right after a burst: every frame it
# placed reaches the receiver's NAPI with no further traffic (nicnl
# burst: the frames and the reset from one process, well inside the 10
# ms the receiver holds its interrupt).
nic_quiet()
{
	[ "$(nic_in_flight)" = 0 ]
}

t_nic_irq_reset()
{
	local op r0 r1

	load_module
	NIC_IPV6=0 nic_pair
	ip netns exec "$NS_B" ethtool -C ktn1 rx-usecs 10000 rx-frames 0
	ip netns exec "$NS_A" ethtool -G ktn0 rx 64 tx 64
	ip netns exec "$NS_A" ethtool --set-priv-flags ktn0 flag-reset on
	r0=$(ip netns exec "$NS_A" ethtool -S ktn0 | awk '$1 == "resets:" { print $2 }')
	for op in "ring 128" "pflags 0xc" down; do
		slowwait "$(scaled 5)" nic_carrier "$NS_B" ktn1 || fail "$op: no carrier"
		[ "$(nic_in_flight)" = 0 ] || fail "before $op: $(nic_in_flight) frames in flight"
		# shellcheck disable=SC2086 # op and its argument
		ip netns exec "$NS_A" /usr/bin/python3 "$KTGEN_TESTS/nicnl.py" burst ktn0 16 $op
		if ! slowwait "$(scaled 2)" nic_quiet; then
			fail "$op right after a burst: $(nic_in_flight) frames ktn0's engine placed never reached ktn1's stack"
		fi
		log "$op: every frame placed was received"
		[ "$op" != down ] || ip -n "$NS_A" link set ktn0 up
	done
	r1=$(ip netns exec "$NS_A" ethtool -S ktn0 | awk '$1 == "resets:" { print $2 }')
	[ $((r1 - r0)) = 2 ] || fail "ktn0 reset $((r1 - r0)) times, want 2"
}
case_add nic_irq_reset t_nic_irq_reset 120

# hostile_rtnl: newlink and changelink walked with hostile link data (the
# walk stops at the first outcome other than the one written).
hostile_rtnl()
{
	local cpus one two eight nine

	cpus=$(nproc)

	one=00000000
	two=${one}01000000
	eight=$two$two$two$two
	nine=$eight$one
	nicnl walk <<-EOT
	# (a refusal by the attribute policies: EINVAL or ERANGE)
	# queue counts, the device's: the core takes 1 to 4096, ktgen-nic 1 to 8
	EINVAL:.*(IFLA_NUM_TX_QUEUES|transmit.queues) new kh0 txq 0
	EINVAL:.*(IFLA_NUM_RX_QUEUES|receive.queues) new kh0 rxq 0
	ok new kh0 txq 1 rxq 1
	ok del kh0
	ok new kh0 txq 8 rxq 8
	ok del kh0
	EINVAL:.*IFLA_NUM_TX_QUEUES new kh0 txq 9
	EINVAL:.*IFLA_NUM_TX_QUEUES new kh0 txq 4096
	EINVAL:.*IFLA_NUM_RX_QUEUES new kh0 rxq 9 txq 1
	EINVAL:.*IFLA_NUM_RX_QUEUES new kh0 rxq 4096
	EINVAL:.*IFLA_NUM_TX_QUEUES new kh0 txq 0xffffffff
	# the peer's
	EINVAL:.*(IFLA_NUM_TX_QUEUES|transmit.queues) new kh0 peer kh1 txq 0
	EINVAL:.*(IFLA_NUM_RX_QUEUES|receive.queues) new kh0 peer kh1 rxq 0
	ok new kh0 peer kh1 txq 1 rxq 1
	ok del kh0
	ok new kh0 txq 1 rxq 1 peer kh1 txq 8 rxq 8
	ok del kh1
	EINVAL:.*peer.*IFLA_NUM_TX_QUEUES new kh0 peer kh1 txq 9
	EINVAL:.*peer.*IFLA_NUM_TX_QUEUES new kh0 peer kh1 txq 4096
	EINVAL:.*peer.*IFLA_NUM_RX_QUEUES new kh0 peer kh1 rxq 9
	EINVAL:.*peer.*IFLA_NUM_RX_QUEUES new kh0 peer kh1 rxq 4096
	# a queue count of the wrong size, the device's and the peer's; a
	# peer attribute shorter than its header
	E(INVAL|RANGE) new kh0 raw 06001f0001000000
	E(INVAL|RANGE) new kh0 peer kh1 raw 06001f0001000000
	E(INVAL|RANGE) new kh0 peerraw 0000
	# irq-cpus: 0, 1, 8 entries, 9 (past the policy), odd lengths, offline
	EINVAL:.*interrupt.CPUs new kh0 irq -
	ok new kh0 irq $one
	ok del kh0
	ok new kh0 irq $eight
	ok set kh0 irq $two
	E(INVAL|RANGE) set kh0 irq $nine
	EINVAL:.*interrupt.CPUs set kh0 irq 000000
	EINVAL:.*interrupt.CPUs set kh0 irq 0000000000
	EINVAL:.*interrupt.CPU.is.not.online set kh0 irq ${one}ffffffff
	EINVAL:.*interrupt.CPU.is.not.online set kh0 irq $(printf '%08x' $((cpus << 24)))
	# dma-cpu: online, past the last, huge; of the wrong size
	ok set kh0 dma 0
	EINVAL:.*DMA.engine.CPU set kh0 dma $cpus
	EINVAL:.*DMA.engine.CPU set kh0 dma 0xffffffff
	E(INVAL|RANGE) set kh0 data 0600020000000000
	# rx-style is reported only; the peer at creation only; queue counts
	# are checked on a change too
	EINVAL set kh0 style 1
	EOPNOTSUPP:.*peer.*creation set kh0 peer kh9
	EINVAL:.*IFLA_NUM_TX_QUEUES set kh0 txq 9
	# attributes ktgen-nic does not know are not its business
	ok set kh0 data 0800090001000000
	ok del kh0
	# the device's and the peer's other attributes: a bad address, MTU,
	# name, namespace
	EADDRNOTAVAIL:.*unicast new kh0 addr 010000000001
	EADDRNOTAVAIL:.*unicast new kh0 peer kh1 addr 010000000001
	EADDRNOTAVAIL:.*unicast new kh0 peer kh1 addr 0200
	EINVAL:.*MTU new kh0 peer kh1 mtu 100000
	EINVAL:.*(mtu|peer) new kh0 peer kh1 mtu 0
	EINVAL:.*mtu new kh0 mtu 0
	E(INVAL|RANGE) new kh0 peer kh1xxxxxxxxxxxxxxxxxxx
	EEXIST new kh0 peer kh0
	ESRCH new kh0 peer kh1 netnspid 999999
	# a peer attribute with trailing garbage (as the core has always
	# taken it): the peer named by the module
	ok new kh0 peerraw 00000000000000000000000000000000ffff0300
	ok del kh0
	EOT
}

# hostile_ethtool NS DEV: every ethtool op ktgen-nic implements, at,
# inside and past its bounds: refused saying why, or taken and read back.
hostile_ethtool()
{
	local x="nic_in $1" d=$2 maxmtu n v a b

	maxmtu=$($x ip -d link show "$d" | sed -n 's/.* maxmtu \([0-9]*\).*/\1/p')
	[ -n "$maxmtu" ] || fail "$d: no maxmtu"
	must_refuse 'channel|Invalid' $x ethtool -L "$d" combined 0
	must_refuse 'exceeds maximum' $x ethtool -L "$d" combined 9
	must_refuse 'exceeds maximum' $x ethtool -L "$d" rx 1
	must_refuse 'exceeds maximum' $x ethtool -L "$d" tx 1 combined 1
	for n in 1 8 2; do
		log "$d: channels $n ($(date +%T))"
		$x ethtool -L "$d" combined $n
		[ "$(nic_cur "$1" "$d" -l Combined:)" = $n ] || fail "$d: channels not $n"
	done
	must_refuse 'power of 2' $x ethtool -G "$d" rx 63
	must_refuse 'power of 2' $x ethtool -G "$d" rx 100
	must_refuse 'power of 2' $x ethtool -G "$d" tx 32
	must_refuse 'exceeds maximum' $x ethtool -G "$d" rx 4097
	must_refuse 'exceeds maximum' $x ethtool -G "$d" tx 65536
	must_refuse 'exceeds maximum' $x ethtool -G "$d" rx-mini 1
	for v in "64 64" "4096 4096" "512 256"; do
		read -r a b <<<"$v"
		log "$d: rings $a $b ($(date +%T))"
		$x ethtool -G "$d" rx "$a" tx "$b"
		[ "$(nic_cur "$1" "$d" -g RX:) $(nic_cur "$1" "$d" -g TX:)" = "$a $b" ] ||
			fail "$d: rings not $a $b: $($x ethtool -g "$d")"
	done
	must_refuse 'at most 10000' $x ethtool -C "$d" rx-usecs 10001
	must_refuse 'at most 4096' $x ethtool -C "$d" rx-frames 4097
	must_refuse 'at most' $x ethtool -C "$d" rx-usecs 4294967295
	must_refuse 'unsupported|not supported' $x ethtool -C "$d" tx-usecs 1
	for v in "10000 4096" "1000 0" "0 0"; do
		read -r a b <<<"$v"
		$x ethtool -C "$d" rx-usecs "$a" rx-frames "$b"
		[ "$(nic_cur "$1" "$d" -c rx-usecs:) $(nic_cur "$1" "$d" -c rx-frames:)" = "$a $b" ] ||
			fail "$d: coalescing not $a $b"
	done
	must_refuse 'Invalid' $x ethtool --set-priv-flags "$d" legacy-rx on rx-frags on
	for v in legacy-rx rx-frags dma-nocache quiet-reset flag-reset; do
		$x ethtool --set-priv-flags "$d" $v on
		$x ethtool --show-priv-flags "$d" | grep -Eq "^$v *: on" || fail "$d: $v not on"
		[ $v = flag-reset ] || [ $v = quiet-reset ] || $x ethtool --set-priv-flags "$d" $v off
	done
	# with flag-reset, a style change resets the device
	$x ethtool --set-priv-flags "$d" rx-frags on
	$x ethtool --set-priv-flags "$d" rx-frags off flag-reset off quiet-reset off
	$x ethtool --show-priv-flags "$d" | grep -q ': on' && fail "$d: a flag stayed on"
	for v in 0 $((maxmtu + 18)); do
		$x ethtool --set-tunable "$d" rx-copybreak $v
		$x ethtool --get-tunable "$d" rx-copybreak | grep -q "rx-copybreak: $v$" ||
			fail "$d: rx-copybreak not $v"
	done
	must_refuse 'Invalid' $x ethtool --set-tunable "$d" rx-copybreak $((maxmtu + 19))
	must_refuse 'Invalid' $x ethtool --set-tunable "$d" rx-copybreak 4294967295
	$x ethtool --set-tunable "$d" rx-copybreak 0
	must_refuse 'mtu|MTU|range' $x ip link set "$d" mtu 67
	must_refuse 'mtu|MTU|range' $x ip link set "$d" mtu $((maxmtu + 1))
	for v in 68 "$maxmtu" 1500; do
		$x ip link set "$d" mtu "$v"
		$x ip link show "$d" | grep -q " mtu $v " || fail "$d: mtu not $v"
	done
}

# hostile_flapped NS DEV: what resets DEV (channels, rings, a style
# change with flag-reset, the MTU) while it goes down and up, at and past
# the bounds; DEV as asked at the end.
hostile_flapped()
{
	local x="nic_in $1" d=$2

	must_refuse 'exceeds maximum' $x ethtool -L "$d" combined 9
	$x ethtool -L "$d" combined 8
	$x ethtool -L "$d" combined 1
	must_refuse 'power of 2' $x ethtool -G "$d" rx 32
	$x ethtool -G "$d" rx 4096 tx 64
	$x ethtool -G "$d" rx 64 tx 4096
	$x ethtool --set-priv-flags "$d" flag-reset on legacy-rx on
	must_refuse 'Invalid' $x ethtool --set-priv-flags "$d" rx-frags on
	$x ethtool --set-priv-flags "$d" legacy-rx off rx-frags on
	$x ethtool -C "$d" rx-usecs 10000 rx-frames 1
	$x ip link set "$d" mtu 68
	$x ip link set "$d" mtu 1500
	$x ethtool --set-priv-flags "$d" rx-frags off flag-reset off
	$x ethtool -C "$d" rx-usecs 0 rx-frames 0
	$x ethtool -G "$d" rx 512 tx 256
	$x ethtool -L "$d" combined 2
	[ "$(nic_cur "$1" "$d" -l Combined:) $(nic_cur "$1" "$d" -g RX:)" = "2 512" ] ||
		fail "$d after the flapped walk: $($x ethtool -l "$d") $($x ethtool -g "$d")"
}

# Hostile values through rtnetlink (nicnl.py: what ip cannot send) and
# every ethtool op ktgen-nic has, on a pair carrying UDP, one end going
# down and up for part of it: each value refused saying why, or taken and
# read back; the pair still carries traffic after, the kernel said nothing
# (run.sh), nothing is left.
t_nic_hostile()
{
	local flap run docs

	trap 'ip link del kh0 2>/dev/null || :; ip link del kh1 2>/dev/null || :' EXIT
	load_module
	hostile_rtnl || fail "rtnetlink walk"
	[ -z "$(nic_left)" ] || fail "the walk left behind: $(nic_left)"
	# the same, and flapped, with traffic running
	NIC_IPV6=0 nic_pair
	ip netns exec "$NS_B" $KTGEN sink add udp port 5290 rx verify >/dev/null
	docs=$(mktemp)
	ip netns exec "$NS_A" $KTGEN -j run udp_stream to $NIC_ADDR_B port 5290 \
		time "$(span 300)" size 1000 rate 2000pps >"$docs" &
	run=$!
	hostile_ethtool "$NS_A" ktn0 || { cat "$docs"; exit 1; }
	log "run after ktn0's walk: $(kill -0 $run 2>/dev/null && echo running || head -c 600 "$docs")"
	(
		while :; do
			ip -n "$NS_B" link set ktn1 down
			sleep 0.2
			ip -n "$NS_B" link set ktn1 up
			sleep 0.2
		done
	) &
	flap=$!
	hostile_flapped "$NS_B" ktn1
	kill $flap
	wait $flap 2>/dev/null || true
	ip -n "$NS_B" link set ktn1 up
	kill -TERM $run 2>/dev/null || true
	wait $run || log "the run under the walk ended with status $?"
	# stopped, or failed by what the resets did to the flow (a reset
	# drops what the rings held): never a corrupted datagram
	json_check "d['state'] in ('stopped', 'done', 'failed') and
		d.get('rx', {}).get('verify_errors', 0) == 0 and
		d.get('rx', {}).get('bad_headers', 0) == 0" <"$docs" ||
		fail "the run under the walk: $(cat "$docs")"
	log "run under the walk: $(/usr/bin/python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["state"], d.get("errno", 0), d["tx"], d.get("rx"))' <"$docs");" \
		"ktn1's namespace: $(ip netns exec "$NS_B" awk '/^Udp:/' /proc/net/snmp | tail -n 1)"
	slowwait "$(scaled 5)" nic_carrier "$NS_B" ktn1 || fail "ktn1: no carrier after the walk"
	ip netns exec "$NS_A" $KTGEN -j run udp_stream to $NIC_ADDR_B port 5290 msgs 500 size 64 |
		json_check "$UDP_DONE and d['rx']['msgs'] > 0" || fail "the pair after the walk"
	ip netns exec "$NS_B" $KTGEN sink del all
	ip netns exec "$NS_A" $KTGEN nic del ktn0
	[ -z "$(nic_left)" ] || fail "left behind: $(nic_left)"
	kmemleak_check
}
case_add nic_hostile t_nic_hostile 300

# The link fuzzer (nlfuzz -L): three threads draw ktgen-nic's rtnetlink
# requests (new with the peer's own attributes, change, delete, up and
# down; the link data from the spec's policy of the nic set; queue counts,
# MTUs, names) and ethtool's sets (channels, rings, coalescing, private
# flags, the bounds read back first), valid, broken one attribute at a
# time, or garbage, while datagrams cross a pair in two namespaces that
# they reconfigure and flap. Each answer is judged: a valid request
# succeeds or extack says why, a broken one is refused (at its attribute
# where ktgen-nic or a policy refuses it), none waits 10 s. Then the pair
# carries traffic again, every device made deletes, none is left, and
# the module unloads. Every kind must have been both accepted and refused.
t_fuzz_link()
{
	local out rc=0 k

	load_module
	out=$(mktemp)
	# 20 s on every kernel: a slower one sends fewer requests, each
	# judged the same (the debug lane's turn has no room for more)
	"$KTGEN_NLFUZZ" -L -s 1 -t 20 -j 3 >"$out" || rc=$?
	cat "$out"
	[ "$rc" = 0 ] || fail "nlfuzz -L exited $rc"
	# "# nlfuzz: KIND sent N accepted N explained N budget N refused N
	# located N garbage N"
	for k in newlink changelink dellink updown channels rings coalesce privflags; do
		awk -v k=$k '$3 == k && $5 >= 10 && $7 >= 1 && $13 >= 1 &&
			(k != "newlink" || $15 >= 1) { ok = 1 } END { exit !ok }' "$out" ||
			fail "$k: too few requests, none accepted or none refused"
	done
	awk '$3 == "traffic" && $7 > 0 { ok = 1 } END { exit !ok }' "$out" ||
		fail "no datagram crossed the pair during the fuzz"
	[ -z "$(nic_left)" ] || fail "left behind: $(nic_left)"
	unload_module || fail "the modules do not unload"
	kmemleak_check
}
case_add fuzz_link t_fuzz_link 300
