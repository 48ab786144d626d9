#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Foundation scenarios: load/unload, info, config, strict policies with
# extack, permissions, family autoload, namespaces, unload under use.

# The stack's own answer to "which page-send primitive does this kernel
# have", independent of the module's probe.
expected_page_send()
{
	if grep -qw kernel_sendpage /proc/kallsyms; then
		echo sendpage
	else
		echo splice-pages
	fi
}

# x86_64 has the flushcache copy; User-Mode Linux's memcpy stands in.
expected_nocache()
{
	if uml; then
		echo memcpy
	else
		echo movnti
	fi
}

# 6.5+ splices pages into UDP datagrams; 6.1 may either way (Debian's
# backport of the MSG_SPLICE_PAGES conversion copies them).
expected_udp_splice()
{
	if [ "$(expected_page_send)" = splice-pages ]; then
		echo spliced
	else
		echo '\(spliced\|copied\)'
	fi
}

# Over IPv6 only with MSG_SPLICE_PAGES (6.5+): before it, inet6_dgram_ops
# had no sendpage and sock_no_sendpage() copied.
expected_udp6_splice()
{
	if [ "$(expected_page_send)" = splice-pages ]; then
		echo spliced
	else
		echo copied
	fi
}

# ktgen.ko and the virtual NIC's ktgen_nic.ko load and go each on its own:
# a host that tests real NICs loads ktgen.ko alone, and a pair goes with
# its module.
t_load_unload()
{
	insmod "$KTGEN_KO"
	module_loaded || fail "ktgen not in /sys/module after insmod"
	! nic_loaded || fail "ktgen.ko brought ktgen_nic with it"
	dmesg | grep -q "ktgen: version .* loaded" || fail "no load message"
	rmmod ktgen
	! module_loaded || fail "ktgen still loaded after rmmod"

	insmod "$KTGEN_NIC_KO"
	ip link add ktl0 type ktgen-nic
	ip -d link show ktl0 | grep -qw ktgen-nic || fail "ktl0 is not a ktgen-nic: $(ip -d link show ktl0)"
	! module_loaded || fail "ktgen_nic.ko brought ktgen with it"
	[ "$(cat /sys/module/ktgen_nic/refcnt)" = 0 ] ||
		fail "ktgen_nic's refcnt is $(cat /sys/module/ktgen_nic/refcnt) with a pair"
	rmmod ktgen_nic
	! nic_loaded || fail "ktgen_nic still loaded after rmmod"
	! ip link show ktl0 2>/dev/null || fail "ktl0 outlived its module"
	! ip -o link show | grep -q ktgn || fail "the peer outlived its module: $(ip -o link show)"
}
case_add load_unload t_load_unload 60 smoke

t_info_text()
{
	local out keys

	keys=$(mktemp)
	load_module
	out=$($KTGEN info)
	log "$out"
	echo "$out" | grep -q "^ktgen module $(cat /sys/module/ktgen/version) (abi 1) on kernel $(uname -r)$" ||
		fail "first line wrong"
	echo "$out" | grep -q "page send: *$(expected_page_send)$" || fail "page send wrong"
	# The VM has no PMU; User-Mode Linux no TSC rate and no kprobes.
	echo "$out" | grep -q "nocache copy: *$(expected_nocache)$" || fail "nocache impl wrong"
	if uml; then
		echo "$out" | grep -q "cpu cost: *busy time (no PMU, no TSC rate: no cycles)$" ||
			fail "cycles claimed without a TSC rate"
		echo "$out" | grep -q "copy probe: *unavailable (no kprobes)$" || fail "copy probe"
	else
		echo "$out" | grep -q "cpu cost: *busy time (no PMU: cycles estimated)$" ||
			fail "pmu reported in a VM"
		echo "$out" | grep -q "copy probe: *available$" || fail "copy probe"
	fi
	# The stack kept the page it was handed (checked from its side); a
	# kernel with MSG_SPLICE_PAGES splices UDP pages too.
	echo "$out" | grep -q "splice test: *tcp spliced, udp $(expected_udp_splice), udp6 $(expected_udp6_splice) " ||
		fail "splice self-test"
	echo info >"$keys"
	$KTGEN -j info | record_each "$keys" "dict(page_send=d['page_send'], nocache=d['nocache_impl'],
		pmu=d['pmu'], splice_tcp=d['splice_selftest'], splice_udp=d['splice_selftest_udp'],
		splice_udp6=d['splice_selftest_udp6'])"
}
case_add info_text t_info_text 60 smoke

