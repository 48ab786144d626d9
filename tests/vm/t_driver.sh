#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The real-driver lane (vm-suite.sh SUITE-nic: vm-run.sh -n, QEMU 10's igb,
# e1000e and virtio-net, two of each wired together on a hub): traffic
# leaves one real driver and enters another, each end in a namespace of
# its own, as the kernel's driver tests run in NIPA. The data path in
# every tx path and rx mode, request/response, and the knobs the drivers
# really have, each put back after its run. Cases tagged "driver" run in
# this lane only, and this lane runs nothing else.

# each driver of the lane's guest in turn: FN DRIVER with its pair up
each_driver()
{
	local d

	for d in $KTGEN_DRIVERS; do
		driver_pair "$d"
		"$@" "$d"
		driver_unpair
	done
}

drv_tcp_one()
{
	PAIRS_REDUCED=1 tcp_matrix "ip netns exec $NS_A" "ip netns exec $NS_B" 10.78.0.2 fd78::2
	log "$1: the tcp matrix above crossed $1 both ways of its hub"
}

# Every tx path against verify, every rx mode against stack, IPv4 and
# IPv6, TCP: acked == sent == received on each driver.
t_drv_tcp()
{
	load_module
	each_driver drv_tcp_one
}
case_add drv_tcp t_drv_tcp 600 driver

drv_udp_one()
{
	udp_matrix "ip netns exec $NS_A" "ip netns exec $NS_B" 10.78.0.2 fd78::2
	log "$1: the udp matrix above crossed $1"
}

# UDP the same way: sent == received + lost, exactly, on each driver.
t_drv_udp()
{
	load_module
	each_driver drv_udp_one
}
case_add drv_udp t_drv_udp 600 driver

drv_rr_one()
{
	local docs

	docs=$(mktemp)
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5410 rx copy rr >/dev/null
	ip netns exec "$NS_B" $KTGEN sink add udp port 5411 rx copy rr >/dev/null
	ip netns exec "$NS_A" $KTGEN -j run tcp_rr to 10.78.0.2 port 5410 msgs 200 req 1400 resp 1 >>"$docs" ||
		fail "$1: tcp_rr: exit $?"
	ip netns exec "$NS_A" $KTGEN -j run tcp_rr to fd78::2 port 5410 msgs 100 req 14000 resp 14000 >>"$docs" ||
		fail "$1: tcp_rr 14000/14000 over IPv6: exit $?"
	ip netns exec "$NS_A" $KTGEN -j run tcp_crr to 10.78.0.2 port 5410 msgs 50 req 100 resp 100 >>"$docs" ||
		fail "$1: tcp_crr: exit $?"
	json_check_each "d['state'] == 'done' and d['latency']['transactions'] == d['tx']['msgs'] > 0" <"$docs" ||
		fail "$1: a tcp transaction lost"
	: >"$docs"
	ip netns exec "$NS_A" $KTGEN -j run udp_rr to 10.78.0.2 port 5411 msgs 200 req 64 resp 64 >>"$docs" ||
		fail "$1: udp_rr: exit $?"
	json_check "d['state'] == 'done' and d['latency']['transactions'] + d['latency'].get('timeouts', 0) == 200 and
		d['latency']['transactions'] > 0" <"$docs" || fail "$1: udp_rr: $(cat "$docs")"
	log "$1: tcp_rr 1400/1 and 14000/14000, tcp_crr, udp_rr: every transaction answered"
	rm -f "$docs"
}

# Request/response over each driver: every transaction answered once.
t_drv_rr()
{
	load_module
	each_driver drv_rr_one
}
case_add drv_rr t_drv_rr 300 driver

