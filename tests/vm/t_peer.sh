#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two hosts: namespace A runs the test, namespace B is the peer, reached by
# Debian's own sshd listening on B's address only (vm-suite.sh unpacks it
# under KTGEN_SSHD_ROOT). run ... peer must add the sink there, apply the
# receiver's knobs there, bring back the peer's receive counts, CPU and
# counters, and leave B as it found it: after a run, a refused one, Ctrl-C
# and a SIGKILL of the sender.

PEER_A=10.80.0.1
PEER_B=10.80.0.2

# peer_host: the namespaces, a veth pair, sshd in B, a key for root, and
# KTGEN_SSH / KTGEN_PEER_CMD for ktgen; sshd goes when the case ends.
peer_host()
{
	local dir

	[ -n "${KTGEN_SSHD_ROOT:-}" ] && [ -x "$KTGEN_SSHD_ROOT/usr/sbin/sshd" ] ||
		skip "no sshd (KTGEN_SSHD_ROOT is set by vm-suite.sh)"
	NS_A=$(netns_add a)
	NS_B=$(netns_add b)
	if [ "${PEER_LINK:-veth}" = nic ]; then
		$KTGEN nic add kp0 peer kp1 netns "$NS_A" peer-netns "$NS_B" >/dev/null ||
			fail "nic add kp0"
	else
		ip link add kp0 netns "$NS_A" type veth peer name kp1 netns "$NS_B"
	fi
	ip -n "$NS_A" addr add $PEER_A/24 dev kp0
	ip -n "$NS_B" addr add $PEER_B/24 dev kp1
	ip -n "$NS_A" addr add fd80::1/64 dev kp0 nodad
	ip -n "$NS_B" addr add fd80::2/64 dev kp1 nodad
	ip -n "$NS_A" link set kp0 up
	ip -n "$NS_B" link set kp1 up
	# GRO on (veth's default is off): peer-knob turns it off for a run.
	ip netns exec "$NS_B" ethtool -K kp1 gro on

	dir=$(mktemp -d)
	ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key"
	ssh-keygen -q -t ed25519 -N '' -f "$dir/id"
	# The guest's root is an overlay: its privilege separation user and
	# directory change nothing on the host.
	grep -q '^sshd:' /etc/passwd ||
		echo 'sshd:x:997:65534:sshd:/run/sshd:/usr/sbin/nologin' >>/etc/passwd
	mkdir -p /run/sshd
	chmod 0755 /run/sshd
	cat >"$dir/sshd_config" <<-EOF
		ListenAddress $PEER_B
		ListenAddress [fd80::2]
		HostKey $dir/host_key
		AuthorizedKeysFile $dir/id.pub
		PermitRootLogin prohibit-password
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		UsePAM no
		StrictModes no
		UseDNS no
		PidFile $dir/sshd.pid
	EOF
	ip netns exec "$NS_B" env LD_LIBRARY_PATH="$KTGEN_SSHD_ROOT/usr/lib/x86_64-linux-gnu" \
		"$KTGEN_SSHD_ROOT/usr/sbin/sshd" -D -e -f "$dir/sshd_config" 2>"$dir/sshd.log" &
	PEER_SSHD=$!
	# One connection a destination for the case's runs (a handshake costs
	# seconds under TCG), as README advises for ab and repeat.
	trap 'kill $PEER_SSHD 2>/dev/null; wait $PEER_SSHD 2>/dev/null; pkill -f "$PEER_MUX" || true' EXIT
	PEER_MUX=$dir/mux
	export KTGEN_SSH="ssh -i $dir/id -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o ControlMaster=auto -o ControlPath=$PEER_MUX-%h-%p -o ControlPersist=300"
	export KTGEN_PEER_CMD=$KTGEN
	slowwait 30 ip netns exec "$NS_A" $KTGEN_SSH root@$PEER_B true 2>/dev/null ||
		fail "no ssh to $PEER_B: $(cat "$dir/sshd.log")"
}

# B as it was: no sink, GRO on, and no peer serve left.
peer_clean()
{
	[ "$(ip netns exec "$NS_B" $KTGEN -j sink show)" = "[]" ] &&
		ip netns exec "$NS_B" ethtool -k kp1 | grep -q '^generic-receive-offload: on' &&
		! pgrep -f 'peer serve' >/dev/null
}

