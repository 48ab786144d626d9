# SPDX-License-Identifier: GPL-2.0
# What the recipes share: sourced by each, never run.
#
# Two hosts (this one sends; ktgen on both, ssh to the peer as root):
#   ./01-tx-nocache-copy.sh -i eth0 -a 192.168.50.2 -p ssh://root@dut2 [-r eth1]
#                           [-n RUNS] [-t SECS] [-c CPU] [-f FLOWS]
#     -i  this host's device      -a  the peer's address    -p  the peer, over ssh
#     -r  the peer's device (receive-side knobs)            -n  runs a variant
#     -t  seconds a run           -c  the sending CPU       -f  flows (03, 05)
# No arguments: on a ktgen-nic pair this script makes between two network
# namespaces (root, the module loadable), shortened; it goes afterwards.
# Each recipe prints ktgen's table and verdict and exits with ktgen's code:
# 0 no regression, 1 regression, 2 usage, 3 inconclusive, 4 infrastructure.

set -u
KTGEN=${KTGEN:-ktgen}
IF= RIF= ADDR= PEER_URL= RUNS= SECS= CPU=0 VM=0 FLOWS_OPT=
NS_A=ktgex-a NS_B=ktgex-b

usage()
{
	sed -n '/^# Two hosts/,/^# 0 no regression/p' "$(dirname "$0")/lib.sh" | sed 's/^# \{0,1\}//' >&2
	exit 2
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

if [ -z "$IF$ADDR$PEER_URL" ]; then
	VM=1
elif [ -z "$IF" ] || [ -z "$ADDR" ] || [ -z "$PEER_URL" ]; then
	echo "$0: -i, -a and -p go together" >&2
	usage
fi

# ktgen on the sending side.
kt()
{
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
	else
		echo "peer-knob $RIF $*"
	fi
}

# The far end of a run on port $2 of protocol $1: a sink there, added
# here in the VM, by the run itself over ssh between hosts.
far_end()
{
	if [ $VM = 1 ]; then
		ip netns exec $NS_B "$KTGEN" sink add "$1" port "$2" rx discard ${3:+$3} >/dev/null
	else
		echo "peer $PEER_URL"
	fi
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
