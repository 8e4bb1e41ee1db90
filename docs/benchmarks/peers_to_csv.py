#!/usr/bin/env python3
"""Append the runs of a `peers.py --output FILE.json` report to a benchmark CSV.

    python3 docs/benchmarks/peers_to_csv.py PEERS.json docs/benchmarks/flat.csv \
        --command "python3 ../shared/bench/peers.py --peers faiss-flat ..."

One row per peer and ef value, in the columns `xvec bench --csv` writes (see README.md),
following the file's existing header. peers.py measures serial single-threaded queries
only, so the concurrent columns stay empty and `qps` is left blank; `serial_qps`,
`recall`, the latencies and the peak RSS (the child's VmHWM) are filled in. peers.py has
no separate optimize step: its build time goes to `insert_duration` and `load_duration`.
Standard library only.
"""

import argparse
import csv
import json
import os
import sys

COLUMNS = [
    "date", "db", "db_version", "commit", "command", "machine", "cores", "load_start", "load_end",
    "dataset", "rows", "dim", "queries", "metric", "k", "index", "params", "ef",
    "insert_duration", "optimize_duration", "load_duration", "rows_per_second", "qps", "serial_qps",
    "recall", "ndcg", "serial_latency_avg", "serial_latency_p50", "serial_latency_p95",
    "serial_latency_p99", "conc_num_list", "conc_qps_list", "conc_latency_avg_list",
    "conc_latency_p95_list", "conc_latency_p99_list", "peak_rss_mib", "disk_mib", "cpu_user_sec",
    "cpu_sys_sec", "ground_truth", "notes",
]

# peers.py peer name -> (library, index as the library calls it)
LIBRARY = {
    "faiss-flat": ("faiss", "IndexFlatIP"), "faiss-hnsw": ("faiss", "IndexHNSWFlat"),
    "faiss-hnsw-sq8": ("faiss", "IndexHNSWSQ"), "hnswlib": ("hnswlib", "hnsw"),
    "usearch": ("usearch", "hnsw f32"), "usearch-i8": ("usearch", "hnsw i8"),
    "zvec-hnsw": ("zvec", "hnsw"), "zvec-hnsw-int8": ("zvec", "hnsw int8"),
    "zvec-flat": ("zvec", "flat"), "diskann": ("diskannpy", "vamana"),
}


def rows(report, command, commit=""):
    m, ds, params = report["machine"], report["dataset"], report["params"]
    load = lambda l: "" if not l else f"{l[0]:.2f}"  # noqa: E731
    for run in report["runs"]:
        if run.get("status") != "ok":
            continue
        lib, index = LIBRARY.get(run["peer"], (run["peer"], run["peer"]))
        version = (run.get("versions") or {}).get({"faiss": "faiss-cpu"}.get(lib, lib))
        peak = run.get("vm_hwm_kib") or run.get("ru_maxrss_kib")
        build = run.get("build_s")
        cfg = json.dumps(run.get("config") or {}, separators=(",", ":"), sort_keys=True)
        for s in run["results"]:
            yield {
                "date": report.get("started_at", ""), "db": lib, "db_version": version or "",
                "commit": commit, "command": command, "machine": m.get("cpu_model", ""),
                "cores": m.get("nproc", ""), "load_start": load(report.get("loadavg_start")),
                "load_end": load(report.get("loadavg_end")), "dataset": ds["name"], "rows": ds["n"],
                "dim": ds["d"], "queries": ds["nq"], "metric": params["metric"], "k": s["k"],
                "index": index, "params": f"peer={run['peer']} config={cfg} build_threads={params['build_threads']}",
                "ef": "" if s["ef"] is None else s["ef"],
                "insert_duration": "" if build is None else f"{build:.3f}", "optimize_duration": "",
                "load_duration": "" if build is None else f"{build:.3f}",
                "rows_per_second": "" if not build else f"{ds['n'] / build:.0f}",
                "qps": "", "serial_qps": f"{s['qps']:.1f}", "recall": f"{s['recall']:.4f}", "ndcg": "",
                "serial_latency_avg": f"{s['mean_ms']:.3f}", "serial_latency_p50": f"{s['p50_ms']:.3f}",
                "serial_latency_p95": "", "serial_latency_p99": f"{s['p99_ms']:.3f}",
                "conc_num_list": "", "conc_qps_list": "", "conc_latency_avg_list": "",
                "conc_latency_p95_list": "", "conc_latency_p99_list": "",
                "peak_rss_mib": "" if not peak else f"{peak / 1024:.1f}", "disk_mib": "",
                "cpu_user_sec": "", "cpu_sys_sec": "", "ground_truth": "file",
                "notes": "peers.py: serial queries on 1 thread, QPS = queries / sum of latencies; "
                         "peak RSS includes the Python process and its own copy of the data",
            }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report", help="peers.py --output JSON")
    ap.add_argument("csv", help="CSV file to append to (created with the standard header)")
    ap.add_argument("--command", default="", help="the peers.py command line, for the command column")
    ap.add_argument("--commit", default="", help="our commit at the sitting, for the commit column")
    a = ap.parse_args()
    with open(a.report) as f:
        report = json.load(f)
    header = COLUMNS
    if os.path.exists(a.csv) and os.path.getsize(a.csv) > 0:
        with open(a.csv, newline="") as f:
            header = next(csv.reader(f))
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            sys.exit(f"{a.csv}: line 1: the header lacks the columns {', '.join(missing)}")
    new = not os.path.exists(a.csv) or os.path.getsize(a.csv) == 0
    n = 0
    with open(a.csv, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, restval="", lineterminator="\n")
        if new:
            w.writeheader()
        for row in rows(report, a.command, a.commit):
            w.writerow(row)
            n += 1
    print(f"appended {n} rows to {a.csv}", file=sys.stderr)


if __name__ == "__main__":
    main()
