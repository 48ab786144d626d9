#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Verdicts: ab flags a calibrated slowdown injected by the module's test
# hook (send_delay_ns, kmod/debug.h) and exits 1, bisect maps it, A/A does not
# regress, diff agrees with ab on the same samples and keeps a baseline's
# sessions, run ... repeat summarizes and confidence stops early.

# (its pre and post commands run in a namespace whose /sys is its own, as
# ip netns exec mounts it: the hook is reached through init's root)
AB_PARAM=/proc/1/root/sys/kernel/debug/ktgen/send_delay_ns

# plot_check DOC PREFIX: scripts/ktgen-plot renders DOC as PREFIX.png and
# PREFIX.svg.
plot_check()
{
	"$KTGEN_TOP/scripts/ktgen-plot" "$1" "$2" >/dev/null || fail "ktgen-plot $1"
	[ "$(head -c 4 "$2.png" | tail -c 3)" = PNG ] || fail "$2.png is no PNG"
	grep -q '<svg' "$2.svg" || fail "$2.svg is no SVG"
}

# job_schema DOC...: each a valid job document (tools/ktgen-job.schema.json).
job_schema()
{
	/usr/bin/python3 -c '
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for path in sys.argv[2:]:
    jsonschema.validate(json.load(open(path)), schema, cls=jsonschema.Draft202012Validator)
' "$KTGEN_TOP/tools/ktgen-job.schema.json" "$@" || fail "not a valid job document: $*"
}

