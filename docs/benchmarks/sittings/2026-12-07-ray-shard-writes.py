#!/usr/bin/env python3
"""One shard writer's writes without Ray (docs/ray.md, docs/benchmarks/ray.csv rows with
`shard_writes` figures): 8 blocks of 77,824 rows (Ray Data's blocks of the benchmark's
Parquet), each routed as xvec.ray routes it, and shard 0's rows of each written as
`ShardWriter.write` writes them: the whole table with the positions of the shard's rows,
in WAL batches of `wal_batch_rows` (16 MiB), each synced (the default policy). 311,296
rows. Figures: wall time, the process's user and system CPU and minor page faults over
the writes. Also what `perf record -k CLOCK_MONOTONIC` needs: the span of the writes.

    python docs/benchmarks/sittings/2026-12-07-ray-shard-writes.py --parquet WORK/words.parquet \\
        --work WORK [--csv docs/benchmarks/ray.csv --note ...]
"""

import argparse
import os
import resource
import shutil
import time

import pyarrow as pa
import pyarrow.parquet as pq

import xvec
from xvec.ray._actors import wal_batch_rows
from xvec.ray._root import route


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--parquet", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--csv")
    p.add_argument("--note", default="")
    args = p.parse_args()
    tables = []
    for b in pq.ParquetFile(args.parquet).iter_batches(batch_size=77824):
        tables.append(pa.Table.from_batches([b]))
        if len(tables) == 8:
            break
    schema = {"name": "words", "fields": [{"name": "emb", "type": "vector_fp32", "dim": 384, "metric": "cosine",
                                           "index": {"type": "hnsw", "m": 16, "ef_construction": 200}}]}
    path = os.path.join(args.work, "shard-writes")
    shutil.rmtree(path, ignore_errors=True)
    c = xvec.create(path, schema)
    routed = []
    for t in tables:
        order, bounds = route(t, "id", 2)
        routed.append((t, order[bounds[0] : bounds[1]]))
    load = os.getloadavg()[0]
    span = time.monotonic()
    r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    rows = 0
    for t, pos in routed:
        rows += c.insert(t, key="id", rows=pos, batch_size=wal_batch_rows(t, len(pos))).count
    r1, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - t0
    print(f"timed {span:.6f},{time.monotonic():.6f}")
    c.close()
    shutil.rmtree(path, ignore_errors=True)
    figures = {"wall_s": (wall, "s"), "user_s": (r1.ru_utime - r0.ru_utime, "core-s"),
               "system_s": (r1.ru_stime - r0.ru_stime, "core-s"), "minor_faults": (r1.ru_minflt - r0.ru_minflt, "faults")}
    print(rows, {k: round(v, 3) for k, (v, _) in figures.items()})
    if args.csv:
        import csv

        with open(args.csv, "a", newline="") as f:
            w = csv.writer(f)
            when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            cmd = f"docs/benchmarks/sittings/2026-12-07-ray-shard-writes.py --parquet {args.parquet}"
            for k, (v, unit) in figures.items():
                w.writerow([when, os.environ.get("XVEC_COMMIT", ""), cmd, "AMD EPYC", 2, f"{load:.2f}",
                            f"{os.getloadavg()[0]:.2f}", "words-minilm-384", rows, 384, 1, "",
                            f"shard_writes_{k}", f"{v:.4f}", unit, "", args.note])


if __name__ == "__main__":
    main()
