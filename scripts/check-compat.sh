#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-compat.sh [LANE...]
# check-compat.sh --compare RUNDIR...
#
# One source tree on every kernel ktgen supports. The first form builds the
# module with W=1 for each LANE (default: bullseye bookworm trixie sid, i.e.
# 5.10, 6.1, 6.12 and 7.2), runs the smoke subset of the VM suite on each
# (vm-suite.sh --smoke: load, info, strict policies, every stream path both
# ways, every rx mode, request/response, the virtual NIC in each receive
# style, unload after every case) and then compares what the kernels did.
# The second form only compares the records of earlier runs (make check
# reuses its full bookworm run and its smoke runs of the others).
#
# Each run leaves a record (tests/vm/lib.sh: record_each): one line per
# run it checked, "KEY: FIELD=VALUE ...". The kernels agree when every
# record has the same keys and, field by field, the same values, but for the
# fields below, which differ by kernel on purpose and are shown as a table.
# KTAP out; exit 0 only when every lane passed and the records agree.
set -uo pipefail

here=$(dirname "$(readlink -f "$0")")
CACHE=${KTGEN_CACHE:-$HOME/.cache/ktgen}

# KEY-REGEX FIELD: where kernels may differ, and why.
# Tab-separated.
KERNEL_DEPENDENT='
^info$	page_send	kernel_sendpage() before 6.5, MSG_SPLICE_PAGES after
^info$	splice_udp	a UDP page is spliced, but copied by Debian 6.1 (backported conversion)
^info$	splice_udp6	over IPv6 only with MSG_SPLICE_PAGES (6.5+): no IPv6 sendpage before
^udp 	splice	over IPv6 pages are spliced from 6.5 only (no udpv6 sendpage); Debian 6.1 copies IPv4 ones too
'

compare()
{
	KERNEL_DEPENDENT=$KERNEL_DEPENDENT python3 - "$@" <<'EOF'
import os, re, sys

exempt = []
for line in os.environ["KERNEL_DEPENDENT"].strip().splitlines():
    key, field, why = line.strip().split("\t", 2)
    exempt.append((re.compile(key), field, why))

def dependent(key, field):
    return next((why for k, f, why in exempt if k.search(key) and f == field), None)

lanes = []
for d in sys.argv[1:]:
    name = os.path.basename(d.rstrip("/")).removesuffix("-smoke")
    try:
        kernel = open(os.path.join(d, "kernel")).read().strip()
        rec = {}
        for line in open(os.path.join(d, "record")):
            key, _, rest = line.rstrip("\n").partition(": ")
            if key in rec:
                sys.exit("%s: %s recorded twice" % (name, key))
            if not rest or any("=" not in f for f in rest.split()):
                sys.exit("%s: not FIELD=VALUE pairs: %s" % (name, line.strip()))
            rec[key] = dict(f.split("=", 1) for f in rest.split())
    except OSError as e:
        print("# %s: no record (%s)" % (name, e.strerror))
        rec, kernel = None, "?"
    lanes.append((name, kernel, rec))

print("KTAP version 1")
print("1..1")
for name, kernel, rec in lanes:
    print("# %-16s %-24s %s" % (name, kernel, "%d runs recorded" % len(rec) if rec else "missing"))
bad = [n for n, _, r in lanes if not r]
problems = ["%s has no record" % n for n in bad]
recs = [(n, r) for n, _, r in lanes if r]
keys = sorted(set().union(*(r.keys() for _, r in recs))) if recs else []
shown = {}
fields = 0
for key in keys:
    missing = [n for n, r in recs if key not in r]
    if missing:
        problems.append("%s: not recorded by %s" % (key, ", ".join(missing)))
        continue
    for field in sorted(set().union(*(r[key].keys() for _, r in recs))):
        vals = [r[key].get(field, "(none)") for _, r in recs]
        fields += 1
        if len(set(vals)) == 1:
            continue
        why = dependent(key, field)
        if why:
            shown.setdefault((field, why, tuple(vals)), []).append(key)
            continue
        problems.append("%s %s: %s" % (key, field,
                        ", ".join("%s %s" % (n, v) for (n, _), v in zip(recs, vals))))
print("# %d runs, %d fields compared across %d kernels" % (len(keys), fields, len(recs)))
if shown:
    w = max(len(x) for x in [n for n, _ in recs] + [v for _, _, vs in shown for v in vs])
    print("# where the kernels differ on purpose:")
    print("#   %-30s %s" % ("", "  ".join("%-*s" % (w, n) for n, _ in recs)))
    for (field, why, vals), ks in sorted(shown.items()):
        what = "%s (%s)" % (field, ks[0] if len(ks) == 1 else
                            "%d %s runs" % (len(ks), ks[0].split()[0]))
        print("#   %-30s %s" % (what[:30], "  ".join("%-*s" % (w, v) for v in vals)))
        print("#   %-30s %s" % ("", why))
for p in problems[:40]:
    print("# DIFFERS: " + p)
if len(problems) > 40:
    print("# ... and %d more" % (len(problems) - 40))
print("%s 1 compat_results_agree" % ("not ok" if problems or len(recs) < 2 else "ok"))
sys.exit(1 if problems or len(recs) < 2 else 0)
EOF
}

if [ "${1:-}" = --compare ]; then
	shift
	compare "$@"
	exit
fi

lanes=("$@")
[ ${#lanes[@]} -gt 0 ] || lanes=(bullseye bookworm trixie sid)
rc=0 dirs=()
for lane in "${lanes[@]}"; do
	"$here/vm-suite.sh" --smoke "$lane" || rc=1
	dirs+=("$CACHE/runs/$lane-smoke")
done
compare "${dirs[@]}" || rc=1
exit $rc