# recipe_ran WHO RC OUT: a recipe that ran, as its caller expects of one:
# ktgen's exit code for a comparison that ran (0, 1 or 3), its table, and
# its verdict line last.
recipe_ran()
{
	case $2 in
	0|1|3) ;;
	*) fail "$1: exit $2: $(echo "$3" | tail -n 15)" ;;
	esac
	echo "$3" | grep -Eq '^(ab|sweep): (tcp|udp)_(stream|rr),' ||
		fail "$1: no table: $(echo "$3" | tail -n 15)"
	[[ $(echo "$3" | tail -n 1) == "exit $2:"* ]] ||
		fail "$1: last line '$(echo "$3" | tail -n 1)'"
}

# One recipe of examples/ as a newcomer runs it, with no arguments: on a
# ktgen-nic pair it makes between two namespaces, shortened (2 runs of
# 0.5 s a variant: what is checked is that it runs and says so). It
# prints its table and its verdict line, exits with ktgen's code for a
# comparison that ran (0, 1 or 3: never usage or infrastructure) and
# leaves nothing behind. (All five locally: make demo.)
recipe_local()
{
	local ex=$1 out rc=0 want

	out=$(KTGEN="$KTGEN" "$ex" -n 2 -t 0.5 2>&1) || rc=$?
	case $rc in
	0) want="no regression" ;;
	1) want="regression" ;;
	3) want="inconclusive" ;;
	*) fail "$(basename "$ex"): exit $rc: $(echo "$out" | tail -n 15)" ;;
	esac
	echo "$out" | grep -Eq '^(ab|sweep): (tcp|udp)_(stream|rr),' ||
		fail "$(basename "$ex"): no table: $(echo "$out" | tail -n 15)"
	[[ $(echo "$out" | tail -n 1) == "exit $rc: $want"* ]] ||
		fail "$(basename "$ex"): last line '$(echo "$out" | tail -n 1)', exit $rc"
	log "$(basename "$ex") locally: exit $rc ($want)"
	ip netns list | grep -q '^ktgex-' && fail "$(basename "$ex") left its namespaces"
	[ -z "$($KTGEN nic show)" ] || fail "$(basename "$ex") left a device: $($KTGEN nic show)"
	# two hosts' options: all three or none
	out=$("$ex" -i eth0 2>&1) && fail "$(basename "$ex") -i alone worked"
	[[ $out == *"-i, -a and -p go together"* ]] || fail "$(basename "$ex") -i alone: $out"
}

# The recipes of examples/ as on two real hosts: this side's device and
# the peer's (a ktgen-nic pair, so that their knobs exist), the peer over
# ssh, whose sink each run adds there; shortened. Each ends with its table
# and a verdict (0, 1 or 3), leaves the far end clean, and the receive-side
# knob of 02 acted there (legacy-rx copied frames). By default 02 (a knob
# on the far end) and 05 (an rr sink there, its token carried): the others
# take the same way with knobs here only, and all five cost ~520 s under
# TCG (each run an ssh and a `peer serve`); KTGEN_PEER_RECIPES=all runs
# them all. Then one recipe in its local form (recipe_local), the one of
# the rotation's turn: every recipe's local form in any five make checks.
t_recipes()
{
	local ex out rc c0 c1 which=${KTGEN_PEER_RECIPES:-02 05} local

	need_cpus 2
	load_module
	PEER_LINK=nic peer_host
	[ "$which" = all ] && which="01 02 03 04 05"
	for ex in "$KTGEN_TOP"/examples/0*.sh; do
		[[ " $which " == *" $(basename "$ex" | cut -c1-2) "* ]] || continue
		c0=$(ip netns exec "$NS_B" ethtool -S kp1 | awk '/^ *rx_copied:/ { print $2 }')
		rc=0
		out=$(ip netns exec "$NS_A" env KTGEN="$KTGEN" \
			BUILD_A="$KTGEN dev set kp0 priv-flag rx-frags on" \
			BUILD_B="$KTGEN dev set kp0 priv-flag rx-frags off" \
			"$ex" -i kp0 -r kp1 -a $PEER_B -p ssh://root@$PEER_B -n 2 -t 0.5 -f 4 2>&1) || rc=$?
		c1=$(ip netns exec "$NS_B" ethtool -S kp1 | awk '/^ *rx_copied:/ { print $2 }')
		recipe_ran "$(basename "$ex") between hosts" "$rc" "$out"
		case $ex in
		*/02-*) [ $((c1 - c0)) -gt 0 ] || fail "02 between hosts: the peer's legacy-rx copied nothing" ;;
		esac
		peer_clean || fail "$(basename "$ex"): the far end not put back"
		log "$(basename "$ex") between hosts: exit $rc, kp1 copied $((c1 - c0)) frames"
	done
	local=$(ls "$KTGEN_TOP"/examples/0*.sh | sed -n "$(( ${KTGEN_ROTATION:-0} % 5 + 1 ))p")
	recipe_local "${KTGEN_RECIPE_LOCAL:-$local}"
}
case_add recipes t_recipes 900 nodebug

