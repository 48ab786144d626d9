#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""bench-scale-report.py SAMPLES PREFIX SETUP COMMIT: bench-scale.sh's
samples (a run per line) into PREFIX.json (every sample and the summary)
and PREFIX.md (the table the README quotes).

Per flow count: the median window throughput with its min-max, its ratio
to the 10-flow total (round by round, the median), Jain's fairness (median
and the worst run), and memory per flow: the module's buffer charge and
the guest's MemAvailable drop, both in the middle of the window. A run the
module refused is a row of its own with the kernel's reason. Targets
(issue 11): the 1000-flow total >= 0.9 of the 10-flow one, fairness >=
0.95 at every count.
"""
import datetime
import json
import statistics as st
import sys

TOTAL_TARGET = 0.9
FAIRNESS_TARGET = 0.95


def summarize(samples):
    counts = sorted({s["flows"] for s in samples})
    ok = [s for s in samples if s["state"] in ("done", "stopped")]
    by_round = {}
    for s in ok:
        by_round.setdefault(s["round"], {})[s["flows"]] = s["tx_bps"]
    rows = []
    for n in counts:
        runs = [s for s in ok if s["flows"] == n]
        refused = [s for s in samples if s["flows"] == n and s not in runs]
        row = {"flows": n, "runs": len(runs), "refused": len(refused)}
        if refused:
            row["error"] = refused[0].get("error", refused[0]["state"])
        if runs:
            bps = [s["tx_bps"] for s in runs]
            fair = [s["fairness"] for s in runs]
            ratios = [r[n] / r[10] for r in by_round.values() if n in r and r.get(10)]
            row.update({
                "tx_bps_median": st.median(bps), "tx_bps_min": min(bps),
                "tx_bps_max": max(bps),
                "vs_10_median": st.median(ratios) if ratios else None,
                "vs_10_min": min(ratios) if ratios else None,
                "vs_10_max": max(ratios) if ratios else None,
                "fairness_median": st.median(fair), "fairness_min": min(fair),
                "module_bytes_per_flow": st.median(s["buffer_used"] / n for s in runs),
                "guest_bytes_per_flow": st.median(max(s["mem_delta"], 0) / n for s in runs),
                "mem_pressure_runs": sum(1 for s in runs if s.get("mem_pressures")),
                "bytes_per_packet": st.median(s["veth_bytes"] / s["veth_packets"]
                                              for s in runs if s.get("veth_packets"))
                if any(s.get("veth_packets") for s in runs) else None,
            })
        rows.append(row)
    top = next((r for r in rows if r["flows"] == 1000), None)
    targets = {
        "total_1000_vs_10": {
            "target": TOTAL_TARGET,
            "median": top.get("vs_10_median") if top else None,
        },
        "fairness": {
            "target": FAIRNESS_TARGET,
            "worst_median": min((r["fairness_median"] for r in rows if r["runs"]),
                                default=None),
        },
    }
    t = targets["total_1000_vs_10"]
    t["met"] = t["median"] is not None and round(t["median"], 9) >= TOTAL_TARGET
    t = targets["fairness"]
    t["met"] = (t["worst_median"] is not None and t["worst_median"] >= FAIRNESS_TARGET and
                all(r["runs"] and not r["refused"] for r in rows))
    return rows, targets


def fmt_ratio(r, key):
    if r.get(key + "_median") is None:
        return "-"
    return "%.2f (%.2f-%.2f)" % (r[key + "_median"], r[key + "_min"], r[key + "_max"])


def markdown(rows, targets, setup, commit, tx):
    out = ["Scale, tcp_stream of 64000-byte writes over a veth pair (%s), commit %s, "
           "%s:" % (setup, commit, datetime.date.today().isoformat()), "",
           "| flows | total Mbit/s, median (min-max) | vs 10 flows | fairness, median (worst) "
           "| module KiB/flow | guest KiB/flow | runs under TCP memory pressure "
           "| bytes per packet at the veth |",
           "|---:|---|---|---|---:|---:|---:|---:|"]
    for r in rows:
        if not r["runs"]:
            out.append("| %d | refused: %s | | | | | | |" % (r["flows"], r.get("error", "")))
            continue
        bpp = r.get("bytes_per_packet")
        out.append("| %d | %.0f (%.0f-%.0f) | %s | %.3f (%.3f) | %.0f | %.0f | %d of %d | %s |" % (
            r["flows"], r["tx_bps_median"] / 1e6, r["tx_bps_min"] / 1e6,
            r["tx_bps_max"] / 1e6, fmt_ratio(r, "vs_10"), r["fairness_median"],
            r["fairness_min"], r["module_bytes_per_flow"] / 1024,
            r["guest_bytes_per_flow"] / 1024, r["mem_pressure_runs"], r["runs"],
            "%.0f" % bpp if bpp else "-"))
    t, f = targets["total_1000_vs_10"], targets["fairness"]
    out += ["",
            "Targets: 1000-flow total >= %.2f x the 10-flow one: %s (median %s); "
            "fairness >= %.2f at every count: %s (worst median %s)." % (
                TOTAL_TARGET, "met" if t["met"] else "not met",
                "%.2f" % t["median"] if t["median"] is not None else "-",
                FAIRNESS_TARGET, "met" if f["met"] else "not met",
                "%.3f" % f["worst_median"] if f["worst_median"] is not None else "-"),
            "Module memory: the buffer budget's charge (source ring, staging pages); guest "
            "memory: MemAvailable's drop (sockets, skbs, everything), both mid-window."]
    return "\n".join(out) + "\n"


def main():
    samples_path, prefix, setup, commit = sys.argv[1:5]
    samples = [json.loads(line) for line in open(samples_path) if line.strip()]
    if not samples:
        sys.exit("bench-scale-report: no samples")
    rows, targets = summarize(samples)
    tx = samples[0].get("tx", "stack")
    with open(prefix + ".json", "w") as f:
        json.dump({"setup": setup, "commit": commit, "tx": tx, "rows": rows,
                   "targets": targets, "samples": samples}, f, indent=1)
    md = markdown(rows, targets, setup, commit, tx)
    with open(prefix + ".md", "w") as f:
        f.write(md)
    sys.stdout.write(md)


if __name__ == "__main__":
    main()
