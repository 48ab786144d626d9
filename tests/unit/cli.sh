#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cli.sh KTGEN: the CLI's behaviour without a kernel module, on the host
# (sanitized binary): exit codes, help, usage errors. KTAP output.
ktgen=${1:?path to ktgen}
n=0 failed=0
cases=()

t()
{
	# t NAME WANT_EXIT WANT_REGEX ARGS...
	local name=$1 want=$2 re=$3 out rc

	shift 3
	n=$((n + 1))
	out=$("$ktgen" "$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && echo "$out" | grep -Eq -- "$re"; then
		cases+=("ok $n $name")
	else
		cases+=("not ok $n $name")
		cases+=("# ktgen $*: exit $rc (want $want), output: $out")
		failed=$((failed + 1))
	fi
}

t version 0 '^ktgen [0-9]+\.[0-9]+\.[0-9]+' -V
t help 0 'Usage: ktgen .*OBJECT' help
t help_flag 0 'Exit status: 0 ok, 1 refused' -h
t no_args 2 'Usage:'
t unknown_object 2 "unknown object 'frob'" frob
t unknown_option 2 'Usage:' --frob info
t info_help 0 'Usage: ktgen info' info help
t info_extra 2 "info: unexpected 'now'" info now
t config_help 0 'ktgen config set \[budget BYTES\] \[max-runs N\] \[max-sinks N\]' config help
t config_unknown 2 "config: unknown command 'get'" config get
t config_set_empty 2 'nothing to set' config set
t config_set_keyword 2 "unknown keyword 'size'" config set size 1M
t config_set_novalue 2 'budget needs a size' config set budget
t config_set_badsize 2 'budget needs a size' config set budget 12Q
t config_set_runs_zero 2 'max-runs needs a count from 1 to 65536' config set max-runs 0
t config_set_sinks_big 2 'max-sinks needs a count from 1 to 65536' config set max-sinks 65537
t config_set_runs_novalue 2 'max-runs needs a count' config set budget 1G max-runs
t config_show_extra 2 "unexpected 'x'" config show x
t sink_help 0 'ktgen sink add tcp\|udp' sink help
t sink_unknown 2 "sink: unknown command 'frob'" sink frob
t sink_add_proto 2 "unknown protocol 'sctp'" sink add sctp port 1
t sink_add_noproto 2 'tcp or udp' sink add
t sink_add_noport 2 'port is required' sink add tcp
t sink_add_badport 2 'port needs a number' sink add udp port 65536
t sink_add_badaddr 2 'local needs an IPv4 or IPv6 address' sink add tcp local 10.0.0 port 1
t sink_add_v4_ipv6 2 'ipv4 and ipv6 are for the wildcard address only' sink add tcp local 10.0.0.1 port 1 ipv6
t sink_add_v6_ipv6 2 'ipv4 and ipv6 are for the wildcard address only' sink add udp local fd00::1 port 1 ipv6
t sink_add_v6_ipv4 2 'ipv4 and ipv6 are for the wildcard address only' sink add udp local fd00::1 port 1 ipv4
# run ... peer: the URL and the peer's words are checked before any ssh.
R='run tcp_stream to 10.0.0.2 port 5001'
t peer_scheme 2 "ssh://\[user@\]host\[:port\].*'http://h'" $R peer http://h
t peer_option 2 "not 'ssh://-oProxyCommand=x'" $R peer ssh://-oProxyCommand=x
t peer_user_option 2 "not 'ssh://-l@h'" $R peer ssh://-l@h
t peer_empty_user 2 "not 'ssh://@h'" $R peer ssh://@h
t peer_path 2 "not 'ssh://h/x'" $R peer ssh://h/x
t peer_shell 2 "not 'ssh://h;reboot'" $R peer 'ssh://h;reboot'
t peer_v6_open 2 "not 'ssh://\[fd00::1'" $R peer 'ssh://[fd00::1'
t peer_v6_junk 2 "not 'ssh://\[fd00::1\]x'" $R peer 'ssh://[fd00::1]x'
t peer_port_zero 2 "port of 'ssh://h:0' is not a number from 1 to 65535" $R peer ssh://h:0
t peer_port_big 2 "port of 'ssh://h:65536'" $R peer ssh://h:65536
t peer_novalue 2 'peer needs ssh://' $R peer
t peer_twice 2 'one peer' $R peer ssh://a peer ssh://b
t peer_words_alone 2 'peer-rx, peer-cpus, peer-rcvbuf and peer-knob are for a peer' $R peer-cpus 1
t peer_rx_bad 2 "unknown rx mode 'bogus'" $R peer ssh://h peer-rx bogus
t peer_rx_user 2 'peer-rx user: not on a peer' $R peer ssh://h peer-rx user
t peer_cpus_bad 2 "cpus needs a list" $R peer ssh://h peer-cpus x
t peer_knob_bad 2 "unknown knob 'frob'" $R peer ssh://h peer-knob eth1 frob on
t peer_rx_novalue 2 'peer-rx needs a value' $R peer ssh://h peer-rx
t peer_rx_twice 2 'peer-rx given twice' $R peer ssh://h peer-rx copy peer-cpus 1 peer-rx touch
t peer_detach 2 'a detached run has nobody to collect' $R detach peer ssh://h
t peer_serve_help 0 'Usage: ktgen peer serve' peer help
t peer_serve_unknown 2 "peer: unknown command 'start'" peer start
t peer_serve_keyword 2 "peer serve: unknown keyword 'frob'" peer serve tcp port 1 knob eth0 gro off frob
t peer_serve_sink_word 2 "unknown keyword 'size'" peer serve tcp port 1 size 1
t nic_list 2 "nic: unknown command 'list'" nic list
t sweep_gate 2 'sweep: no gate: a sweep is a table' sweep sizes 1K gate tx_bps -- run tcp_stream to 10.0.0.1 port 1
t sweep_bisect 2 'sweep: no bisect: a sweep is a table' sweep sizes 1K bisect -- run tcp_stream to 10.0.0.1 port 1
t sink_add_rx 2 "unknown rx mode 'mmap'" sink add tcp port 1 rx mmap
t sink_add_cpus 2 'cpus needs a list' sink add tcp port 1 cpus 3-1
t sink_add_cpus_max 2 'cpus needs a list' sink add tcp port 1 cpus 1024
t sink_add_rcvbuf 2 'rcvbuf needs a size' sink add tcp port 1 rcvbuf 4G
t sink_add_keyword 2 "unknown keyword 'backlog'" sink add tcp port 1 backlog 5
t sink_add_busy_poll 2 "busy-poll needs microseconds, like 50, 200us or 10ms, not '1.5ms'" sink add tcp port 1 busy-poll 1.5ms
t sink_help_busy_poll 0 'busy-poll USECS' sink help
t sink_add_max_conns 2 "max-conns needs a number, not 'many'" sink add tcp port 1 max-conns many
t sink_add_idle_ms 2 "idle-ms needs milliseconds, not '1s'" sink add udp port 1 idle-ms 1s
t sink_help_max_conns 0 'max-conns N\]' sink help
t sink_help_families 0 'ipv4, ipv6: the wildcard of that family only' sink help
t sink_add_gro_tcp 2 'gro is for udp sinks' sink add tcp port 1 gro
t sink_help_gro 0 'gro:   udp: take GRO batches' sink help
t sink_add_resp_max_no_rr 2 'resp-max is for sinks that answer requests \(rr\)' sink add udp port 1 resp-max 64K
t sink_add_resp_max_bad 2 "resp-max needs a size in bytes, not 'lots'" sink add udp port 1 rr resp-max lots
t sink_help_rr 0 'rr \[resp-max BYTES\]' sink help
t peer_serve_resp_max_no_rr 2 'resp-max is for sinks that answer requests' peer serve tcp port 1 resp-max 2000
t sink_add_novalue 2 'rx needs a value' sink add tcp port 1 rx
t sink_show_id 2 "sink show: 'x' is not an id" sink show x
t sink_show_extra 2 "sink show: unexpected '2'" sink show 1 2
t sink_del_noid 2 'sink del: which id \(or all\)' sink del
t run_help 0 'ktgen run tcp_stream\|udp_stream\|tcp_rr\|udp_rr\|tcp_crr to ADDR' run help
t run_notest 2 'which test' run
t run_unknown 2 "unknown test or command 'frob'" run frob
t run_no_to 2 'to ADDR is required' run tcp_stream port 1
t run_no_port 2 'port PORT is required' run udp_stream to 10.0.0.1
t run_family 2 'to is an IPv4 address but local is an IPv6' run tcp_stream to 10.0.0.1 local ::1 port 1
t run_family6 2 'to is an IPv6 address but local is an IPv4' run tcp_stream to fe80::1 local 10.0.0.1 port 1
t run_two_limits 2 'one limit: time, bytes or msgs' run tcp_stream to 1.2.3.4 port 5 time 1 bytes 5
t run_two_limits_msgs 2 'one limit' run tcp_stream to 1.2.3.4 port 5 msgs 1 bytes 5
t run_keyword 2 "unknown keyword 'frob'" run tcp_stream to 1.2.3.4 port 5 frob
t run_novalue 2 'size needs a size' run tcp_stream to 1.2.3.4 port 5 size
t run_badsize 2 "size needs a size in bytes below 4G, not '4G'" run tcp_stream to 1.2.3.4 port 5 size 4G
t run_badflows 2 "flows needs a number" run tcp_stream to 1.2.3.4 port 5 flows -1
t run_badtime 2 "time needs seconds" run tcp_stream to 1.2.3.4 port 5 time 1.x
t run_busy_poll 2 "busy-poll needs microseconds, like 50, 200us or 10ms" run tcp_rr to 1.2.3.4 port 5 busy-poll 10m
t run_help_busy_poll 0 'busy-poll USECS' run help
t run_gso 2 "gso needs datagrams per send call, 2 to 64, not 'x'" run udp_stream to 1.2.3.4 port 5 gso x
t run_help_gso 0 'gso N \(udp_stream, tx stack\)' run help
t run_badtx 2 "tx needs stack, cached" run tcp_stream to 1.2.3.4 port 5 tx copy
t run_badto 2 "to needs an IPv4 or IPv6 address, not 'host'" run tcp_stream to host port 5
t run_baddev 2 "dev needs the name of an existing network device" run tcp_stream to 1.2.3.4 port 5 dev ktgnodev0
t run_badcpus 2 'cpus needs a CPU list' run tcp_stream to 1.2.3.4 port 5 cpus 0-
t run_show_id 2 "run show: 'x' is not an id" run show x
t run_stop_noid 2 'run stop: which id \(or all\)' run stop
t run_del_extra 2 "run del: unexpected '2'" run del 1 2
t run_pct_range 2 "percentiles needs up to 16 percentiles like 50,90,99.9, not '50,101'" run tcp_rr to 10.0.0.1 port 1 percentiles 50,101
t run_pct_many 2 'percentiles needs' run tcp_rr to 10.0.0.1 port 1 percentiles 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17
t run_pct_empty 2 'percentiles needs' run tcp_rr to 10.0.0.1 port 1 percentiles ,
t run_events_unknown 2 "events needs PMU events like cycles,instructions .* not 'cycles,bogus'" run tcp_stream to 10.0.0.1 port 1 events cycles,bogus
t run_events_twice 2 "events needs .* not 'cycles,cycles'" run tcp_stream to 10.0.0.1 port 1 events cycles,cycles
t run_events_empty 2 'events needs' run tcp_stream to 10.0.0.1 port 1 events ,
t run_events_none 2 'events needs' run tcp_stream to 10.0.0.1 port 1 events
t ab_metric_event 4 'module is not loaded' ab repeat 2 a "" b "" metric run_cache_misses_per_kb gate other_llc_load_misses_per_msg -- run tcp_stream to 10.0.0.1 port 1 events all
t ab_metric_event_bad 2 "metric: a name .*run_EVENT_per_kb.* not 'run_bogus_per_kb'" ab repeat 2 a "" b "" metric run_bogus_per_kb -- run tcp_stream to 10.0.0.1 port 1
t run_token_bad 2 "token needs the sink's token \(0x and 16 hex digits, or decimal\), not '0xz1'" run tcp_rr to 10.0.0.1 port 1 token 0xz1
t run_token_zero 2 "token needs the sink's token" run udp_rr to 10.0.0.1 port 1 token 0
t run_token_neg 2 "token needs the sink's token" run udp_rr to 10.0.0.1 port 1 token -1
t run_token_bare_0x 2 "token needs the sink's token" run udp_rr to 10.0.0.1 port 1 token 0x
t nic_help 0 'ktgen nic add NAME \[peer PEER\]' nic help
t nic_noargs 2 'Usage: ktgen nic add' nic
t nic_unknown 2 "nic: unknown command 'frob'" nic frob
t nic_add_noname 2 'nic add: NAME' nic add
t nic_add_badname 2 'nic add: NAME' nic add a/b
t nic_add_longname 2 'nic add: NAME' nic add abcdefghijklmnopq
t nic_add_novalue 2 "nic add: 'peer' needs a value" nic add kn0 peer
t nic_add_keyword 2 "nic add: bad 'mtu 9000'" nic add kn0 mtu 9000
t nic_add_badcpu 2 "nic add: bad 'dma-cpu x'" nic add kn0 dma-cpu x
t nic_add_irqcpus 2 "nic add: bad 'irq-cpus 1,,x'" nic add kn0 irq-cpus 1,,x
t nic_add_irqmany 2 "nic add: bad 'irq-cpus" nic add kn0 irq-cpus 0,1,2,3,4,5,6,7,8
t nic_add_netns 2 "netns: a name under /run/netns" nic add kn0 netns ../x
t nic_add_peer_netns 2 "peer-netns: a name under" nic add kn0 peer-netns ''
t nic_set_nothing 2 'nic set: nothing to set' nic set kn0
t nic_set_peer 2 "nic set: bad 'peer kn1'" nic set kn0 peer kn1
t nic_del_noname 2 'nic del: one device NAME' nic del
t nic_show_extra 2 "nic show: unexpected 'x'" nic show kn0 x
t dev_help 0 'ktgen dev set IFNAME \[netns NS\] KNOB' dev help
t dev_noargs 2 'Usage: ktgen dev show' dev
t dev_unknown 2 "dev: show or set, not 'frob'" dev frob
t dev_show_noname 2 'dev show: which device' dev show
t dev_show_badname 2 'dev show: which device' dev show a/b
t dev_show_extra 2 "dev show: unexpected 'x'" dev show eth0 x
t dev_set_noknob 2 'dev set: which knob' dev set eth0
t dev_set_unknown 2 "dev set: unknown knob 'mtu'" dev set eth0 mtu 9000
t dev_set_netns 2 'netns: a name under /run/netns' dev set eth0 netns ../x gro on
t dev_set_onoff 2 "feature tx-nocache-copy: on or off, not 'yes'" dev set eth0 feature tx-nocache-copy yes
t dev_set_noname 2 'feature: needs a name and a value' dev set eth0 feature
t dev_set_tunable 2 "tunable: rx-copybreak or tx-copybreak, not 'x'" dev set eth0 tunable x 1
t dev_set_copybreak 2 "tunable rx-copybreak: a number, not 'big'" dev set eth0 tunable rx-copybreak big
t dev_set_xps 2 "xps: off, default or a CPU list, not 'x'" dev set eth0 xps x
t dev_set_rps_default 2 "rps: off or a CPU list, not 'default'" dev set eth0 rps default
t dev_set_rings 2 'rings: rx N and/or tx N' dev set eth0 rings
t dev_set_rings_bad 2 "rings-rx: a number, not 'x'" dev set eth0 rings rx x
t dev_set_coalesce 2 'coalesce: rx-usecs, rx-frames' dev set eth0 coalesce foo 1
t run_knob_dev 2 "knob: IFNAME\[@NETNS\], not 'eth0@'" run tcp_stream to 10.0.0.1 port 1 knob eth0@ gro on
t run_knob_unknown 2 "knob: unknown knob 'mtu'" run tcp_stream to 10.0.0.1 port 1 knob eth0 mtu 9000
t run_knob_detach 2 'a detached run has nobody to put the knobs back' run tcp_stream to 10.0.0.1 port 1 detach knob eth0 gro on
t ab_help 0 'Usage: ktgen ab repeat N a VARIANT b VARIANT' ab help
t ab_noargs 2 'Usage: ktgen ab' ab
t ab_norun 2 "ab: the run to compare after '--'" ab repeat 3 a x b y
t ab_novariant 2 'ab: repeat N, a VARIANT and b VARIANT are all needed' ab repeat 3 a x -- run tcp_stream
t ab_repeat 2 "ab: repeat: 2 to 10000 pairs, not '1'" ab repeat 1 a x b y -- run tcp_stream
t ab_metric 2 "metric: a name \(tx_bps, .*\) or PATH:higher\|lower; not 'speed'" ab repeat 3 a x b y metric speed -- run tcp_stream
t ab_metric_pct 2 "metric: .*not 'p100'" ab repeat 3 a x b y metric p100 -- run tcp_stream
t ab_metric_nodir 2 "metric: .*not 'tx.msgs'" ab repeat 3 a x b y metric tx.msgs -- run tcp_stream
t ab_show_bad 2 "show: unknown metric 'speed' \(a name, pN or PATH:higher\|lower\)" ab repeat 3 a "" b "" show retrans,speed -- run tcp_stream to 10.0.0.1 port 1
# Any percentile or path is a metric: accepted, the job then runs (and,
# without the module, fails as infrastructure).
t ab_metric_any 4 'module is not loaded' ab repeat 2 a "" b "" metric p95 show retrans,'counters.snmp["Tcp.RetransSegs"]:lower' gate tx_pps -- run tcp_rr to 10.0.0.1 port 1 percentiles 50,95
t run_repeat_show 4 'module is not loaded' run tcp_stream to 10.0.0.1 port 1 repeat 2 show tx.retrans:lower
t run_repeat_show_bad 2 "show: unknown metric 'tx.retrans'" run tcp_stream to 10.0.0.1 port 1 repeat 2 show tx.retrans
t ab_gate 2 "gate: unknown metric 'x'" ab repeat 3 a x b y gate rx_bps,x -- run tcp_stream
t ab_alpha 2 "alpha: a significance level like 0.05, not '2'" ab repeat 3 a x b y alpha 2 -- run tcp_stream
t ab_quote 2 "variant 'tx \"stack': an unclosed quote" ab repeat 3 a 'tx "stack' b y -- run tcp_stream
t ab_bisect_usage 128 'ab: repeat' ab bisect repeat 1 a x b y -- run tcp_stream
t run_repeat 2 "run: repeat: 2 to 10000 runs, not '1'" run tcp_stream to 10.0.0.1 port 1 repeat 1
t run_repeat_none 2 'run: repeat: how many runs' run tcp_stream to 10.0.0.1 port 1 repeat
t ab_bisect_infra 125 'module is not loaded' ab bisect repeat 2 a "" b "tx cached" -- run tcp_stream to 10.0.0.1 port 1
# A failed run is tried once more, then ends the job, or with keep-going
# is left out (here every run fails: no module), the count in the
# document; nothing left means no verdict (4).
KR='-- run tcp_stream to 10.0.0.1 port 1'
t ab_retry 4 'run of variant a failed: once more' ab repeat 2 seed 1 a "" b "tx cached" $KR
t ab_keep_going 4 'ab pair 2/2 failed twice: left out' ab repeat 2 a "" b "tx cached" keep-going $KR
t ab_keep_going_head 4 'ab: tcp_stream, 0 pairs in random order \(seed 5; 2 failed, left out\), metric' \
	ab repeat 2 seed 5 a "" b "tx cached" keep-going $KR
t ab_keep_going_json 4 '"pairs":0,"repeat":2,"seed":[0-9]+,"failed_pairs":2' -j ab repeat 2 a "" b "tx cached" keep-going $KR
t repeat_keep_going 4 'run 3/3 failed twice: left out' run tcp_stream to 10.0.0.1 port 1 repeat 3 keep-going
# Every job document says what it was asked, where and when.
t ab_provenance 4 '^\{"command":\["ktgen","ab","repeat","2","a","","b","tx cached","keep-going","--","run",.*"hostname":"[^"]+","start_time":"20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z","end_time":"' \
	-j ab repeat 2 a "" b "tx cached" keep-going $KR
t repeat_provenance 4 '^\{"command":\["ktgen","run","tcp_stream","to","10.0.0.1","port","1","repeat","2","keep-going"\],"hostname"' \
	-j run tcp_stream to 10.0.0.1 port 1 repeat 2 keep-going
t sweep_keep_going 4 'sweep size 64, run, 1/1 failed twice: left out' sweep sizes 64,128 keep-going $KR
# The order of a job's runs is drawn from its seed, never a fixed A B,
# B A alternation (a pattern in the machine's noise can line up with
# that: an A/A job then "regressed"): the same seed, the same orders; the
# document has the seed it drew; a seed that is no number is refused.
# (Every run fails here: the order shows in the progress lines.)
ab_orders()
{
	"$ktgen" ab repeat 16 a "" b "tx cached" keep-going "$@" $KR 2>&1 |
		sed -n 's/^ktgen: ab pair [0-9]*\/16: \([ab]\) then [ab]$/\1/p' | tr -d '\n'
}
sweep_orders()
{
	"$ktgen" sweep sizes 64 repeat 8 variant x "" variant y "tx cached" variant z "tx nocache" \
		keep-going "$@" $KR 2>&1 |
		sed -n 's/^ktgen: sweep size 64, \([xyz]\), [0-9]\/8 failed twice: left out$/\1/p' |
		tr -d '\n'
}
n=$((n + 1))
o1=$(ab_orders seed 1) o1b=$(ab_orders seed 1) o2=$(ab_orders seed 2)
drawn=$("$ktgen" -j ab repeat 2 a "" b "tx cached" keep-going $KR 2>/dev/null |
	/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["seed"])')
od=$(ab_orders seed "$drawn") od2=$(ab_orders seed "$drawn")
s1=$(sweep_orders seed 7) s1b=$(sweep_orders seed 7) s2=$(sweep_orders seed 8)
if [ ${#o1} = 16 ] && [ "$o1" = "$o1b" ] && [ "$o1" != "$o2" ] && [ "$od" = "$od2" ] &&
   [ "$o1" != abababababababab ] && [ "$o1" != babababababababa ] &&
   [[ $o1 == *a* && $o1 == *b* ]] && [ ${#s1} = 24 ] && [ "$s1" = "$s1b" ] &&
   [ "$s1" != "$s2" ] && [ "${s1:0:6}" != xyzzyx ]; then
	cases+=("ok $n job_order_seeded")
else
	cases+=("not ok $n job_order_seeded"
		"# ab seed 1: $o1, again $o1b, seed 2: $o2, drawn $drawn: $od; sweep seed 7: $s1, again $s1b, seed 8: $s2")
	failed=$((failed + 1))
fi
t ab_seed_json 4 '"seed":18446744073709551615' -j ab repeat 2 a "" b "tx cached" seed 0xffffffffffffffff keep-going $KR
t sweep_seed_json 4 '"seed":3[,}]' -j sweep sizes 64 seed 3 keep-going $KR
t ab_seed_bad 2 "seed: a number from 0 to 2\^64-1, not 'x'" ab repeat 2 a "" b "" seed x $KR
# No module: why the kernel would not load it, from what the host says
# (a fake root): loading off, not installed for this kernel, or a kernel
# that takes only signed modules, each named with what to do.
sysroot=$(mktemp -d)
mkdir -p "$sysroot/proc/sys/kernel" "$sysroot/lib/modules/9.9.9-t" \
	"$sysroot/sys/firmware/efi/efivars" "$sysroot/sys/kernel/security" \
	"$sysroot/sys/module/module/parameters"
echo 9.9.9-t >"$sysroot/proc/sys/kernel/osrelease"
echo 1 >"$sysroot/proc/sys/kernel/modules_disabled"
export KTGEN_SYSROOT=$sysroot
t noload_disabled 1 'not loaded and could not be loaded: module loading is off' info
echo 0 >"$sysroot/proc/sys/kernel/modules_disabled"
echo "kernel/drivers/net/veth.ko:" >"$sysroot/lib/modules/9.9.9-t/modules.dep"
t noload_not_installed 1 'could not be loaded: it is not installed for 9.9.9-t \(make install-module' info
echo "updates/ktgen/ktgen.ko:" >>"$sysroot/lib/modules/9.9.9-t/modules.dep"
t noload_installed 1 'could not be loaded \(modprobe ktgen\)$' info
sb=$sysroot/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e3e8c35d4e8c
printf '\x06\x00\x00\x00\x01' >"$sb"
t noload_secure_boot 1 'Secure Boot is on, so this kernel loads only modules signed .*SIGN_KEY=.*MOK' info
printf '\x06\x00\x00\x00\x00' >"$sb"
echo "[none] integrity confidentiality" >"$sysroot/sys/kernel/security/lockdown"
t noload_secure_boot_off 1 'could not be loaded \(modprobe ktgen\)$' info
echo "none [integrity] confidentiality" >"$sysroot/sys/kernel/security/lockdown"
t noload_lockdown 1 'the kernel is locked down, so this kernel loads only modules signed' info
echo "[none] integrity confidentiality" >"$sysroot/sys/kernel/security/lockdown"
echo Y >"$sysroot/sys/module/module/parameters/sig_enforce"
t noload_sig_enforce 1 'module.sig_enforce is set, so' info
unset KTGEN_SYSROOT
rm -rf "$sysroot"
# irq-affinity on a fake host: every MSI vector of the device to the CPUs
# asked for (read back), one line for a device without MSI, the vectors
# named for one of them only, none for a virtual device.
sysroot=$(mktemp -d)
for irq in 45 46 11; do
	mkdir -p "$sysroot/proc/irq/$irq"
	echo 0-3 >"$sysroot/proc/irq/$irq/smp_affinity_list"
done
mkdir -p "$sysroot/sys/class/net/eth7/device/msi_irqs" "$sysroot/sys/class/net/eth8/device" \
	"$sysroot/sys/class/net/veth9"
touch "$sysroot/sys/class/net/eth7/device/msi_irqs/46" "$sysroot/sys/class/net/eth7/device/msi_irqs/45"
echo 11 >"$sysroot/sys/class/net/eth8/device/irq"
export KTGEN_SYSROOT=$sysroot
t irq_affinity_msi 0 'irq-affinity irq45=0-3 irq46=0-3 -> irq45=1,3 irq46=1,3$' dev set eth7 irq-affinity 1,3
n=$((n + 1))
got="$(cat "$sysroot/proc/irq/45/smp_affinity_list") $(cat "$sysroot/proc/irq/46/smp_affinity_list")"
if [ "$got" = "1,3 1,3" ]; then
	cases+=("ok $n irq_affinity_written")
else
	cases+=("not ok $n irq_affinity_written" "# /proc/irq/45,46: $got")
	failed=$((failed + 1))
fi
t irq_affinity_legacy 0 'irq-affinity irq11=0-3 -> irq11=2$' dev set eth8 irq-affinity 2
t irq_affinity_one 0 'irq-affinity irq45=1,3 irq46=1,3 -> irq45=0 irq46=1,3$' dev set eth7 irq-affinity irq45=0
t irq_affinity_none 1 'veth9: irq-affinity: no interrupts in /sys/class/net/veth9/device \(a virtual device\?\)' \
	dev set veth9 irq-affinity 0
t irq_affinity_usage 2 "irq-affinity: a CPU list, not 'x'" dev set eth7 irq-affinity x
unset KTGEN_SYSROOT
rm -rf "$sysroot"
# param on a fake host: a parameter of the device's driver module set and
# read back (the kernel's file prints a number in decimal), one of mode
# 0444 refused before anything is written and with nothing to put back,
# an unknown one named with those the module has, a device without a
# driver module named; names and values that are not a word, refused.
sysroot=$(mktemp -d)
pdir=$sysroot/sys/module/e1000e/parameters
mkdir -p "$sysroot/sys/class/net/eth7/device/driver" "$sysroot/sys/class/net/veth9" "$pdir"
ln -s ../../../../../module/e1000e "$sysroot/sys/class/net/eth7/device/driver/module"
echo 256 >"$pdir/copybreak"
echo 0 >"$pdir/IntMode"
chmod 0444 "$pdir/IntMode"
export KTGEN_SYSROOT=$sysroot
t param_set 0 'knobs: eth7 param copybreak 256 -> 0$' dev set eth7 param copybreak 0
t param_json 0 '"knob":"param","name":"copybreak","before":"0","after":"0x100","changed":true' \
	-j dev set eth7 param copybreak 0x100
n=$((n + 1))
if [ "$(cat "$pdir/copybreak")" = 0x100 ]; then
	cases+=("ok $n param_written")
else
	cases+=("not ok $n param_written" "# copybreak: $(cat "$pdir/copybreak")")
	failed=$((failed + 1))
fi
t param_read_only 1 "^Error: eth7: param IntMode: e1000e's IntMode is read-only: it is set when the module loads \\(modprobe e1000e IntMode=...\\)$" \
	dev set eth7 param IntMode 1
n=$((n + 1))
out=$("$ktgen" dev set eth7 param copybreak 64 param IntMode 1 2>&1)
if [ "$(cat "$pdir/IntMode")" = 0 ] && [ "$(cat "$pdir/copybreak")" = 0x100 ] &&
   [[ $out != *"not put back"* ]]; then
	cases+=("ok $n param_read_only_nothing_left")
else
	cases+=("not ok $n param_read_only_nothing_left"
		"# IntMode $(cat "$pdir/IntMode"), copybreak $(cat "$pdir/copybreak"): $out")
	failed=$((failed + 1))
fi
t param_read_only_as_wanted 0 'knobs: eth7 param IntMode 0 \(unchanged\)$' dev set eth7 param IntMode 0
echo N >"$pdir/flag"
t param_bool_as_kernel 0 'knobs: eth7 param flag N \(unchanged\)$' dev set eth7 param flag off
t param_no_device 1 '^Error: eth9: param copybreak: no such device$' dev set eth9 param copybreak 0
t param_unknown 1 "e1000e has no parameter 'nope' \\(it has: .*copybreak" dev set eth7 param nope 1
t param_no_driver 1 'veth9: param copybreak: the device has no driver module' \
	dev set veth9 param copybreak 1
t param_bad_name 2 "param: a parameter's name \\(letters, digits, _\\), not '../copybreak'" \
	dev set eth7 param ../copybreak 1
t param_bad_value 2 "param copybreak: a value of letters, digits and .,:\\+-_ \\(at most 64\\), not '1/2'" \
	dev set eth7 param copybreak 1/2
t param_long_name 2 'param: a name of at most 31 characters' dev set eth7 param "$(printf 'a%.0s' {1..40})" 1
unset KTGEN_SYSROOT
rm -rf "$sysroot"

# Every variant's words, and what the kernel would refuse of them, are
# checked before the first run (by run's parser): a usage error, 2, or 128
# under bisect; nothing runs (here no module: a run would fail with 4).
AB='ab repeat 2 a'
T='-- run tcp_stream to 10.0.0.1 port 1'
t ab_variant_typo 2 "variant b: run: tx needs .*not 'cahced'" $AB "" b "tx cahced" $T
t ab_variant_typo_bisect 128 "variant b: run: tx needs" ab bisect repeat 2 a "" b "tx cahced" $T
t ab_variant_word 2 "variant a: run: unknown keyword 'frob'" $AB "frob 1" b "" $T
t ab_dev_missing 2 "variant a: run: dev needs .*'nope0'" $AB "dev nope0" b "" $T
t ab_port0 2 'run: port needs a port from 1 to 65535' $AB "" b "tx cached" -- run tcp_stream to 10.0.0.1 port 0
t ab_interval0 2 'variant b: run: interval needs 0.1 to 3600 seconds' $AB "" b "interval 0" $T
t ab_flows 2 'variant b: run: flows needs 1 to 1024 flows' $AB "" b "flows 2000" $T
t ab_time 2 'run: time needs at most 86400 seconds' $AB "" b "" -- run tcp_stream to 10.0.0.1 port 1 time 100000
t ab_rr_size 2 'variant b: run: size is for streams: tcp_rr takes req and resp' $AB "" b "size 100" \
	-- run tcp_rr to 10.0.0.1 port 1
t ab_rr_bytes 2 'variant b: run: bytes: a request/response run takes a time or msgs limit' \
	$AB "" b "bytes 1M" -- run tcp_rr to 10.0.0.1 port 1
t ab_rr_tx 2 'variant b: run: tx: a request/response run sends with tx stack or user' \
	$AB "" b "tx zerocopy" -- run tcp_crr to 10.0.0.1 port 1
t ab_udp_rr_req 2 'variant b: run: req needs at least 40 bytes for udp_rr' $AB "" b "req 8" \
	-- run udp_rr to 10.0.0.1 port 1
t ab_stream_req 2 'variant b: run: req is for tcp_rr, udp_rr and tcp_crr' $AB "" b "req 100" $T
t ab_udp_size 2 'variant b: run: size needs at most 65507 bytes for udp_stream' $AB "" b "size 64K" \
	-- run udp_stream to 10.0.0.1 port 1
t ab_gso_tcp 2 'variant b: run: gso batches udp_stream datagrams only' $AB "" b "gso 8" $T
t ab_gso_tx 2 'variant b: run: gso sends with tx stack only' $AB "" b "gso 8 tx cached" \
	-- run udp_stream to 10.0.0.1 port 1
t ab_burst 2 'variant b: run: burst is for paced streams .rate.' $AB "" b "burst 64K" $T
t ab_detach 2 "variant b: run: a job's runs are waited for, not detached" $AB "" b "detach" $T
# A variant's knobs must be able to act: read, changing nothing.
t ab_knob_nocache 2 'variant b: run: knob lo feature tx-nocache-copy: no effect possible on tx stack' \
	$AB "" b "knob lo feature tx-nocache-copy on" $T
t ab_knob_nocache_bisect 128 'variant a: run: knob lo feature tx-nocache-copy: no effect possible on tx cached' \
	ab bisect repeat 2 a "tx cached knob lo feature tx-nocache-copy off" b "" $T
t ab_knob_fixed 2 'lo: feature loopback is fixed on: the device cannot change it' \
	$AB "" b "knob lo feature loopback off" $T
t ab_knob_fixed_named 2 'variant b: run: knob lo feature loopback cannot act here' \
	$AB "" b "knob lo feature loopback off" $T
t ab_knob_feature 2 "lo: no feature 'rx-frob'" $AB "" b "knob lo feature rx-frob on" $T
t ab_knob_flag 2 'variant a: run: knob lo priv-flag legacy-rx cannot act here' \
	$AB "knob lo priv-flag legacy-rx on" b "" $T
t ab_knob_nodev 2 'nosuch0: .*No such device' $AB "" b "knob nosuch0 gro off" $T
t ab_knob_nodev_named 2 'variant b: run: knob nosuch0 feature rx-gro cannot act here' \
	$AB "" b "knob nosuch0 gro off" $T
t sweep_knob_nocache 2 'variant z: run: knob lo feature tx-nocache-copy: no effect possible on tx zerocopy' \
	sweep sizes 64 variant z "tx zerocopy knob lo feature tx-nocache-copy on" $T
t repeat_knob_nocache 2 'run: knob lo feature tx-nocache-copy: no effect possible on tx stack' \
	run tcp_stream to 10.0.0.1 port 1 knob lo feature tx-nocache-copy on repeat 3
t sweep_variant_typo 2 "variant x: run: tx needs .*not 'cahced'" sweep sizes 64 variant x "tx cahced" $T
t sweep_rr 2 'run: size is for streams: tcp_rr takes req and resp' sweep sizes 64 -- run tcp_rr to 10.0.0.1 port 1
t sweep_udp_size 2 'run: size needs at most 65507 bytes for udp_stream' sweep sizes 1K,64K \
	-- run udp_stream to 10.0.0.1 port 1
t repeat_port0 2 'run: port needs a port from 1 to 65535' run tcp_stream to 10.0.0.1 port 0 repeat 3
t repeat_rr_size 2 'run: size is for streams' run tcp_rr to 10.0.0.1 port 1 size 1 repeat 3
t run_repeat_bad 2 "run: unknown keyword 'frob'" run tcp_stream to 10.0.0.1 port 1 frob 1 repeat 3
t run_repeat_detach 2 'run: repeat: runs are waited for' run tcp_stream to 10.0.0.1 port 1 detach repeat 3
t run_confidence 2 "confidence: LEVEL,WIDTH like 0.99,0.05, not '99'" run tcp_stream to 10.0.0.1 port 1 repeat 3 confidence 99
t diff_help 0 'Usage: ktgen diff BASE.json NEW.json' diff help
t sweep_help 0 'Usage: ktgen sweep \{sizes LIST \| over KW' sweep help
t sweep_nosizes 2 'sweep: sizes LIST or over KW LIST is needed' sweep repeat 2 -- run tcp_stream
# over: any run keywords; each point's values checked by run's parser with
# each variant before the first run; the swept words not in the run too.
RR='-- run tcp_rr to 10.0.0.1 port 1'
t sweep_over_rr 4 'module is not loaded' sweep over req,resp 1400:1,14000:14000 stat mean $RR
t sweep_over_flows 4 'module is not loaded' sweep over flows,cpus 1:0,16:0-1 $T
t sweep_over_short 2 "sweep: over: a value for each of req,resp in each point, joined by ':', not '1400'" \
	sweep over req,resp 1400,14000:14000 $RR
t sweep_over_long 2 "not '1:2:3'" sweep over req,resp 1:2:3 $RR
t sweep_over_bad_value 2 "variant run: run: req needs" sweep over req,resp 0:1 $RR
t sweep_over_in_run 2 'sweep: flows comes from the sweep, not from the run' \
	sweep over flows 1,2 -- run tcp_stream to 10.0.0.1 port 1 flows 4
t sweep_over_to 2 'sweep: over: up to 4 run keywords \(not to or port\)' sweep over to 1.1.1.1 $T
t sweep_sizes_over 2 'sweep: one of sizes and over' sweep sizes 64 over flows 1 $T
t sweep_stat 2 "sweep: unknown keyword 'stat'" sweep sizes 64 stat mode $T
t sweep_badsize 2 "sweep: sizes: up to 32 sizes like 64,1K,64K, not 'x'" sweep sizes 64,x -- run tcp_stream
t sweep_runsize 2 'sweep: size comes from the sweep, not from the run' sweep sizes 64 -- run tcp_stream size 100
t sweep_norun 2 "sweep: the run after '--'" sweep sizes 64
t sweep_columns 2 "columns: unknown metric 'x'" sweep sizes 64 csv columns tx_bps,x -- run tcp_stream
t sweep_csv_json 2 'sweep: csv or -j, not both' -j sweep sizes 64 csv -- run tcp_stream
t ab_csv_json 2 'ab: csv or -j, not both' -j ab repeat 2 a x b y csv -- run tcp_stream
t ab_columns 2 "columns: unknown metric 'z'" ab repeat 2 a x b y csv columns z -- run tcp_stream
t run_csv_json 2 'run: csv or -j, not both' -j run tcp_stream to 10.0.0.1 port 1 repeat 2 csv
t sweep_variant 2 "sweep: unknown keyword 'variant'" sweep sizes 64 variant x -- run tcp_stream
t diff_one 2 'diff: BASE.json and NEW.json' diff a.json
t diff_keyword 2 "diff: unknown keyword 'frob'" diff a.json b.json frob
t diff_missing 4 'nope.json: No such file' diff /nonexistent/nope.json /nonexistent/nope.json
t diff_missing_bisect 125 'nope.json: No such file' diff /nonexistent/nope.json /nonexistent/nope.json bisect

# diff on hand-made samples: a 20 % drop regresses, noise does not, a
# too-noisy sample is inconclusive; save keeps sessions.
d=$(mktemp -d)
doc() { echo "{\"sessions\":1,\"metrics\":{\"${3:-tx_bps}\":{\"samples\":[$1]}}}" >"$d/$2"; }
doc 1000,1010,990,1005,995,1002 base.json
doc 800,810,790,805,795,802 slow.json
doc 1001,1008,992,1003,996,1000 same.json
doc 600,1500,700,1400,900,1300 noisy.json
doc 1000,1010,990,1005,995,1002 base99.json p99
doc 800,810,790,805,795,802 fast99.json p99
t diff_regression 1 'new/base tx_bps: n 6/6 ratio 0.800.*: regression' diff "$d/base.json" "$d/slow.json"
t diff_same 0 'ratio 0.9997.*: no change' diff "$d/base.json" "$d/same.json"
t diff_noisy 3 'inconclusive' diff "$d/base.json" "$d/noisy.json"
t diff_improvement 0 'improvement' diff "$d/slow.json" "$d/base.json"
t diff_threshold 0 'change below threshold' diff "$d/base.json" "$d/slow.json" threshold 25
t diff_lower_better 1 'p99: .*regression' diff "$d/fast99.json" "$d/base99.json" metric p99
t diff_bisect 1 'regression' diff "$d/base.json" "$d/slow.json" bisect
t diff_bisect_skip 125 'inconclusive' diff "$d/base.json" "$d/noisy.json" bisect
t diff_json 1 '"verdict":"regression"' -j diff "$d/base.json" "$d/slow.json"
cp "$d/base.json" "$d/b2.json"
t diff_save 0 'now 2 sessions' diff "$d/b2.json" "$d/same.json" save
t diff_save_more 1 'n 12/6' diff "$d/b2.json" "$d/slow.json" save
t diff_not_saved 0 'n 12/6' diff "$d/b2.json" "$d/same.json"
# A saved baseline keeps its samples exact (JSON numbers that read back
# as the same doubles), and an old one written with %.6g still reads.
doc 9220271234.5,9220271001.25,9220270999.875,9220271100.5,9220271050,9220271075.125 exact.json
doc 9.22027e+09,9.22028e+09,9.22026e+09,9.22027e+09,9.22027e+09,9.22028e+09 old.json
t diff_save_exact 0 'now 2 sessions' diff "$d/exact.json" "$d/exact.json" save
n=$((n + 1))
saved=$(/usr/bin/python3 -c 'import json, sys; print(" ".join(repr(float(x)) for x in sorted(set(json.load(open(sys.argv[1]))["metrics"]["tx_bps"]["samples"]))))' "$d/exact.json")
if [ "$saved" = "9220270999.875 9220271001.25 9220271050.0 9220271075.125 9220271100.5 9220271234.5" ]; then
	cases+=("ok $n diff_saved_exact")
else
	cases+=("not ok $n diff_saved_exact" "# saved samples: $saved")
	failed=$((failed + 1))
fi
t diff_old_baseline 0 'n 6/6' diff "$d/old.json" "$d/old.json"
# Documents of different tests are no comparison: refused unless force,
# naming what differs; where they ran is shown side by side where it
# differs; one without a job record (an older ktgen's) is compared with a
# warning. ($d/base.json and slow.json have none.)
jobdoc()
{
	echo "{\"sessions\":1,\"job\":{\"test\":\"$3\",\"tx_mode\":\"stack\",\"size\":$4,\"flows\":1,
	  \"environment\":{\"kernel\":\"$5\",\"cpu_model\":\"x\",\"ktgen_cli\":\"0.1.0\",
	  \"devices\":{\"eth0\":{\"driver\":\"ixgbe\",\"firmware\":\"$6\"}}}},
	  \"metrics\":{\"tx_bps\":{\"samples\":[$1]}}}" >"$d/$2"
}
jobdoc 1000,1010,990,1005,995,1002 tcp.json tcp_stream 65536 6.1.0 0x800
jobdoc 8,8.1,7.9,8.05,7.95,8.02 udp64.json udp_stream 64 6.1.0 0x800
jobdoc 800,810,790,805,795,802 tcp_new.json tcp_stream 65536 6.12.0 0x900
t diff_other_test 2 "measured different things: test tcp_stream vs udp_stream, size 65536 vs 64 \(force" \
	diff "$d/tcp.json" "$d/udp64.json"
t diff_other_test_bisect 128 'measured different things' diff "$d/tcp.json" "$d/udp64.json" bisect
t diff_other_test_force 1 'forced, though they measured different things: test tcp_stream vs udp_stream' \
	diff "$d/tcp.json" "$d/udp64.json" force
t diff_env 1 '^  eth0 firmware +0x800 +0x900$' \
	diff "$d/tcp.json" "$d/tcp_new.json"
t diff_env_json 1 '"environment_diff":\[\{"what":"kernel","base":"6.1.0","new":"6.12.0"\}' \
	-j diff "$d/tcp.json" "$d/tcp_new.json"
t diff_no_job 1 'slow.json has no job record \(an older ktgen.s\): whether both' diff "$d/tcp.json" "$d/slow.json"
cp "$d/tcp.json" "$d/tcpb.json"
t diff_save_job 0 'now 2 sessions' diff "$d/tcpb.json" "$d/tcp.json" save
t diff_saved_job 2 'measured different things: test tcp_stream vs udp_stream' \
	diff "$d/tcpb.json" "$d/udp64.json"
# Hostile files get a clear error and exit 4, never a verdict: a sample
# that is no positive finite figure (negative, 0, 1e308, a string), a
# file that is no regular file or is too large for a ktgen document.
doc 1000,-5,990 neg.json
doc 1e308,1e308 huge.json
doc '1000,"x"' str.json
doc 0,0,0 zero.json
t diff_sample_negative 4 'neg.json: tx_bps sample 2 is -5: a sample is a positive figure up to 1e\+18' diff "$d/base.json" "$d/neg.json"
t diff_sample_huge 4 'huge.json: tx_bps sample 1 is 1e\+308' diff "$d/huge.json" "$d/base.json"
t diff_sample_string 4 'str.json: tx_bps sample 2 is a string, not a number' diff "$d/base.json" "$d/str.json"
t diff_sample_zero 4 'zero.json: tx_bps sample 1 is 0' diff "$d/base.json" "$d/zero.json"
t diff_not_file 4 '/dev/zero: not a regular file' diff "$d/base.json" /dev/zero
truncate -s 65M "$d/big.json"
t diff_too_big 4 'big.json: larger than 64 MiB' diff "$d/base.json" "$d/big.json"
t diff_both_no_job 0 'neither document has a job record' diff "$d/base.json" "$d/same.json"
echo '{"metrics": [1,' >"$d/bad.json"
t diff_bad_json 4 'bad.json: [0-9]+:[0-9]+: ' diff "$d/base.json" "$d/bad.json"
rm -rf "$d"

# Every job document against tools/ktgen-job.schema.json: ab, repeat and
# sweep (their runs failing here: no module), diff, a saved baseline.
schema()
{
	local name=$1 out

	shift
	n=$((n + 1))
	out=$("$ktgen" -j "$@" 2>/dev/null | /usr/bin/python3 -c '
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(sys.stdin)
jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
' "$(dirname "$(readlink -f "$0")")/../../tools/ktgen-job.schema.json" 2>&1)
	if [ -z "$out" ]; then
		cases+=("ok $n $name")
	else
		cases+=("not ok $n $name" "# $(echo "$out" | tail -n 3 | tr '\n' ' ')")
		failed=$((failed + 1))
	fi
}
d=$(mktemp -d)
echo '{"sessions":1,"metrics":{"tx_bps":{"samples":[1000,1010,990,1005,995,1002]}}}' >"$d/a.json"
echo '{"sessions":1,"metrics":{"tx_bps":{"samples":[800,810,790,805,795,802]}}}' >"$d/b.json"
cp "$d/a.json" "$d/c.json"
"$ktgen" diff "$d/c.json" "$d/a.json" save >/dev/null 2>&1
schema schema_ab ab repeat 2 a "" b "tx cached" keep-going $KR
schema schema_repeat run tcp_stream to 10.0.0.1 port 1 repeat 2 keep-going
schema schema_sweep sweep over flows 1,2 keep-going $KR
schema schema_diff diff "$d/a.json" "$d/b.json"
n=$((n + 1))
if /usr/bin/python3 -c '
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])),
		    cls=jsonschema.Draft202012Validator)' \
	"$(dirname "$(readlink -f "$0")")/../../tools/ktgen-job.schema.json" "$d/c.json" 2>/dev/null; then
	cases+=("ok $n schema_baseline")
else
	cases+=("not ok $n schema_baseline")
	failed=$((failed + 1))
fi
rm -rf "$d"

echo "KTAP version 1"
echo "1..$n"
printf '%s\n' "${cases[@]}"
[ $failed = 0 ]