# (Not in the debug lane: what it checks is the CLI's peer protocol over
# ssh, run in every stock lane under ASan as there; its kernel paths are a
# sink's and a run's over veth, tcp_veth's and udp_veth's: "nodebug".)
t_peer_stream()
{
	local out rc

	load_module
	peer_host
	out=$(mktemp -d)
	ip netns exec "$NS_A" $KTGEN -j run tcp_stream to $PEER_B port 5300 flows 2 time 2 warmup 0.5 \
		tx cached peer ssh://root@$PEER_B peer-rx verify peer-cpus 0 \
		peer-knob kp1 gro off >"$out/tcp.json" || fail "tcp run with a peer: exit $?"
	json_check "d['state'] == 'done' and d['tx']['bytes'] > 0 and
		    d['peer']['url'] == 'ssh://root@$PEER_B' and
		    d['peer']['sink']['proto'] == 'tcp' and d['peer']['sink']['port'] == 5300 and
		    d['peer']['sink']['rx_mode'] == 'verify' and d['peer']['sink']['cpus'] == '0' and
		    d['peer']['sink']['rx']['bytes'] == d['tx']['bytes'] and
		    d['peer']['sink']['rx']['conns'] == 2 and
		    d['peer']['sink']['rx']['verify_errors'] == 0 and
		    0 < d['peer']['window']['rx_bytes'] < d['peer']['sink']['rx']['bytes'] and
		    1.5e9 < d['peer']['window']['duration_ns'] < 4e9 and
		    d['peer']['window']['rx_bps'] > 0 and
		    d['peer']['cpu']['method'] == 'proc-stat' and
		    d['peer']['cpu']['cpus'] == $(nproc) and
		    0 < d['peer']['cpu']['util_pct'] <= 100.5 and d['peer']['cpu']['us_per_kb'] > 0 and
		    d['peer']['knobs'][0]['dev'] == 'kp1' and d['peer']['knobs'][0]['changed'] and
		    d['peer']['knobs'][0]['before'] == 'on' and d['peer']['knobs'][0]['after'] == 'off' and
		    d['peer']['counters']['devices']['kp1']['stats']['rx_bytes'] >= d['tx']['bytes'] and
		    'kp0' not in d['peer']['counters']['devices']" <"$out/tcp.json" ||
		fail "the peer's side of the tcp run"
	peer_clean || fail "B not put back after the run"
	log "tcp: $(/usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["peer"]; print("peer rx %d B, window %.0f Mbit/s, cpu %.1f%% %.3f us/KB" % (p["sink"]["rx"]["bytes"], p["window"]["rx_bps"] / 1e6, p["cpu"]["util_pct"], p["cpu"]["us_per_kb"]))' "$out/tcp.json")"

	# UDP request/response over IPv6, the peer named by its literal: every
	# transaction's request reached the sink there, which answered it. Its
	# responses are larger than its requests: the sink there is rr with
	# resp-max, and the run carried the token it said.
	ip netns exec "$NS_A" $KTGEN -j run udp_rr to fd80::2 port 5301 msgs 200 resp 1000 \
		peer "ssh://root@[fd80::2]" >"$out/rr.json" || fail "udp_rr with a peer: exit $?"
	json_check "d['state'] == 'done' and d['latency']['transactions'] == 200 and
		    d['peer']['sink']['proto'] == 'udp' and d['peer']['sink']['rr'] and
		    d['peer']['sink']['resp_max'] == 1000 and len(d['peer']['sink']['token']) == 18 and
		    d['peer']['sink']['rx']['msgs'] == 200 and d['peer']['sink']['rx']['refused'] == 0 and
		    d['peer']['sink']['rx']['responses'] == 200" <"$out/rr.json" ||
		fail "the peer's side of udp_rr"
	peer_clean || fail "B not put back after udp_rr"

	# Text: the peer's lines after the run's.
	ip netns exec "$NS_A" $KTGEN run tcp_stream to $PEER_B port 5302 time 0.5 \
		peer ssh://root@$PEER_B >"$out/text" || fail "text run with a peer"
	grep -Eq "^  peer ssh://root@$PEER_B: sink [0-9]+  bytes [1-9]" "$out/text" &&
		grep -Eq '^  peer window [0-9.]+ s: [0-9.]+ Mbit/s received, cpu [0-9]+ x' "$out/text" ||
		fail "text lacks the peer: $(cat "$out/text")"

	# ab with a peer: rx_bps is the peer's, a sample a run.
	# (A verdict either way: 0, 1 or 3; 2 and 4 are errors.)
	rc=0
	ip netns exec "$NS_A" $KTGEN -j ab repeat 2 a "peer-rx discard" b "peer-rx touch" \
		metric rx_bps gate peer_us_per_kb -- run tcp_stream to $PEER_B port 5303 time 0.5 \
		peer ssh://root@$PEER_B >"$out/ab.json" || rc=$?
	case $rc in 0|1|3) ;; *) fail "ab with a peer: exit $rc" ;; esac
	json_check "len(d['a']['metrics']['rx_bps']['samples']) == 2 and
		    len(d['b']['metrics']['peer_us_per_kb']['samples']) == 2 and
		    min(d['a']['metrics']['rx_bps']['samples']) > 0" <"$out/ab.json" ||
		fail "ab did not read the peer's metrics"
	peer_clean || fail "B not put back after ab"
}
case_add peer_stream t_peer_stream 600 nodebug