t_ab_verdicts()
{
	local run doc delay slow out rc

	load_module
	NIC_IPV6=0 nic_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5250 rx discard >/dev/null
	run="run tcp_stream to $NIC_ADDR_B port 5250 time 1"
	# on the debug kernel a 64 KiB message takes longer than the hook's
	# 1 ms at most: smaller ones
	[ "$KTGEN_TIME_SCALE" -gt 1 ] && run="$run size 1K"
	out=$(mktemp -d)

	# Calibrated: twice a message's own time added to each message makes
	# the sender the bottleneck, at a third or less of the throughput.
	doc=$(ip netns exec "$NS_A" $KTGEN -j $run) || fail "calibration run"
	delay=$(echo "$doc" | json_value 'min(int(d["duration_ns"] / d["tx"]["msgs"] * 2), 1000000)')
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
	log "delay $delay ns/msg: $(json_value '(lambda v: "ratio %.3f p %.2g MDE %.1f%%" %
		(v["ratio"], v["p_holm"], v["mde_pct"]))(d["verdicts"][0])' <"$out/ab.json")"

	plot_check "$out/ab.json" "$out/ab"

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

	# A/A: the same variant twice is no regression (what b's pre command
	# prints stays off stdout). A verdict at alpha alarms at rate alpha
	# with nothing wrong: one that alarms is judged by a second job, and
	# the check fails only when both do (at alpha^2, 1e-4); a tool that
	# made a difference of its own fails both.
	rc=0
	ip netns exec "$NS_A" $KTGEN -j ab repeat 4 a "" b "pre 'echo on stdout'" alpha 0.01 -- $run >"$out/aa.json" || rc=$?
	json_check "d['seed'] >= 0" <"$out/aa.json" || fail "A/A: no seed in the document"
	if [ $rc = 1 ]; then
		log "A/A alarmed: $(json_value '(lambda v: "ratio %.3f p %.2g, seed %d; a second job" %
			(v["ratio"], v["p_holm"], d["seed"]))(d["verdicts"][0])' <"$out/aa.json")"
		rc=0
		ip netns exec "$NS_A" $KTGEN -j ab repeat 4 a "" b "pre 'echo on stdout'" alpha 0.01 -- $run >"$out/aa.json" || rc=$?
	fi
	json_check "d['verdicts'][0]['verdict'] != 'regression'" <"$out/aa.json" || fail "A/A regressed"
	[ $rc = 0 ] || [ $rc = 3 ] || fail "A/A exited $rc, want 0 or 3"
	log "A/A: exit $rc, $(json_value '(lambda v: "ratio %.3f p %.2g MDE %.1f%% %s" %
		(v["ratio"], v["p_holm"], v["mde_pct"], v["verdict"]))(d["verdicts"][0])' <"$out/aa.json")"

	# repeat: a summary; P10/P90 withheld below 10 runs.
	ip netns exec "$NS_A" $KTGEN -j $run repeat 3 >"$out/base.json" || fail "repeat 3: exit $?"
	json_check "d['runs'] == 3 and len(d['metrics']['tx_bps']['samples']) == 3 and
		    'median' in d['metrics']['tx_bps']['summary'] and
		    'p10' not in d['metrics']['tx_bps']['summary'] and
		    d['job']['test'] == 'tcp_stream' and 'kernel' in d['job']['environment'] and
		    d['command'][:3] == ['ktgen', 'run', 'tcp_stream']" <"$out/base.json" || fail "repeat 3"
	cp "$out/base.json" "$out/base1.json"
	# confidence: it stops at the first run (from the third) whose 90 %
	# interval of the mean is narrower than 90 % of it: the third, unless
	# a cold first run widened it.
	ip netns exec "$NS_A" $KTGEN -j $run repeat 8 confidence 0.9,0.9 >"$out/conf.json" ||
		fail "confidence 0.9,0.9: exit $?"
	# (t's 95 % quantiles for 2 to 6 degrees of freedom, scipy's
	# stats.t.ppf(0.95, df): its import costs seconds under TCG)
	/usr/bin/python3 - "$out/conf.json" <<-'PY' || fail "confidence 0.9,0.9: $(cat "$out/conf.json")"
	import json, math, sys
	t95 = {2: 2.919985580355516, 3: 2.3533634348018264, 4: 2.13184678133629,
	       5: 2.015048372669157, 6: 1.9431802803927816}
	d = json.load(open(sys.argv[1]))
	x = d['metrics']['tx_bps']['samples']
	def narrow(n):
	    m = sum(x[:n]) / n
	    sd = math.sqrt(sum((v - m) ** 2 for v in x[:n]) / (n - 1))
	    return 2 * t95[n - 1] * sd / math.sqrt(n) / m <= 0.9
	n = d['runs']
	assert d['confidence_reached'] and len(x) == n and 3 <= n < 8, (n, len(x))
	assert narrow(n) and not any(narrow(k) for k in range(3, n)), x
	PY

	# A baseline gains a session when nothing regressed, not otherwise.
	ip netns exec "$NS_A" $KTGEN -j $run repeat 3 >"$out/new.json" || fail "repeat 3 (new)"
	rc=0
	$KTGEN diff "$out/base.json" "$out/new.json" save threshold 90 >/dev/null || rc=$?
	[ $rc = 0 ] || [ $rc = 3 ] || fail "diff of two plain sessions exited $rc"
	json_check "d['sessions'] == 2 and len(d['metrics']['tx_bps']['samples']) == 6 and
		    d['job']['test'] == 'tcp_stream'" <"$out/base.json" ||
		fail "baseline not saved with two sessions"
	echo "$delay" >$AB_PARAM
	ip netns exec "$NS_A" $KTGEN -j $run repeat 3 >"$out/slow.json" || fail "repeat 3 (slow)"
	echo 0 >$AB_PARAM
	rc=0
	$KTGEN diff "$out/base.json" "$out/slow.json" save >/dev/null || rc=$?
	[ $rc = 1 ] || fail "diff against the baseline exited $rc, want 1"
	json_check "d['sessions'] == 2" <"$out/base.json" || fail "a regression was saved"
	# every job document above, by the job schema (one Python for all)
	job_schema "$out/ab.json" "$out/diff.json" "$out/base1.json" "$out/base.json"
	rm -rf "$out"
}
# (Not on the debug kernel: it proves the CLI's statistics and verdicts,
# unit-tested against scipy; its kernel paths are tcp_stream's.)
case_add ab_verdicts t_ab_verdicts 400 nodebug

