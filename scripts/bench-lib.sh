# SPDX-License-Identifier: GPL-2.0
#
# bench-lib.sh: what the benchmarks share inside the guest (sourced).

# bench_veth_pair NS_A DEV_A ADDR_A NS_B DEV_B ADDR_B: a veth pair between
# two namespaces that exist, each end with its /24 address, both up.
bench_veth_pair()
{
	local na=$1 da=$2 aa=$3 nb=$4 db=$5 ab=$6

	ip link add "$da" netns "$na" type veth peer name "$db" netns "$nb"
	ip -n "$na" addr add "$aa/24" dev "$da"
	ip -n "$nb" addr add "$ab/24" dev "$db"
	ip -n "$na" link set "$da" up
	ip -n "$nb" link set "$db" up
}

# bench_veth NS_A DEV_A ADDR_A NS_B DEV_B ADDR_B: two namespaces joined by
# a veth pair (bench_veth_pair), loopback up in each.
bench_veth()
{
	ip netns add "$1"
	ip netns add "$4"
	bench_veth_pair "$@"
	ip -n "$1" link set lo up
	ip -n "$4" link set lo up
}

# bench_nic KTGEN NS_A DEV_A ADDR_A NS_B DEV_B ADDR_B: the same over a pair
# of ktgen's virtual NICs (ktgen nic add), up with carrier, in namespaces
# that exist already.
bench_nic()
{
	local k=$1 na=$2 da=$3 aa=$4 nb=$5 db=$6 ab=$7 _

	"$k" nic add "$da" peer "$db" netns "$na" peer-netns "$nb" >/dev/null
	ip -n "$na" addr add "$aa/24" dev "$da"
	ip -n "$nb" addr add "$ab/24" dev "$db"
	ip -n "$na" link set "$da" up
	ip -n "$nb" link set "$db" up
	for _ in $(seq 50); do
		[ "$(ip netns exec "$na" cat "/sys/class/net/$da/carrier" 2>/dev/null)" = 1 ] && return 0
		sleep 0.1
	done
	echo "bench: $da has no carrier" >&2
	return 1
}

# bench_tools SCRIPTS_DIR: the benchmarked tools (Debian bookworm's
# iperf3, netperf from non-free, sockperf), unpacked once; their root.
bench_tools()
{
	"$1/deb-root.sh" bench-tools bookworm iperf3 libiperf0 libsctp1 netperf sockperf \
		-- usr/bin/iperf3 usr/bin/netperf usr/bin/netserver usr/bin/sockperf
}
