#!/usr/bin/env python3
"""Summarise one sitting of docs/benchmarks/ivf.csv: per configuration, the best QPS at
recall@10 >= each target, from the median over the sitting's passes of each setting.

    python3 docs/benchmarks/ivf_table.py docs/benchmarks/ivf.csv --since 2026-12-04T16:20 \
        [--until ...] [--recall 0.95,0.98]

A configuration is a row's db and index (for xvec: the index type, its codes and the
refine factor searched); its settings are the `ef` cells (nprobe for IVF). Passes of one setting
(xvec's runs of the same command, a peer's --repeat rows) give the median serial QPS and
the mean recall. Prints a markdown table; standard library only.
"""

import argparse
import csv
import json
import re
import statistics
from collections import defaultdict


def config(row):
    """(db, a short label): the index type and codes, and the refine factor searched."""
    params = row["params"]
    index = re.search(r"index=(\{[^}]*\})", params)
    if row["db"] != "xvec" or not index:
        return (row["db"], row["index"])
    spec = json.loads(index.group(1))
    label = spec["type"]
    if spec.get("nlist"):
        label += f" nlist {spec['nlist']}"
    if spec.get("quantize", "none") != "none":
        label += " " + spec["quantize"] + (f"-{spec['bits']}" if "bits" in spec else "")
    refine = re.search(r"\brefine=(\d+)", params)
    label += f" refine {refine.group(1) if refine else spec.get('refine', 0)}"
    return (row["db"], label)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--since", default="")
    ap.add_argument("--until", default="~")
    ap.add_argument("--recall", default="0.95,0.98")
    ap.add_argument("--by-commit", action="store_true", help="keep the rows of each commit apart")
    args = ap.parse_args()
    targets = [float(x) for x in args.recall.split(",")]
    runs = defaultdict(lambda: defaultdict(list))
    build = defaultdict(list)
    rss = defaultdict(list)
    for row in csv.DictReader(open(args.csv)):
        if not (args.since <= row["date"] <= args.until) or not row["serial_qps"]:
            continue
        key = config(row) + ((row["commit"],) if args.by_commit else ())
        runs[key][row["ef"]].append((float(row["serial_qps"]), float(row["recall"])))
        if row["optimize_duration"] or (row["db"] != "xvec" and row["load_duration"]):
            build[key].append(float(row["optimize_duration"] or row["load_duration"]))
        note = re.search(r"query_peak_rss_mib=([\d.]+)", row["notes"])
        if note:
            rss[key].append(float(note.group(1)))
    head = ["db", "index"] + (["commit"] if args.by_commit else []) + ["passes"] + [f"QPS @ >= {t}" for t in targets] + ["build s", "query RSS MiB"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for key in sorted(runs):
        settings = runs[key]
        cells = []
        for t in targets:
            best = None
            for ef, passes in settings.items():
                qps = statistics.median(p[0] for p in passes)
                recall = statistics.mean(p[1] for p in passes)
                if recall >= t and (best is None or qps > best[0]):
                    best = (qps, recall, ef)
            cells.append("—" if best is None else f"{best[0]:,.0f} ({best[2]}: {best[1]:.4f})")
        passes = max(len(p) for p in settings.values())
        b = f"{statistics.median(build[key]):.1f}" if build[key] else ""
        r = f"{min(rss[key]):.1f}" if rss[key] else ""
        print("| " + " | ".join(key) + f" | {passes} | " + " | ".join(cells) + f" | {b} | {r} |")


if __name__ == "__main__":
    main()