# sweep: sizes x variants in one table and one document, CSV rows, a plot;
# SIGTERM in the middle of an ab stops it, the run's knobs put back.
t_ab_sweep()
{
	local run out rc pid want

	load_module
	NIC_IPV6=0 nic_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5251 rx verify >/dev/null
	# (runs of 0.2 s: what is checked is the documents' shape, not values)
	run="run tcp_stream to $NIC_ADDR_B port 5251 time 0.2"
	out=$(mktemp -d)
	ip netns exec "$NS_A" $KTGEN -j sweep sizes 1K,16K repeat 2 variant stack "tx stack" \
		variant cached "tx cached" -- $run >"$out/sweep.json" || fail "sweep: exit $?"
	json_check "d['repeat'] == 2 and [v['name'] for v in d['variants']] == ['stack', 'cached'] and
		    [(c['size'], c['variant']) for c in d['cells']] ==
		    [(1024, 'stack'), (1024, 'cached'), (16384, 'stack'), (16384, 'cached')] and
		    all(len(c['metrics']['tx_bps']['samples']) == 2 for c in d['cells']) and
		    all('verdict' in c for c in d['cells'] if c['variant'] == 'cached')" <"$out/sweep.json" ||
		fail "sweep document"
	plot_check "$out/sweep.json" "$out/sweep"
	ip netns exec "$NS_A" $KTGEN sweep sizes 512 csv columns tx_bps,rx_bps -- $run >"$out/csv" ||
		fail "sweep csv: exit $?"
	[ "$(head -n 1 "$out/csv")" = "size,variant,rep,tx_bps,rx_bps" ] || fail "csv header: $(head -n 1 "$out/csv")"
	grep -Eq '^512,run,1,[0-9]+(\.[0-9]+)?,[0-9]+(\.[0-9]+)?$' "$out/csv" || fail "csv row: $(tail -n 1 "$out/csv")"
	ip netns exec "$NS_A" $KTGEN ab repeat 2 a "" b "tx cached" csv columns tx_bps -- $run \
		>"$out/ab.csv" 2>"$out/ab.err" || [ $? != 4 ] || fail "ab csv: exit 4"
	# progress as it goes: each pair's values, the time left
	grep -Eq '^ktgen: ab pair 1/2: a [0-9.e+]+ Mbit/s, b [0-9.e+]+ Mbit/s; [0-9]+m[0-9]{2}s left$' "$out/ab.err" &&
		grep -Eq '^ktgen: ab pair 2/2: a [0-9.e+]+ Mbit/s, b [0-9.e+]+ Mbit/s$' "$out/ab.err" ||
		fail "ab progress: $(grep 'ab pair' "$out/ab.err")"
	# the rows in the order the pairs ran (drawn from the job's seed)
	want="pair,variant,tx_bps $(sed -n 's|^ktgen: ab pair \([12]\)/2: \([ab]\) then \([ab]\)$|\1,\2, N \1,\3, N|p' "$out/ab.err" | tr '\n' ' ')"
	[ "$(tr '\n' ' ' <"$out/ab.csv" | sed 's/[0-9]*\.\?[0-9]*[0-9] / N /g')" = "$want" ] ||
		fail "ab csv: $(cat "$out/ab.csv"), want $want"
	ip netns exec "$NS_A" $KTGEN $run repeat 2 csv columns tx_bps,rx_bps >"$out/run.csv" 2>/dev/null ||
		fail "repeat csv: exit $?"
	[ "$(wc -l <"$out/run.csv")" = 3 ] && [ "$(head -n 1 "$out/run.csv")" = run,tx_bps,rx_bps ] ||
		fail "repeat csv: $(cat "$out/run.csv")"

	# SIGTERM to ab alone during a 10-minute run: ab passes it on, the
	# run stops and restores its knob, the job ends with exit 4
	# (infrastructure), no half sample; pre output stays off stdout.
	# Seed 1 runs a first in the first pair (the orders a seed draws are
	# the same everywhere: tests/unit/stats.py).
	rc=0
	ip netns exec "$NS_A" $KTGEN -j ab repeat 50 seed 1 a "knob ktn0 feature tx-nocache-copy on" \
		b "pre 'echo not json'" \
		-- run tcp_stream to $NIC_ADDR_B port 5251 time 600 tx user >"$out/int.json" &
	pid=$!
	slowwait "$(scaled 20)" sh -c "ip netns exec $NS_A ethtool -k ktn0 | grep -q 'tx-nocache-copy: on'" ||
		fail "variant a never ran"
	kill -TERM $pid
	wait $pid || rc=$?
	[ $rc = 4 ] || fail "ab terminated: exit $rc, want 4"
	[ "$(ip netns exec "$NS_A" ethtool -k ktn0 | awk '/^tx-nocache-copy:/ { print $2 }')" = off ] ||
		fail "knob left on after the interrupted ab"
	json_check "d['pairs'] == 0 and d['exit'] == 4 and d['b']['pre'] == 'echo not json'" <"$out/int.json" ||
		fail "terminated ab document"
	# both job documents, by the job schema (one Python for the two)
	job_schema "$out/sweep.json" "$out/int.json"
	rm -rf "$out"
}
# (Not on the debug kernel: it proves the CLI's statistics and verdicts,
# unit-tested against scipy; its kernel paths are tcp_stream's.)
case_add ab_sweep t_ab_sweep 300 nodebug

