#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the KTAP scenario scripts run in the guest by run.sh. Each
# scenario file registers cases with `case_add NAME FUNCTION [TIMEOUT]
# [TAG...]`: "nodebug" keeps a case out of the debug lane (what it needs
# cannot happen at that kernel's speed: the reason is beside the case),
# "smoke" puts it in the subset every kernel lane runs (KTGEN_SMOKE=1:
# check-compat), "native" in the User-Mode Linux lane only (KTGEN_UML=1:
# rates TCG cannot reach; with the smoke subset there), "core" makes it one
# the debug lane runs in every make check whatever its budget
# (KTGEN_CASE_BUDGET: the riskiest paths, where a sanitizer most needs to
# look: the fuzzer, fault injection, user memory, request/response, teardown
# races; the others take turns, see run.sh), "final" runs it last and always
# (what the whole suite left behind), "full" keeps it in the stock lane of
# every make check (its debug run covers less: run.sh), "kcsan" puts it in
# the KCSAN lane's set (KTGEN_KCSAN=1: the data paths, where a data race
# would be; the lane runs those cases only); a case runs in its
# own bash under `set -e`, fails on a non-zero status, is skipped only
# through skip() (which leaves a mark: a status alone never means SKIP,
# since 4 is also ktgen's exit code for an infrastructure failure), and
# fails whenever the kernel reported anything while it ran.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

: "${KTGEN:=ktgen}"
: "${KTGEN_KO:=}"
# The paths below are exported once worked out: run.sh sources this file
# in every case's shell, and a process costs ~0.4 s on the debug kernel.
# The virtual NIC's module, built beside ktgen.ko.
[ -n "${KTGEN_NIC_KO:-}" ] || [ -z "$KTGEN_KO" ] ||
	KTGEN_NIC_KO=$(dirname "$KTGEN_KO")/ktgen_nic.ko
: "${KTGEN_NIC_KO:=}"
: "${KTGEN_TESTS:=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")}"
: "${KTGEN_TIME_SCALE:=1}"
# The tree (the schema, scripts): not from $KTGEN, which may be a
# sanitized build elsewhere in it.
: "${KTGEN_TOP:=$(dirname "$(dirname "$KTGEN_TESTS")")}"
export KTGEN_NIC_KO KTGEN_TESTS KTGEN_TOP

CASES=()
declare -A CASE_FN CASE_TIMEOUT CASE_SMOKE CASE_CORE CASE_FINAL CASE_FULL

case_add()
{
	local tags=" ${*:4} "

	[[ $tags == *" nodebug "* ]] && [ "$KTGEN_TIME_SCALE" -gt 1 ] && return 0
	[[ $tags == *" native "* ]] && [ -z "${KTGEN_UML:-}" ] && return 0
	# the real-driver lane (KTGEN_DRIVERS: vm-run.sh -n) runs its own
	# cases, and only those
	[[ $tags == *" driver "* ]] && [ -z "${KTGEN_DRIVERS:-}" ] && return 0
	[ -n "${KTGEN_DRIVERS:-}" ] && [[ $tags != *" driver "* ]] && return 0
	# the KCSAN lane (KTGEN_KCSAN: a kernel of its own) runs the data-path
	# cases tagged "kcsan", and only those
	[ -n "${KTGEN_KCSAN:-}" ] && [[ $tags != *" kcsan "* ]] && return 0
	[ -n "${KTGEN_SMOKE:-}" ] && [[ $tags != *" smoke "* ]] && [[ $tags != *" native "* ]] &&
		return 0
	CASES+=("$1")
	CASE_FN[$1]=$2
	CASE_TIMEOUT[$1]=${3:-60}
	[[ $tags == *" smoke "* ]] && CASE_SMOKE[$1]=1
	[[ $tags == *" core "* ]] && CASE_CORE[$1]=1
	[[ $tags == *" final "* ]] && CASE_FINAL[$1]=1
	[[ $tags == *" full "* ]] && CASE_FULL[$1]=1
	return 0
}