t_info_json()
{
	local out

	load_module
	out=$($KTGEN -j info)
	log "$out"
	echo "$out" | json_check "d['version'] == '$(cat /sys/module/ktgen/version)' and
		d['abi_version'] == 1 and d['kernel'] == '$(uname -r)' and
		d['page_send'] == '$(expected_page_send)' and
		d['nocache_impl'] == '$(expected_nocache)' and d['pmu'] is False and
		d['copy_probe'] is $(uml && echo False || echo True) and
		(d['tsc_khz'] == 0) is $(uml && echo True || echo False) and
		d['splice_selftest'] == 'spliced' and
		d['splice_selftest_udp'] in ('spliced', 'copied') and
		d['splice_selftest_udp6'] == '$(expected_udp6_splice)'"
	# Pretty output is the same document.
	[ "$($KTGEN -j -p info | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin))')" = \
	  "$(echo "$out" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin))')" ] ||
		fail "-p changed the document"
}
case_add info_json t_info_json 60

t_config()
{
	load_module
	$KTGEN -j config show |
		json_check "d['buffer_budget'] == $(default_budget) and d['buffer_used'] == 0"
	# Below 4 GiB of memory the default is a quarter of it: a run asking
	# for 1000 MiB of pages is refused by the budget, not by the OOM killer.
	if [ "$(default_budget)" -lt $((1 << 30)) ]; then
		expect_fail 1 "budget" $KTGEN run tcp_stream to 127.0.0.1 port 6000 buffer 1000M
	fi
	$KTGEN config set budget 256M
	$KTGEN config show | grep -q "^buffer budget 256M, in use 0$" || fail "text show"
	$KTGEN -j config | json_check "d['buffer_budget'] == 256 << 20"
	# Out of the policy's range: refused, named, nothing changed.
	expect_fail 1 "out of range.*\(attribute buffer-budget\)" $KTGEN config set budget 1K
	expect_fail 1 "\(attribute buffer-budget\)" $KTGEN config set budget 65G
	$KTGEN -j config | json_check "d['buffer_budget'] == 256 << 20"
	expect_fail 2 "budget needs a size" $KTGEN config set budget lots
}
case_add config t_config 60

t_strict_policy()
{
	load_module
	# An attribute the family does not have.
	expect_fail 1 "Unknown attribute type \(attribute config type 99\)" \
		"$KTGEN_NLRAW" set-config 99:u32:1
	# The right attribute with the wrong length.
	expect_fail 1 "\(attribute buffer-budget\)" "$KTGEN_NLRAW" set-config 1:u32:1048576
	# Commands without attributes take none.
	expect_fail 1 "\(attribute (info )?(version|type 1)\)|not allowed|Unknown attribute" \
		"$KTGEN_NLRAW" get-info 1:u32:1
	# An empty set is a clear error from the module itself.
	expect_fail 1 "nothing to set" "$KTGEN_NLRAW" set-config
	# Unknown commands are the core's (no extack there).
	expect_fail 1 "not supported" "$KTGEN_NLRAW" 200
	"$KTGEN_NLRAW" set-config 1:u64:1048576
	$KTGEN -j config | json_check "d['buffer_budget'] == 1 << 20"
}
case_add strict_policy t_strict_policy 60 smoke core

t_permissions()
{
	load_module
	# Reading is open to everyone ...
	setpriv --reuid 65534 --regid 65534 --clear-groups $KTGEN info >/dev/null
	setpriv --reuid 65534 --regid 65534 --clear-groups $KTGEN config show >/dev/null
	# ... changing state needs CAP_NET_ADMIN in the initial namespace.
	expect_fail 1 "Operation not permitted" \
		setpriv --reuid 65534 --regid 65534 --clear-groups $KTGEN config set budget 512M
	expect_fail 1 "Operation not permitted" \
		setpriv --bounding-set -net_admin $KTGEN config set budget 512M
	expect_fail 1 "Operation not permitted" unshare -U -r $KTGEN config set budget 512M
	expect_fail 1 "Operation not permitted" unshare -U -r -n $KTGEN config set budget 512M
	$KTGEN -j config | json_check "d['buffer_budget'] == $(default_budget)"
}
case_add permissions t_permissions 60

