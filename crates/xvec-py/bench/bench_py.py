#!/usr/bin/env python3
"""xvec through its Python package, measured the way ../shared/bench/peers.py measures
its peers, so the rows sit beside hnswlib's, zvec's, LanceDB's and Chroma's.

The method is peers.py's, copied (not imported; see its docstring and README): each
variant runs in its own child process, which loads the same base, queries and ground
truth (TEXMEX files, chunked reads), builds (timed, --threads), then per --ef runs
--warmup untimed queries and --repeat serial passes of one `query` call per query on one
thread (per-query perf_counter latencies; QPS = queries / sum of latencies, the fastest
pass kept), with recall@k = |result ∩ gt[:k]| / k and the tie-aware recall. Peak RSS is
the child's VmHWM, reset after the build for the search phase's own peak.

Added for the package (issue 37's targets):
- build = create + insert of the whole (n, d) float32 array as one dict of columns
  (read in place), `batch_size` rows per WAL batch with one fsync each (the default
  sync policy, as `xvec import --batch-size 1000`), + optimize(threads) + close and
  reopen read-only with follow=False (as `xvec bench`, which queries one pinned snapshot,
  and peers.py's zvec do); insert rows/s is its own figure;
- batch QPS: `query_batch` of all queries at each ef on each --batch-threads count,
  repeated for at least --batch-min-s, QPS = queries answered / wall time;
- memory: VmHWM beside the engine's own accounting (`stats()["memory"]["total"]`) and
  the numpy input (base + queries + ground truth), and the margin peak - engine - input,
  for the whole run and for the search phase;
- `xvec-import`: `xvec create` + `xvec import base.fvecs --batch-size N` of the same
  file through the tool (--xvec), wall time and peak RSS of that process, for the
  insert comparison.

Variants (--variants): xvec-hnsw (FP32 HNSW), xvec-hnsw-int8-refine (HNSW over int8
codes, --refine R re-ranks R*k candidates with the originals), xvec-hnsw-int8 (codes
only, refine 0: zvec-hnsw-int8's setting), xvec-import, and xvec-overhead: the p50 of one
`query` call on a 16-row collection (the first base rows), where the search itself takes
a few µs, so the binding's share shows; `--overhead-files DIR` writes the same rows and
query for `xvec bench --base DIR/base.fvecs --queries DIR/queries.fvecs`, the same query
without Python. Keys are the row numbers as
strings; a query's time includes reading `.keys` of its result, and mapping the keys
back to row numbers is outside it.

The parent needs only the standard library; children run under --python (default: this
interpreter), which must import xvec and numpy. Output: the peers.py table (plus the
batch columns) and a memory and insert table; --output JSON (peers.py's report shape);
--csv FILE appends rows in the columns of `xvec bench --csv` (docs/benchmarks/README.md).

Examples:
  python3 crates/xvec-py/bench/bench_py.py --dataset ~/.cache/xvec-bench/wordnet-minilm-384/sample-5k
  target/bench-venv/bin/python crates/xvec-py/bench/bench_py.py --ef 16,32,64,128 \\
      --variants xvec-hnsw,xvec-hnsw-int8-refine,xvec-import --xvec target/release/xvec \\
      --csv docs/benchmarks/python.csv --output py.json
"""
from __future__ import annotations

import argparse
import csv
import gc
import json
import os
import platform
import resource
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

VARIANTS = {
    "xvec-hnsw": "xvec (Python) HNSW, fp32",
    "xvec-hnsw-int8-refine": "xvec (Python) HNSW over int8 codes + fp32 refine",
    "xvec-hnsw-int8": "xvec (Python) HNSW over int8 codes, no refine",
    "xvec-import": "xvec import (the tool) of base.fvecs, for the insert comparison",
    "xvec-overhead": "the binding's cost a query: a 16-row collection, one query repeated",
}
# Rows of the xvec-overhead collection, and the row it queries: a search this small costs
# a few µs, so the binding's share of a query shows; `xvec bench` on the same rows
# (--overhead-files) is the same query without Python.
OVERHEAD_ROWS, OVERHEAD_ROW = 16, 3
DEFAULT_VARIANTS = ["xvec-hnsw", "xvec-hnsw-int8-refine"]
# The columns of `xvec bench --csv` (crates/xvec-bench/src/export.rs), in order.
COLUMNS = [
    "date", "db", "db_version", "commit", "command", "machine", "cores", "load_start", "load_end",
    "dataset", "rows", "dim", "queries", "metric", "k", "index", "params", "ef",
    "insert_duration", "optimize_duration", "load_duration", "rows_per_second", "qps", "serial_qps",
    "recall", "ndcg", "serial_latency_avg", "serial_latency_p50", "serial_latency_p95",
    "serial_latency_p99", "conc_num_list", "conc_qps_list", "conc_latency_avg_list",
    "conc_latency_p95_list", "conc_latency_p99_list", "peak_rss_mib", "disk_mib", "cpu_user_sec",
    "cpu_sys_sec", "ground_truth", "notes",
]
MIB = 1 << 20