# Matrices cut down to every path once: on slow (debug) kernels, in the
# smoke subset and over the real drivers' emulated NICs.
reduced()
{
	[ "$KTGEN_TIME_SCALE" -gt 1 ] || [ -n "${KTGEN_SMOKE:-}" ] || [ -n "${KTGEN_DRIVERS:-}" ]
}

log()
{
	echo "# $*"
}

fail()
{
	echo "FAIL: $*" >&2
	exit $KSFT_FAIL
}

skip()
{
	echo "SKIP: $*" >&2
	[ -n "${KTGEN_SKIP_MARK:-}" ] && echo "$*" >"$KTGEN_SKIP_MARK"
	exit $KSFT_SKIP
}

# Timeouts: seconds scaled for slow kernels, generously (the debug lane:
# x10); a wait that succeeds returns early, so only a failure pays it.
scaled()
{
	echo $(( $1 * KTGEN_TIME_SCALE ))
}

# Durations (how long a run goes on, a sleep to let traffic flow): seconds
# scaled by the guest's measured speed, KTGEN_SPEED (run.sh's calibration:
# how much slower than the stock kernel on this machine the guest is,
# rounded, at least 1), so that a slow kernel gets the same work done and
# a fast one does not wait for nothing.
span()
{
	echo $(( $1 * ${KTGEN_SPEED:-1} ))
}

# The module's default buffer budget: 1 GiB, or a quarter of the memory
# (rounded down to a MiB) where that is less (mem.c).
default_budget()
{
	local kb q

	kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
	q=$(( kb * 1024 / 4 >> 20 << 20 ))
	echo $(( q < 1 << 30 ? q : 1 << 30 ))
}

# slowwait SECS CMD...: poll CMD every 0.1 s until it succeeds.
slowwait()
{
	local deadline=$(( $(date +%s) + $1 ))

	shift
	until "$@"; do
		[ "$(date +%s)" -lt $deadline ] || return 1
		sleep 0.1
	done
}

# User-Mode Linux (the native-speed lane, uml-run.sh): one CPU, real
# caches, no PMU, no kprobes and no non-temporal copy.
uml()
{
	grep -q '^vendor_id.*User Mode Linux' /proc/cpuinfo
}

# What a case needs of the kernel it runs on, or a skip that says what is
# missing (User-Mode Linux has one CPU, no RPS or XPS in sysfs, no perf
# events and no kprobes: such cases are the TCG lanes' only).
need_cpus()
{
	[ "$(nproc)" -ge "$1" ] || skip "needs $1 CPUs, this kernel has $(nproc)"
}

need_rps()
{
	[ -e /sys/class/net/lo/queues/rx-0 ] || skip "this kernel has no RPS (CONFIG_RPS: SMP only)"
}

# not_on_uml REASON: what User-Mode Linux does differently, by design.
not_on_uml()
{
	! uml || skip "not on User-Mode Linux: $*"
}

need_kprobes()
{
	grep -qw register_kprobe /proc/kallsyms || skip "this kernel has no kprobes"
}

need_perf()
{
	[ -e /proc/sys/kernel/perf_event_paranoid ] || skip "this kernel has no perf events"
}

module_loaded()
{
	[ -d /sys/module/ktgen ]
}

nic_loaded()
{
	[ -d /sys/module/ktgen_nic ]
}

# load_module [PARAM...]: ktgen.ko (with PARAMs) and the virtual NIC's
# ktgen_nic.ko, each unless loaded.
load_module()
{
	if ! module_loaded; then
		insmod "$KTGEN_KO" "$@" || return
	fi
	nic_loaded || insmod "$KTGEN_NIC_KO"
}

# test_hook NAME VALUE: set one of the module's test hooks (kmod/debug.h),
# under debugfs; the lanes' module has them (KTGEN_TEST_HOOKS=1), a
# production build none.
test_hook()
{
	local f=/sys/kernel/debug/ktgen/$1

	mountpoint -q /sys/kernel/debug || fail "test hook $1: debugfs is not mounted"
	[ -d /sys/kernel/debug/ktgen ] ||
		fail "test hook $1: no ktgen/ under debugfs (a module built without KTGEN_TEST_HOOKS=1?)"
	[ -w "$f" ] || fail "no test hook $1"
	echo "$2" >"$f" || fail "test hook $1: $2 refused"
}

