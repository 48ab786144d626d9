#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Last: what the whole suite left behind. On the debug kernel, no leak
# since the suite started and lockdep still on (a lockdep report turns it
# off for good); the module's coverage data goes to the host.

t_leaks_and_locks()
{
	have_kmemleak || [ -e /proc/lockdep_stats ] || skip "not a debug kernel"
	unload_module
	kmemleak_check
	if [ -e /proc/lockdep_stats ]; then
		grep -q "debug_locks: *1$" /proc/lockdep_stats ||
			fail "lockdep turned itself off: $(grep debug_locks /proc/lockdep_stats)"
	fi
}
case_add leaks_and_locks t_leaks_and_locks 300 final

t_coverage_export()
{
	local f rel

	[ -d $DEBUGFS/gcov ] || skip "no gcov in this kernel"
	# By their path below kmod/: ktgen_nic's objects are in nic/, with
	# names ktgen's have too (main.gcda).
	for f in $(find $DEBUGFS/gcov -path '*kmod/*.gcda'); do
		rel=${f##*/kmod/}
		mkdir -p "/mnt/out/gcov/$(dirname "$rel")"
		cat "$f" >"/mnt/out/gcov/$rel"
	done
	[ -e /mnt/out/gcov/main.gcda ] || fail "no coverage data for ktgen"
	[ -e /mnt/out/gcov/nic/main.gcda ] || fail "no coverage data for ktgen_nic"
}
case_add coverage_export t_coverage_export 60 final
