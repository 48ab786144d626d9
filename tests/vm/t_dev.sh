#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Device knobs (ktgen dev, run ... knob): each kind set, read back by
# ethtool or sysfs and put back; refusals that name the knob and leave
# nothing changed; `dev show -j` against ethtool's own view; a run that
# applies sender and receiver knobs, takes the path they select and puts
# them back when it ends, on SIGINT and SIGTERM too.
#
# Most of this is the CLI's bookkeeping over ethtool and sysfs; the module
# paths under it (ring, channel and flag changes of ktgen-nic) are taken
# under traffic by nic_reset and nic_toggle.

# nsx NS CMD...: CMD in namespace NS, or in this one when NS is empty.
nsx()
{
	local ns=$1

	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

# knob_flip NS DEV 'KNOB WORDS' 'READBACK' WANT: dev set DEV KNOB in NS,
# READBACK (a shell command in NS) must print WANT; then the value read
# before goes back through dev set's own restore record.
knob_flip()
{
	local ns=$1 dev=$2 set=$3 rb=$4 want=$5 before got doc back=()

	before=$(nsx "$ns" sh -c "$rb")
	doc=$(nsx "$ns" $KTGEN -j dev set "$dev" $set) ||
		fail "dev set $dev $set: exit $?"
	got=$(nsx "$ns" sh -c "$rb")
	[ "$got" = "$want" ] || fail "dev set $dev $set: read back '$got', want '$want'"
	# Put back what dev set said was there before, by the same command.
	# (rings-rx: "rings rx"; busy-read goes back with busy-poll)
	mapfile -t back <<<"$(echo "$doc" | json_value '
		sum([(["rings", k["knob"][6:]] if k["knob"].startswith("rings-") else
		      [k["knob"], k["name"]] if "name" in k else [k["knob"]]) + [k["before"]]
		     for k in d["knobs"] if k["knob"] != "busy-read"], [])')"
	nsx "$ns" $KTGEN dev set "$dev" "${back[@]}" >/dev/null ||
		fail "dev set $dev ${back[*]}: exit $?"
	got=$(nsx "$ns" sh -c "$rb")
	[ "$got" = "$before" ] || fail "dev set $dev ${back[*]}: read back '$got', want '$before'"
	log "$dev $set: '$before' -> '$want' -> '$got'"
}

ethtool_feature()
{
	echo "ethtool -k $1 | awk '/^$2:/ { print \$2 }'"
}

# Every kind on the virtual NIC (ktn0 sends, ktn1 receives) and veth.
t_dev_knobs()
{
	local fixed out c0 c1

	need_rps
	load_module
	NIC_IPV6=0 nic_pair
	knob_flip "$NS_A" ktn0 "feature tx-nocache-copy on" "$(ethtool_feature ktn0 tx-nocache-copy)" on
	knob_flip "$NS_B" ktn1 "gro off" "$(ethtool_feature ktn1 generic-receive-offload)" off
	knob_flip "$NS_B" ktn1 "priv-flag legacy-rx on" \
		"ethtool --show-priv-flags ktn1 | awk '/^legacy-rx/ { print \$3 }'" on
	# A private flag that resets its device (ktgen-nic's flag-reset on, as
	# ixgbe's legacy-rx does) is seen to: the carrier dropped and came back
	# before dev set returned, and the knob says so; without it, none.
	ip netns exec "$NS_B" $KTGEN -j dev set ktn1 priv-flag legacy-rx on |
		json_check "d['knobs'][0]['reset'] is False" || fail "legacy-rx: a reset without flag-reset"
	ip netns exec "$NS_B" $KTGEN dev set ktn1 priv-flag legacy-rx off priv-flag flag-reset on \
		>/dev/null || fail "flag-reset on: exit $?"
	c0=$(ip netns exec "$NS_B" cat /sys/class/net/ktn1/carrier_changes)
	out=$(ip netns exec "$NS_B" $KTGEN dev set ktn1 priv-flag legacy-rx on) ||
		fail "legacy-rx with flag-reset: exit $?"
	c1=$(ip netns exec "$NS_B" cat /sys/class/net/ktn1/carrier_changes)
	[ "$(ip netns exec "$NS_B" cat /sys/class/net/ktn1/carrier)" = 1 ] ||
		fail "dev set returned before the carrier came back"
	[[ $out == *"priv-flag legacy-rx off -> on (reset)"* ]] && [ $((c1 - c0)) -ge 2 ] ||
		fail "legacy-rx with flag-reset: '$out', carrier changes $((c1 - c0))"
	log "legacy-rx with flag-reset: $out (carrier changes $((c1 - c0)))"
	# A reset that keeps the carrier (quiet-reset on, as mlx5 reopening
	# its channels) is seen by the device's reset counter instead.
	ip netns exec "$NS_B" $KTGEN dev set ktn1 priv-flag legacy-rx off priv-flag quiet-reset on \
		>/dev/null || fail "quiet-reset on: exit $?"
	c0=$(ip netns exec "$NS_B" cat /sys/class/net/ktn1/carrier_changes)
	r0=$(ip netns exec "$NS_B" ethtool -S ktn1 | awk '/^ *resets:/ { print $2 }')
	out=$(ip netns exec "$NS_B" $KTGEN dev set ktn1 priv-flag legacy-rx on) ||
		fail "legacy-rx with quiet-reset: exit $?"
	c1=$(ip netns exec "$NS_B" cat /sys/class/net/ktn1/carrier_changes)
	r1=$(ip netns exec "$NS_B" ethtool -S ktn1 | awk '/^ *resets:/ { print $2 }')
	[[ $out == *"priv-flag legacy-rx off -> on (reset)"* ]] && [ "$c1" = "$c0" ] &&
		[ $((r1 - r0)) = 1 ] ||
		fail "legacy-rx with quiet-reset: '$out', carrier changes $((c1 - c0)), resets $((r1 - r0))"
	log "legacy-rx with quiet-reset: $out (resets $((r1 - r0)), carrier changes 0)"
	ip netns exec "$NS_B" $KTGEN dev set ktn1 priv-flag legacy-rx off priv-flag flag-reset off \
		priv-flag quiet-reset off >/dev/null || fail "flag-reset off: exit $?"
	knob_flip "$NS_B" ktn1 "tunable rx-copybreak 256" \
		"ethtool --get-tunable ktn1 rx-copybreak | awk '{ print \$2 }'" 256
	knob_flip "$NS_B" ktn1 "rings rx 128" \
		"ethtool -g ktn1 | awk '/Current/ { c = 1 } c && /^RX:/ { print \$2 }'" 128
	knob_flip "$NS_A" ktn0 "rings tx 64" \
		"ethtool -g ktn0 | awk '/Current/ { c = 1 } c && /^TX:/ { print \$2 }'" 64
	knob_flip "$NS_B" ktn1 "channels 1" \
		"ethtool -l ktn1 | awk '/Current/ { c = 1 } c && /^Combined:/ { print \$2 }'" 1
	nic_carrier "$NS_B" ktn1 || fail "ktn1: no carrier after channels"
	knob_flip "$NS_B" ktn1 "rps 1" "cat /sys/class/net/ktn1/queues/rx-1/rps_cpus" 2
	knob_flip "$NS_B" ktn1 "coalesce rx-usecs 300" \
		"ethtool -c ktn1 | awk '/^rx-usecs:/ { print \$2 }'" 300
	knob_flip "$NS_B" ktn1 "coalesce rx-frames 32" \
		"ethtool -c ktn1 | awk '/^rx-frames:/ { print \$2 }'" 32
	# Busy polling is global: its sysctls exist in the initial namespace.
	knob_flip "" ktn0 "busy-poll 50" "cat /proc/sys/net/core/busy_read" 50

	# XPS: CPUs dealt to the two queues in turn; off empties both.
	ip netns exec "$NS_A" $KTGEN dev set ktn0 xps 0-1 >/dev/null || fail "xps 0-1"
	[ "$(ip netns exec "$NS_A" cat /sys/class/net/ktn0/queues/tx-0/xps_cpus)" = 1 ] &&
		[ "$(ip netns exec "$NS_A" cat /sys/class/net/ktn0/queues/tx-1/xps_cpus)" = 2 ] ||
		fail "xps 0-1: not CPU 0 on tx-0 and CPU 1 on tx-1"
	ip netns exec "$NS_A" $KTGEN -j dev set ktn0 xps off |
		json_check "d['knobs'][0]['after'] == 'q0=none q1=none' and
			    d['knobs'][0]['before'] == 'q0=0 q1=1'" || fail "xps off"

	# A veth in this namespace, its channels are rx and tx ones.
	ip link add ktgv0 type veth peer name ktgv1
	knob_flip "" ktgv0 "channels 2" \
		"ethtool -l ktgv0 | awk '/Current/ { c = 1 } c && /^RX:/ { print \$2 }'" 2
	knob_flip "" ktgv0 "xps 1" "cat /sys/class/net/ktgv0/queues/tx-0/xps_cpus" 2
	# Unequal receive and transmit channels come back as they were.
	ethtool -L ktgv0 rx 2 tx 1
	knob_flip "" ktgv0 "channels 1" \
		"ethtool -l ktgv0 | awk '/Current/ { c = 1 } c && /^(RX|TX):/ { printf \"%s \", \$2 }'" "1 1 "
	ip link del ktgv0

	# Refused: the device keeps a fixed feature; what was set before it
	# in the same command goes back.
	fixed=$(ip netns exec "$NS_A" $KTGEN -j dev show ktn0 | json_value '
		next(n for n, v in d["features"].items() if v["fixed"] and not v["active"])')
	expect_fail 1 "ktn0: feature $fixed is fixed off: the device cannot change it" \
		ip netns exec "$NS_A" $KTGEN dev set ktn0 feature tx-nocache-copy on feature "$fixed" on
	[ "$(ip netns exec "$NS_A" sh -c "$(ethtool_feature ktn0 tx-nocache-copy)")" = off ] ||
		fail "tx-nocache-copy not put back after the refusal"
	expect_fail 1 "ktn1: no private flag 'nope'; the device has: legacy-rx rx-frags dma-nocache flag-reset quiet-reset" \
		ip netns exec "$NS_B" $KTGEN dev set ktn1 priv-flag nope on
	expect_fail 1 "ktn1: no feature 'nope'" \
		ip netns exec "$NS_B" $KTGEN dev set ktn1 feature nope on
	expect_fail 1 "ktn1: rings-rx: .*power of 2" \
		ip netns exec "$NS_B" $KTGEN dev set ktn1 rings rx 100
	expect_fail 1 "ktn1: channels: .*(exceeds|maximum)" \
		ip netns exec "$NS_B" $KTGEN dev set ktn1 channels 99
	expect_fail 1 "ktn1: tcp-data-split" \
		ip netns exec "$NS_B" $KTGEN dev set ktn1 tcp-data-split on
	expect_fail 1 "ktn1: coalesce rx-usecs: ktgen_nic: rx-usecs: at most 10000" \
		ip netns exec "$NS_B" $KTGEN dev set ktn1 coalesce rx-usecs 20000
	expect_fail 1 "ktn1: coalesce tx-usecs: the device does not report it" \
		ip netns exec "$NS_B" $KTGEN dev set ktn1 coalesce tx-usecs 10
	expect_fail 1 "nothere: " $KTGEN dev set nothere gro on
	# A device in another namespace, by name.
	$KTGEN dev set ktn1 netns "$NS_B" priv-flag legacy-rx on >/dev/null || fail "netns ktn1"
	[ "$(ip netns exec "$NS_B" ethtool --show-priv-flags ktn1 | awk '/^legacy-rx/ { print $3 }')" = on ] ||
		fail "dev set ktn1 netns: legacy-rx not on"
}
# (Not on the debug kernel: it proves the CLI's knob handling; the kernel
# paths it reaches are ethtool's and ktgen-nic's, which nic_* cover there.)
case_add dev_knobs t_dev_knobs 180 nodebug

# dma_irqs_per_frame NS_A NS_B RUN...: a UDP run from NS_A; the interrupts
# ktn0's engine raised into ktn1 per frame it placed, x1000.
dma_irqs_per_frame()
{
	local a=$1 i0 f0 i1 f1 doc

	shift 2
	read -r i0 f0 <<<"$(ip netns exec "$a" ethtool -S ktn0 | awk '/^ *dma_irqs:/ { i = $2 } /^ *dma_frames:/ { f = $2 } END { print i, f }')"
	doc=$(ip netns exec "$a" $KTGEN -j run "$@") || fail "run $*: exit $?"
	read -r i1 f1 <<<"$(ip netns exec "$a" ethtool -S ktn0 | awk '/^ *dma_irqs:/ { i = $2 } /^ *dma_frames:/ { f = $2 } END { print i, f }')"
	echo $(( (i1 - i0) * 1000 / (f1 - f0) )) $((i1 - i0)) $((f1 - f0)) \
		"$(echo "$doc" | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["duration_ns"])')"
}

# Interrupt moderation on the virtual NIC, set as a run's receiver knob:
# every interrupt held for rx-frames frames or rx-usecs, every frame still
# received.
t_dev_coalesce()
{
	local plain mod irqs frames ns bound doc

	load_module
	NIC_IPV6=0 nic_pair
	ip netns exec "$NS_B" $KTGEN sink add udp port 5241 rx verify >/dev/null
	read -r plain _ <<<"$(dma_irqs_per_frame "$NS_A" "$NS_B" udp_stream to $NIC_ADDR_B port 5241 msgs 20000 size 64 rate 20000pps)"
	read -r mod irqs frames ns <<<"$(dma_irqs_per_frame "$NS_A" "$NS_B" udp_stream to $NIC_ADDR_B port 5241 msgs 20000 size 64 \
		rate 20000pps knob "ktn1@$NS_B" coalesce rx-usecs 2000 rx-frames 64)"
	# Held for 64 frames or 2 ms after the first: at most one interrupt
	# per 64 frames and one per 2 ms of the run (one queue: one flow),
	# plus the last one. That holds at any speed; a kernel slow enough to
	# batch as much by itself cannot show the difference, and says so.
	bound=$((frames / 64 + ns / 2000000 + 2))
	log "interrupts per 1000 frames: $plain without moderation, $mod with rx-usecs 2000 rx-frames 64" \
		"($irqs for $frames frames in $((ns / 1000000)) ms; moderation allows $bound)"
	[ "$irqs" -le "$bound" ] ||
		fail "moderation: $irqs interrupts for $frames frames in $((ns / 1000000)) ms, above its bound $bound"
	[ "$mod" -ge 15 ] || fail "moderation: $mod per 1000 frames, below rx-frames 64's bound"
	if [ $((bound * 1000 / frames)) -ge "$plain" ]; then
		log "this kernel batches $((1000 / (plain ? plain : 1))) frames an interrupt by itself: moderation's effect not visible at this speed"
	elif [ "$KTGEN_TIME_SCALE" = 1 ]; then
		[ "$mod" -le 30 ] || timing_fail "moderation: $mod interrupts per 1000 frames"
	fi
	[ "$(ip netns exec "$NS_B" ethtool -c ktn1 | awk '/^rx-usecs:/ { print $2 }')" = 0 ] ||
		fail "rx-usecs not put back"
	# Every frame the engine placed, the receiver took, moderated or not.
	doc=$(ip netns exec "$NS_A" $KTGEN -j run udp_stream to $NIC_ADDR_B port 5241 msgs 5000 size 64 \
		knob "ktn1@$NS_B" coalesce rx-usecs 500)
	echo "$doc" | json_check "d['state'] == 'done' and d['rx']['msgs'] + d['rx']['lost'] == d['tx']['msgs'] and
		d['rx']['verify_errors'] == 0" || fail "moderated run"
}
case_add dev_coalesce t_dev_coalesce 120

# dev show -j agrees with ethtool on features, flags, rings, channels and
# the copybreak tunable.
t_dev_show()
{
	local dev ns show

	load_module
	nic_pair
	ip netns exec "$NS_B" ethtool --set-tunable ktn1 rx-copybreak 128
	ip link add ktgv0 type veth peer name ktgv1
	for dev in "$NS_B ktn1" "- ktgv0"; do
		read -r ns dev <<<"$dev"
		[ "$ns" = - ] && ns=
		show=$(mktemp)
		$KTGEN -j dev show $dev ${ns:+netns $ns} >"$show" || fail "dev show $dev"
		${ns:+ip netns exec $ns} sh -c "
			ethtool --json -k $dev; echo '@@'
			ethtool --show-priv-flags $dev 2>/dev/null; echo '@@'
			ethtool -g $dev 2>/dev/null; echo '@@'
			ethtool -l $dev 2>/dev/null; echo '@@'
			ethtool --get-tunable $dev rx-copybreak 2>/dev/null" |
		/usr/bin/python3 -c '
import json, re, sys
k = json.load(open(sys.argv[1]))
feat, flags, rings, chans, tun = sys.stdin.read().split("@@\n")
e = json.loads(feat)[0]
legacy = {"rx-gro": "generic-receive-offload", "rx-lro": "large-receive-offload",
          "tx-generic-segmentation": "generic-segmentation-offload",
          "rx-checksum": "rx-checksumming", "rx-hashing": "receive-hashing",
          "rx-ntuple-filter": "ntuple-filters", "tx-vlan-hw-insert": "tx-vlan-offload",
          "rx-vlan-hw-parse": "rx-vlan-offload"}
bad, n = [], 0
for name, v in k["features"].items():
    ev = e.get(name) or e.get(legacy.get(name))
    if ev is None:
        bad.append("feature %s: not in ethtool" % name)
        continue
    n += 1
    if ev != v:
        bad.append("feature %s: ethtool %s, ktgen %s" % (name, ev, v))
for m in re.finditer(r"^(\S+)\s*: (on|off)$", flags, re.M):
    n += 1
    if k.get("priv_flags", {}).get(m.group(1)) != (m.group(2) == "on"):
        bad.append("priv-flag %s" % m.group(1))
def current(text, key):
    after = text.split("Current hardware settings:")[-1]
    m = re.search(r"^%s:\s*(\d+)" % key, after, re.M)
    return int(m.group(1)) if m else None
for text, grp, pairs in ((rings, "rings", (("RX", "rx"), ("TX", "tx"))),
                         (chans, "channels", (("Combined", "combined"), ("RX", "rx"), ("TX", "tx")))):
    for ek, kk in pairs:
        ev = current(text, ek)
        if ev is None:
            continue
        n += 1
        if k.get(grp, {}).get(kk) != ev:
            bad.append("%s %s: ethtool %s, ktgen %s" % (grp, kk, ev, k.get(grp, {}).get(kk)))
m = re.search(r"rx-copybreak: (\d+)", tun)
if m:
    n += 1
    if k.get("rx-copybreak") != int(m.group(1)):
        bad.append("rx-copybreak: ethtool %s, ktgen %s" % (m.group(1), k.get("rx-copybreak")))
print("# %s: %d values compared" % (sys.argv[2], n))
if bad or n < 40:
    print("\n".join(bad) or "too few values compared", file=sys.stderr)
    sys.exit(1)' "$show" "$dev" || fail "dev show -j $dev disagrees with ethtool"
		rm -f "$show"
	done
	ip link del ktgv0
}
# (Not on the debug kernel: it proves the CLI's knob handling; the kernel
# paths it reaches are ethtool's and ktgen-nic's, which nic_* cover there.)
case_add dev_show t_dev_show 120 nodebug

# dev_state NS_A NS_B: the knobs t_dev_run sets, as one line: ktn0's
# tx-nocache-copy; ktn1's legacy-rx, rx-copybreak, rx-0's rps_cpus and
# combined channels (read in one go: a process costs under TCG).
dev_state()
{
	echo "$(ip netns exec "$1" ethtool -k ktn0 | awk '/^tx-nocache-copy:/ { print $2 }')" \
	     "$(ip netns exec "$2" sh -c 'ethtool --show-priv-flags ktn1; echo @
		ethtool --get-tunable ktn1 rx-copybreak; echo @
		cat /sys/class/net/ktn1/queues/rx-0/rps_cpus; echo @
		ethtool -l ktn1' | awk '/^@$/ { s++; next }
		s == 0 && /^legacy-rx/ { flag = $3 } s == 1 { copybreak = $2 } s == 2 { rps = $0 }
		s == 3 && /Current/ { c = 1 } s == 3 && c && /^Combined:/ { comb = $2 }
		END { print flag, copybreak, rps, comb }')"
}

# dev_in_window NS: the running run of NS is in its measured window.
dev_in_window()
{
	ip netns exec "$1" $KTGEN -j run show |
		json_check "any(r['state'] == 'running' and 'window' in r for r in d)" 2>/dev/null
}

# A run with sender and receiver knobs: on while it runs (legacy-rx: the
# receiver copies), recorded, and off again after it ends by its limit, by
# SIGINT and by SIGTERM.
t_dev_run()
{
	local knobs orig during doc pid sig c0 c1

	need_rps
	load_module
	NIC_IPV6=0 nic_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5240 rx verify >/dev/null
	knobs="knob ktn0 feature tx-nocache-copy on knob ktn1@$NS_B priv-flag legacy-rx on
	       knob ktn1@$NS_B tunable rx-copybreak 64 knob ktn1@$NS_B rps 1
	       knob ktn1@$NS_B channels 1"
	orig=$(dev_state "$NS_A" "$NS_B")
	c0=$(ip netns exec "$NS_B" ethtool -S ktn1 | awk '/^ *rx_split:/ { print $2 }')
	doc=$(ip netns exec "$NS_A" $KTGEN -j run tcp_stream to $NIC_ADDR_B port 5240 \
		time "$(span 1)" $knobs) || fail "run with knobs: exit $?"
	c1=$(ip netns exec "$NS_B" ethtool -S ktn1 | awk '/^ *rx_split:/ { print $2 }')
	echo "$doc" | json_check "$TCP_DONE and d['warmup_ms'] == 1000 and
		[k['knob'] for k in d['knobs']] == ['channels', 'feature', 'priv-flag', 'tunable', 'rps'] and
		all(k['changed'] for k in d['knobs']) and d['knobs'][2]['netns'] == '$NS_B' and
		d['knobs'][0]['reset'] and not any(k['reset'] for k in d['knobs'][1:]) and
		d['knobs'][2]['after'] == 'on' and d['knobs'][0]['after'] == '1'" ||
		fail "run document with knobs"
	[ $((c1 - c0)) -gt 100 ] || fail "legacy-rx knob: ktn1 split $((c1 - c0)) frames, want the copy path"
	[ "$(dev_state "$NS_A" "$NS_B")" = "$orig" ] || fail "not restored after the run: $(dev_state "$NS_A" "$NS_B"), want $orig"
	log "knobs during the run applied and put back: $orig; legacy-rx split $((c1 - c0)) frames"

	# A private flag that resets the device (flag-reset on): the run sees
	# it and warms up before its window, as for a channel change.
	ip netns exec "$NS_B" $KTGEN dev set ktn1 priv-flag flag-reset on >/dev/null ||
		fail "flag-reset on: exit $?"
	doc=$(ip netns exec "$NS_A" $KTGEN -j run tcp_stream to $NIC_ADDR_B port 5240 \
		time "$(span 1)" knob ktn1@$NS_B priv-flag legacy-rx on) ||
		fail "run with a resetting knob: exit $?"
	echo "$doc" | json_check "$TCP_DONE and d['warmup_ms'] == 1000 and d['knobs'][0]['reset']" ||
		fail "run with a resetting private flag: no reset seen, or no warmup"
	ip netns exec "$NS_B" $KTGEN dev set ktn1 priv-flag flag-reset off >/dev/null

	for sig in INT TERM HUP; do
		ip netns exec "$NS_A" $KTGEN -j run tcp_stream to $NIC_ADDR_B port 5240 \
			time 600 $knobs >"/tmp/dev-run-$$" &
		pid=$!
		# the signal comes in the run's window (after its 1 s warmup), all
		# its knobs on
		slowwait "$(scaled 20)" dev_in_window "$NS_A" ||
			fail "SIG$sig: the run never reached its window"
		during=$(dev_state "$NS_A" "$NS_B")
		[ "$(echo "$during" | cut -d ' ' -f 2)" = on ] || fail "SIG$sig: knobs never applied"
		[ "$during" != "$orig" ] || fail "SIG$sig: knobs not on during the run"
		kill -$sig $pid
		wait $pid || fail "run stopped by SIG$sig: exit $?"
		json_check "d['state'] == 'stopped' and len(d['knobs']) == 5" <"/tmp/dev-run-$$" ||
			fail "SIG$sig: partial result"
		[ "$(dev_state "$NS_A" "$NS_B")" = "$orig" ] ||
			fail "SIG$sig: not restored: $(dev_state "$NS_A" "$NS_B"), want $orig"
		log "SIG$sig: during '$during', after '$orig'"
	done
	rm -f "/tmp/dev-run-$$"

	# A knob that cannot be applied: no run, nothing left changed.
	ip netns exec "$NS_A" $KTGEN -j run show | json_check "len(d) == 5" || fail "runs before"
	expect_fail 1 "ktn1: rings-rx: .*power of 2" ip netns exec "$NS_A" $KTGEN run tcp_stream \
		to $NIC_ADDR_B port 5240 time 1 knob ktn0 feature tx-nocache-copy on knob ktn1@$NS_B rings rx 100
	[ "$(dev_state "$NS_A" "$NS_B")" = "$orig" ] || fail "a refused knob left changes"
	ip netns exec "$NS_A" $KTGEN -j run show | json_check "len(d) == 5" ||
		fail "a run started despite the refused knob"
}
# (Not on the debug kernel: it proves the CLI's knob handling; the kernel
# paths it reaches are ethtool's and ktgen-nic's, which nic_* cover there.)
case_add dev_run t_dev_run 240 nodebug
