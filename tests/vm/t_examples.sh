#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The five comparisons of examples/, each run as a newcomer would with no
# arguments: on a ktgen-nic pair the recipe makes between two namespaces,
# shortened (2 runs of 1 s a variant). Each prints its table and its
# verdict line and exits with ktgen's code for a comparison that ran (0,
# 1 or 3: never usage or infrastructure), and leaves nothing behind.

t_examples()
{
	local ex out rc want

	need_cpus 2
	load_module
	for ex in "$KTGEN_TOP"/examples/0*.sh; do
		rc=0
		out=$(KTGEN="$KTGEN" "$ex" -n 2 -t 1 2>&1) || rc=$?
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
		log "$(basename "$ex"): exit $rc ($want)"
		ip netns list | grep -q '^ktgex-' && fail "$(basename "$ex") left its namespaces"
		[ -z "$($KTGEN nic show)" ] || fail "$(basename "$ex") left a device: $($KTGEN nic show)"
	done
	# two hosts' options: all three or none
	out=$("$KTGEN_TOP/examples/04-xps.sh" -i eth0 2>&1) && fail "04-xps.sh -i alone worked"
	[[ $out == *"-i, -a and -p go together"* ]] || fail "04-xps.sh -i alone: $out"
}
case_add examples t_examples 600 nodebug
