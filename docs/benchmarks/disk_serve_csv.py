"""Builds docs/benchmarks/disk-serve.csv from one sitting: the rows `xvec bench --csv`
appended (disk index capped and uncapped, HNSW capped), each tagged with its run and the
cgroup's counters, and the disk peers' rows from peers.py's JSON, in the same columns.

Usage: disk_serve_csv.py BENCH.csv PEERS.json OUT.csv RUN=CAPFILE... --device TEXT [--append]
                         [--peers-prefix P]
  RUN is the tag of the bench rows in order of appearance, e.g. disk-capped-1=cap-disk-1.txt
  (a CAPFILE of '-' means uncapped); each RUN takes the rows with its --path and index.
  PEERS.json '-': a sitting without the peers. --append keeps OUT's rows (an earlier
  sitting's, regressions included) ahead of the new ones, the columns the union of both.
  --peers-prefix P tags the peers' rows P + peer + '-capped' (e.g. s4-), as the sitting's
  RUN tags are.
"""
import csv, json, sys

args = sys.argv[1:]
device = args[args.index("--device") + 1]
append = "--append" in args
prefix = args[args.index("--peers-prefix") + 1] if "--peers-prefix" in args else ""
args = args[: args.index("--device")]
bench_csv, peers_json, out = args[:3]
runs = [a.split("=", 1) for a in args[3:]]

def cap(path):
    if path == "-":
        return {}
    return dict(l.strip().split("=", 1) for l in open(path) if "=" in l)

rows = list(csv.DictReader(open(bench_csv)))
cols = ["run", "cap_mib", "cgroup_peak_mib", "failcnt", "oom_kill", "device"] + list(rows[0].keys())
done = []
# The bench rows come in runs of as many rows as the run's sweep has settings; each run's
# rows share a command, in the order the runs were given.
commands = []
for r in rows:
    if not commands or commands[-1][0] != r["command"]:
        commands.append((r["command"], []))
    commands[-1][1].append(r)
assert len(commands) == len(runs), (len(commands), [c[0][:80] for c in commands], runs)
for (tag, capfile), (_, group) in zip(runs, commands):
    c = cap(capfile)
    for r in group:
        r = dict(r)
        r.update(run=tag, device=device,
                 cap_mib=int(c["limit_bytes"]) >> 20 if c else "",
                 cgroup_peak_mib=round(int(c["max_usage_bytes"]) / 2**20, 1) if c else "",
                 failcnt=c.get("failcnt", ""), oom_kill=c.get("oom_kill", ""))
        done.append(r)
peers = json.load(open(peers_json)) if peers_json != "-" else {"runs": []}
# The peers' command line, from what their JSON says they ran.
pp = peers.get("params", {})
command = (
    f"python3 ../shared/bench/peers.py --dataset $WORDS --peers {','.join(pp.get('peers', []))}"
    f" --cgroup-mem {pp.get('cgroup_mem_mib')} --cgroup-phase {pp.get('cgroup_phase')} --drop-caches"
    f" --ef {','.join(map(str, pp.get('efs', [])))} --repeat {pp.get('repeat')} --threads {pp.get('build_threads')}"
)
for run in peers["runs"]:
    cg = run.get("cgroup") or {}
    for p in run["results"]:
        done.append({
            "run": prefix + run["peer"] + "-capped", "device": device,
            "cap_mib": peers["params"].get("cgroup_mem_mib", ""),
            "cgroup_peak_mib": round(cg.get("max_usage_in_bytes", 0) / 2**20, 1) if cg else "",
            "failcnt": cg.get("failcnt", ""), "oom_kill": (cg.get("oom_control") or {}).get("oom_kill", ""),
            "date": peers["started_at"], "db": run["peer"], "db_version": json.dumps(run.get("versions", {})),
            "command": command,
            "machine": peers["machine"]["cpu_model"], "cores": peers["machine"]["nproc"],
            "load_start": run["loadavg"][0], "load_end": peers["loadavg_end"][0],
            "dataset": "words-minilm-384", "rows": run["n"], "dim": run["d"], "queries": run["nq"],
            "metric": "cosine", "k": p["k"], "index": run["peer"], "params": json.dumps(run.get("config", {})),
            "ef": p["ef"], "serial_qps": round(p["qps"], 1), "recall": round(p["recall"], 4),
            "serial_latency_avg": p["mean_ms"], "serial_latency_p50": p["p50_ms"], "serial_latency_p99": p["p99_ms"],
            "read_bytes_per_query": round(p["read_bytes_per_query"]),
            "optimize_duration": round(run["build_s"], 1),
            "notes": "serial queries only (peers.py); O_DIRECT reads; build uncapped, cap from the index load on; page cache of the index dropped before each timed pass",
        })
if append:
    kept = list(csv.DictReader(open(out)))
    cols = list(kept[0].keys()) + [c for c in cols if c not in kept[0]]
    done = kept + done
with open(out, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
    w.writeheader()
    w.writerows(done)
print(f"{len(done)} rows to {out}")