def log(msg):
    print(f"bench_py: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- data (as peers.py)

def read_vecs(path, dtype, limit=None):
    """An fvecs/ivecs file as a C-contiguous (n, d) array, read in 16 MiB chunks so the
    peak is about 1x the result."""
    import numpy as np
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        d = int(np.fromfile(f, dtype=np.int32, count=1)[0])
        row = 4 * (d + 1)
        if size % row:
            raise ValueError(f"{path}: size {size} is not a multiple of {row}")
        n = size // row if limit is None else min(limit, size // row)
        out = np.empty((n, d), dtype=dtype)
        f.seek(0)
        step = max(1, (16 << 20) // row)
        for i in range(0, n, step):
            m = min(step, n - i)
            raw = np.fromfile(f, dtype=np.int32, count=m * (d + 1)).reshape(m, d + 1)
            if (raw[:, 0] != d).any():
                raise ValueError(f"{path}: inconsistent row dimension near row {i}")
            out[i:i + m] = raw[:, 1:].view(dtype)
    return out


def vecs_shape(path):
    with open(path, "rb") as f:
        d = int.from_bytes(f.read(4), "little", signed=True)
    return os.path.getsize(path) // (4 * (d + 1)), d


def rss_kib(field="VmRSS"):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def reset_peak_rss():
    """VmHWM back to the current RSS ("5" to clear_refs, Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def loadavg():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def machine_info():
    info = {"kernel": platform.release(), "python": platform.python_version(), "nproc": os.cpu_count()}
    try:
        out = subprocess.run(["lscpu"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                info["cpu_model"] = line.split(":", 1)[1].strip()
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    info["mem_total_mib"] = int(line.split()[1]) // 1024
    except OSError:
        pass
    return info


def commit():
    """`$XVEC_COMMIT`, else git's HEAD here (12 hex digits, `-dirty` when tracked files
    differ), as `xvec bench` writes it."""
    if os.environ.get("XVEC_COMMIT", "").strip():
        return os.environ["XVEC_COMMIT"].strip()

    def git(*args):
        r = subprocess.run(["git", *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        return r.stdout.strip() if r.returncode == 0 else None
    try:
        head = git("rev-parse", "--short=12", "HEAD")
        if not head:
            return ""
        return head + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")
    except OSError:
        return ""


def dir_bytes(path):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(path) for f in fs)


# ====================================================================== child

def schema_for(name, o, dim):
    index = {"type": "hnsw", "m": o["m"], "ef_construction": o["ef_construction"]}
    if "int8" in name:
        index.update(quantize="int8", refine=refine_of(name, o))
    metric = "cosine" if o["metric"] == "cosine" else "ip"
    return {"name": "bench", "fields": [
        {"name": "emb", "type": "vector_fp32", "dim": dim, "metric": metric, "index": index}]}


def refine_of(name, o):
    return o["refine"] if name.endswith("-refine") else 0 if "int8" in name else None


def engine_mib(c):
    return c.stats()["memory"]["total"] / MIB


def child_main(spec):
    import numpy as np
    fd = os.fdopen(spec["fd"], "w", buffering=1)

    def emit(rec):
        fd.write(json.dumps(rec) + "\n")
        fd.flush()

    name, o = spec["variant"], spec
    hwm_build = None
    try:
        import xvec
        emit({"type": "start", "pid": os.getpid(), "python": platform.python_version(),
              "versions": {"xvec": xvec.__version__, "numpy": np.__version__}, "loadavg": loadavg()})
        if name == "xvec-overhead":
            emit(overhead(xvec, o))
            emit({"type": "done", "vm_hwm_kib": rss_kib("VmHWM"), "loadavg": loadavg()})
            fd.close()
            os._exit(0)
        rss0 = rss_kib()
        x = read_vecs(o["base"], np.float32)
        q = read_vecs(o["queries"], np.float32, limit=o["max_queries"])
        gt = read_vecs(o["gt"], np.int32, limit=o["max_queries"])
        k = o["k"]
        gt = np.ascontiguousarray(gt[:, :k])
        input_mib = (x.nbytes + q.nbytes + gt.nbytes) / MIB
        rss1 = rss_kib()
        path = os.path.join(o["workdir"], "collection")
        keys = [str(i) for i in range(x.shape[0])]
        detail = {"insert_batch": o["batch_size"], "input_mib": round(input_mib, 1)}

        t = time.perf_counter()
        c = xvec.create(path, schema_for(name, o, x.shape[1]))
        detail["create_s"] = time.perf_counter() - t
        t = time.perf_counter()
        r = c.insert({"_key": keys, "emb": x}, batch_size=o["batch_size"])
        detail["insert_s"] = time.perf_counter() - t
        if r.failed or r.count != x.shape[0]:
            raise RuntimeError(f"insert wrote {r.count} of {x.shape[0]} rows: {r.failed[:3]}")
        del keys, r
        detail["engine_after_insert_mib"] = round(engine_mib(c), 1)
        detail["rss_after_insert_mib"] = round(rss_kib() / 1024, 1)
        t = time.perf_counter()
        report = c.optimize(threads=o["threads"])
        detail["optimize_s"] = time.perf_counter() - t
        detail["optimize"] = report
        detail["engine_after_optimize_mib"] = round(engine_mib(c), 1)
        t = time.perf_counter()
        c.close()
        # follow=False: the queries read one state, as `xvec bench`'s pinned snapshot does
        # (following the writer costs two stat calls a query, which xvec bench never pays).
        c = xvec.open(path, read_only=True, follow=False)
        detail["close_reopen_s"] = time.perf_counter() - t
        build_s = detail["create_s"] + detail["insert_s"] + detail["optimize_s"] + detail["close_reopen_s"]
        detail["disk_bytes"] = dir_bytes(path)
        detail["index"] = c.describe()["vector_indexes"]["emb"]
        gc.collect()
        rss2 = rss_kib()
        emit({"type": "build", "build_s": build_s, "build_detail": detail,
              "config": {"index": schema_for(name, o, x.shape[1])["fields"][0]["index"],
                         "refine": refine_of(name, o), "insert_batch": o["batch_size"],
                         "short": f"M={o['m']} efc={o['ef_construction']}"
                         + (f" int8 rf={refine_of(name, o)}" if "int8" in name else "")},
              "n": int(x.shape[0]), "d": int(x.shape[1]), "nq": int(q.shape[0]),
              "rss_before_load_kib": rss0, "rss_after_load_kib": rss1, "rss_after_build_kib": rss2,
              "rss_build_minus_before_load_mib": round((rss2 - rss0) / 1024, 1),
              "rss_build_minus_after_load_mib": round((rss2 - rss1) / 1024, 1),
              "insert_rows_per_s": x.shape[0] / detail["insert_s"]})

        hwm_build = rss_kib("VmHWM")
        hwm_reset = reset_peak_rss()
        qn = np.linalg.norm(q, axis=1)
        refine = refine_of(name, o)
        nq = q.shape[0]
        for ef in o["efs"]:
            knobs = {"ef": ef} if refine is None else {"ef": ef, "refine": refine}
            query = c.query
            for i in range(min(o["warmup"], nq)):
                query(q[i], k=k, fields=[], **knobs).keys
            best = None
            for _ in range(o["repeat"]):
                lat = np.empty(nq)
                res = [None] * nq
                pc = time.perf_counter
                for i in range(nq):
                    qi = q[i]
                    t0 = pc()
                    got = query(qi, k=k, fields=[], **knobs).keys
                    t1 = pc()
                    lat[i] = t1 - t0
                    res[i] = got
                if best is None or lat.sum() < best[0].sum():
                    best = (lat, res)
            lat, res = best
            ids = np.full((nq, k), -1, dtype=np.int64)
            for i, got in enumerate(res):
                ids[i, :len(got)] = [int(s) for s in got[:k]]
            recall, tie = recall_of(ids, gt, x, q, qn, k)
            tot = float(lat.sum())
            ms = lat * 1e3
            rec = {"type": "search", "ef": ef, "k": k, "nq": nq, "total_s": tot, "qps": nq / tot,
                   "recall": recall, "recall_tie_aware": tie, "mean_ms": float(ms.mean()),
                   "p50_ms": float(np.percentile(ms, 50)), "p90_ms": float(np.percentile(ms, 90)),
                   "p99_ms": float(np.percentile(ms, 99)), "max_ms": float(ms.max()), "batch": []}
            for threads in o["batch_threads"]:
                rec["batch"].append(batch_pass(c, q, k, knobs, threads, o["batch_min_s"], gt, x, qn))
            emit(rec)
        engine_search = engine_mib(c)
        c.close()
        hwm_search = rss_kib("VmHWM")
        emit({"type": "done", "ru_maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
              "vm_hwm_kib": max(v for v in (hwm_build, hwm_search) if v is not None),
              "vm_hwm_build_kib": hwm_build, "vm_hwm_search_kib": hwm_search if hwm_reset else None,
              "engine_search_mib": round(engine_search, 1), "rss_end_kib": rss_kib(), "loadavg": loadavg()})
    except BaseException as e:  # noqa: BLE001
        emit({"type": "error", "error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc(),
              "vm_hwm_kib": max(v for v in (hwm_build, rss_kib("VmHWM"), 0) if v is not None),
              "ru_maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss})
        fd.close()
        os._exit(1)
    fd.close()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def overhead(xvec, o):
    """p50 and mean of one `query` call (k=10, no fields, `.keys` read) on a collection of
    the first OVERHEAD_ROWS base rows, through a handle with follow=False (what the
    search variants use) and one with follow=True (the default)."""
    import numpy as np
    x = read_vecs(o["base"], np.float32, limit=OVERHEAD_ROWS)
    path = os.path.join(o["workdir"], "collection")
    index = {"type": "hnsw", "m": o["m"], "ef_construction": o["ef_construction"], "seed": 42}
    with xvec.create(path, {"name": "overhead", "fields": [{"name": "emb", "type": "vector_fp32",
                     "dim": int(x.shape[1]), "metric": o["metric"], "index": index}]}) as c:
        c.insert({"_key": [str(i) for i in range(x.shape[0])], "emb": x})
        c.optimize()
    out = {"type": "overhead", "rows": int(x.shape[0]), "k": o["k"], "queries": o["overhead_queries"]}
    q, pc = x[OVERHEAD_ROW], time.perf_counter
    for follow in (False, True):
        with xvec.open(path, read_only=True, follow=follow) as c:
            query = c.query
            for _ in range(500):
                query(q, k=o["k"], fields=[]).keys
            lat = np.empty(o["overhead_queries"])
            for i in range(lat.size):
                t0 = pc()
                query(q, k=o["k"], fields=[]).keys
                lat[i] = pc() - t0
        key = "follow" if follow else "pinned"
        out[key] = {"p50_us": float(np.median(lat)) * 1e6, "mean_us": float(lat.mean()) * 1e6,
                    "p99_us": float(np.percentile(lat, 99)) * 1e6}
    return out


def write_overhead_files(base, out_dir, queries=2000):
    """The xvec-overhead rows as `base.fvecs`, and its query row repeated as
    `queries.fvecs`, for `xvec bench --base ... --queries ...`."""
    import numpy as np
    x = read_vecs(base, np.float32, limit=OVERHEAD_ROWS)
    os.makedirs(out_dir, exist_ok=True)
    for name, a in (("base.fvecs", x), ("queries.fvecs", np.repeat(x[OVERHEAD_ROW:OVERHEAD_ROW + 1], queries, 0))):
        rows = np.empty((a.shape[0], a.shape[1] + 1), dtype=np.int32)
        rows[:, 0] = a.shape[1]
        rows[:, 1:] = a.view(np.int32)
        rows.tofile(os.path.join(out_dir, name))


def recall_of(ids, gt, x, q, qn, k):
    """recall@k and the tie-aware recall (a returned row counts if its cosine reaches the
    k-th ground-truth cosine), as peers.py computes them."""
    import numpy as np
    hits = tie_hits = 0
    for i in range(ids.shape[0]):
        row = ids[i][ids[i] >= 0]
        uniq = np.unique(row)
        hits += np.intersect1d(uniq, gt[i]).size
        xk = x[gt[i, -1:]]
        kth = float((xk @ q[i])[0]) / (np.linalg.norm(xk, axis=1)[0] * qn[i])
        xu = x[uniq]
        sims = (xu @ q[i]) / (np.linalg.norm(xu, axis=1) * qn[i])
        tie_hits += min(k, int((sims >= kth - 1e-5).sum()))
    n = ids.shape[0] * k
    return hits / n, tie_hits / n


def batch_pass(c, q, k, knobs, threads, min_s, gt, x, qn):
    """`query_batch` of every query on `threads` threads: one untimed call, then calls
    until min_s have passed; QPS = queries answered / wall time."""
    import numpy as np
    keys, _ = c.query_batch(q, k=k, threads=threads, **knobs)
    calls, t0 = 0, time.perf_counter()
    while True:
        c.query_batch(q, k=k, threads=threads, **knobs)
        calls += 1
        wall = time.perf_counter() - t0
        if wall >= min_s:
            break
    ids = np.array([[-1 if s is None else int(s) for s in row] for row in keys], dtype=np.int64)
    recall, _ = recall_of(ids, gt, x, q, qn, k)
    return {"threads": threads, "calls": calls, "wall_s": wall, "qps": calls * q.shape[0] / wall,
            "recall": recall}


# ================================================================ xvec import child

def run_import(args, spec, idx, total):
    """`xvec create` + `xvec import base.fvecs` in their own processes: wall time of the
    import, its peak RSS (ru_maxrss of that child: this parent is small) and rows/s."""
    rec = {"peer": "xvec-import", "description": VARIANTS["xvec-import"], "status": "failed", "results": []}
    if not args.xvec or not os.access(args.xvec, os.X_OK):
        rec["error"] = f"no xvec binary (--xvec {args.xvec})"
        log(f"[{idx}/{total}] xvec-import: SKIPPED ({rec['error']})")
        return rec
    wd = os.path.join(args.workdir, f"{idx:02d}-xvec-import")
    os.makedirs(wd, exist_ok=True)
    path = os.path.join(wd, "collection")
    n, d = vecs_shape(spec["base"])
    schema = {"name": "bench", "fields": [{"name": "emb", "type": "vector_fp32", "dim": d,
              "metric": "cosine" if args.metric == "cosine" else "ip",
              "index": {"type": "hnsw", "m": args.m, "ef_construction": args.ef_construction}}]}
    sp = os.path.join(wd, "schema.json")
    with open(sp, "w") as f:
        json.dump(schema, f)
    log(f"[{idx}/{total}] xvec-import: starting ({VARIANTS['xvec-import']})")
    subprocess.run([args.xvec, "create", path, "--schema", sp], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cmd = [args.xvec, "import", path, spec["base"], "--field", "emb", "--batch-size", str(args.batch_size)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read()
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    rc = os.waitstatus_to_exitcode(status)
    version = subprocess.run([args.xvec, "--version"], stdout=subprocess.PIPE, text=True).stdout.split()
    rec.update(exit_code=rc, wall_s=round(wall, 3), versions={"xvec": version[-1] if version else ""}, command=" ".join(shlex.quote(a) for a in cmd),
               output=out.decode(errors="replace")[-2000:], ru_maxrss_kib=ru.ru_maxrss,
               cpu_user_s=ru.ru_utime, cpu_sys_s=ru.ru_stime, n=n, d=d,
               build_detail={"insert_s": wall, "insert_batch": args.batch_size, "disk_bytes": dir_bytes(path)},
               insert_rows_per_s=n / wall, config={"short": f"batch={args.batch_size}"})
    if rc == 0:
        rec["status"] = "ok"
        rec["done"] = True
        log(f"[{idx}/{total}] xvec-import: {n} rows in {wall:.2f}s = {n / wall:.0f} rows/s, "
            f"peak RSS {ru.ru_maxrss / 1024:.0f} MiB")
    else:
        rec["error"] = f"xvec import exited with {rc}"
        log(f"[{idx}/{total}] xvec-import: FAILED: {rec['error']}\n{rec['output']}")
    if not args.keep_workdir:
        shutil.rmtree(path, ignore_errors=True)
    return rec


# ===================================================================== parent

def run_child(variant, args, spec, idx, total):
    """One variant in its own process (peers.py's run_child, without cgroups)."""
    if variant == "xvec-import":
        return run_import(args, spec, idx, total)
    rec = {"peer": variant, "description": VARIANTS[variant], "status": "failed", "results": []}
    wd = os.path.join(args.workdir, f"{idx:02d}-{variant}")
    os.makedirs(wd, exist_ok=True)
    rfd, wfd = os.pipe()
    spec = dict(spec, variant=variant, fd=wfd, workdir=wd)
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    logpath = os.path.join(wd, "child.log")
    logf = open(logpath, "wb")
    log(f"[{idx}/{total}] {variant}: starting ({VARIANTS[variant]})")
    t0 = time.time()
    try:
        proc = subprocess.Popen([args.python, os.path.abspath(__file__), "--child", json.dumps(spec)],
                                pass_fds=(wfd,), cwd=wd, env=env, stdout=logf, stderr=subprocess.STDOUT)
    except BaseException:
        os.close(rfd)
        os.close(wfd)
        logf.close()
        raise
    os.close(wfd)
    sel = selectors.DefaultSelector()
    sel.register(rfd, selectors.EVENT_READ)
    buf, deadline, timed_out = b"", t0 + args.timeout, False
    try:
        while True:
            left = deadline - time.time()
            if left <= 0:
                timed_out = True
                proc.kill()
                break
            if not sel.select(timeout=min(left, 5.0)):
                continue
            chunk = os.read(rfd, 65536)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                absorb(rec, msg, variant, idx, total)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        sel.close()
        os.close(rfd)
    rc = proc.wait()
    logf.close()
    rec["wall_s"] = round(time.time() - t0, 2)
    rec["exit_code"] = rc
    if timed_out:
        rec["error"] = f"timeout after {args.timeout}s"
    elif rc != 0 and "error" not in rec:
        rec["error"] = f"child exited with {rc} ({signal.Signals(-rc).name if rc < 0 else 'error'})"
    if rec.get("done") and rc == 0:
        rec["status"] = "ok"
    if rec["status"] != "ok":
        with open(logpath, "rb") as f:
            rec["log_tail"] = f.read()[-3000:].decode(errors="replace")
        log(f"[{idx}/{total}] {variant}: FAILED: {rec.get('error')}\n{rec.get('traceback', '')}{rec['log_tail']}")
    return rec


def absorb(rec, msg, variant, idx, total):
    typ = msg.pop("type", None)
    if typ == "start":
        rec.update(msg)
    elif typ == "build":
        rec.update(msg)
        d = msg["build_detail"]
        log(f"[{idx}/{total}] {variant}: built in {msg['build_s']:.2f}s (insert {d['insert_s']:.2f}s = "
            f"{msg['insert_rows_per_s']:.0f} rows/s, optimize {d['optimize_s']:.2f}s)")
    elif typ == "search":
        rec["results"].append(msg)
        batch = " ".join(f"batch{b['threads']}t={b['qps']:.0f}" for b in msg["batch"])
        log(f"[{idx}/{total}] {variant}: ef={msg['ef']} recall@{msg['k']}={msg['recall']:.4f} "
            f"QPS={msg['qps']:.0f} p99={msg['p99_ms']:.3f}ms {batch}")
    elif typ == "overhead":
        rec["overhead"] = msg
        log(f"[{idx}/{total}] {variant}: one query on {msg['rows']} rows: p50 {msg['pinned']['p50_us']:.2f} µs "
            f"(follow=False), {msg['follow']['p50_us']:.2f} µs (follow=True)")
    elif typ == "done":
        rec.update(msg)
        rec["done"] = True
    elif typ == "error":
        rec.update(msg)


def peak_kib(r):
    return r.get("vm_hwm_kib") or r.get("ru_maxrss_kib")


def render(hdr, rows):
    w = [max(len(str(x)) for x in col) for col in zip(hdr, *rows)] if rows else [len(h) for h in hdr]
    lines = ["  ".join(str(x).ljust(w[i]) if i < 2 else str(x).rjust(w[i]) for i, x in enumerate(row))
             for row in [hdr] + rows]
    lines.insert(1, "  ".join("-" * x for x in w))
    return "\n".join(lines)


def fmt_table(runs, k, batch_threads):
    """peers.py's table, then one column per --batch-threads count."""
    hdr = ["peer", "config", "build_s", "ef", f"recall@{k}", "QPS", "p50_ms", "p99_ms", "peakRSS_MiB"]
    hdr += [f"batchQPS_{t}t" for t in batch_threads]
    rows = []
    for r in runs:
        if r["peer"] in ("xvec-import", "xvec-overhead"):
            continue
        cfg = (r.get("config") or {}).get("short", "-")
        peak = peak_kib(r)
        peak = f"{peak / 1024:.0f}" if peak else "-"
        bs = f"{r['build_s']:.2f}" if "build_s" in r else "-"
        if not r["results"]:
            rows.append([r["peer"], cfg, bs, "-", "FAILED" if r["status"] != "ok" else "-", "-", "-", "-", peak]
                        + ["-"] * len(batch_threads))
        for s in r["results"]:
            by = {b["threads"]: b["qps"] for b in s.get("batch", [])}
            rows.append([r["peer"], cfg, bs, str(s["ef"]), f"{s['recall']:.4f}", f"{s['qps']:.0f}",
                         f"{s['p50_ms']:.3f}", f"{s['p99_ms']:.3f}", peak]
                        + [f"{by[t]:.0f}" if t in by else "-" for t in batch_threads])
    return render(hdr, rows)


def fmt_memory(runs):
    """Insert rate and memory per run: peak RSS against the engine's accounting plus the
    numpy input (issue 37: peak <= engine + input + 60 MiB)."""
    hdr = ["peer", "insert_rows/s", "insert_s", "peakRSS_MiB", "engine_MiB", "input_MiB", "margin_MiB",
           "searchRSS_MiB", "engine_search_MiB", "search_margin_MiB"]
    rows = []
    for r in runs:
        if r["status"] != "ok" or r["peer"] == "xvec-overhead":
            continue
        d = r.get("build_detail") or {}
        peak = (peak_kib(r) or 0) / 1024
        if r["peer"] == "xvec-import":
            rows.append([r["peer"], f"{r['insert_rows_per_s']:.0f}", f"{d['insert_s']:.2f}", f"{peak:.0f}",
                         "-", "-", "-", "-", "-", "-"])
            continue
        engine = max(d.get("engine_after_insert_mib", 0), d.get("engine_after_optimize_mib", 0),
                     r.get("engine_search_mib", 0))
        inp = d.get("input_mib", 0)
        srss = (r.get("vm_hwm_search_kib") or 0) / 1024
        es = r.get("engine_search_mib", 0)
        rows.append([r["peer"], f"{r['insert_rows_per_s']:.0f}", f"{d['insert_s']:.2f}", f"{peak:.0f}",
                     f"{engine:.0f}", f"{inp:.0f}", f"{peak - engine - inp:+.0f}",
                     f"{srss:.0f}" if srss else "-", f"{es:.0f}",
                     f"{srss - es - inp:+.0f}" if srss else "-"])
    return render(hdr, rows)


def csv_rows(report, command):
    """The runs as rows in `xvec bench --csv`'s columns: one per variant and ef (the
    serial figures; `qps` and the conc_* lists hold query_batch's per thread count), one
    per xvec-import run."""
    m, ds, p = report["machine"], report["dataset"], report["params"]
    load = lambda l: "" if not l else f"{l[0]:.2f}"  # noqa: E731
    base = {"date": report["started_at"], "commit": report["commit"], "command": command,
            "machine": m.get("cpu_model", ""), "cores": m.get("nproc", ""),
            "load_start": load(report.get("loadavg_start")), "load_end": load(report.get("loadavg_end")),
            "dataset": ds["name"], "rows": ds["n"], "dim": ds["d"], "queries": ds["nq"], "metric": p["metric"],
            "k": p["k"], "ground_truth": "file"}
    for r in report["runs"]:
        if r["status"] != "ok":
            continue
        if r["peer"] == "xvec-overhead":
            ov = r["overhead"]
            for key, follow in (("pinned", "false"), ("follow", "true")):
                v = ov[key]
                yield dict(base, db="xvec-py", db_version=(r.get("versions") or {}).get("xvec", ""),
                           rows=ov["rows"], queries=ov["queries"], index="overhead",
                           params=f"variant=xvec-overhead rows={ov['rows']} follow={follow}",
                           serial_qps=f"{1e6 / v['mean_us']:.1f}", serial_latency_avg=f"{v['mean_us'] / 1e3:.4f}",
                           serial_latency_p50=f"{v['p50_us'] / 1e3:.4f}",
                           serial_latency_p99=f"{v['p99_us'] / 1e3:.4f}",
                           notes="one query() on a 16-row HNSW collection, repeated: the binding's share "
                                 "of a query; latencies in ms with 4 decimals")
            continue
        d = r.get("build_detail") or {}
        peak = peak_kib(r)
        common = dict(base, db_version=(r.get("versions") or {}).get("xvec", ""),
                      insert_duration=f"{d['insert_s']:.3f}", rows_per_second=f"{r['insert_rows_per_s']:.0f}",
                      peak_rss_mib="" if not peak else f"{peak / 1024:.1f}",
                      disk_mib=f"{d.get('disk_bytes', 0) / MIB:.1f}")
        if r["peer"] == "xvec-import":
            yield dict(common, db="xvec-cli", index="import", load_duration=f"{d['insert_s']:.3f}",
                       params=f"variant=xvec-import batch={d['insert_batch']} sync=every-batch",
                       cpu_user_sec=f"{r['cpu_user_s']:.2f}", cpu_sys_sec=f"{r['cpu_sys_s']:.2f}",
                       command=r["command"],
                       notes="xvec import of base.fvecs, wall time of the process (its open, file reads "
                             "and WAL fsyncs included); peak RSS = its ru_maxrss")
            continue
        cfg = r.get("config") or {}
        engine = max(d.get("engine_after_insert_mib", 0), d.get("engine_after_optimize_mib", 0),
                     r.get("engine_search_mib", 0))
        srss = (r.get("vm_hwm_search_kib") or 0) / 1024
        notes = (f"engine_mib={engine:.1f} input_mib={d.get('input_mib', 0):.1f} "
                 f"search_peak_rss_mib={srss:.1f} engine_search_mib={r.get('engine_search_mib', 0):.1f} | "
                 "bench_py.py: xvec through the Python package, one child process per variant as "
                 "peers.py; serial = one query() call per query on one thread, QPS = queries / sum of "
                 "latencies; qps and conc_* = query_batch by thread count")
        for s in r["results"]:
            b = s.get("batch", [])
            yield dict(common, db="xvec-py", index="hnsw", ef=s["ef"],
                       params=(f"variant={r['peer']} index={json.dumps(cfg.get('index'), separators=(',', ':'))}"
                               + (f" refine={cfg['refine']}" if cfg.get("refine") is not None else "")
                               + f" batch={d['insert_batch']} build_threads={p['build_threads']}"),
                       optimize_duration=f"{d['optimize_s']:.3f}", load_duration=f"{r['build_s']:.3f}",
                       qps="" if not b else f"{max(x['qps'] for x in b):.1f}",
                       serial_qps=f"{s['qps']:.1f}", recall=f"{s['recall']:.4f}",
                       serial_latency_avg=f"{s['mean_ms']:.3f}", serial_latency_p50=f"{s['p50_ms']:.3f}",
                       serial_latency_p99=f"{s['p99_ms']:.3f}",
                       conc_num_list=";".join(str(x["threads"]) for x in b),
                       conc_qps_list=";".join(f"{x['qps']:.1f}" for x in b), notes=notes)


def append_csv(path, rows):
    header = COLUMNS
    if os.path.exists(path) and os.path.getsize(path) > 0:
        with open(path, newline="") as f:
            header = next(csv.reader(f))
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            sys.exit(f"bench_py: {path}: line 1: the header lacks the columns {', '.join(missing)}")
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    n = 0
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, restval="", lineterminator="\n")
        if new:
            w.writeheader()
        for row in rows:
            w.writerow(row)
            n += 1
    log(f"appended {n} rows to {path}")


def find_gt(dataset, gt_arg):
    if gt_arg:
        return gt_arg
    p = os.path.join(dataset, "gt_cosine_100.ivecs")
    if not os.path.exists(p):
        sys.exit(f"bench_py: no {p}; give --gt")
    return p


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    data = os.environ.get("XVEC_BENCH_DATA") or os.path.join(os.path.expanduser("~"), ".cache", "xvec-bench")
    ap.add_argument("--dataset", default=os.environ.get("XVEC_BENCH_DATASET")
                    or os.path.join(data, "wordnet-minilm-384"),
                    help="dir with base.fvecs, queries.fvecs, gt_cosine_100.ivecs (default: %(default)s)")
    ap.add_argument("--gt", help="ground-truth .ivecs (default: gt_cosine_100.ivecs in --dataset)")
    ap.add_argument("--variants", default=",".join(DEFAULT_VARIANTS),
                    help=f"comma list of {', '.join(VARIANTS)} (default: %(default)s)")
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--ef", default="16,32,64,128,256", help="search ef sweep; values < k are raised to k")
    ap.add_argument("--m", type=int, default=16)
    ap.add_argument("--ef-construction", type=int, default=200)
    ap.add_argument("--refine", type=int, default=2, help="refine factor of xvec-hnsw-int8-refine (default 2)")
    ap.add_argument("--metric", choices=("cosine", "ip"), default="cosine")
    ap.add_argument("--threads", type=int, default=2, help="optimize (build) threads")
    ap.add_argument("--batch-threads", default="1,2", help="query_batch thread counts (default 1,2)")
    ap.add_argument("--batch-min-s", type=float, default=1.0,
                    help="seconds of query_batch calls per ef and thread count (default 1)")
    ap.add_argument("--batch-size", type=int, default=1000, help="rows per insert batch (default 1000)")
    ap.add_argument("--max-queries", type=int, help="use only the first N queries")
    ap.add_argument("--warmup", type=int, default=20, help="untimed queries before each ef (default 20)")
    ap.add_argument("--repeat", type=int, default=1, help="timed serial passes per ef; the fastest is kept")
    ap.add_argument("--python", default=sys.executable, help="interpreter with xvec and numpy (default: this one)")
    ap.add_argument("--xvec", default="target/release/xvec", help="the xvec binary, for xvec-import")
    ap.add_argument("--workdir", help="scratch dir (default: a fresh temp dir, removed afterwards)")
    ap.add_argument("--keep-workdir", action="store_true")
    ap.add_argument("--timeout", type=float, default=7200, help="seconds per variant")
    ap.add_argument("--output", help="write all raw numbers + machine info as JSON here")
    ap.add_argument("--csv", help="append rows in xvec bench's CSV columns to this file")
    ap.add_argument("--command", help="the command column of the CSV rows (default: this command line)")
    ap.add_argument("--overhead-queries", type=int, default=20000,
                    help="timed queries of xvec-overhead per handle (default 20000)")
    ap.add_argument("--overhead-files", metavar="DIR",
                    help="write xvec-overhead's rows and queries as DIR/base.fvecs and DIR/queries.fvecs "
                         "(for xvec bench) and exit")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def _terminate(signum, _frame):
    raise SystemExit(128 + signum)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.child:
        child_main(json.loads(args.child))
        return
    if args.overhead_files:
        write_overhead_files(os.path.join(args.dataset, "base.fvecs"), args.overhead_files)
        return
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    bad = [v for v in variants if v not in VARIANTS]
    if bad:
        sys.exit(f"bench_py: unknown variant(s) {bad}; known: {', '.join(VARIANTS)}")
    base, queries = os.path.join(args.dataset, "base.fvecs"), os.path.join(args.dataset, "queries.fvecs")
    for f in (base, queries):
        if not os.path.exists(f):
            sys.exit(f"bench_py: missing {f}")
    gt = find_gt(args.dataset, args.gt)
    nb, d = vecs_shape(base)
    nq, _ = vecs_shape(queries)
    if args.max_queries:
        nq = min(nq, args.max_queries)
    efs = sorted({max(int(e), args.k) for e in args.ef.split(",") if e.strip()})
    batch_threads = [int(t) for t in args.batch_threads.split(",") if t.strip()]
    own_wd = not args.workdir
    if own_wd:
        args.workdir = tempfile.mkdtemp(prefix="xvec-pybench-")
    os.makedirs(args.workdir, exist_ok=True)
    signal.signal(signal.SIGTERM, _terminate)  # so the JSON is still written
    command = args.command or " ".join(shlex.quote(a) for a in ["bench_py.py"] + (argv or sys.argv[1:]))
    report = {"tool": "bench_py.py", "format": 1, "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "commit": commit(), "machine": machine_info(), "loadavg_start": loadavg(),
              "dataset": {"path": args.dataset, "name": os.path.basename(os.path.normpath(args.dataset)),
                          "n": nb, "d": d, "nq": nq, "gt_file": os.path.basename(gt)},
              "params": {"variants": variants, "k": args.k, "efs": efs, "m": args.m,
                         "ef_construction": args.ef_construction, "refine": args.refine,
                         "metric": args.metric, "build_threads": args.threads, "query_threads": 1,
                         "batch_threads": batch_threads, "batch_min_s": args.batch_min_s,
                         "insert_batch": args.batch_size, "warmup": args.warmup, "repeat": args.repeat},
              "runs": []}
    spec = {"base": os.path.abspath(base), "queries": os.path.abspath(queries), "gt": os.path.abspath(gt),
            "k": args.k, "efs": efs, "m": args.m, "ef_construction": args.ef_construction,
            "refine": args.refine, "metric": args.metric, "threads": args.threads,
            "batch_threads": batch_threads, "batch_min_s": args.batch_min_s, "batch_size": args.batch_size,
            "max_queries": nq, "warmup": args.warmup, "repeat": args.repeat,
            "overhead_queries": args.overhead_queries}
    log(f"dataset {args.dataset}: n={nb} d={d} nq={nq} k={args.k}; load avg {report['loadavg_start']}")
    try:
        for i, v in enumerate(variants, 1):
            report["runs"].append(run_child(v, args, spec, i, len(variants)))
    finally:
        report["loadavg_end"] = loadavg()
        report["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        if args.output:
            with open(args.output, "w") as f:
                json.dump(report, f, indent=1)
            log(f"wrote {args.output}")
        if own_wd and not args.keep_workdir:
            shutil.rmtree(args.workdir, ignore_errors=True)
    if args.csv:
        append_csv(args.csv, csv_rows(report, command))
    m = report["machine"]
    versions = {k: v for r in report["runs"] for k, v in (r.get("versions") or {}).items()}
    print(f"# {report['dataset']['name']}: n={nb} d={d} nq={nq} k={args.k} metric={args.metric} "
          f"M={args.m} efc={args.ef_construction} build_threads={args.threads} query_threads=1 "
          f"insert_batch={args.batch_size}")
    print(f"# cpu: {m.get('cpu_model')} x{m.get('nproc')}; load avg start {report['loadavg_start']} "
          f"end {report['loadavg_end']}; commit {report['commit']}; versions: "
          + ", ".join(f"{k} {v}" for k, v in sorted(versions.items())))
    if any(r["peer"] not in ("xvec-import", "xvec-overhead") for r in report["runs"]):
        print(fmt_table(report["runs"], args.k, batch_threads))
        print()
    if any(r["peer"] != "xvec-overhead" for r in report["runs"]):
        print(fmt_memory(report["runs"]))
    for r in report["runs"]:
        if r["peer"] == "xvec-overhead" and r["status"] == "ok":
            ov = r["overhead"]
            print(f"\nxvec-overhead: one query() on {ov['rows']} rows, k {ov['k']}, {ov['queries']} times: "
                  f"p50 {ov['pinned']['p50_us']:.2f} µs, mean {ov['pinned']['mean_us']:.2f} µs (follow=False); "
                  f"p50 {ov['follow']['p50_us']:.2f} µs, mean {ov['follow']['mean_us']:.2f} µs (follow=True)")
    if any(r["status"] != "ok" for r in report["runs"]):
        sys.exit(1)


if __name__ == "__main__":
    main()