# unload_module: both modules; fails as rmmod does for the first that
# cannot go.
unload_module()
{
	if nic_loaded; then
		rmmod ktgen_nic || return
	fi
	module_loaded || return 0
	rmmod ktgen
}

# expect_fail EXIT_CODE PATTERN CMD...: CMD must exit with EXIT_CODE and
# print something matching PATTERN (extended regex) on stderr.
expect_fail()
{
	local want=$1 pat=$2 rc=0 err

	shift 2
	err=$("$@" 2>&1 >/dev/null) || rc=$?
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want: $err"
	echo "$err" | grep -Eq -- "$pat" || fail "'$*' said '$err', expected /$pat/"
	log "refused as expected: $err"
}

# Bounds that only time holds (pacing, windows, sleeps per transaction,
# tick and interrupt ratios) do not gate a lane that shares its CPUs with
# other work (make check builds the debug kernel beside the stock lane):
# a miss is logged as "TIMING: ..." (run.sh lists them in the lane's
# summary) and the case goes on. KTGEN_TIMING_GATE=1 (an idle machine)
# makes them fail. Each such bound has a loose functional twin that gates.
timing_fail()
{
	if [ -n "${KTGEN_TIMING_GATE:-}" ]; then
		fail "$*"
	fi
	echo "TIMING: $* (not gating; KTGEN_TIMING_GATE=1 makes it fail)" >&2
}

# timing_check EXPR: json_check's EXPR as a timing bound.
timing_check()
{
	local doc

	doc=$(cat)
	echo "$doc" | json_check "$1" 2>/dev/null || timing_fail "timing bound missed: $1"
}

# The checks below are answered by one Python a case (pycheck.py, which
# run.sh starts with the case: KTG_PYCHECK is its directory), not one a
# check: a Python's start with jsonschema costs seconds under TCG and
# several times that on the debug kernel. Outside run.sh, one a check.
pycheck_start()
{
	KTG_PYCHECK=$(mktemp -d /tmp/ktg-pycheck.XXXXXX)
	mkfifo "$KTG_PYCHECK/req" "$KTG_PYCHECK/resp"
	# not a job of the case's shell (a bare `wait` would wait for it):
	# it goes when that shell does
	(/usr/bin/python3 "$KTGEN_TESTS/pycheck.py" "$KTG_PYCHECK" \
		"$KTGEN_TOP/tools/ktgen-run.schema.json" $$ </dev/null >/dev/null 2>&1 &)
	export KTG_PYCHECK
}

# pycheck MODE EXPR < DOC: pycheck.py's answer (its messages: "# ..." to
# stdout, the rest to stderr; a value's lines to stdout). Builtins but
# for flock: a fork costs tens of ms under TCG.
pycheck()
{
	local t=$KTG_PYCHECK/$BASHPID.$RANDOM doc l rc=

	IFS= read -r -d '' doc || :
	printf '%s' "$doc" >"$t.doc"
	printf '%s' "$2" >"$t.expr"
	{
		flock 9
		echo "$1 $t.doc $t.expr $t.out" >"$KTG_PYCHECK/req"
		read -r -t 600 rc <"$KTG_PYCHECK/resp" || rc=
	} 9>"$KTG_PYCHECK/lock"
	[ -n "$rc" ] || fail "pycheck.py did not answer"
	while IFS= read -r l; do
		case $1$rc:$l in
		value0:*|*:"# "*) echo "$l" ;;
		*) echo "$l" >&2 ;;
		esac
	done <"$t.out"
	return "$rc"
}