t_peer_errors()
{
	local out pid rc

	load_module
	peer_host
	out=$(mktemp -d)
	# Checked here, before any ssh: the words the far end would refuse.
	expect_fail 2 "unknown rx mode 'bogus'" ip netns exec "$NS_A" $KTGEN run tcp_stream \
		to $PEER_B port 5310 peer ssh://root@$PEER_B peer-rx bogus
	expect_fail 2 "peer-rx, peer-cpus, peer-rcvbuf and peer-knob are for a peer" \
		ip netns exec "$NS_A" $KTGEN run tcp_stream to $PEER_B port 5310 peer-rx copy
	expect_fail 2 "ssh://\\[user@\\]host" ip netns exec "$NS_A" $KTGEN run tcp_stream \
		to $PEER_B port 5310 peer "ssh://-oProxyCommand=x"
	expect_fail 2 "a detached run has nobody" ip netns exec "$NS_A" $KTGEN run tcp_stream \
		to $PEER_B port 5310 detach peer ssh://root@$PEER_B

	# No sshd on that port: ssh's own failure, no run.
	expect_fail 1 "ssh failed" ip netns exec "$NS_A" $KTGEN run tcp_stream \
		to $PEER_B port 5310 peer ssh://root@$PEER_B:2
	[ "$(ip netns exec "$NS_A" $KTGEN -j run show)" = "[]" ] || fail "a run without its peer"

	# The far end's kernel refuses the sink (the port is taken there): its
	# reason, naming the attribute, and B's knob is put back.
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5311 >/dev/null
	expect_fail 1 "port.*(in use|EADDRINUSE)|(in use|EADDRINUSE).*port" \
		ip netns exec "$NS_A" $KTGEN run tcp_stream to $PEER_B port 5311 \
		peer ssh://root@$PEER_B peer-knob kp1 gro off
	ip netns exec "$NS_B" $KTGEN sink del all
	peer_clean || fail "B not put back after a refused sink"

	# Ctrl-C (SIGINT to the sender): the run stops, the peer's partial
	# result comes back, B is put back.
	ip netns exec "$NS_A" $KTGEN -j run tcp_stream to $PEER_B port 5312 time 60 \
		peer ssh://root@$PEER_B peer-knob kp1 gro off >"$out/int.json" &
	pid=$!
	slowwait 60 sh -c "ip netns exec $NS_A $KTGEN -j run show | grep -q running" ||
		fail "no run started"
	kill -INT $pid
	rc=0
	wait $pid || rc=$?
	[ $rc = 0 ] || fail "the interrupted run exited $rc"
	json_check "d['state'] == 'stopped' and d['peer']['sink']['rx']['bytes'] == d['tx']['bytes'] and
		    d['peer']['knobs'][0]['changed']" <"$out/int.json" ||
		fail "the interrupted run's peer result"
	peer_clean || fail "B not put back after Ctrl-C"

	# SIGKILL of the sender: its run ends with its socket, the end of its
	# pipe ends the peer's stdin, and B cleans up by itself.
	ip netns exec "$NS_A" $KTGEN -j run tcp_stream to $PEER_B port 5313 time 60 \
		peer ssh://root@$PEER_B peer-knob kp1 gro off >/dev/null &
	pid=$!
	slowwait 60 sh -c "ip netns exec $NS_A $KTGEN -j run show | grep -q running" ||
		fail "no run started"
	ip netns exec "$NS_B" ethtool -k kp1 | grep -q '^generic-receive-offload: off' ||
		fail "the peer's knob was not applied during the run"
	kill -KILL $pid
	wait $pid 2>/dev/null || true
	slowwait 60 peer_clean || fail "B not put back after SIGKILL: $(ip netns exec "$NS_B" $KTGEN sink show)"
	slowwait 30 sh -c "! ip netns exec $NS_A $KTGEN -j run show | grep -q running" ||
		fail "the killed sender's run lived on"
}
# (Not on the debug kernel: it proves the CLI's handling of a hostile or
# broken peer; the kernel paths are a sink's and a run's over veth.)
case_add peer_errors t_peer_errors 600 nodebug

