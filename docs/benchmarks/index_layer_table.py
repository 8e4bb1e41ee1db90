#!/usr/bin/env python3
"""Issue 38's before/after table from one sitting's JSON reports.

Reads $W/{kind}-{before|after}-{round}-{a|b}.json (docs/benchmarks/sittings/
2026-12-06-index-layer.sh) and prints, per index kind and search setting, the serial QPS
of the before and after binaries (median and range over every run), the before-vs-before
spread (the range of the before runs, as a share of their median), where the after
median falls, recall on each side, and the build (optimize) time the same way.

A setting passes when the after median lies within the before runs' range (the spread of
a before-vs-before run in the same sitting) and the recall is the same on both sides.
"""
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def load(w):
    runs = defaultdict(list)  # (kind, side) -> [report]
    for p in sorted(Path(w).glob("*-*-*-*.json")):
        kind, side, _round, _tag = p.stem.split("-")
        runs[(kind, side)].append(json.loads(p.read_text()))
    return runs


def setting(s):
    for knob in ("ef", "nprobe"):
        if s.get(knob) is not None:
            return f"{knob}={s[knob]}"
    return "default"


def summary(values):
    m = statistics.median(values)
    return m, min(values), max(values)


def main(w):
    runs = load(w)
    kinds = sorted({k for k, _ in runs}, key=["flat", "hnsw", "vamana", "ivf"].index)
    rows = ["| kind | setting | before QPS median (range), n | after QPS median (range), n | before spread | after vs before | within | recall before / after |",
            "|---|---|---|---|---|---|---|---|"]
    failures = 0
    for kind in kinds:
        before, after = runs[(kind, "before")], runs[(kind, "after")]
        if not before or not after:
            print(f"{kind}: missing runs (before {len(before)}, after {len(after)})", file=sys.stderr)
            failures += 1
            continue
        for i, s in enumerate(before[0]["searches"]):
            bq = [r["searches"][i]["serial"]["qps"] for r in before]
            aq = [r["searches"][i]["serial"]["qps"] for r in after]
            br = sorted({round(r["searches"][i]["serial"]["recall"], 4) for r in before})
            ar = sorted({round(r["searches"][i]["serial"]["recall"], 4) for r in after})
            (bm, blo, bhi), (am, alo, ahi) = summary(bq), summary(aq)
            within = blo <= am <= bhi
            same = br == ar
            failures += (not within) + (not same)
            rows.append(
                f"| {kind} | {setting(s)} | {bm:,.0f} ({blo:,.0f}–{bhi:,.0f}), {len(bq)} | {am:,.0f} ({alo:,.0f}–{ahi:,.0f}), {len(aq)} "
                f"| {100 * (bhi - blo) / bm:.1f}% | {100 * (am / bm - 1):+.1f}% | {'yes' if within else '**no**'} "
                f"| {'/'.join(map(str, br))} / {'/'.join(map(str, ar))}{'' if same else ' **differ**'} |")
        bb = [r["load"]["optimize_duration_sec"] for r in before]
        ab = [r["load"]["optimize_duration_sec"] for r in after]
        (bm, blo, bhi), (am, alo, ahi) = summary(bb), summary(ab)
        within = blo <= am <= bhi
        rows.append(f"| {kind} | build s | {bm:.2f} ({blo:.2f}–{bhi:.2f}) | {am:.2f} ({alo:.2f}–{ahi:.2f}) "
                    f"| {100 * (bhi - blo) / bm:.1f}% | {100 * (am / bm - 1):+.1f}% | {'yes' if within else '**no**'} | |")
    print("\n".join(rows))
    print(f"\n{failures} cell(s) outside the before-vs-before spread or with a different recall")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/xvec-sitting-index-layer")