# A JSON document on stdin; a Python expression over it (as d) must hold.
# A run's result document is also validated against its schema.
json_check()
{
	if [ -n "${KTG_PYCHECK:-}" ]; then
		pycheck one "$1"
		return
	fi
	/usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
if isinstance(d, dict) and "schema_version" in d:
    import jsonschema
    with open(sys.argv[2]) as f:
        try:
            jsonschema.validate(d, json.load(f))
        except jsonschema.ValidationError as e:
            print("schema: %s at %s on %s" % (e.message, list(e.absolute_path), json.dumps(d)),
                  file=sys.stderr)
            sys.exit(1)
ok = eval("(" + sys.argv[1] + ")")
if not ok:
    print("json check failed: " + sys.argv[1] + " on " + json.dumps(d), file=sys.stderr)
sys.exit(0 if ok else 1)' "$1" "$KTGEN_TOP/tools/ktgen-run.schema.json"
}

# json_value EXPR < DOC: the value of a Python expression over the JSON
# document on stdin (as d), printed (a list: an item a line). One Python
# a case, as json_check.
json_value()
{
	if [ -n "${KTG_PYCHECK:-}" ]; then
		pycheck value "$1"
		return
	fi
	/usr/bin/python3 -c '
import json, sys
v = eval("(" + sys.argv[1] + ")", {"d": json.load(sys.stdin)})
print("\n".join(map(str, v if isinstance(v, (list, tuple)) else [v])))' "$1"
}

# json_check_each EXPR < FILE: every line of FILE a JSON document for which
# EXPR holds; run documents are validated against the schema too.
json_check_each()
{
	if [ -n "${KTG_PYCHECK:-}" ]; then
		pycheck each "$1"
		return
	fi
	/usr/bin/python3 -c '
import json, sys
import jsonschema
schema = json.load(open(sys.argv[2]))
bad = n = 0
for n, line in enumerate(sys.stdin, 1):
    if not line.strip():
        continue
    d = json.loads(line)
    try:
        if "schema_version" in d:
            jsonschema.validate(d, schema)
        ok = eval("(" + sys.argv[1] + ")")
    except (jsonschema.ValidationError, KeyError) as e:
        ok = False
        print("document %d: %s" % (n, e), file=sys.stderr)
    if not ok:
        bad += 1
        print("json check failed on document %d: %s" % (n, line.strip()), file=sys.stderr)
print("# %d documents, %d failed" % (n, bad))
sys.exit(1 if bad else 0)' "$1" "$KTGEN_TOP/tools/ktgen-run.schema.json"
}

# record_each KEYS VALUE_EXPR < DOCS: the lane's record of what each kernel
# did, which check-compat compares across kernels. Line i of KEYS names
# what JSON document i on stdin shows ("-": not recorded); VALUE_EXPR
# (Python over d) gives a dict of what it showed: one "KEY: FIELD=VALUE ..."
# line per document goes to $KTGEN_RECORD (run.sh sets it for smoke cases
# only, so that every lane's record holds the same runs).
record_each()
{
	[ -n "${KTGEN_RECORD:-}" ] || return 0
	/usr/bin/python3 -c '
import json, sys
keys = [k.strip() for k in open(sys.argv[1]) if k.strip()]
docs = [json.loads(l) for l in sys.stdin if l.strip()]
if len(keys) != len(docs):
    sys.exit("record_each: %d keys for %d documents" % (len(keys), len(docs)))
with open(sys.argv[3], "a") as out:
    for k, d in zip(keys, docs):
        if k == "-":
            continue
        v = eval(sys.argv[2])
        out.write("%s: %s\n" % (k, " ".join("%s=%s" % (f, str(v[f]).replace(" ", "_"))
                                           for f in sorted(v))))' "$1" "$2" "$KTGEN_RECORD"
}

# detached MODE: "detach" for an rx user sink, which otherwise belongs
# to the `sink add` that created it (and stays in the foreground with it).
detached()
{
	[ "$1" != user ] || echo detach
}

# sink_token CMD...: CMD is a `ktgen sink add ... rr` (under ip netns
# exec, say); the token it printed, for a run's token.
sink_token()
{
	"$@" | sed -n 's/^sink [0-9]* token \(0x[0-9a-f]*\)$/\1/p'
}

# Unique namespace names; removed after each case by run.sh.
NS_PREFIX=ktg-$$-
netns_add()
{
	ip netns add "$NS_PREFIX$1"
	ip -n "$NS_PREFIX$1" link set lo up
	echo "$NS_PREFIX$1"
}