t_autoload()
{
	local mdir=/lib/modules/$(uname -r) out

	modinfo -F alias "$KTGEN_KO" | grep -qx "net-pf-16-proto-16-family-ktgen" ||
		fail "no genetlink family alias in the module"
	modinfo -F alias "$KTGEN_NIC_KO" | grep -qx "rtnl-link-ktgen-nic" ||
		fail "no link kind alias in ktgen_nic"
	! modinfo -F alias "$KTGEN_KO" | grep -q "rtnl-link" ||
		fail "ktgen.ko still claims a link kind"
	unload_module
	# A module tree of ktgen alone (depmod over the whole 9p tree takes a
	# minute under TCG): modprobe resolves the family alias from the
	# module's own modinfo.
	mkdir -p /run/ktg-modules
	cp "$mdir"/modules.order "$mdir"/modules.builtin* /run/ktg-modules/
	mount -t tmpfs ktg-modules "$mdir"
	cp /run/ktg-modules/* "$mdir/"
	mkdir "$mdir/extra"
	cp "$KTGEN_KO" "$KTGEN_NIC_KO" "$mdir/extra/"
	depmod -a
	$KTGEN info | grep -q "^ktgen module" || fail "info after autoload"
	module_loaded || fail "the family lookup did not load the module"
	! nic_loaded || fail "the family lookup loaded ktgen_nic too"
	rmmod ktgen
	# The link kind loads the NIC's module, and only it.
	$KTGEN nic add kta0 peer kta1
	nic_loaded || fail "the link kind did not load ktgen_nic"
	! module_loaded || fail "the link kind loaded ktgen too"
	rmmod ktgen_nic
	# The core loads a link kind's module for anyone who asks for the
	# kind, root of a user namespace too: it gets the module and no pair.
	out=$(unshare -Urn ip link add ktu0 type ktgen-nic 2>&1) &&
		fail "root of a user namespace made a pair"
	[[ $out == *"initial user namespace"* ]] || fail "a user namespace's pair: $out"
	log "refused as expected: $out"
	nic_loaded || fail "the user namespace's request did not load ktgen_nic"
	[ -z "$(ip -o link show type ktgen-nic)" ] || fail "a pair was left: $(ip -o link show type ktgen-nic)"
	rmmod ktgen_nic
	umount "$mdir"
}
case_add autoload t_autoload

t_netns()
{
	local ns

	load_module
	ns=$(netns_add a)
	ip netns exec "$ns" $KTGEN -j info | json_check "d['abi_version'] == 1"
	ip netns exec "$ns" $KTGEN config set budget 128M
	$KTGEN -j config | json_check "d['buffer_budget'] == 128 << 20"
	ip netns del "$ns"
}
case_add netns t_netns 60

# Requests racing with rmmod/insmod: each call either answers or fails
# with a reason and a failure's exit code (no crash, no signal), the module
# really went and came back, and the kernel reports nothing.
t_unload_under_use()
{
	local i pid out=/tmp/ktg-uu unloads=0

	rm -rf $out
	mkdir $out
	(
		n=0
		while [ ! -e $out/stop ]; do
			for c in info "config show"; do
				n=$((n + 1))
				# shellcheck disable=SC2086
				$KTGEN $c >/dev/null 2>$out/err.$n && rc=0 || rc=$?
				echo "$rc" >>$out/rcs
				# a failure is an exit code that says so and a
				# reason; a signal, a sanitizer's or no word is not
				case $rc in
				0) ;;
				1 | 4) [ -s $out/err.$n ] || echo "exit $rc, no reason" >$out/bad.$n ;;
				*) { echo "exit $rc:"; cat $out/err.$n; } >$out/bad.$n ;;
				esac
				rm -f $out/err.$n
			done
		done
	) &
	pid=$!
	# 15 loads and unloads at least, and on until the calls have seen
	# the module both there and gone (a call takes seconds on the debug
	# kernel: 15 rounds saw it only there once), 120 at most
	for i in $(seq 120); do
		load_module
		sleep 0.$((RANDOM % 3))
		rmmod ktgen 2>/dev/null && unloads=$((unloads + 1))
		sleep 0.$((RANDOM % 3))
		[ "$i" -ge 15 ] && grep -qx 0 $out/rcs 2>/dev/null &&
			grep -vqx 0 $out/rcs 2>/dev/null && break
	done
	touch $out/stop
	wait $pid
	log "unloads $unloads; calls by exit code: $(sort $out/rcs | uniq -c | tr '\n' ' ')"
	[ "$unloads" -gt 0 ] || fail "rmmod never succeeded"
	! compgen -G "$out/bad.*" >/dev/null || fail "a call failed otherwise: $(cat $out/bad.* | head -n 3)"
	grep -qx 0 $out/rcs || fail "no call ever found the module"
	grep -vqx 0 $out/rcs || fail "no call ever ran without the module"
	load_module
	$KTGEN info >/dev/null
}
case_add unload_under_use t_unload_under_use 120
