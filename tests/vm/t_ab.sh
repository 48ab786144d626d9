#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Verdicts: ab flags a calibrated slowdown injected by the module's test
# hook (test_send_delay_ns) and exits 1, bisect maps it, A/A does not
# regress, diff agrees with ab on the same samples and keeps a baseline's
# sessions, run ... repeat summarizes and confidence stops early.

AB_PARAM=/sys/module/ktgen/parameters/test_send_delay_ns

t_ab_verdicts()
{
	local run doc delay slow out rc

	load_module
	NIC_IPV6=0 nic_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5250 rx discard >/dev/null
	run="run tcp_stream to $NIC_ADDR_B port 5250 time 1"
	out=$(mktemp -d)

	# Calibrated: twice a message's own time added to each message makes
	# the sender the bottleneck, at a third or less of the throughput.
	doc=$(ip netns exec "$NS_A" $KTGEN -j $run) || fail "calibration run"
	delay=$(echo "$doc" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
print(min(int(d["duration_ns"] / d["tx"]["msgs"] * 2), 1000000))')
	slow="pre 'echo $delay >$AB_PARAM' post 'echo 0 >$AB_PARAM'"
	rc=0
	ip netns exec "$NS_A" $KTGEN -j ab repeat 6 a "" b "$slow" -- $run >"$out/ab.json" || rc=$?
	[ "$(cat $AB_PARAM)" = 0 ] || fail "post command did not run"
	json_check "d['pairs'] == 6 and d['verdicts'][0]['verdict'] == 'regression' and
		    d['verdicts'][0]['metric'] == 'tx_bps' and d['verdicts'][0]['ratio'] < 0.7 and
		    d['verdicts'][0]['p_holm'] < 0.05 and
		    len(d['a']['metrics']['tx_bps']['samples']) == 6 and
		    len(d['b']['metrics']['tx_bps']['samples']) == 6 and d['exit'] == 1" <"$out/ab.json" ||
		fail "injected slowdown of $delay ns per message not flagged"
	[ $rc = 1 ] || fail "ab with a regression exited $rc, want 1"
	log "delay $delay ns/msg: $(/usr/bin/python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["verdicts"][0]; print("ratio %.3f p %.2g MDE %.1f%%" % (v["ratio"], v["p_holm"], v["mde_pct"]))' "$out/ab.json")"

	# diff over the same samples (a as base, b as new): the same verdict.
	rc=0
	$KTGEN -j diff "$out/ab.json" "$out/ab.json" >"$out/diff.json" || rc=$?
	json_check "d['verdicts'][0]['verdict'] == 'regression'" <"$out/diff.json" ||
		fail "diff disagrees with ab"
	[ $rc = 1 ] || fail "diff exited $rc, want 1"
	rc=0
	$KTGEN diff "$out/ab.json" "$out/ab.json" bisect >/dev/null || rc=$?
	[ $rc = 1 ] || fail "diff bisect exited $rc, want 1"
	# Beyond the threshold only: the same samples are no regression at 90 %.
	$KTGEN diff "$out/ab.json" "$out/ab.json" threshold 90 >/dev/null ||
		fail "diff threshold 90: exit $?"

	# A/A: the same variant twice is no regression.
	rc=0
	ip netns exec "$NS_A" $KTGEN -j ab repeat 4 a "" b "" alpha 0.01 -- $run >"$out/aa.json" || rc=$?
	json_check "d['verdicts'][0]['verdict'] != 'regression'" <"$out/aa.json" || fail "A/A regressed"
	[ $rc = 0 ] || [ $rc = 3 ] || fail "A/A exited $rc, want 0 or 3"
	log "A/A: exit $rc, $(/usr/bin/python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["verdicts"][0]; print("ratio %.3f p %.2g MDE %.1f%% %s" % (v["ratio"], v["p_holm"], v["mde_pct"], v["verdict"]))' "$out/aa.json")"

	# repeat: a summary; P10/P90 withheld below 10 runs.
	ip netns exec "$NS_A" $KTGEN -j $run repeat 3 >"$out/base.json" || fail "repeat 3: exit $?"
	json_check "d['runs'] == 3 and len(d['metrics']['tx_bps']['samples']) == 3 and
		    'median' in d['metrics']['tx_bps']['summary'] and
		    'p10' not in d['metrics']['tx_bps']['summary']" <"$out/base.json" || fail "repeat 3"
	# confidence: a wide interval is reached at the third run.
	ip netns exec "$NS_A" $KTGEN -j $run repeat 8 confidence 0.9,0.9 |
		json_check "d['runs'] == 3 and d['confidence_reached']" || fail "confidence 0.9,0.9"

	# A baseline gains a session when nothing regressed, not otherwise.
	ip netns exec "$NS_A" $KTGEN -j $run repeat 3 >"$out/new.json" || fail "repeat 3 (new)"
	rc=0
	$KTGEN diff "$out/base.json" "$out/new.json" save threshold 90 >/dev/null || rc=$?
	[ $rc = 0 ] || [ $rc = 3 ] || fail "diff of two plain sessions exited $rc"
	json_check "d['sessions'] == 2 and len(d['metrics']['tx_bps']['samples']) == 6" <"$out/base.json" ||
		fail "baseline not saved with two sessions"
	echo "$delay" >$AB_PARAM
	ip netns exec "$NS_A" $KTGEN -j $run repeat 3 >"$out/slow.json" || fail "repeat 3 (slow)"
	echo 0 >$AB_PARAM
	rc=0
	$KTGEN diff "$out/base.json" "$out/slow.json" save >/dev/null || rc=$?
	[ $rc = 1 ] || fail "diff against the baseline exited $rc, want 1"
	json_check "d['sessions'] == 2" <"$out/base.json" || fail "a regression was saved"
	rm -rf "$out"
}
case_add ab_verdicts t_ab_verdicts 400 stock