# driver_pair DRIVER: the two NICs of DRIVER this guest was booted with
# (vm-run.sh -n: QEMU's igb, e1000e or virtio-net, wired to each other on
# a hub of their own), one in each of two new namespaces $NS_A and $NS_B,
# named kd0 and kd1, 10.78.0.1 and .2/24, fd78::1 and ::2/64, up with a
# carrier. A case's namespaces go after it and the devices come back to
# the initial namespace (driver_pair finds them there by their MAC).
driver_pair()
{
	local drv=$1 spec mod i=0 mac dev ns

	spec=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^ktgvm\.nics=//p' | tr ';' '\n' | grep "^$drv:" || true)
	[ -n "$spec" ] || skip "no $drv NICs in this guest (vm-run.sh -n)"
	case $drv in
	virtio) mod=virtio_net ;;
	*) mod=$drv ;;
	esac
	modprobe "$mod" || fail "modprobe $mod"
	NS_A=$(netns_add a)
	NS_B=$(netns_add b)
	for mac in $(echo "${spec#*:}" | tr ',' ' '); do
		slowwait "$(scaled 20)" driver_dev "$mac" >/dev/null ||
			fail "$drv: no device with MAC $mac in the initial namespace"
		dev=$(driver_dev "$mac")
		ns=$NS_A
		[ $i = 1 ] && ns=$NS_B
		ip link set "$dev" netns "$ns"
		ip -n "$ns" link set "$dev" name kd$i
		ip -n "$ns" addr add 10.78.0.$((i + 1))/24 dev kd$i
		ip -n "$ns" addr add fd78::$((i + 1))/64 dev kd$i nodad
		ip -n "$ns" link set kd$i up
		i=$((i + 1))
	done
	[ $i = 2 ] || fail "$drv: $i devices, not a pair"
	slowwait "$(scaled 20)" bash -c "ip -n $NS_A link show kd0 | grep -q LOWER_UP &&
		ip -n $NS_B link show kd1 | grep -q LOWER_UP" ||
		fail "$drv: no carrier: $(ip -n "$NS_A" -br link show kd0) $(ip -n "$NS_B" -br link show kd1)"
}

# driver_dev MAC: the initial namespace's interface with that address.
driver_dev()
{
	local d

	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && { basename "$d"; return 0; }
	done
	return 1
}

# driver_unpair: the pair's namespaces gone, its devices back in the
# initial namespace (another driver_pair may follow in the same case).
driver_unpair()
{
	ip netns del "$NS_A"
	ip netns del "$NS_B"
	NS_A= NS_B=
}

DEBUGFS=/sys/kernel/debug
FAULT_FLAG=/run/ktgen-fault-injection

# The fault injectors this kernel has: failslab and fail_page_alloc, and
# fail_usercopy where it was built in (the debug kernel).
fault_attrs()
{
	local a

	for a in failslab fail_page_alloc fail_usercopy; do
		[ -d $DEBUGFS/$a ] && echo $a
	done
}

# Fault injection by the task's fail-nth counter only: no random faults,
# every allocation site and user copy counts (sleeping ones and order-0
# pages included), nothing dumped to the log.
fault_setup()
{
	local a

	[ -d $DEBUGFS/failslab ] && [ -e /proc/self/fail-nth ] ||
		skip "this kernel has no fault injection (the debug lane does)"
	for a in $(fault_attrs); do
		echo 0 >$DEBUGFS/$a/probability
		echo 0 >$DEBUGFS/$a/verbose
	done
	for a in failslab fail_page_alloc; do
		echo N >$DEBUGFS/$a/ignore-gfp-wait
	done
	echo N >$DEBUGFS/fail_page_alloc/ignore-gfp-highmem
	echo 0 >$DEBUGFS/fail_page_alloc/min-order
	fault_stack_off
	# what nlfault runs when runs are slow to end
	export NLFAULT_SLOW="bash -c '. \"$KTGEN_TESTS\"/lib.sh; runs_slow_report'"
	# run.sh: allocation-failure warnings in this case are expected (and
	# the host's scan of the console learns it from the log).
	touch $FAULT_FLAG
	echo "ktgen-test: fault injection" >/dev/kmsg
}