# What a job's runs warn of reaches its caller once per variant and its
# document; a knob that cannot act on the run's path is refused before any
# run, with nothing run and nothing changed.
t_ab_warnings()
{
	local dir out rc=0 v runs nocache

	load_module
	NIC_IPV6=0 nic_pair
	ip netns exec "$NS_B" $KTGEN sink add tcp port 5252 rx verify rr >/dev/null
	dir=$(mktemp -d)
	# an open loop no kernel keeps up with: every run falls behind
	ip netns exec "$NS_A" $KTGEN -j ab repeat 2 a "" b "flows 2" \
		-- run tcp_crr to $NIC_ADDR_B port 5252 time 0.5 rate 1000000 >"$dir/ab.json" 2>"$dir/err" || rc=$?
	[ $rc != 2 ] && [ $rc != 4 ] || fail "ab: exit $rc: $(cat "$dir/err")"
	for v in a b; do
		[ "$(grep -c "^ktgen: variant $v: warning: open loop kept .* the generator fell behind$" "$dir/err")" = 1 ] ||
			fail "variant $v's warning not once on stderr: $(cat "$dir/err")"
	done
	json_check "d['pairs'] == 2 and all(len([w for w in d[v].get('warnings', [])
		if w.startswith('open loop kept ') and w.endswith('the generator fell behind')]) == 1
		for v in 'ab')" <"$dir/ab.json" || fail "ab document: the variants' warnings"

	runs=$(ip netns exec "$NS_A" $KTGEN -j run show | json_value 'len(d)')
	nocache=$(ip netns exec "$NS_A" ethtool -k ktn0 | awk '/^tx-nocache-copy:/ { print $2 }')
	rc=0
	out=$(ip netns exec "$NS_A" $KTGEN ab repeat 2 a "" b "knob ktn0 feature tx-nocache-copy on" \
		-- run tcp_stream to $NIC_ADDR_B port 5252 time 1 2>&1) || rc=$?
	[ $rc = 2 ] && [[ $out == *"variant b: run: knob ktn0 feature tx-nocache-copy: no effect possible on tx stack"* ]] ||
		fail "tx-nocache-copy on tx stack: exit $rc: $out"
	rc=0
	out=$(ip netns exec "$NS_A" $KTGEN ab bisect repeat 2 a "tx user" b "tx user knob ktn1@$NS_B priv-flag frob on" \
		-- run tcp_stream to $NIC_ADDR_B port 5252 time 1 2>&1) || rc=$?
	[ $rc = 128 ] && [[ $out == *"ktn1: no private flag 'frob'; the device has: "*legacy-rx* ]] &&
		[[ $out == *"variant b: run: knob ktn1@$NS_B priv-flag frob cannot act here"* ]] ||
		fail "a private flag ktn1 lacks: exit $rc: $out"
	[ "$(ip netns exec "$NS_A" $KTGEN -j run show | json_value 'len(d)')" = "$runs" ] ||
		fail "a refused job ran"
	[ "$(ip netns exec "$NS_A" ethtool -k ktn0 | awk '/^tx-nocache-copy:/ { print $2 }')" = "$nocache" ] ||
		fail "a refused job changed tx-nocache-copy"
	rm -rf "$dir"
}
# (Not on the debug kernel: it proves the CLI's statistics and verdicts,
# unit-tested against scipy; its kernel paths are tcp_stream's.)
case_add ab_warnings t_ab_warnings 200 nodebug
