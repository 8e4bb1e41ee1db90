#!/usr/bin/env python3
"""Where an ingest's time and CPU go (docs/ray.md, docs/benchmarks/ray.csv rows of
2026-12-07T13:3x-14:xx with `phases` in the note): bench_ray.py --ingest-only's ingest
(ray.init(num_cpus=2) outside the timer; ray.data.read_parquet + xvec.ray.write, 2 shards,
no optimize), with every process's CPU sampled from /proc every 0.1 s and named by its
Ray process title at that moment, and the driver's steps timed by wrapping them.

    python docs/benchmarks/sittings/2026-12-07-ray-ingest-phases.py --parquet WORK/words.parquet \\
        --work WORK [--csv docs/benchmarks/ray.csv --note ...]

Run it with the interpreter of the side measured (the A/B venvs of
2026-12-07-ray-batch.sh). Figures: the wall time of each driver step (read_parquet,
creating the shards, Ray Data's start until a write task runs, the write tasks), the
CPU (core-seconds, user + system) of each kind of process over the ingest, and how many
Python processes started during it.
"""

import argparse
import json
import os
import shutil
import threading
import time
from collections import Counter

HZ = os.sysconf("SC_CLK_TCK")


def sample(out, stop):
    """Appends (time, {pid: (user, system ticks, title)}, busy and total ticks) every 0.1 s."""
    while not stop.is_set():
        procs = {}
        for p in os.listdir("/proc"):
            if not p.isdigit():
                continue
            try:
                f = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
                comm = open(f"/proc/{p}/cmdline", "rb").read().split(b"\0")[0].decode(errors="replace")
                procs[int(p)] = (int(f[11]), int(f[12]), comm)
            except OSError:
                pass
        cpu = [int(x) for x in open("/proc/stat").readline().split()[1:]]
        out.append((time.time(), procs, sum(cpu) - cpu[3] - cpu[4], sum(cpu)))
        time.sleep(0.1)


def kind(title, pid, driver):
    if pid == driver:
        return "driver"
    for prefix, name in (("ray::ShardWriter", "shard writers"), ("ray::ReadFiles", "write tasks (read fused)"),
                         ("ray::ListFiles", "Ray Data listing"), ("ray::FooterRead", "Ray Data listing"),
                         ("ray::_StatsActor", "Ray Data stats and autoscaling actors"),
                         ("ray::_Autoscaling", "Ray Data stats and autoscaling actors")):
        if title.startswith(prefix):
            return name
    if title.startswith("ray::xvec/"):  # a named shard actor: ray::xvec/ID/w0:ShardWriter.__init__
        return "shard writers"
    if title.startswith("ray::IDLE") or title.endswith("python") or "default_worker.py" in title:
        return "Python worker processes starting (idle)"
    return "Ray core and other (raylet, gcs, kernel threads)"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--parquet", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--csv")
    p.add_argument("--note", default="")
    args = p.parse_args()
    import ray

    import xvec.ray
    from xvec.ray import _data

    marks = {}
    create = _data.create

    def timed_create(*a, **k):
        marks["create_start"] = time.time()
        try:
            return create(*a, **k)
        finally:
            marks["created"] = time.time()

    _data.create = timed_create
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    root = os.path.join(args.work, "sharded-phases")
    shutil.rmtree(root, ignore_errors=True)
    samples, stop = [], threading.Event()
    th = threading.Thread(target=sample, args=(samples, stop), daemon=True)
    th.start()
    time.sleep(0.3)
    schema = {"name": "words", "fields": [{"name": "emb", "type": "vector_fp32", "dim": 384, "metric": "cosine",
                                           "index": {"type": "hnsw", "m": 16, "ef_construction": 200}}]}
    load = os.getloadavg()[0]
    t0 = time.time()
    ds = ray.data.read_parquet(args.parquet)
    marks["read_parquet"] = time.time()
    write_datasink = type(ds).write_datasink

    def timed_write(self, *a, **k):
        marks["write_datasink"] = time.time()
        return write_datasink(self, *a, **k)

    type(ds).write_datasink = timed_write
    coll = xvec.ray.write(ds, root, schema, shards=2, key="id", optimize=False)
    t1 = time.time()
    time.sleep(0.2)
    stop.set()
    th.join()
    rows = coll.written.count
    coll.close()
    shutil.rmtree(root, ignore_errors=True)

    me = os.getpid()
    cpu, system, titles = Counter(), Counter(), {}
    known = set(samples[0][1])
    first_task, busy, total = None, 0, 0
    for (ta, a, busy_a, tot_a), (tb, b, busy_b, tot_b) in zip(samples, samples[1:]):
        if tb < t0 or ta > t1:
            continue
        busy, total = busy + busy_b - busy_a, total + tot_b - tot_a
        for pid, (u, s, title) in b.items():
            titles.setdefault(pid, set()).add(title)
            u0, s0, _ = a.get(pid, (0, 0, ""))
            k = kind(title, pid, me)
            cpu[k] += (u + s) - (u0 + s0)
            system[k] += s - s0
            if first_task is None and title.startswith("ray::ReadFiles"):
                first_task = tb
    started = [pid for pid, ts in titles.items() if pid not in known and any("python" in t or t.startswith("ray::") for t in ts)]
    figures = {
        "ingest_s": t1 - t0,
        "rows_per_s": rows / (t1 - t0),
        "read_parquet_s": marks["read_parquet"] - t0,
        "create_s": marks["created"] - marks["create_start"],
        "ray_data_start_s": (first_task or t1) - marks["write_datasink"],
        "write_tasks_s": t1 - (first_task or t1),
        "busy_core_s": busy / HZ,
        "idle_core_s": (total - busy) / HZ,
        "python_processes_started": len(started),
    }
    for k, v in cpu.most_common():
        figures[f"cpu_s[{k}]"] = v / HZ
        figures[f"system_s[{k}]"] = system[k] / HZ
    print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in figures.items()}, indent=1))
    if args.csv:
        import csv

        commit = os.environ.get("XVEC_COMMIT", "")
        with open(args.csv, "a", newline="") as f:
            w = csv.writer(f)
            when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            cmd = "docs/benchmarks/sittings/2026-12-07-ray-ingest-phases.py --parquet " + args.parquet
            for k, v in figures.items():
                if k == "rows_per_s":
                    unit = "rows/s"
                elif k.startswith("python"):
                    unit = "processes"
                else:
                    unit = "core-s" if k.startswith(("cpu", "system", "busy", "idle")) else "s"
                w.writerow([when, commit, cmd, "AMD EPYC", 2, f"{load:.2f}", f"{os.getloadavg()[0]:.2f}",
                            "words-minilm-384", rows, 384, 2, "", f"phases {k}", f"{v:.4f}", unit,
                            ">= 50000" if k == "rows_per_s" else "", args.note])


if __name__ == "__main__":
    main()
