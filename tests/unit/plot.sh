#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# plot.sh PLOT: scripts/ktgen-plot on hand-made documents of each kind it
# draws, the PNG and SVG made, the SVG holding what the kind must show
# (matplotlib keeps each text as a comment beside its glyphs), and a
# document of no kind refused.

. "$(dirname "$0")/ktap.sh"

plot=${1:?scripts/ktgen-plot}

# draw NAME DOC WANT...: the SVG of DOC holds every WANT
draw()
{
	local name=$1 doc=$2 out miss=
	shift 2

	echo "$doc" >"$tmp/$name.json"
	out=$(MPLBACKEND=Agg "$plot" "$tmp/$name.json" "$tmp/$name" 2>&1) || {
		result "$name" "ktgen-plot failed: $out"
		return
	}
	[ -s "$tmp/$name.png" ] || miss+="no PNG; "
	for w in "$@"; do
		grep -qF -- "$w" "$tmp/$name.svg" || miss+="no '$w' in the SVG; "
	done
	result "$name" "$miss"
}

sum='"summary":{"median":1000,"mean":1000,"ci95_lo":990,"ci95_hi":1010}'
draw plot_ab '{"test":"tcp_stream","metric":"tx_bps","threshold_pct":5,
	"a":{"args":"","metrics":{"tx_bps":{"samples":[990,1000,1010],'"$sum"'}}},
	"b":{"args":"tx cached","metrics":{"tx_bps":{"samples":[890,900,910],'"$sum"'}}},
	"verdicts":[{"metric":"tx_bps","ratio":0.9,"ci_lo":0.88,"ci_hi":0.92,"p_holm":0.001,
	"mde_pct":2.1,"verdict":"regression"}]}' \
	"b / a" "within 5 %" "ratio, 95 % interval" "regression"
draw plot_run_stream '{"test":"tcp_stream","state":"done","warmup_ms":1000,"intervals":[
	{"interval":1,"start_ns":0,"end_ns":1000000000,"tx_bytes":1,"tx_bps":900000000,"rx_bps":899000000},
	{"interval":2,"start_ns":1000000000,"end_ns":2000000000,"tx_bytes":1,"tx_bps":950000000,"rx_bps":949000000}]}' \
	"Mbit/s" "warmup" "2 intervals"
draw plot_run_rr '{"test":"tcp_rr","state":"done","intervals":[
	{"interval":1,"start_ns":0,"end_ns":1000000000,"tx_bytes":1,"tx_bps":1,"tps":5000,"percentiles_ns":{"p99":80000}},
	{"interval":2,"start_ns":1000000000,"end_ns":2000000000,"tx_bytes":1,"tx_bps":1,"tps":5100,"percentiles_ns":{"p99":70000}}]}' \
	"transactions/s" "p99 latency (us)"
cell()
{
	echo '{"point":"'"$1"'","words":"size '"$1"'","variant":"'"$2"'","metrics":{"tx_bps":{"samples":[1,2],"summary":{"median":'"$3"',"ci95_lo":'"$3"',"ci95_hi":'"$3"'}}}'"${4:+,$4}"'}'
}
draw plot_sweep '{"test":"tcp_stream","metric":"tx_bps","stat":"median","repeat":2,"over":["size"],
	"variants":[{"name":"stack","args":"tx stack"},{"name":"zc","args":"tx zerocopy"}],
	"cells":['"$(cell 1K stack 1e9),$(cell 1K zc 9e8 '"ratio":0.9,"ci_lo":0.85,"ci_hi":0.95'),$(cell 64K stack 2e9),$(cell 64K zc 2.2e9 '"ratio":1.1,"ci_lo":1.02,"ci_hi":1.2')"']}' \
	"zc / stack" "ratio to the first, 95 % interval"
echo '{"hello":1}' >"$tmp/none.json"
out=$(MPLBACKEND=Agg "$plot" "$tmp/none.json" "$tmp/none" 2>&1)
rc=$?
result plot_refuses_other "$([ $rc != 0 ] && [[ $out == *"not an ab, diff, sweep or repeat document"* ]] ||
	echo "exit $rc: $out")"

finish plot
