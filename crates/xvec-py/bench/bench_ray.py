#!/usr/bin/env python3
"""xvec.ray against one collection on the same machine (issue 42's benchmark).

    python crates/xvec-py/bench/bench_ray.py --data ~/.cache/xvec-bench/words-minilm-384 \\
        --work /tmp/bench-ray --shards 2 --ef 64 --rounds 3

Steps, each timed:
1. Parquet: `xvec create` + `xvec import base.fvecs` + `xvec export --format parquet` (the
   issue's input; made once and kept in --work).
2. One collection: create, insert the Parquet file (Arrow batches), optimize with 2
   threads. Build = all of that.
3. Sharded: `xvec.ray.write(ray.data.read_parquet(...), shards=N, optimize=False)`
   (ingest: rows/s), then `optimize()` of every shard at once. Build = both.
4. Queries (1,000, k=10, --ef): recall@10 of each against the exact ground truth; serial
   `query` latency of each (the sharded one's minus the single one's is the fan-out
   overhead); `query_batch` QPS of each. Query figures are --rounds interleaved rounds
   (single, sharded, single, ...), the median kept.
   Before the rounds, one untimed `query_batch` of every query on each (the reader actors
   start on the first read). Each round also times `local_batch_qps`: the shards opened
   in this process and searched from a thread each (CPUs split as ShardedCollection
   splits them), merged as it merges: the engine's work for the sharded answer with no
   Ray in the way, so `local_ratio` is the ratio the fan-out could reach.
--ingest-only: step 3's ingest alone (a fresh sharded collection, no optimize, no one
collection, no queries), for A/B runs of the ingest. --batch-only: the `query_batch`
rounds of step 4 alone, on collections a previous run built (as --reuse); with
--sharded-only, only the sharded collection's (to profile it). The output's `timed`
holds the CLOCK_MONOTONIC span of the ingest or of the rounds, for `perf record -k
CLOCK_MONOTONIC` and `perf report --time START,END`.
--ef-sweep E1,E2,...: the comparison at equal recall, on a previous run's collections (as
--reuse). Each round, for each per-shard ef E of the sweep: one collection's `query_batch`
at --ef, then the sharded one's with every shard at ef E, then the shards with no Ray
(`local`) at E, then shard 0 alone with every CPU at E (`shard0`, QPS only: what a
half-size shard costs with a machine to itself). Recall@10 against the dataset's ground
truth. The answer is the lowest E whose sharded recall is at least one collection's at
--ef (`equal_recall_ef`) and `equal_recall_ratio`: the median over rounds of the sharded
QPS at that E over one collection's QPS in the same step. `batch_ratio` is the same at E =
--ef (equal per-shard ef), when the sweep holds it.
Output: one JSON object; --csv FILE appends one row per figure (docs/benchmarks/ray.csv).
"""

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np


def fvecs(path):
    raw = np.fromfile(path, dtype=np.int32)
    d = raw[0]
    return raw.reshape(-1, d + 1)[:, 1:].view(np.float32)


def ivecs(path):
    raw = np.fromfile(path, dtype=np.int32)
    d = raw[0]
    return raw.reshape(-1, d + 1)[:, 1:]


def schema(dim, m, efc):
    return {"name": "words", "fields": [{"name": "emb", "type": "vector_fp32", "dim": dim, "metric": "cosine",
                                         "index": {"type": "hnsw", "m": m, "ef_construction": efc}}]}


def parquet(args, dim):
    out = os.path.join(args.work, "words.parquet")
    if os.path.exists(out):
        return out
    coll = os.path.join(args.work, "import")
    shutil.rmtree(coll, ignore_errors=True)
    with open(os.path.join(args.work, "schema.json"), "w") as f:
        flat = schema(dim, args.m, args.efc)
        flat["fields"][0]["index"] = {"type": "flat"}  # the Parquet only needs the rows
        json.dump(flat, f)
    run = lambda *a: subprocess.run([args.xvec, *a], check=True, stdout=subprocess.DEVNULL)  # noqa: E731
    run("create", coll, "--schema", os.path.join(args.work, "schema.json"))
    run("import", coll, os.path.join(args.data, "base.fvecs"))
    run("export", coll, "--format", "parquet", "-o", out)
    shutil.rmtree(coll)
    return out


