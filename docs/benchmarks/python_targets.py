#!/usr/bin/env python3
"""Issue 37's Python targets beside their measurements, from one sitting's reports
(`sittings/2026-12-06-python.sh` writes them into one directory):

    python3 docs/benchmarks/python_targets.py /tmp/xvec-sitting-python

Reads `xb-fp32-R.json`, `xb-int8-R.json` and `xb-tiny-R.json` (`xvec bench --output`), `py-R.json`
(`bench_py.py --output`) and `peers-R.json` (`peers.py --output`) for every round R.
Each figure is the median over the rounds (per ef for the search figures); a QPS at a
recall bound is the best ef whose median recall reaches it. Prints Markdown: the
targets, then each engine's QPS at recall >= 0.95 and >= 0.98. Standard library only.
"""

import glob
import json
import os
import re
import statistics
import sys

BOUNDS = (0.95, 0.98)


def load(d, stem):
    out = []
    for p in sorted(glob.glob(os.path.join(d, f"{stem}-*.json"))):
        if re.fullmatch(rf"{stem}-\d+\.json", os.path.basename(p)):
            with open(p) as f:
                out.append(json.load(f))
    return out


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def curve_xb(reports):
    """ef -> (median serial QPS, median recall, median best concurrent QPS) of xvec bench."""
    by = {}
    for r in reports:
        for s in r["searches"]:
            conc = {c["concurrency"]: c["qps"] for c in s["concurrent"]}
            by.setdefault(s["ef"], []).append((s["serial"]["qps"], s["serial"]["recall"], conc))
    return {ef: {"qps": median([v[0] for v in vs]), "recall": median([v[1] for v in vs]),
                 "conc": {t: median([v[2].get(t) for v in vs]) for t in sorted({t for v in vs for t in v[2]})}}
            for ef, vs in sorted(by.items())}


def curve_runs(reports, peer):
    """ef -> median serial QPS, recall (and batch QPS by threads) of one peers.py/bench_py run."""
    by = {}
    for r in reports:
        for run in r["runs"]:
            if run["peer"] != peer or run.get("status") != "ok":
                continue
            for s in run["results"]:
                by.setdefault(s["ef"], []).append(s)
    return {ef: {"qps": median([s["qps"] for s in ss]), "recall": median([s["recall"] for s in ss]),
                 "batch": {t: median([b["qps"] for s in ss for b in s.get("batch", []) if b["threads"] == t])
                           for t in sorted({b["threads"] for s in ss for b in s.get("batch", [])})}}
            for ef, ss in sorted(by.items())}


def run_field(reports, peer, get):
    return [get(run) for r in reports for run in r["runs"] if run["peer"] == peer and run.get("status") == "ok"]


def at(curve, bound):
    ok = [(v["qps"], ef) for ef, v in curve.items() if v["recall"] is not None and v["recall"] >= bound]
    return max(ok) if ok else (None, None)


