# SPDX-License-Identifier: GPL-2.0
# What the recipes share: sourced by each, never run.
#
# Two hosts (this one sends; ktgen on both, ssh to the peer as root):
#   ./01-tx-nocache-copy.sh -i eth0 -a 192.168.50.2 -p ssh://root@dut2 [-r eth1]
#                           [-n RUNS] [-t SECS] [-c CPU] [-f FLOWS]
#     -i  this host's device      -a  the peer's address    -p  the peer, over ssh
#     -r  the peer's device (receive-side knobs)            -n  runs a variant
#     -t  seconds a run           -c  the sending CPU       -f  flows (03, 05)
# Or as the kernel's driver tests are pointed at a NIC (tools/testing/
# selftests/drivers/net/README.rst), from the environment or a net.config
# file beside the recipes (NET_CONFIG=FILE: another), the file first:
#   NETIF=eth0 LOCAL_V4=192.0.2.1 REMOTE_V4=192.0.2.2 (or _V6, IPv6 first)
#   REMOTE_TYPE=ssh REMOTE_ARGS=root@dut2    the far end over ssh
#   REMOTE_TYPE=netns REMOTE_ARGS=ns1        the far end's NIC in namespace ns1
# (the far end's device is the one holding REMOTE_V4/V6 there).
# No arguments: on a ktgen-nic pair this script makes between two network
# namespaces (root, the module loadable), shortened; it goes afterwards.
# Each recipe prints ktgen's table and verdict and exits with ktgen's code:
# 0 no regression, 1 regression, 2 usage, 3 inconclusive, 4 infrastructure.

set -u
KTGEN=${KTGEN:-ktgen}
IF= RIF= ADDR= PEER_URL= RUNS= SECS= CPU=0 VM=0 FLOWS_OPT=
# the far end in a namespace of this host (REMOTE_TYPE=netns)
FAR_NS=
NS_A=ktgex-a NS_B=ktgex-b

usage()
{
	sed -n '/^# Two hosts/,/^# 0 no regression/p' "$(dirname "$0")/lib.sh" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

NET_VARS="NETIF LOCAL_V4 LOCAL_V6 REMOTE_V4 REMOTE_V6 REMOTE_TYPE REMOTE_ARGS"

# net_config FILE: its NAME=VALUE lines into the environment, over what
# was there (as the kernel's tests read it). Read, never sourced: a name
# not of the convention, a line that is not an assignment or a value with
# more than a device, address, host or namespace name needs is refused,
# with its line.
net_config()
{
	local f=$1 line n=0 name val

	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		line=${line%%#*}
		line=${line#"${line%%[![:space:]]*}"}
		line=${line%"${line##*[![:space:]]}"}
		[ -n "$line" ] || continue
		name=${line%%=*} val=${line#*=}
		if [ "$name" = "$line" ] || [[ " $NET_VARS " != *" $name "* ]]; then
			echo "$f:$n: not one of $NET_VARS: '$line'" >&2
			exit 2
		fi
		[[ $val == \"*\" ]] && val=${val:1:${#val}-2}
		if ! [[ $val =~ ^[A-Za-z0-9_.:@%/+-]*$ ]]; then
			echo "$f:$n: $name: not a device, address, host or namespace name: '$val'" >&2
			exit 2
		fi
		export "$name=$val"
	done <"$f"
}

while getopts i:r:a:p:n:t:c:f:h opt; do
	case $opt in
	i) IF=$OPTARG ;;
	r) RIF=$OPTARG ;;
	a) ADDR=$OPTARG ;;
	p) PEER_URL=$OPTARG ;;
	n) RUNS=$OPTARG ;;
	t) SECS=$OPTARG ;;
	c) CPU=$OPTARG ;;
	f) FLOWS_OPT=$OPTARG ;;
	*) usage ;;
	esac
done

# the far end's device: the one holding address $1 there
far_dev()
{
	local out

	if [ -n "$FAR_NS" ]; then
		out=$(ip -n "$FAR_NS" -o addr show to "$1")
	else
		out=$(${KTGEN_SSH:-ssh} "${PEER_URL#ssh://}" ip -o addr show to "$1")
	fi || return
	[ "$(echo "$out" | grep -c .)" = 1 ] || return
	echo "$out" | awk '{ print $2 }'
}

# From the kernel's convention, unless the options name two hosts.
if [ -z "$IF$ADDR$PEER_URL" ]; then
	cfg=${NET_CONFIG:-$(dirname "$0")/net.config}
	if [ -n "${NET_CONFIG:-}" ] && [ ! -r "$cfg" ]; then
		echo "$0: NET_CONFIG=$cfg: cannot be read" >&2
		exit 2
	fi
	[ -e "$cfg" ] && net_config "$cfg"
fi
if [ -z "$IF$ADDR$PEER_URL" ] && [ -n "${NETIF:-}" ]; then
	missing=
	[ -n "${LOCAL_V4:-}${LOCAL_V6:-}" ] || missing+=" LOCAL_V4|LOCAL_V6"
	[ -n "${REMOTE_V4:-}${REMOTE_V6:-}" ] || missing+=" REMOTE_V4|REMOTE_V6"
	# each family both ends or neither
	[ "${LOCAL_V4:+1}" = "${REMOTE_V4:+1}" ] || missing+=" LOCAL_V4+REMOTE_V4"
	[ "${LOCAL_V6:+1}" = "${REMOTE_V6:+1}" ] || missing+=" LOCAL_V6+REMOTE_V6"
	[ -n "${REMOTE_TYPE:-}" ] || missing+=" REMOTE_TYPE"
	[ -n "${REMOTE_ARGS:-}" ] || missing+=" REMOTE_ARGS"
	if [ -n "$missing" ]; then
		echo "$0: NETIF=$NETIF wants too:$missing (tools/testing/selftests/drivers/net/README.rst)" >&2
		exit 2
	fi
	IF=$NETIF ADDR=${REMOTE_V6:-$REMOTE_V4}
	case $REMOTE_TYPE in
	ssh) PEER_URL=ssh://$REMOTE_ARGS ;;
	netns) FAR_NS=$REMOTE_ARGS ;;
	*) echo "$0: REMOTE_TYPE=$REMOTE_TYPE: netns or ssh" >&2; exit 2 ;;
	esac
	[ -n "$RIF" ] || RIF=$(far_dev "$ADDR") || {
		echo "$0: no single device holds $ADDR at the far end ($REMOTE_TYPE $REMOTE_ARGS)" >&2
		exit 4
	}