# A peer is believed only for what it can show: a far end that never gets
# ready or never answers, says something that is not a document, gives
# figures that are not counts, or claims more bytes than the run sent is
# an error naming it, with exit 4 (infrastructure: no verdict to draw),
# and the ssh it ran goes with it. Its "ssh" here is a script that answers
# as such a peer would; the sink is a real one, added directly.
t_peer_lies()
{
	local fake rc mode want re err

	load_module
	NS_A=$(netns_add a)
	NS_B=$(netns_add b)
	ip link add kp0 netns "$NS_A" type veth peer name kp1 netns "$NS_B"
	ip -n "$NS_A" addr add $PEER_A/24 dev kp0
	ip -n "$NS_B" addr add $PEER_B/24 dev kp1
	ip -n "$NS_A" link set kp0 up
	ip -n "$NS_B" link set kp1 up
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5330 >/dev/null || fail "sink add"
	fake=$(mktemp)
	cat >"$fake" <<'EOS'
#!/bin/sh
# ktgen-fake-peer MODE -- DEST COMMAND: what `peer serve` would print, lying
mode=$1
[ "$mode" = noready ] && sleep 600
echo "ready 1 0"
cat >/dev/null
case $mode in
silent) sleep 600 ;;
garbage) echo 'this is no document' ;;
string) echo '{"sink":{"id":1,"rx":{"bytes":"lots","msgs":1}}}' ;;
negative) echo '{"sink":{"id":1,"rx":{"bytes":0,"msgs":0}},"window":{"rx_bps":-5}}' ;;
more) echo '{"sink":{"id":1,"rx":{"bytes":999999999999999,"msgs":1}}}' ;;
honest) echo '{"sink":{"id":1,"rx":{"bytes":0,"msgs":0}},"window":{"duration_ns":1,"rx_bytes":0}}' ;;
esac
EOS
	chmod +x "$fake"
	for mode in noready silent garbage string negative more honest; do
		case $mode in
		noready) want=4 re="no sink ready after 3 s" ;;
		silent) want=4 re="no result after 3 s" ;;
		garbage) want=4 re="peer ssh://fake: no result: " ;;
		string) want=4 re="not believed: a sink.rx figure that is no count" ;;
		negative) want=4 re="not believed: a window figure negative or not finite" ;;
		more) want=4 re="its sink says it received 999999999999999 bytes, more than the run sent \\([0-9]+\\): not believed" ;;
		honest) want=0 re="" ;;
		esac
		rc=0
		err=$(ip netns exec "$NS_A" env KTGEN_SSH="$fake $mode" KTGEN_PEER_TIMEOUT=3 \
			$KTGEN -j run tcp_stream to $PEER_B port 5330 time 1 peer ssh://fake 2>&1 >/dev/null) ||
			rc=$?
		[ "$rc" = "$want" ] || fail "peer $mode: exit $rc, want $want: $err"
		[ -z "$re" ] || echo "$err" | grep -Eq -- "$re" || fail "peer $mode: said '$err', want /$re/"
		! pgrep -f "$fake" >/dev/null || fail "peer $mode: its ssh is still there"
		log "peer $mode: exit $rc: $(echo "$err" | tail -n 1)"
	done
	ip netns exec "$NS_A" $KTGEN -j run show | json_check "all(r['state'] == 'done' for r in d)" ||
		fail "a run still going: $(ip netns exec "$NS_A" $KTGEN run show)"
	rm -f "$fake"
}
case_add peer_lies t_peer_lies 180 nodebug
