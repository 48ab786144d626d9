#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netconfig.sh EXAMPLES: the recipes pointed at a NIC the way the kernel's
# driver tests are (NETIF, LOCAL_/REMOTE_V4/V6, REMOTE_TYPE, REMOTE_ARGS,
# from the environment or net.config), with stub ip, ktgen and ssh: the
# far end's device found by its address, the knobs and sinks placed in its
# namespace (and the sinks gone after), ssh for the other type, and a
# hostile or incomplete configuration refused with exit 2, naming what.

. "$(dirname "$0")/ktap.sh"

ex=$(readlink -f "${1:?examples}")
bin=$tmp/bin
mkdir -p "$bin"
log=$tmp/calls
# ip: "netns exec NS CMD..." runs CMD; "addr show to ADDR" (with -n NS)
# names one device for 192.0.2.2 and 2001:db8::2, none otherwise.
cat >"$bin/ip" <<EOF
#!/bin/bash
echo "ip \$*" >>"$log"
if [ "\$1 \$2" = "netns exec" ]; then shift 3; exec "\$@"; fi
[ "\$1" = -n ] && shift 2
case "\$*" in
"-o addr show to 192.0.2.2"|"-o addr show to 2001:db8::2")
	echo "5: eth1    inet \$5/24 scope global eth1\\       valid_lft forever" ;;
"-o addr show to 192.0.2.3")
	echo "5: eth1    inet 192.0.2.3/24"; echo "6: eth2    inet 192.0.2.3/24" ;;
