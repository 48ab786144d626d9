#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Robustness: allocation failures at every site a command reaches (debug
# kernel), a netlink fuzzer, and every state-changing command refused to
# callers without CAP_NET_ADMIN in the initial user namespace.

# Commands that change state, with a valid request each.
ADMIN_REQUESTS=(
	"set-config 1:u64:268435456"
)

t_refuse_unprivileged()
{
	local req

	load_module
	for req in "${ADMIN_REQUESTS[@]}"; do
		# shellcheck disable=SC2086
		expect_fail 1 "Operation not permitted" \
			setpriv --reuid 65534 --regid 65534 --clear-groups "$KTGEN_NLRAW" $req
		# shellcheck disable=SC2086
		expect_fail 1 "Operation not permitted" unshare -U -r -n "$KTGEN_NLRAW" $req
		# shellcheck disable=SC2086
		expect_fail 1 "Operation not permitted" \
			setpriv --bounding-set -net_admin "$KTGEN_NLRAW" $req
		# shellcheck disable=SC2086
		"$KTGEN_NLRAW" $req
	done
}
case_add refuse_unprivileged t_refuse_unprivileged

t_fault_get_info()
{
	fault_setup
	load_module
	"$KTGEN_NLFAULT" request 1
	$KTGEN info >/dev/null
}
case_add fault_get_info t_fault_get_info 120

t_fault_config()
{
	fault_setup
	load_module
	"$KTGEN_NLFAULT" request 2
	"$KTGEN_NLFAULT" request 3 1:u64:268435456
	$KTGEN -j config | json_check "d['buffer_budget'] == 256 << 20 and d['buffer_used'] == 0"
}
case_add fault_config t_fault_config 120

t_fault_load()
{
	fault_setup
	unload_module
	"$KTGEN_NLFAULT" load "$KTGEN_KO"
	! module_loaded || fail "left loaded"
	load_module
	$KTGEN info >/dev/null
	unload_module
	kmemleak_check
}
case_add fault_load t_fault_load 600

t_fuzz()
{
	load_module
	"$KTGEN_NLFUZZ" -t 30
	setpriv --reuid 65534 --regid 65534 --clear-groups "$KTGEN_NLFUZZ" -t 10
	$KTGEN -j info | json_check "d['abi_version'] == 1"
	unload_module
	kmemleak_check
}
case_add fuzz t_fuzz 300 core

# Sink and run creation under allocation failure, site by site: each
# failure is a clean error and the next attempt works (nlfault checks),
# and nothing leaks (kmemleak, at the end of the suite and here).
t_fault_sink()
{
	fault_setup
	load_module
	# proto tcp|udp, port 6300 (big endian)
	"$KTGEN_NLFAULT" -s request 4 2:u32:0 4:hex:189c 5:u32:4
	"$KTGEN_NLFAULT" -s request 4 2:u32:1 4:hex:189c
	$KTGEN -j sink show | json_check "d == []"
	$KTGEN -j config | json_check "d['buffer_used'] == 0"
}
case_add fault_sink t_fault_sink 300 core

t_fault_run()
{
	fault_setup
	load_module
	$KTGEN sink add tcp port 6301 rx verify >/dev/null
	# to 127.0.0.1 port 6301, 4 messages, a one-page buffer: every page
	# allocation is a fault site, so the rings stay small (the staging
	# ring's failure path is the same ktg_pages_alloc path as the source's)
	"$KTGEN_NLFAULT" -r request 7 3:hex:7f000001 4:hex:189d 12:u64:4 14:u64:4096
	$KTGEN -j run show | json_check "d == []"
	$KTGEN sink del all
	$KTGEN -j config | json_check "d['buffer_used'] == 0"
	unload_module
	kmemleak_check
}
case_add fault_run t_fault_run 600 core
