#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Rates only a native kernel reaches: User-Mode Linux (the "native" tag:
# registered in the uml lane only, KTGEN_UML) runs one flow at 20-100
# Gbit/s where TCG runs it at 1-5. What must hold there: 64-bit counts past
# every 32-bit edge with every byte checked, UDP's sums exact at half a
# million datagrams a second, a thousand flows adding up, intervals tiling
# a run at that rate. Over t_engine.sh's veth pair.

# 6 GiB in one flow, each copy path: sent, acknowledged (TCP's 64-bit
# bytes_acked) and received agree. The staged paths (cached, nocache:
# pages reused as the stack lets go of them) are verified byte for byte.
t_native_6g_verify()
{
	local tx port

	load_module
	veth_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 6500 rx discard >/dev/null
	ip netns exec "$NS_B" $KTGEN sink add tcp port 6504 rx verify >/dev/null
	for tx in stack cached nocache zerocopy; do
		port=6500
		[ "$tx" = cached ] || [ "$tx" = nocache ] && port=6504
		ip netns exec "$NS_A" $KTGEN -j run tcp_stream to 10.77.0.2 port $port \
			bytes 6G tx "$tx" | json_check "
			d['state'] == 'done' and d['tx']['bytes'] == 6 << 30 and
			d['tx']['acked'] == 6 << 30 and d['rx']['bytes'] == 6 << 30 and
			d['per_flow'][0]['acked'] == 6 << 30 and
			d['rx']['verify_errors'] == 0 and d['rx']['bad_headers'] == 0" ||
			fail "tx $tx: 6 GiB not sent, acked and received exactly"
	done
}
case_add native_6g_verify t_native_6g_verify 300 native

# UDP at UML's rate: every datagram sent is received, lost or refused at
# the receiving socket, and the run and the sink count the same.
t_native_udp_exact()
{
	local size

	load_module
	veth_pair
	ip netns exec "$NS_B" $KTGEN sink add udp port 6501 rx verify >/dev/null
	for size in 1400 64; do
		ip netns exec "$NS_A" $KTGEN -j run udp_stream to 10.77.0.2 port 6501 \
			size "$size" time 2 | json_check "
			d['state'] == 'done' and d['tx']['msgs'] > 100000 and
			d['tx']['msgs'] == d['rx']['msgs'] - d['rx']['dup'] + d['rx']['lost'] and
			d['tx']['bytes'] == d['tx']['msgs'] * $size and
			d['rx']['verify_errors'] == 0 and d['rx']['bad_headers'] == 0" ||
			fail "udp $size: sent != received + lost"
	done
}
case_add native_udp_exact t_native_udp_exact 120 native

# The most flows a run takes, at once, for 2 s: each one's counts add up
# to the run's, and every byte sent is acknowledged and received.
t_native_1024_flows()
{
	load_module
	veth_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 6502 rx discard >/dev/null
	ip netns exec "$NS_A" $KTGEN -j run tcp_stream to 10.77.0.2 port 6502 \
		flows 1024 time 2 tx cached | json_check "
		d['state'] == 'done' and len(d['per_flow']) == 1024 and
		all(f['bytes'] > 0 for f in d['per_flow']) and
		sum(f['bytes'] for f in d['per_flow']) == d['tx']['bytes'] and
		sum(f['acked'] for f in d['per_flow']) == d['tx']['acked'] and
		d['tx']['acked'] == d['tx']['bytes'] and d['rx']['bytes'] == d['tx']['bytes']" ||
		fail "1024 flows: the counts do not add up"
}
case_add native_1024_flows t_native_1024_flows 180 native

# Intervals at 10 a second over a flow moving gigabytes a second: they
# tile the run and carry its bytes (what the last one missed is at most
# two intervals' worth).
t_native_intervals()
{
	load_module
	veth_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 6503 rx discard >/dev/null
	ip netns exec "$NS_A" $KTGEN -j run tcp_stream to 10.77.0.2 port 6503 \
		time 3 interval 0.1 | json_check "
		d['state'] == 'done' and len(d['intervals']) >= 25 and
		[i['interval'] for i in d['intervals']] == list(range(1, len(d['intervals']) + 1)) and
		all(a['end_ns'] == b['start_ns'] for a, b in zip(d['intervals'], d['intervals'][1:])) and
		all(i['tx_bytes'] > 0 for i in d['intervals']) and
		d['tx']['bytes'] > 4 << 30 and
		0 <= d['tx']['bytes'] - sum(i['tx_bytes'] for i in d['intervals']) <=
		     2 * max(i['tx_bytes'] for i in d['intervals']) and
		0 <= d['rx']['bytes'] - sum(i['rx_bytes'] for i in d['intervals']) <=
		     2 * max(i['rx_bytes'] for i in d['intervals'])" ||
		fail "intervals do not tile the run"
}
case_add native_intervals t_native_intervals 120 native
