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
	local f

	[ -d $DEBUGFS/gcov ] || skip "no gcov in this kernel"
	mkdir -p /mnt/out/gcov
	for f in $(find $DEBUGFS/gcov -path '*kmod/*.gcda'); do
		cat "$f" >"/mnt/out/gcov/$(basename "$f")"
	done
	ls /mnt/out/gcov | grep -q 'main.gcda' || fail "no coverage data for the module"
}
case_add coverage_export t_coverage_export 60 final
