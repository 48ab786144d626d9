#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""bench-report.py SAMPLES OUTDIR SETUP COMMIT: bench.sh's samples into
OUTDIR/results.json (every sample, every comparison), OUTDIR/results.md
(the table the README quotes) and OUTDIR/results.svg (the ratios as bars,
with Debian's python3-matplotlib).

A comparison is ktgen's metric over an anchor's, pair by pair (the same
round of the interleaved schedule): the median ratio with its min-max over
the pairs, and each side's coefficient of variation. Targets are the
speed issue's; "met" needs the median ratio at or above the target.
"""
import datetime
import json
import statistics as st
import sys


def metrics(s):
    """The sample's derived metrics, by name."""
    secs = s.get("window_ns", 0) / 1e9
    cpus = s.get("busy_jiffies", 0) / 100 / secs if secs else 0    # USER_HZ
    if s["workload"] == "rr":
        m = {"tps": s["tps"], "p99_us": s["p99_us"]}
        if cpus:
            m.update(cpus=cpus, tps_per_cpu=s["tps"] / cpus)
        return m
    m = {"cpus": cpus}
    if s["workload"].startswith("udp64"):
        m["rx_pps"] = s["rx_pkts"] / secs
        m["tx_pps"] = s["tx_pkts"] / secs
        m["rx_pps_per_cpu"] = m["rx_pps"] / cpus if cpus else 0
        m["tx_pps_per_cpu"] = m["tx_pps"] / cpus if cpus else 0
    else:
        m["gbps"] = s["rx_bytes"] * 8 / s["window_ns"]
        m["gbps_per_cpu"] = m["gbps"] / cpus if cpus else 0
    if s["workload"] == "tcp1" and s["rx_bytes"]:
        # netperf's service demand: us of CPU (all CPUs) per KB
        m["sd_us_per_kb"] = s["busy_jiffies"] * 1e4 / (s["rx_bytes"] / 1024)
        m["own_sd_us_per_kb"] = s["own_sd_us_per_kb"]
    return m


# (workload, ktgen's tool, anchor, metric, higher is better, target)
COMPARISONS = [
    ("udp64", "ktgen", "iperf3", "rx_pps_per_cpu", True, 3.0),
    ("udp64", "ktgen", "iperf3", "rx_pps", True, None),
    ("udp64", "ktgen", "pktgen", "tx_pps", True, 0.5),
    ("udp64", "ktgen", "pktgen", "tx_pps_per_cpu", True, None),
    ("udp64-nic", "ktgen-gso", "iperf3", "rx_pps_per_cpu", True, 3.0),
    ("udp64-nic", "ktgen-gro", "iperf3", "rx_pps_per_cpu", True, None),
    ("udp64-nic", "ktgen-gso-gro", "iperf3", "rx_pps_per_cpu", True, None),
    ("udp64-nic", "ktgen", "iperf3", "rx_pps_per_cpu", True, None),
    ("udp64-nic", "ktgen-gro", "iperf3", "rx_pps", True, None),
    ("udp64-nic", "ktgen-gso", "iperf3", "rx_pps", True, None),
    ("udp64-nic", "ktgen-gso", "pktgen", "tx_pps", True, 0.5),
    ("udp64-nic", "ktgen-gso", "pktgen", "tx_pps_per_cpu", True, None),
    ("udp64-nic", "ktgen", "pktgen", "tx_pps", True, None),
    ("udp64-gro", "ktgen-gro", "iperf3", "rx_pps_per_cpu", True, None),
    ("udp64-gro", "ktgen", "iperf3", "rx_pps_per_cpu", True, None),
    ("udp64-lo", "ktgen", "iperf3", "rx_pps_per_cpu", True, None),
    ("udp64-lo", "ktgen", "iperf3", "rx_pps", True, None),
    ("tcp16", "ktgen-cached", "iperf3", "gbps_per_cpu", True, 1.2),
    ("tcp16", "ktgen-zerocopy", "iperf3", "gbps_per_cpu", True, 1.5),
    ("tcp16", "ktgen-cached", "iperf3", "gbps", True, None),
    ("tcp16", "ktgen-cached", "netperf", "gbps_per_cpu", True, None),
    ("tcp1", "ktgen", "netperf", "gbps", True, None),
    ("tcp1", "ktgen", "netperf", "sd_us_per_kb", False, None),
    ("tcp1", "ktgen", "netperf", "own_sd_us_per_kb", False, None),
    ("rr", "ktgen-busy", "netperf", "tps", True, 2.0),
    ("rr", "ktgen-busy", "netperf", "tps_per_cpu", True, None),
    ("rr", "ktgen-busy", "netperf", "p99_us", False, None),
    ("rr", "ktgen", "netperf", "tps", True, None),
    ("rr", "ktgen", "netperf", "tps_per_cpu", True, None),
    ("rr", "ktgen", "netperf", "p99_us", False, None),
    ("rr", "ktgen", "sockperf", "tps", True, None),
]

UNITS = {"rx_pps": "dgram/s", "tx_pps": "pkt/s", "rx_pps_per_cpu": "dgram/s/CPU",
         "tx_pps_per_cpu": "pkt/s/CPU", "gbps": "Gbit/s", "gbps_per_cpu": "Gbit/s/CPU",
         "sd_us_per_kb": "us/KB", "own_sd_us_per_kb": "us/KB, the tool's own",
         "tps": "trans/s", "tps_per_cpu": "trans/s/CPU", "p99_us": "us"}


def cv(v):
    return st.stdev(v) / st.mean(v) if len(v) > 1 and st.mean(v) else 0.0


def fmt(x):
    return "%.3g" % x if abs(x) < 1000 else "%.0f" % x


def main():
    src, outdir, setup, commit = sys.argv[1:5]
    samples = [json.loads(line) for line in open(src) if line.strip()]
    by = {}
    for s in samples:
        s["metrics"] = metrics(s)
        by.setdefault((s["workload"], s["tool"]), {})[s["pair"]] = s["metrics"]

    comps = []
    for w, mine, anchor, m, higher, target in COMPARISONS:
        a, b = by.get((w, mine), {}), by.get((w, anchor), {})
        pairs = sorted(p for p in set(a) & set(b) if m in a[p] and m in b[p])
        ratios = [a[p][m] / b[p][m] for p in pairs if b[p][m]]
        if not ratios:
            continue
        med = st.median(ratios)
        comps.append({
            "workload": w, "ktgen": mine, "anchor": anchor, "metric": m,
            "unit": UNITS[m], "higher_is_better": higher, "pairs": len(ratios),
            "ktgen_median": st.median(a[p][m] for p in pairs),
            "anchor_median": st.median(b[p][m] for p in pairs),
            "ratio_median": med, "ratio_min": min(ratios), "ratio_max": max(ratios),
            "ktgen_cv": cv([a[p][m] for p in pairs]),
            "anchor_cv": cv([b[p][m] for p in pairs]),
            "target": target,
            "met": None if target is None else med >= target,
        })

    doc = {"setup": setup, "commit": commit,
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
           "comparisons": comps, "samples": samples}
    with open(outdir + "/results.json", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")

    lines = [
        "# ktgen against iperf3, netperf, sockperf and pktgen",
        "",
        "`make bench` (scripts/bench.sh) at %s, %s: %s, over a veth pair "
        "between namespaces (udp64-nic: over ktgen's virtual NIC pair, a "
        "driver without UDP segmentation offload, so ktgen-gso's batches "
        "reach it as 64-byte frames; -gro: into a sink that takes the "
        "batches the receiving driver's GRO merges; udp64-lo: over "
        "loopback)." % (commit, doc["date"], setup),
        "QEMU/TCG models no caches: these ratios compare instruction path "
        "lengths, not cache behaviour. Per CPU: the rate over the CPUs the "
        "whole guest kept busy in the measured window.",
        "",
        "| workload | metric | ktgen | median | anchor | median | ratio (min-max) | CV ktgen / anchor | target |",
        "|---|---|---|---:|---|---:|---|---|---|",
    ]
    for c in comps:
        tgt = "" if c["target"] is None else "%s %.1fx: %s" % (
            ">=", c["target"], "met" if c["met"] else "not met")
        lines.append("| %s | %s | %s | %s | %s | %s | %.2f (%.2f-%.2f) | %.1f%% / %.1f%% | %s |" % (
            c["workload"], "%s (%s)" % (c["metric"], c["unit"]), c["ktgen"],
            fmt(c["ktgen_median"]), c["anchor"], fmt(c["anchor_median"]),
            c["ratio_median"], c["ratio_min"], c["ratio_max"],
            100 * c["ktgen_cv"], 100 * c["anchor_cv"], tgt))
    lines.append("")
    if plot(comps, outdir + "/results.svg", "%s, %s" % (commit, setup)):
        lines += ["![ratios](results.svg)", ""]
    with open(outdir + "/results.md", "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


def plot(comps, path, title):
    """The ratios as bars with their min-max and targets; False without
    matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    labels = ["%s: %s / %s\n%s" % (c["workload"], c["ktgen"], c["anchor"], c["metric"])
              for c in comps]
    y = range(len(comps))
    med = [c["ratio_median"] for c in comps]
    err = [[c["ratio_median"] - c["ratio_min"] for c in comps],
           [c["ratio_max"] - c["ratio_median"] for c in comps]]
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(comps) + 1.5))
    ax.barh(y, med, xerr=err, color=["tab:green" if c["met"] else "tab:red"
                                     if c["met"] is False else "tab:gray" for c in comps])
    for i, c in enumerate(comps):
        if c["target"] is not None:
            ax.plot([c["target"]] * 2, [i - 0.4, i + 0.4], color="black")
    ax.axvline(1.0, color="black", linestyle=":", linewidth=1)
    ax.set_yticks(list(y))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("ktgen / anchor (median, min-max over the pairs; black: target)")
    ax.set_title(title, fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


if __name__ == "__main__":
    main()
