#!/usr/bin/env python3
"""One shard writer's work at two WAL batch sizes (docs/ray.md, docs/benchmarks/ray.csv rows
with `wal batches` in the note): 8 writes of 38,912 rows (half a 77,824-row Ray Data block,
what one shard gets from one write task) of words-minilm-384's Parquet into a new
collection with the benchmark's schema, in one process without Ray, as `ShardWriter.write`
does them: each call in one WAL batch (`--batch all`, xvec.ray before) or in batches of
`wal_batch_rows` (16 MiB of rows, `--batch bounded`). Figures: the process's user and
system CPU and minor page faults over the writes.

    python docs/benchmarks/sittings/2026-12-07-ray-wal-batches.py --parquet WORK/words.parquet \\
        --work WORK --batch all|bounded [--csv docs/benchmarks/ray.csv --note ...]
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


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--parquet", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--batch", choices=["all", "bounded"], required=True)
    p.add_argument("--csv")
    p.add_argument("--note", default="")
    args = p.parse_args()
    tables = [pa.Table.from_batches([b]) for b in pq.ParquetFile(args.parquet).iter_batches(batch_size=38912)][:8]
    schema = {"name": "words", "fields": [{"name": "emb", "type": "vector_fp32", "dim": 384, "metric": "cosine",
                                           "index": {"type": "hnsw", "m": 16, "ef_construction": 200}}]}
    path = os.path.join(args.work, "wal-batches")
    shutil.rmtree(path, ignore_errors=True)
    c = xvec.create(path, schema)
    load = os.getloadavg()[0]
    r0, t = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    for table in tables:
        n = table.num_rows
        c.insert(table, key="id", batch_size=n if args.batch == "all" else wal_batch_rows(table, n))
    r1, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - t
    rows = sum(t.num_rows for t in tables)
    c.close()
    shutil.rmtree(path, ignore_errors=True)
    figures = {"wall_s": (wall, "s"), "user_s": (r1.ru_utime - r0.ru_utime, "core-s"),
               "system_s": (r1.ru_stime - r0.ru_stime, "core-s"), "minor_faults": (r1.ru_minflt - r0.ru_minflt, "faults")}
    print(args.batch, rows, {k: round(v, 3) for k, (v, _) in figures.items()})
    if args.csv:
        import csv

        with open(args.csv, "a", newline="") as f:
            w = csv.writer(f)
            when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            cmd = f"docs/benchmarks/sittings/2026-12-07-ray-wal-batches.py --parquet {args.parquet} --batch {args.batch}"
            for k, (v, unit) in figures.items():
                w.writerow([when, os.environ.get("XVEC_COMMIT", ""), cmd, "AMD EPYC", 2, f"{load:.2f}",
                            f"{os.getloadavg()[0]:.2f}", "words-minilm-384", rows, 384, 1, "",
                            f"wal_batches_{args.batch}_{k}", f"{v:.4f}", unit, "", args.note])


if __name__ == "__main__":
    main()