# igb's legacy-rx private flag (copy-style receive instead of build_skb),
# the knob of recipe 02: set for a run on the receiving igb, which igb
# applies by resetting the device (igb_reinit_locked: the carrier goes and
# comes back); the knob waits for the reset, the run's datagrams are all
# accounted for, and the flag is put back after it.
t_drv_legacy_rx()
{
	local doc

	[[ " $KTGEN_DRIVERS " == *" igb "* ]] ||
		skip "rotation: igb is not in this run of the real-driver lane (make check: every third)"
	load_module
	driver_pair igb
	ip netns exec "$NS_B" ethtool --show-priv-flags kd1 | grep -q '^legacy-rx *: *off' ||
		fail "igb: legacy-rx is not off to begin with: $(ip netns exec "$NS_B" ethtool --show-priv-flags kd1)"
	ip netns exec "$NS_B" $KTGEN sink add udp port 5420 rx verify >/dev/null
	doc=$(ip netns exec "$NS_A" $KTGEN -j run udp_stream to 10.78.0.2 port 5420 msgs 3000 size 64 \
		knob "kd1@$NS_B" priv-flag legacy-rx on) || fail "legacy-rx on for a run: exit $?"
	echo "$doc" | json_check "d['state'] == 'done' and d['tx']['msgs'] > 0 and
		d['rx']['msgs'] - d['rx']['dup'] + d['rx']['lost'] == d['tx']['msgs'] and
		d['rx']['verify_errors'] == 0" || fail "legacy-rx run: $doc"
	echo "$doc" | json_check "[(k['knob'], k.get('name'), k['before'], k['after'], k['reset'])
		for k in d['knobs']] == [('priv-flag', 'legacy-rx', 'off', 'on', True)]" ||
		fail "legacy-rx: the knob's record: $(echo "$doc" | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin).get("knobs"))')"
	ip netns exec "$NS_B" ethtool --show-priv-flags kd1 | grep -q '^legacy-rx *: *off' ||
		fail "igb: legacy-rx not put back"
	ip -n "$NS_B" link show kd1 | grep -q LOWER_UP || fail "igb: no carrier after the knob was put back"
	log "igb legacy-rx on for a run: the device reset, every datagram accounted for, the flag put back"
	[ "$(uname -m)" = x86_64 ] && grep -qw register_kprobe /proc/kallsyms || return 0

	# probe-rx proves the flag changed the path: with it igb copies each
	# 64-byte datagram into an skb it allocates (igb_construct_skb),
	# without it builds the skb around its buffer (igb_build_skb). Timed
	# runs: the knob's reset gives the run a warmup, the window follows.
	doc=$(ip netns exec "$NS_A" $KTGEN -j run udp_stream to 10.78.0.2 port 5420 time 1 size 64 \
		probe-rx knob "kd1@$NS_B" priv-flag legacy-rx on) || fail "legacy-rx on, probe-rx: exit $?"
	echo "$doc" | json_check "d['state'] == 'done' and
		(lambda p, rx: rx > 0 and p['alloc_skb'] >= 0.9 * rx and p['alloc_pct'] >= 90)(
			d['rx_path'], d['window']['rx_msgs'])" || fail "igb legacy-rx on: rx path"
	log "igb legacy-rx on: $(echo "$doc" | rx_path_line)"
	doc=$(ip netns exec "$NS_A" $KTGEN -j run udp_stream to 10.78.0.2 port 5420 time 1 size 64 \
		probe-rx) || fail "legacy-rx off, probe-rx: exit $?"
	echo "$doc" | json_check "d['state'] == 'done' and
		(lambda p, rx: rx > 0 and p['build_skb'] >= 0.9 * rx and p['build_pct'] >= 90)(
			d['rx_path'], d['rx']['msgs'])" || fail "igb legacy-rx off: rx path"
	log "igb legacy-rx off: $(echo "$doc" | rx_path_line)"
}

# A run's document on stdin: "N received, {rx path}".
rx_path_line()
{
	/usr/bin/python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d.get("window", d["rx"])["rx_msgs" if "window" in d else "msgs"], "received,", d["rx_path"])'
}
case_add drv_legacy_rx t_drv_legacy_rx 180 driver