def recall(keys, gt, k=10):
    hits = 0
    for i, row in enumerate(keys):
        want = set(gt[i, :k].tolist())
        hits += len(want & {int(x) for x in row[:k] if x is not None})
    return hits / (len(keys) * k)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--xvec", default=shutil.which("xvec") or "target/release/xvec")
    p.add_argument("--shards", type=int, default=2)
    p.add_argument("--m", type=int, default=16)
    p.add_argument("--efc", type=int, default=200)
    p.add_argument("--ef", type=int, default=64)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--serial", type=int, default=1000, help="queries timed one by one")
    p.add_argument("--csv", help="append one row per figure (docs/benchmarks/ray.csv's columns)")
    p.add_argument("--reuse", action="store_true", help="query the collections a previous run built (no build figures)")
    p.add_argument("--ingest-only", action="store_true", help="only the sharded ingest (no optimize, no queries)")
    p.add_argument("--batch-only", action="store_true", help="only the query_batch rounds, on a previous run's collections")
    p.add_argument("--sharded-only", action="store_true", help="with --batch-only: only the sharded collection's rounds")
    p.add_argument("--ef-sweep", help="per-shard ef values (comma-separated): the comparison at equal recall")
    p.add_argument("--note", default="", help="the CSV rows' notes (an A/B side, a round)")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)

    import pyarrow.parquet as pq
    import ray

    import xvec
    import xvec.ray

    queries = fvecs(os.path.join(args.data, "queries.fvecs"))
    gt = ivecs(os.path.join(args.data, "gt_cosine_100.ivecs"))
    dim = queries.shape[1]
    out = {"data": args.data, "dim": int(dim), "shards": args.shards, "ef": args.ef, "m": args.m, "efc": args.efc,
           "cpu": platform.processor() or platform.machine(), "load_before": os.getloadavg()[0]}

    t = time.perf_counter()
    path = parquet(args, dim)
    out["parquet_s"] = time.perf_counter() - t
    key = "id" if "id" in pq.read_schema(path).names else "_key"

    one_dir = os.path.join(args.work, "one")
    root = os.path.join(args.work, "sharded")
    if args.ingest_only:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        root = os.path.join(args.work, "sharded-ingest")
        shutil.rmtree(root, ignore_errors=True)
        start = time.monotonic()
        t = time.perf_counter()
        ds = ray.data.read_parquet(path)
        coll = xvec.ray.write(ds, root, schema(dim, args.m, args.efc), shards=args.shards, key=key, optimize=False)
        out["sharded_ingest_s"] = time.perf_counter() - t
        out["timed"] = [start, time.monotonic()]
        out["rows"] = coll.written.count
        out["sharded_ingest_rows_per_s"] = coll.written.count / out["sharded_ingest_s"]
        assert not coll.written.failed
        # Which xvec the workers ran (an A/B run must not mix two builds).
        out["worker_xvec"] = ray.get(ray.remote(lambda: __import__("xvec").__file__).remote())
        coll.close()
        shutil.rmtree(root, ignore_errors=True)
        return finish(args, out)
    if args.reuse or args.batch_only or args.ef_sweep:
        one = xvec.open(one_dir, read_only=True, follow=False)
        out["rows"] = len(one)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        coll = xvec.ray.open(root)
    else:
        shutil.rmtree(one_dir, ignore_errors=True)
        t = time.perf_counter()
        one = xvec.create(one_dir, schema(dim, args.m, args.efc))
        rows = 0
        for batch in pq.ParquetFile(path).iter_batches(batch_size=10_000):
            rows += one.insert(batch, key=key).count
        out["one_insert_s"] = time.perf_counter() - t
        one.optimize(threads=2)
        out["one_build_s"] = time.perf_counter() - t
        out["rows"] = rows

        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        shutil.rmtree(root, ignore_errors=True)
        t = time.perf_counter()
        ds = ray.data.read_parquet(path)
        coll = xvec.ray.write(ds, root, schema(dim, args.m, args.efc), shards=args.shards, key=key, optimize=False)
        out["sharded_ingest_s"] = time.perf_counter() - t
        out["sharded_ingest_rows_per_s"] = coll.written.count / out["sharded_ingest_s"]
        coll.optimize()
        out["sharded_build_s"] = time.perf_counter() - t
        out["build_ratio"] = out["sharded_build_s"] / out["one_build_s"]
        assert coll.written.count == rows and not coll.written.failed

    local = LocalShards(coll.root)
    if args.ef_sweep:
        sweep(args, out, queries, gt, one, coll, local)
        local.close()
        coll.close()
        one.close()
        return finish(args, out)
    serial = queries[: args.serial]
    sides = (("sharded", coll),) if args.sharded_only else (("one", one), ("sharded", coll), ("local", local))
    rounds = {f"{name}_batch_qps": [] for name, _ in sides}
    if not args.batch_only:
        rounds.update(one_serial_us=[], sharded_serial_us=[])
    for _, c in sides:
        c.query_batch(queries, k=10, ef=args.ef)
    out["timed"] = [time.monotonic()]
    for _ in range(args.rounds):
        for name, c in sides:
            if not args.batch_only and name != "local":
                t = time.perf_counter()
                for q in serial:
                    c.query(q, k=10, ef=args.ef, fields=[]).keys
                rounds[f"{name}_serial_us"].append((time.perf_counter() - t) / len(serial) * 1e6)
            t = time.perf_counter()
            keys, _ = c.query_batch(queries, k=10, ef=args.ef)
            rounds[f"{name}_batch_qps"].append(len(queries) / (time.perf_counter() - t))
            out[f"{name}_recall"] = recall(keys, gt)
    out["timed"].append(time.monotonic())
    for k, v in rounds.items():
        out[k] = statistics.median(v)
        out[k + "_rounds"] = v
    if not args.batch_only:
        out["fanout_overhead_us"] = out["sharded_serial_us"] - out["one_serial_us"]
    if not args.sharded_only:
        out["batch_ratio"] = out["sharded_batch_qps"] / out["one_batch_qps"]
        out["local_ratio"] = out["local_batch_qps"] / out["one_batch_qps"]
    local.close()
    coll.close()
    one.close()
    finish(args, out)