esac
EOF
cat >"$bin/ktgen" <<EOF
#!/bin/bash
echo "ktgen \$*" >>"$log"
case "\$*" in
"-j sink add"*) echo '{"id": 7}' ;;
esac
exit 0
EOF
cat >"$bin/ssh" <<EOF
#!/bin/bash
echo "ssh \$*" >>"$log"
shift
exec "\$@"
EOF
chmod +x "$bin"/*

# recipe N [VAR=VALUE...]: examples/0N-*.sh with that environment and no
# arguments; its output in $tmp/out, its status in $rc.
recipe()
{
	local r=$1

	shift
	: >"$log"
	rc=0
	timeout 30 env -i PATH="$bin:/usr/bin:/bin" KTGEN=ktgen HOME="$tmp" "$@" \
		bash "$(ls "$ex"/0"$r"-*.sh)" >"$tmp/out" 2>&1 || rc=$?
}

NS=(NETIF=eth0 LOCAL_V4=192.0.2.1 REMOTE_V4=192.0.2.2 REMOTE_TYPE=netns REMOTE_ARGS=ns1)

recipe 2 "${NS[@]}"
result netns_knob_in_far_namespace "$([ $rc = 0 ] &&
	grep -q "^ktgen ab .* a knob eth1@ns1 priv-flag legacy-rx off b knob eth1@ns1 priv-flag legacy-rx on -- run udp_stream to 192.0.2.2 port 5302 " "$log" ||
	{ echo "rc $rc"; cat "$log" "$tmp/out"; })"
result netns_sink_added_and_deleted "$(grep -q '^ip netns exec ns1 ktgen -j sink add udp port 5302 rx discard rcvbuf 32768$' "$log" &&
	grep -q '^ip netns exec ns1 ktgen sink del 7$' "$log" || cat "$log")"
result netns_far_device_by_address "$(grep -q '^ip -n ns1 -o addr show to 192.0.2.2$' "$log" || cat "$log")"

recipe 2 "${NS[@]}" LOCAL_V6=2001:db8::1 REMOTE_V6=2001:db8::2
result ipv6_first "$(grep -q 'run udp_stream to 2001:db8::2 ' "$log" || cat "$log")"

recipe 4 NETIF=eth0 LOCAL_V4=192.0.2.1 REMOTE_V4=192.0.2.2 REMOTE_TYPE=ssh REMOTE_ARGS=root@dut2
result ssh_peer "$([ $rc = 0 ] && grep -q 'knob eth0 xps off .* peer ssh://root@dut2' "$log" &&
	grep -q '^ssh root@dut2 ip -o addr show to 192.0.2.2$' "$log" || { echo "rc $rc"; cat "$log" "$tmp/out"; })"

# net.config beside the recipes, or NET_CONFIG: its values over the
# environment's, as the kernel's tests take them
printf '%s\n' "# the lab's NIC" "NETIF=eth0   # this one" 'LOCAL_V4="192.0.2.1"' \
	"REMOTE_V4=192.0.2.2" "" "REMOTE_TYPE=netns" "REMOTE_ARGS=ns2" >"$tmp/net.config"
recipe 2 NET_CONFIG="$tmp/net.config" REMOTE_ARGS=ns1
result net_config_over_environment "$([ $rc = 0 ] && grep -q 'knob eth1@ns2 ' "$log" || { echo "rc $rc"; cat "$tmp/out"; })"

# refused: usage (2), with what is wrong
refused()
{
	local name=$1 want=$2

	shift 2
	recipe 2 "$@"
	result "$name" "$([ $rc = 2 ] && grep -qF -- "$want" "$tmp/out" || { echo "rc $rc, want 2 and '$want':"; cat "$tmp/out"; })"
}
refused missing_remote_args "REMOTE_ARGS" NETIF=eth0 LOCAL_V4=192.0.2.1 REMOTE_V4=192.0.2.2 REMOTE_TYPE=netns
refused missing_addresses "LOCAL_V4|LOCAL_V6" NETIF=eth0 REMOTE_TYPE=netns REMOTE_ARGS=ns1
refused v4_one_end_only "LOCAL_V4+REMOTE_V4" NETIF=eth0 LOCAL_V4=192.0.2.1 REMOTE_V6=2001:db8::2 \
	LOCAL_V6=2001:db8::1 REMOTE_TYPE=netns REMOTE_ARGS=ns1
refused unknown_remote_type "REMOTE_TYPE=telnet: netns or ssh" NETIF=eth0 LOCAL_V4=192.0.2.1 \
	REMOTE_V4=192.0.2.2 REMOTE_TYPE=telnet REMOTE_ARGS=h
printf '%s\n' "NETIF=eth0" "PATH=/tmp/evil" >"$tmp/bad1"
refused config_unknown_name "bad1:2: not one of" NET_CONFIG="$tmp/bad1"
printf '%s\n' "NETIF=eth0" 'REMOTE_ARGS=$(touch '"$tmp"'/pwned)' >"$tmp/bad2"
refused config_command_value "bad2:2: REMOTE_ARGS: not a device" NET_CONFIG="$tmp/bad2"
result config_never_executed "$([ ! -e "$tmp/pwned" ] || echo "a value ran")"
printf '%s\n' "NETIF eth0" >"$tmp/bad3"
refused config_not_assignment "bad3:1: not one of" NET_CONFIG="$tmp/bad3"
refused config_unreadable "cannot be read" NET_CONFIG="$tmp/none"

# the far end's device must be one: two holding the address is no answer
recipe 2 NETIF=eth0 LOCAL_V4=192.0.2.1 REMOTE_V4=192.0.2.3 REMOTE_TYPE=netns REMOTE_ARGS=ns1
result far_device_ambiguous "$([ $rc = 4 ] && grep -q 'no single device holds 192.0.2.3' "$tmp/out" ||
	{ echo "rc $rc"; cat "$tmp/out"; })"

# no NETIF: the options, or the ktgen-nic pair, as before
recipe_opt_rc=0
env -i PATH="$bin:/usr/bin:/bin" KTGEN=ktgen bash "$ex"/02-*.sh -i eth0 >"$tmp/out" 2>&1 || recipe_opt_rc=$?
result options_still_go_together "$([ $recipe_opt_rc = 2 ] && grep -q -- '-i, -a and -p go together' "$tmp/out" ||
	{ echo "rc $recipe_opt_rc"; cat "$tmp/out"; })"

finish netconfig