def fmt(x, digits=0):
    return "-" if x is None else f"{x:,.{digits}f}"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    d = sys.argv[1]
    xb = {"fp32": curve_xb(load(d, "xb-fp32")), "int8": curve_xb(load(d, "xb-int8"))}
    py_reports, peer_reports = load(d, "py"), load(d, "peers")
    py = {"fp32": curve_runs(py_reports, "xvec-hnsw"), "int8": curve_runs(py_reports, "xvec-hnsw-int8-refine")}
    rounds = len(py_reports)
    print(f"Rounds: {rounds} (xvec bench {len(load(d, 'xb-fp32'))}, peers {len(peer_reports)}); medians.\n")
    print("| target | measured | met |\n|---|---|---|")

    for v, name in (("fp32", "FP32 HNSW"), ("int8", "INT8 + refine")):
        ratios, extra = [], []
        for ef, p in py[v].items():
            x = xb[v].get(ef)
            if x and x["qps"] and p["qps"]:
                ratios.append((p["qps"] / x["qps"], ef))
                extra.append((1e6 / p["qps"] - 1e6 / x["qps"], ef))
        if ratios:
            lo = min(ratios)
            per = ", ".join(f"ef {ef} {r:.2f}" for r, ef in ratios)
            us, us_ef = max(extra)
            print(f"| {name}: serial QPS through Python >= 0.9 x xvec bench at the same ef | min {lo[0]:.2f} "
                  f"({per}); mean latency difference at most {us:+.1f} µs a query (ef {us_ef}) "
                  f"| {'yes' if lo[0] >= 0.9 else 'no'} |")

    tiny = [r["searches"][0]["serial"]["latency_p50_ms"] * 1e3 for r in load(d, "xb-tiny")]
    ov = [run["overhead"] for r in py_reports for run in r["runs"]
          if run["peer"] == "xvec-overhead" and run.get("status") == "ok"]
    if tiny and ov:
        xb_us, py_us = median(tiny), median([o["pinned"]["p50_us"] for o in ov])
        fol_us = median([o["follow"]["p50_us"] for o in ov])
        print(f"| the binding adds <= 2 µs a query (p50 of one query on a 16-row collection) | "
              f"{py_us:.2f} µs through Python, {xb_us:.2f} µs through xvec bench: {py_us - xb_us:+.2f} µs "
              f"(a following handle: {fol_us:.2f} µs, {fol_us - py_us:+.2f} µs more) | "
              f"{'yes' if py_us - xb_us <= 2 else 'no'} |")

    pairs = (("fp32", "hnswlib"), ("int8", "zvec-hnsw-int8"), ("fp32", "zvec-hnsw-int8"), ("int8", "hnswlib"))
    for v, peer in pairs:
        pc = curve_runs(peer_reports, peer)
        if not pc:
            continue
        for b in BOUNDS:
            pq, _ = at(pc, b)
            yq, yef = at(py[v], b)
            xq, xef = at(xb[v], b)
            if None in (pq, yq, xq):
                continue
            rp, rx = yq / pq, xq / pq
            dev = rp / rx - 1
            print(f"| {v} vs {peer} at recall >= {b}: ratio through Python within 10% of xvec bench's | "
                  f"Python {rp:.2f}x (ef {yef}), xvec bench {rx:.2f}x (ef {xef}): {dev:+.1%} | "
                  f"{'yes' if abs(dev) <= 0.10 else 'no'} |")

    for v, name in (("fp32", "FP32"), ("int8", "INT8 + refine")):
        rows = [(p["batch"].get(2) / p["qps"], p["batch"].get(2) / p["batch"][1] if p["batch"].get(1) else None, ef)
                for ef, p in py[v].items() if p["batch"].get(2) and p["qps"]]
        if rows:
            lo = min(rows)
            per = ", ".join(f"ef {ef} {a:.2f}" for a, _, ef in rows)
            vs1 = ", ".join(f"{b:.2f}" for _, b, _ in rows if b)
            print(f"| {name}: query_batch on 2 threads >= 1.8 x serial | min {lo[0]:.2f} ({per}); against "
                  f"query_batch on 1 thread: {vs1} | {'yes' if lo[0] >= 1.8 else 'no'} |")

    imp = median(run_field(py_reports, "xvec-import", lambda r: r["insert_rows_per_s"]))
    for peer, name in (("xvec-hnsw", "FP32"), ("xvec-hnsw-int8-refine", "INT8")):
        ins = median(run_field(py_reports, peer, lambda r: r["insert_rows_per_s"]))
        if ins and imp:
            print(f"| insert of the array through Python ({name} collection) >= 0.9 x xvec import | "
                  f"{fmt(ins)} against {fmt(imp)} rows/s = {ins / imp:.2f} | {'yes' if ins / imp >= 0.9 else 'no'} |")

    for peer, name in (("xvec-hnsw", "FP32"), ("xvec-hnsw-int8-refine", "INT8 + refine")):
        def margin(r):
            bd = r.get("build_detail") or {}
            engine = max(bd.get("engine_after_insert_mib", 0), bd.get("engine_after_optimize_mib", 0),
                         r.get("engine_search_mib", 0))
            return (r["vm_hwm_kib"] / 1024, engine, bd.get("input_mib", 0))
        ms = run_field(py_reports, peer, margin)
        if ms:
            peak, engine, inp = (max(m[i] for m in ms) for i in range(3))
            worst = max(m[0] - m[1] - m[2] for m in ms)
            print(f"| {name}: peak RSS <= engine accounting + numpy input + 60 MiB | peak {peak:.0f} MiB, "
                  f"engine {engine:.0f}, input {inp:.0f}: margin {worst:+.0f} MiB (worst round) | "
                  f"{'yes' if worst <= 60 else 'no'} |")

    print("\n| engine | QPS @ recall >= 0.95 (ef) | QPS @ >= 0.98 (ef) | build s |\n|---|---:|---:|---:|")
    rows = [("xvec bench FP32", xb["fp32"], median([r["load"]["load_duration_sec"] for r in load(d, "xb-fp32")])),
            ("xvec bench INT8 + refine", xb["int8"],
             median([r["load"]["load_duration_sec"] for r in load(d, "xb-int8")])),
            ("xvec (Python) FP32", py["fp32"], median(run_field(py_reports, "xvec-hnsw", lambda r: r["build_s"]))),
            ("xvec (Python) INT8 + refine", py["int8"],
             median(run_field(py_reports, "xvec-hnsw-int8-refine", lambda r: r["build_s"])))]
    peers = sorted({run["peer"] for r in peer_reports for run in r["runs"]}, key=lambda p: p)
    for p in peers:
        rows.append((p, curve_runs(peer_reports, p), median(run_field(peer_reports, p, lambda r: r["build_s"]))))
    for name, curve, build in rows:
        cells = []
        for b in BOUNDS:
            q, ef = at(curve, b)
            cells.append("not reached" if q is None else f"{q:,.0f} ({ef})")
        print(f"| {name} | {cells[0]} | {cells[1]} | {fmt(build, 1)} |")


if __name__ == "__main__":
    main()