def sweep(args, out, queries, gt, one, coll, local):
    """--ef-sweep: one collection at --ef against the shards at each per-shard ef, the
    rounds interleaved step by step (see the module's doc)."""
    efs = [int(e) for e in args.ef_sweep.split(",")]
    shard0 = LocalShards(coll.root, only=0)
    sides = (("sharded", coll), ("local", local), ("shard0", shard0))
    qps = {e: {name: [] for name in ("one", "sharded", "local", "shard0")} for e in efs}
    recalls = {e: {} for e in efs}
    one.query_batch(queries, k=10, ef=args.ef)
    for e in efs:
        for _, c in sides:
            c.query_batch(queries, k=10, ef=e)
    out["timed"] = [time.monotonic()]
    for _ in range(args.rounds):
        for e in efs:
            for name, c, ef in (("one", one, args.ef),) + tuple((n, c, e) for n, c in sides):
                t = time.perf_counter()
                keys, _ = c.query_batch(queries, k=10, ef=ef)
                qps[e][name].append(len(queries) / (time.perf_counter() - t))
                if name != "shard0":
                    # The searches are deterministic: a recall that moves between rounds is a bug.
                    r = recall(keys, gt)
                    assert recalls[e].setdefault(name, r) == r, (e, name, recalls[e][name], r)
    out["timed"].append(time.monotonic())
    shard0.close()
    out["one_recall"] = recalls[efs[0]]["one"]
    out["one_batch_qps_rounds"] = [q for e in efs for q in qps[e]["one"]]
    out["one_batch_qps"] = statistics.median(out["one_batch_qps_rounds"])
    out["per_ef"] = {}
    for e in efs:
        row = {"sharded_recall": recalls[e]["sharded"], "local_recall": recalls[e]["local"]}
        for name, rounds in qps[e].items():
            row[f"{name}_batch_qps"] = statistics.median(rounds)
            row[f"{name}_batch_qps_rounds"] = rounds
            if name != "one":
                ratios = [s / o for s, o in zip(rounds, qps[e]["one"])]
                row[f"{name}_ratio"] = statistics.median(ratios)
                row[f"{name}_ratio_rounds"] = ratios
        out["per_ef"][e] = row
    if args.ef in out["per_ef"]:
        out["batch_ratio"] = out["per_ef"][args.ef]["sharded_ratio"]
        out["batch_ratio_rounds"] = out["per_ef"][args.ef]["sharded_ratio_rounds"]
    equal = [e for e in efs if recalls[e]["sharded"] >= out["one_recall"]]
    if equal:
        e = min(equal)
        out["equal_recall_ef"] = e
        out["equal_recall_ratio"] = out["per_ef"][e]["sharded_ratio"]
        out["equal_recall_ratio_rounds"] = out["per_ef"][e]["sharded_ratio_rounds"]