elif [ -z "$IF$ADDR$PEER_URL" ]; then
	VM=1
elif [ -z "$IF" ] || [ -z "$ADDR" ] || [ -z "$PEER_URL" ]; then
	echo "$0: -i, -a and -p go together" >&2
	usage
fi

# ktgen on the sending side.
kt()
{
	if [ -n "$FAR_NS" ] && grep -qx failed "$FAR_SINKS"; then
		echo "$0: no sink could be added in namespace $FAR_NS" >&2
		exit 4
	fi
	if [ $VM = 1 ]; then
		ip netns exec $NS_A "$KTGEN" "$@"
	else
		"$KTGEN" "$@"
	fi
}

# The words of a receive-side knob ($1...: "priv-flag legacy-rx on").
rx_knob()
{
	if [ $VM = 1 ]; then
		echo "knob $RIF@$NS_B $*"
	elif [ -n "$FAR_NS" ]; then
		echo "knob $RIF@$FAR_NS $*"
	else
		echo "peer-knob $RIF $*"
	fi
}

# The far end of a run on port $2 of protocol $1: a sink there, added
# here in the VM or the far end's namespace (and deleted at exit there),
# by the run itself over ssh between hosts.
far_end()
{
	local id

	if [ $VM = 1 ]; then
		ip netns exec $NS_B "$KTGEN" sink add "$1" port "$2" rx discard ${3:+$3} >/dev/null
	elif [ -n "$FAR_NS" ]; then
		# (in the recipe's $(...): the id goes by file, for far_down)
		id=$(ip netns exec "$FAR_NS" "$KTGEN" -j sink add "$1" port "$2" rx discard ${3:+$3} |
			sed -n 's/.*"id": *\([0-9]*\).*/\1/p')
		echo "${id:-failed}" >>"$FAR_SINKS"
	else
		echo "peer $PEER_URL"
	fi
}

far_down()
{
	local id

	while read -r id; do
		[ "$id" = failed ] || ip netns exec "$FAR_NS" "$KTGEN" sink del "$id" >/dev/null
	done <"$FAR_SINKS"
	rm -f "$FAR_SINKS"
}

# The words that put the sending device's interrupts on CPU $1, for each
# run: the irq-affinity knob between hosts (put back after each run); on
# the ktgen-nic pair, whose "interrupts" are IPIs to its irq-cpus, set
# once here. A device without interrupts of its own (a virtual one) is
# said so and left as it is.
irq_pin()
{
	if [ $VM = 1 ]; then
		ip netns exec $NS_A "$KTGEN" nic set kex0 irq-cpus "$1" >/dev/null || exit 4
	elif [ -e "/sys/class/net/$IF/device/msi_irqs" ] || [ -e "/sys/class/net/$IF/device/irq" ]; then
		echo "knob $IF irq-affinity $1"
	else
		echo "# $IF has no interrupts of its own to pin" >&2
	fi
}

vm_down()
{
	ip netns del $NS_A 2>/dev/null
	ip netns del $NS_B 2>/dev/null
}

if [ -n "$FAR_NS" ]; then
	FAR_SINKS=$(mktemp)
	trap far_down EXIT
fi
if [ $VM = 1 ]; then
	IF=kex0 RIF=kex1 ADDR=10.88.0.2
	RUNS=${RUNS:-3} SECS=${SECS:-1}
	vm_down
	trap vm_down EXIT
	ip netns add $NS_A && ip netns add $NS_B || exit 4
	for ns in $NS_A $NS_B; do
		ip netns exec $ns sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	done
	"$KTGEN" nic add kex0 peer kex1 netns $NS_A peer-netns $NS_B >/dev/null || exit 4
	ip netns exec $NS_A ethtool -L kex0 combined 2
	ip netns exec $NS_B ethtool -L kex1 combined 2
	ip -n $NS_A addr add 10.88.0.1/24 dev kex0
	ip -n $NS_B addr add 10.88.0.2/24 dev kex1
	ip -n $NS_A link set kex0 up
	ip -n $NS_B link set kex1 up
	for _ in $(seq 50); do
		[ "$(ip netns exec $NS_A cat /sys/class/net/kex0/carrier 2>/dev/null)" = 1 ] && break
		sleep 0.1
	done
	echo "# on a ktgen-nic pair between namespaces $NS_A and $NS_B, $RUNS runs of $SECS s a variant"
else
	RUNS=${RUNS:-${RUNS_DEFAULT:-10}} SECS=${SECS:-10}
	RIF=${RIF:-$IF}
fi

# The end of a recipe: ktgen's exit code, said.
verdict()
{
	local rc=$1

	case $rc in
	0) echo "exit 0: no regression" ;;
	1) echo "exit 1: regression" ;;
	2) echo "exit 2: usage" ;;
	3) echo "exit 3: inconclusive (no effect seen, and none of the threshold's size could have been)" ;;
	*) echo "exit $rc: infrastructure" ;;
	esac
	exit "$rc"
}