# fault_every: the nlfault walks that follow (request, cli, load) fail every
# 3rd site, not each (nlfault.c: NLFAULT_EVERY), from an offset the debug
# lane's rotation turns. For a case of a slice, which is owed in every
# fifth make check (run.sh: when KTGEN_ROTATION % 5 is its slice), the
# offset is its turn's count, KTGEN_ROTATION / 5: three of its owed runs
# (fifteen make checks) fail every site, each judged as in a whole walk
# (the core cases, run in every make check, walk whole).
# KTGEN_FAULT_EVERY=1: whole walks (by hand, say; vm-suite.sh's rotation
# is 0 unless given).
fault_every()
{
	local k=${KTGEN_FAULT_EVERY:-3} i

	[ "$k" -gt 1 ] || return 0
	i=$(( ${KTGEN_ROTATION:-0} / 5 % k ))
	export NLFAULT_EVERY=$k:$i
	log "fault walks: every $k sites from site $((i + 1)) (turn ${KTGEN_ROTATION:-0}; KTGEN_FAULT_EVERY=1: every site)"
}

# What runs still running 5 s after a request or a stop are doing (nlfault
# runs it then, through NLFAULT_SLOW): the runs, the TCP sockets but those
# in TIME-WAIT, and the kernel stacks of ktgen's threads and of every task
# in D state (a kworker on a run's done work, say).
runs_slow_report()
{
	local p comm state

	{
		$KTGEN -j run show | head -c 2000
		echo
		ss -tanoie | grep -v TIME-WAIT
		for p in /proc/[0-9]*; do
			comm=$(cat "$p/comm" 2>/dev/null) || continue
			state=$(awk '{ print $3 }' "$p/stat" 2>/dev/null)
			case "$comm:$state" in
			ktgen*|*:D)
				echo "$comm (${p#/proc/}) $state:"
				cat "$p/stack" 2>/dev/null
				;;
			esac
		done
	} | sed 's/^/# /'
}

# fault_stack MODULE: random failures only where a call stack runs through
# MODULE's code (the injectors' stack-trace filter: a return address within
# the module's core, 32 frames deep), whatever the context: softirq, a
# worker, any task. fault_stack_off: anywhere again.
fault_stack()
{
	local a base size

	[ -e "$DEBUGFS"/failslab/require-start ] ||
		fail "this debug kernel has no stack-trace filter (scripts/debug-kernel.config)"
	read -r base size <<<"$(awk -v m="$1" '$1 == m { print $6, $2 }' /proc/modules)"
	[[ $base == 0x* ]] && [ "$base" != 0x0000000000000000 ] ||
		fail "no address of $1's code in /proc/modules: '$base'"
	for a in failslab fail_page_alloc; do
		echo 32 >"$DEBUGFS"/$a/stacktrace-depth
		printf "%u" $((base)) >"$DEBUGFS"/$a/require-start
		printf "%u" $((base + size)) >"$DEBUGFS"/$a/require-end
	done
}

fault_stack_off()
{
	local a

	[ -e "$DEBUGFS"/failslab/require-start ] || return 0
	for a in failslab fail_page_alloc; do
		echo 0 >"$DEBUGFS"/$a/require-start
		echo 18446744073709551615 >"$DEBUGFS"/$a/require-end
	done
}

have_kmemleak()
{
	[ -e $DEBUGFS/kmemleak ]
}

# Report leaks that appeared since the last kmemleak_check (or the start
# of the suite): objects must be a few seconds old to count.
kmemleak_check()
{
	local leaks

	have_kmemleak || return 0
	echo scan >$DEBUGFS/kmemleak
	sleep 6
	echo scan >$DEBUGFS/kmemleak
	leaks=$(cat $DEBUGFS/kmemleak)
	echo clear >$DEBUGFS/kmemleak
	[ -z "$leaks" ] || { echo "$leaks" | head -n 60 >&2; fail "kmemleak found leaks"; }
}