# A parameter of the receiving device's driver module as a run's knob
# (param), on each driver in turn. e1000e reads copybreak for every frame
# (frames shorter are copied into a fresh skb, the buffer kept): set for a
# run of 64-byte datagrams, by 0 and by 0x40 (the kernel's file reads 64:
# the knob takes it as the same number), every datagram accounted for, the
# parameter put back; the rx-copybreak tunable it lacks points to it.
# virtio_net's csum is read-only (mode 0444): refused
# before anything is written, naming modprobe. igb has no parameter in
# sysfs: the one asked for is refused, saying so. Nothing is left changed.
drv_param_one()
{
	local d=$1 doc p0 v

	ip netns exec "$NS_B" $KTGEN sink add udp port 5430 rx verify >/dev/null
	case $d in
	e1000e)
		p0=$(cat /sys/module/e1000e/parameters/copybreak)
		for v in 0:0 0x40:64; do
			doc=$(ip netns exec "$NS_A" $KTGEN -j run udp_stream to 10.78.0.2 port 5430 \
				msgs 2000 size 64 knob "kd1@$NS_B" param copybreak "${v%:*}") ||
				fail "copybreak ${v%:*} for a run: exit $?"
			echo "$doc" | json_check "d['state'] == 'done' and d['tx']['msgs'] > 0 and
				d['rx']['msgs'] - d['rx']['dup'] + d['rx']['lost'] == d['tx']['msgs'] and
				d['rx']['verify_errors'] == 0 and
				[(k['knob'], k['name'], k['before'], k['after'], k['reset']) for k in d['knobs']] ==
				[('param', 'copybreak', '$p0', '${v#*:}', False)]" ||
				fail "e1000e copybreak ${v%:*}: $doc"
			[ "$(cat /sys/module/e1000e/parameters/copybreak)" = "$p0" ] ||
				fail "e1000e: copybreak not put back: $(cat /sys/module/e1000e/parameters/copybreak)"
		done
		log "e1000e copybreak 0 and 0x40 for a run each: every datagram accounted for, $p0 put back"
		# its rx-copybreak is not a tunable: the error says what is
		expect_fail 1 "tunable rx-copybreak: the driver has no such tunable \\(its module's parameter is one: the knob param copybreak BYTES\\)" \
			ip netns exec "$NS_B" $KTGEN dev set kd1 tunable rx-copybreak 0 ;;
	virtio)
		p0=$(cat /sys/module/virtio_net/parameters/csum)
		expect_fail 1 "param csum: virtio_net's csum is read-only: it is set when the module loads \\(modprobe virtio_net csum=...\\)" \
			ip netns exec "$NS_A" $KTGEN run udp_stream to 10.78.0.2 port 5430 msgs 10 \
			knob "kd1@$NS_B" param csum N
		[ "$(cat /sys/module/virtio_net/parameters/csum)" = "$p0" ] || fail "virtio_net: csum changed" ;;
	*)
		expect_fail 1 "$d has no parameter 'copybreak' \\(it has" \
			ip netns exec "$NS_A" $KTGEN run udp_stream to 10.78.0.2 port 5430 msgs 10 \
			knob "kd1@$NS_B" param copybreak 0 ;;
	esac
	ip netns exec "$NS_A" $KTGEN run del all
	ip netns exec "$NS_B" $KTGEN sink del all
}
t_drv_param()
{
	load_module
	each_driver drv_param_one
}
case_add drv_param t_drv_param 180 driver

# One recipe of examples/ on each driver, in the form a driver developer's
# lab gives it: the kernel's driver-test convention (NETIF, LOCAL_V4,
# REMOTE_V4, REMOTE_TYPE=netns, REMOTE_ARGS: tools/testing/selftests/
# drivers/net/README.rst), this end in one namespace and the far end's NIC
# in the other, shortened. igb: 02 (legacy-rx, the far end's own flag);
# e1000e: 01 (tx-nocache-copy); virtio-net: 05 (tcp_rr). Each prints its
# table and verdict (0, 1 or 3), and the far end is left as it was: no
# sink, the flag back.
drv_recipe_one()
{
	local ex out rc=0

	case $1 in
	igb) ex=02 ;;
	e1000e) ex=01 ;;
	*) ex=05 ;;
	esac
	ex=$(ls "$KTGEN_TOP"/examples/"$ex"-*.sh)
	out=$(ip netns exec "$NS_A" env KTGEN="$KTGEN" NET_CONFIG=/dev/null NETIF=kd0 \
		LOCAL_V4=10.78.0.1 REMOTE_V4=10.78.0.2 REMOTE_TYPE=netns REMOTE_ARGS="$NS_B" \
		"$ex" -n 2 -t 1 2>&1) || rc=$?
	recipe_ran "$1: $(basename "$ex")" "$rc" "$out"
	[ "$(ip netns exec "$NS_B" $KTGEN -j sink show)" = "[]" ] ||
		fail "$1: $(basename "$ex") left a sink at the far end: $(ip netns exec "$NS_B" $KTGEN sink show)"
	if [ "$1" = igb ]; then
		ip netns exec "$NS_B" ethtool --show-priv-flags kd1 | grep -q '^legacy-rx *: *off' ||
			fail "igb: 02 left legacy-rx on"
	fi
	log "$1: $(basename "$ex") in the kernel's netns form: exit $rc, $(echo "$out" | tail -n 1)"
}

t_drv_recipes()
{
	load_module
	each_driver drv_recipe_one
}
case_add drv_recipes t_drv_recipes 600 driver