class LocalShards:
    """The shards of a sharded collection (or only shard `only`) opened read-only in this
    process, each searched from its own thread with this machine's CPUs split among them,
    the answers merged by `xvec.ray`'s merge: a sharded `query_batch` without Ray's round
    trips."""

    def __init__(self, root, only=None):
        from concurrent.futures import ThreadPoolExecutor

        import xvec

        picked = range(len(root.shards)) if only is None else [only]
        self.shards = [xvec.open(root.shard_dir(i), read_only=True, follow=False) for i in picked]
        self.threads = max(1, len(os.sched_getaffinity(0)) // len(self.shards))
        self.pool = ThreadPoolExecutor(len(self.shards))

    def query_batch(self, vectors, k, ef):
        from xvec.ray._merge import merge_batch

        parts = list(self.pool.map(lambda c: c.query_batch(vectors, k=k, ef=ef, threads=self.threads), self.shards))
        return merge_batch(parts, k, True)

    def close(self):
        self.pool.shutdown()
        for c in self.shards:
            c.close()


def finish(args, out):
    out["load_after"] = os.getloadavg()[0]
    json.dump(out, sys.stdout, indent=1)
    print()
    if args.csv:
        write_csv(args, out)


#: (figure, unit, the issue's target) for each CSV row.
FIGURES = [
    ("one_build_s", "s", ""),
    ("sharded_build_s", "s", ""),
    ("build_ratio", "x", "<= 1.15"),
    ("sharded_ingest_rows_per_s", "rows/s", ">= 50000"),
    ("one_recall", "recall@10", ""),
    ("sharded_recall", "recall@10", "one_recall +- 0.002"),
    ("one_serial_us", "us/query", ""),
    ("sharded_serial_us", "us/query", ""),
    ("fanout_overhead_us", "us/query", "stated"),
    ("one_batch_qps", "qps", ""),
    ("sharded_batch_qps", "qps", ""),
    ("batch_ratio", "x", ">= 0.7"),
    ("local_batch_qps", "qps", ""),
    ("local_ratio", "x", ""),
    ("equal_recall_ef", "ef", ""),
    ("equal_recall_ratio", "x", ">= 0.7"),
]
#: The same for each per-shard ef of --ef-sweep (the row's ef column: that ef).
SWEEP_FIGURES = [
    ("sharded_recall", "recall@10", ""),
    ("sharded_batch_qps", "qps", ""),
    ("sharded_ratio", "x", ""),
    ("local_batch_qps", "qps", ""),
    ("local_ratio", "x", ""),
    ("shard0_batch_qps", "qps", ""),
    ("shard0_ratio", "x", ""),
]


def write_csv(args, out):
    import csv
    import datetime

    commit = os.environ.get("XVEC_COMMIT") or subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    machine = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
    new = not os.path.exists(args.csv)
    with open(args.csv, "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(["date", "commit", "command", "machine", "cores", "load_start", "load_end", "dataset", "rows",
                        "dim", "shards", "ef", "figure", "value", "unit", "target", "notes"])
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

        def rows(table, figures, ef, note):
            for name, unit, target in table:
                if name not in figures:
                    continue
                rounds = figures.get(name + "_rounds")
                shown = "rounds=" + ";".join(f"{r:.1f}" if abs(r) >= 100 else f"{r:.4f}" for r in rounds) if rounds else ""
                w.writerow([date, commit, " ".join(sys.argv), machine, os.cpu_count(), f"{out['load_before']:.2f}",
                            f"{out['load_after']:.2f}", os.path.basename(args.data.rstrip("/")), out["rows"], out["dim"],
                            args.shards, ef, name, f"{figures[name]:.4f}", unit, target,
                            "; ".join(x for x in (args.note, note, shown) if x)])

        rows(FIGURES, out, "" if args.ingest_only else args.ef, "")
        for e, figures in out.get("per_ef", {}).items():
            rows(SWEEP_FIGURES, figures, e, f"ef sweep: every shard at ef {e}, one collection at ef {args.ef}")


if __name__ == "__main__":
    main()
