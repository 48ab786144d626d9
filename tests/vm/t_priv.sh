#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Privilege: every state-changing ktgen command and every change to a
# ktgen-nic is refused, leaving nothing behind, to callers without
# CAP_NET_ADMIN in the initial user namespace: nobody, root without the
# capability, root of a user namespace (in its own network namespace and
# in the initial one). Reading stays open to them, the sink's token aside.
# Refusals the genetlink and rtnetlink cores make themselves carry no
# extack message, only EPERM ("Operation not permitted"); the module's own
# (a ktgen-nic in a user namespace's network namespace) name the rule.
# Every exec costs a TCG guest a lot: a caller's commands run in one shell
# under that caller, nlraw sends many requests from one process.

PRIV_NIC_MSG="ktgen-nic needs CAP_NET_ADMIN in the initial user namespace"
PRIV_NETNS_MSG="ktgen-nic: both ends in network namespaces of the initial user namespace"

priv_nobody()
{
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# Root with CAP_NET_ADMIN out of every set an exec could give it back from.
priv_nocap()
{
	setpriv --bounding-set -net_admin --inh-caps -net_admin "$@"
}

# Root of a user namespace that stays in the initial network namespace.
priv_userns()
{
	unshare -Ur "$@"
}

# Root of a user namespace in a network namespace of its own.
priv_userns_net()
{
	unshare -Urn "$@"
}

# must_eperm CMD...: CMD fails (any non-zero status) saying EPERM; for
# priv_as, which runs it under another identity.
must_eperm()
{
	local err rc=0

	err=$("$@" 2>&1 >/dev/null) || rc=$?
	[ "$rc" != 0 ] || fail "'$*' was not refused"
	[[ $err == *"Operation not permitted"* ]] || fail "'$*' said '$err', expected EPERM"
}

# priv_as WHO SCRIPT: SCRIPT (bash, with lib.sh's fail and must_eperm) as WHO.
priv_as()
{
	local who=$1

	shift
	export -f fail must_eperm
	KTGEN=$KTGEN $who bash -c "set -e; KSFT_FAIL=$KSFT_FAIL; $1" || fail "$who: a check failed"
}

# The engine threads of ktgen-nic devices ("ktgen-nic/IFNAME"), host-wide.
priv_nic_threads()
{
	local f t

	for f in /proc/[0-9]*/comm; do
		read -r t <"$f" 2>/dev/null || continue
		[[ $t == ktgen-nic/* ]] && echo "$t"
	done
	return 0
}

# The six state-changing commands, each refused to all four callers, the
# sink and runs root made still there afterwards, the budget unchanged;
# info, sink show and run show still answer nobody.
t_priv_genl()
{
	local who sink run fin reqs err want

	load_module
	sink=$($KTGEN sink add tcp port 5720 rx discard)
	sink=${sink#sink }
	run=$($KTGEN run tcp_stream to 127.0.0.1 port 5720 time "$(scaled 60)" rate 1M detach)
	run=${run#run }
	fin=$($KTGEN -j run tcp_stream to 127.0.0.1 port 5720 bytes 64K)
	[[ $fin =~ \"id\":([0-9]+) ]] || fail "no run id in $fin"
	fin=${BASH_REMATCH[1]}
	# Valid requests (ports in network order: 5721 and 5720): were the
	# core's check missing, each would act.
	reqs="set-config 1:u64:268435456 -- sink-new 4:hex:1659 -- sink-del 1:u32:$sink --
	      run-new 3:hex:7f000001 4:hex:1658 10:u32:1000 -- run-stop 1:u32:$run --
	      run-del 1:u32:$fin"
	want=$(printf 'Error: Operation not permitted\n%.0s' 1 2 3 4 5 6)
	[ $(( 0x$(priv_nocap awk '/^CapEff/ { print $2 }' /proc/self/status) >> 12 & 1 )) = 0 ] ||
		fail "setpriv kept CAP_NET_ADMIN"
	for who in priv_nobody priv_nocap priv_userns priv_userns_net; do
		# EPERM alone, six times: the genetlink core's refusal has no
		# extack message.
		# shellcheck disable=SC2086
		err=$($who "$KTGEN_NLRAW" $reqs 2>&1 >/dev/null) && fail "$who: accepted"
		[ "$err" = "$want" ] || fail "$who: '$err', expected EPERM six times"
	done
	# The CLI says so too (t_basic's permissions tries config set).
	priv_as priv_nobody "
		must_eperm \$KTGEN sink add tcp port 5721
		must_eperm \$KTGEN run tcp_stream to 127.0.0.1 port 5720 time 1
		must_eperm \$KTGEN run stop $run
		# Reading is everyone's.
		\$KTGEN info >/dev/null
		[ \"\$(\$KTGEN sink show | grep -c '^sink ')\" = 1 ] || fail 'sink show'
		[ \"\$(\$KTGEN run show | grep -c '^run ')\" = 2 ] || fail 'run show'"
	{ $KTGEN -j config; echo; $KTGEN -j sink show; echo; $KTGEN -j run show; } |
		/usr/bin/python3 -c '
import json, sys
c, s, r = (json.loads(l) for l in sys.stdin if l.strip())
got = (c["buffer_budget"], [(x["id"], x["port"]) for x in s],
       sorted((x["id"], x["state"]) for x in r))
want = (int(sys.argv[4]), [(int(sys.argv[1]), 5720)],
        sorted([(int(sys.argv[2]), "running"), (int(sys.argv[3]), "done")]))
sys.exit(0 if got == want else "left: %s, expected %s" % (got, want))' "$sink" "$run" "$fin" \
		"$(default_budget)"
	$KTGEN run stop "$run" >/dev/null
}
case_add priv_genl t_priv_genl 120

# The sink's token goes to CAP_NET_ADMIN callers only: in the reply to
# sink-new and in sink-get, never to nobody, root without the capability
# or root of a user namespace, who see the rest of the sink.
t_priv_token()
{
	local out who

	load_module
	# port 5722 (network order), rr; then a dump of the sinks.
	out=$("$KTGEN_NLRAW" sink-new 4:hex:165a 15:flag:1 -- sink-get)
	[[ $out == "reply: id "*" token"*$'\n'"reply: id "*" token"* ]] ||
		fail "root was not shown the token at sink-new and sink-get: $out"
	for who in priv_nobody priv_nocap priv_userns; do
		out=$($who "$KTGEN_NLRAW" sink-get)
		[[ $out == "reply: id "*" port "* ]] || fail "$who: no sink seen: $out"
		[[ $out == *" token"* ]] && fail "$who was shown the token: $out"
	done
	# The CLI (where it prints the token at all) shows it to root only.
	out=$(priv_nobody $KTGEN -j sink show)
	[[ $out == *'"port":5722'* ]] || fail "nobody: sink show -j: $out"
	[[ $out == *'"token"'* ]] && fail "nobody: token in sink show -j: $out"
	return 0
}
case_add priv_token t_priv_token 60

# A ktgen-nic root made, in the initial network namespace: every change
# refused to the three callers there, nothing changed or made; reading
# is open.
t_priv_nic_ops()
{
	local who before after

	load_module
	$KTGEN nic add ktx0 peer ktx1
	ip link set ktx1 up
	before=$($KTGEN dev show ktx0; ip -d link show ktx0; $KTGEN nic show)
	for who in priv_nobody priv_nocap priv_userns; do
		priv_as $who "
			must_eperm ip -force -batch - <<-EOF
				link add ktx2 type ktgen-nic
				link set ktx0 up
				link set ktx0 mtu 1400
				link del ktx0
			EOF
			must_eperm \$KTGEN nic add ktx2 peer ktx3
			must_eperm \$KTGEN nic set ktx0 dma-cpu 0 irq-cpus 0
			must_eperm \$KTGEN nic del ktx0
			must_eperm ethtool -L ktx0 combined 1
			must_eperm ethtool -G ktx0 rx 256
			must_eperm ethtool --set-priv-flags ktx0 legacy-rx on
			must_eperm ethtool -C ktx0 rx-usecs 10
			must_eperm ethtool --set-tunable ktx0 rx-copybreak 128
			[[ \$(\$KTGEN nic show ktx0) == 'ktx0 peer ktx1 down'* ]] || fail 'nic show'
			ethtool -l ktx0 >/dev/null"
	done
	after=$($KTGEN dev show ktx0; ip -d link show ktx0; $KTGEN nic show)
	[ "$before" = "$after" ] || fail "ktx0 changed: $(diff <(echo "$before") <(echo "$after"))"
	ip link show ktx2 >/dev/null 2>&1 && fail "a refused add made ktx2"
	[ "$(priv_nic_threads)" = "ktgen-nic/ktx1" ] || fail "engines: $(priv_nic_threads)"
	$KTGEN nic del ktx0
}
case_add priv_nic_ops t_priv_nic_ops 120

# Root of a user namespace makes no ktgen-nic in its network namespace
# (host-wide resources: a DMA-engine thread, page pools, CPU pinning,
# interrupts to any CPU); root makes none with an end there and moves
# none there. The namespace is kept by a process, entered with nsenter,
# so what a refused command may have left is there to look at. In the
# smoke subset: the move is refused by each kernel's own netns-immutable
# flag (compat.h).
t_priv_nic_userns()
{
	local upid ns out

	load_module
	unshare -Urn sleep 3600 &
	upid=$!
	# shellcheck disable=SC2064
	trap "kill $upid" EXIT
	slowwait "$(scaled 5)" sh -c "[ \"\$(readlink /proc/$upid/ns/user)\" != \
		\"\$(readlink /proc/self/ns/user)\" ]" || fail "no user namespace"
	in_userns() { nsenter -t "$upid" -U -n "$@"; }

	expect_fail 2 "Error: $PRIV_NIC_MSG" in_userns ip link add ktx0 type ktgen-nic
	expect_fail 1 "$PRIV_NIC_MSG" in_userns $KTGEN nic add ktx0 peer ktx1
	# Were a pair there, this would start its engines.
	in_userns ip -force -batch - <<-EOF >/dev/null 2>&1 || true
		link set ktx0 up
		link set ktx1 up
	EOF
	out=$(in_userns ip -d -o link show)
	[[ $out == *ktgen-nic* ]] && fail "a ktgen-nic in the user namespace: $out"
	[ -z "$(priv_nic_threads)" ] || fail "engine threads: $(priv_nic_threads)"

	# That network namespace by a name, for root's commands.
	ns=${NS_PREFIX}u
	mkdir -p /run/netns
	touch "/run/netns/$ns"
	mount --bind "/proc/$upid/ns/net" "/run/netns/$ns"
	expect_fail 1 "$PRIV_NETNS_MSG" $KTGEN nic add ktx0 peer ktx1 peer-netns "$ns"
	expect_fail 1 "$PRIV_NETNS_MSG" $KTGEN nic add ktx0 peer ktx1 netns "$ns"
	out=$(ip -d -o link show)
	[[ $out == *ktgen-nic* ]] && fail "a refused add left: $out"
	$KTGEN nic add ktx0 peer ktx1
	out=$(ip link set ktx1 netns "$ns" 2>&1) &&
		fail "ktx1 moved into the user namespace's network namespace"
	log "move refused: $out"
	ip link show ktx1 >/dev/null || fail "ktx1 left the initial namespace"
	out=$(in_userns ip -d -o link show)
	[[ $out == *ktgen-nic* ]] && fail "a ktgen-nic moved in: $out"
	$KTGEN nic del ktx0
}
case_add priv_nic_userns t_priv_nic_userns 60 smoke
