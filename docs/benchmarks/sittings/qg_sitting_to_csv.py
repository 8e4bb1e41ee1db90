#!/usr/bin/env python3
"""Append one qg sitting's rows to a benchmark CSV and print its summary table.

    python3 docs/benchmarks/sittings/qg_sitting_to_csv.py OUT docs/benchmarks/qg.csv \
        --commit 2f5689f --note "issue 39 k=10 sitting ..." --sqg-build 0=13.4,8=15.5 \
        --sqg-command "..." --peers-command "..."

OUT is the directory a sitting script (`2026-12-07-qg-sitting.sh`, `2026-12-07-qg-build.sh`)
wrote: per round R `xvec-R.csv`, `xvec-LABEL-R.csv` or `build-LABEL-R.csv` (`xvec bench --csv`), `sqg-R.txt`
(`2026-12-07-qg-k10-sqg.py search` lines, fp32 and 8-bit) and `peers-R.json` (`peers.py
--output`). Every row gets the note and its round, and `--machine` in place of the bare CPU
model. The summary gives each engine's median serial QPS over the rounds per ef and, for
recall 0.95 and 0.98, the first ef whose median recall reaches it, and each xvec label's
build seconds. Standard library only.
"""

import argparse
import csv
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from peers_to_csv import COLUMNS, rows as peer_rows  # noqa: E402

# `bits` is missing from the lines of the runner before session 12: fp32 then.
SQG_LINE = re.compile(r"^ef (\d+) k (\d+)(?: bits (\d+))? recall ([0-9.]+) qps (\d+)$")


def xvec_rows(path):
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            yield row


def sqg_rows(path, a, dataset, machine):
    builds = {int(bits): secs for bits, secs in (x.split("=") for x in a.sqg_build.split(",") if x)}
    with open(path) as f:
        for line in f:
            m = SQG_LINE.match(line.strip())
            if not m:
                continue
            ef, k, bits, recall, qps = m.groups()
            bits = int(bits or 0)
            build = builds.get(bits, "")
            yield {
                "date": a.sqg_date, "db": "rabitq-qg-q8" if bits == 8 else "rabitq-qg",
                "db_version": "rabitqlib 0.7.1", "commit": a.commit, "command": a.sqg_command,
                "machine": machine, "cores": os.cpu_count(), "dataset": dataset["name"],
                "rows": dataset["n"], "dim": dataset["d"], "queries": dataset["nq"], "metric": "ip",
                "k": k, "index": "symqg",
                "params": f"max_degree=32 ef_construction=200 init=pipnn quantization_bits={bits}",
                "ef": ef, "insert_duration": build, "load_duration": build,
                "serial_qps": qps, "recall": recall, "ground_truth": "file",
                "notes": "one saved build loaded each pass; 1,000 queries one by one through "
                         "its Python binding, as peers.py searches",
            }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="the sitting's output directory")
    ap.add_argument("csv", help="CSV file to append to (its header decides the columns)")
    ap.add_argument("--commit", required=True)
    ap.add_argument("--commit-of", nargs="*", default=[], metavar="LABEL=COMMIT",
                    help="the commit column of a build-LABEL's rows")
    ap.add_argument("--machine", required=True, help='the CPU, e.g. "AMD EPYC (Zen 4, AVX-512)"')
    ap.add_argument("--note", required=True, help="what the sitting was, for every row's notes")
    ap.add_argument("--peers-command", default="")
    ap.add_argument("--sqg-command", default="")
    ap.add_argument("--sqg-build", default="", help="SymphonyQG's build seconds by bits: 0=13.4,8=15.5")
    ap.add_argument("--sqg-date", default="")
    ap.add_argument("--dry-run", action="store_true", help="print the summary only")
    a = ap.parse_args()

    with open(a.csv, newline="") as f:
        header = next(csv.reader(f))
    out, engines = [], {}
    commits = dict(x.split("=", 1) for x in a.commit_of)
    runs = sorted((int(m.group(2)), m.group(1) or "", p) for p in os.listdir(a.out)
                  if (m := re.match(r"(?:xvec|build)(?:-(.+))?-(\d+)\.csv$", p)))
    if not runs:
        sys.exit(f"{a.out}: no xvec-R.csv, xvec-LABEL-R.csv or build-LABEL-R.csv")
    rounds = sorted({r for r, _, _ in runs})
    dataset, builds = None, {}

    def keep(engine, row):
        """Appends `row` and counts it in `engine`'s serial QPS and recall at its ef."""
        out.append(row)
        engines.setdefault(engine, {}).setdefault(int(row["ef"]), []).append(
            (float(row["serial_qps"]), float(row["recall"])))

    for r, label, name in runs:
        tag = f"{a.note}, {label + ', ' if label else ''}round {r}"
        for row in xvec_rows(os.path.join(a.out, name)):
            row["commit"] = commits.get(label, a.commit)
            row["machine"] = a.machine
            row["notes"] = f"{tag}; {row.get('notes', '')}".rstrip("; ")
            engine = f"xvec {row['index']} {label}".rstrip()
            keep(engine, row)
            if row.get("optimize_duration"):
                builds.setdefault(engine, {})[r] = float(row["optimize_duration"])
    for r in rounds:
        pj = os.path.join(a.out, f"peers-{r}.json")
        if os.path.exists(pj):
            with open(pj) as f:
                report = json.load(f)
            dataset = report["dataset"]
            for row in peer_rows(report, a.peers_command, a.commit):
                row["machine"] = a.machine
                row["notes"] = f"{a.note}, round {r}; {row['notes']}"
                builds.setdefault(row["db"], {})[r] = float(row["insert_duration"] or "nan")
                keep(row["db"], row)
    for r in rounds:
        sp = os.path.join(a.out, f"sqg-{r}.txt")
        if os.path.exists(sp) and dataset:
            for row in sqg_rows(sp, a, dataset, a.machine):
                row["notes"] = f"{a.note}, round {r}; {row['notes']}"
                keep(row["db"], row)

    for name, by_ef in engines.items():
        med = {ef: (statistics.median(q for q, _ in v), statistics.median(r for _, r in v), len(v))
               for ef, v in sorted(by_ef.items())}
        print(f"{name}: " + ", ".join(f"ef {ef} {q:,.0f} ({rc:.4f}, n={n})" for ef, (q, rc, n) in med.items()))
        for target in (0.95, 0.98):
            hit = next(((ef, q, rc) for ef, (q, rc, _) in med.items() if rc >= target), None)
            print(f"  @{target}: " + ("not reached" if hit is None else f"{hit[1]:,.0f} (ef {hit[0]}, {hit[2]:.4f})"))
    for engine, by_round in builds.items():
        print(f"build s, {engine}: " + " / ".join(f"{s:.1f}" for _, s in sorted(by_round.items())))
    if a.dry_run:
        return
    extra = [c for c in COLUMNS if c not in header]
    if extra:
        sys.exit(f"{a.csv}: line 1: the header lacks the columns {', '.join(extra)}")
    with open(a.csv, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, restval="", extrasaction="ignore", lineterminator="\n")
        for row in out:
            w.writerow(row)
    print(f"appended {len(out)} rows to {a.csv}", file=sys.stderr)


if __name__ == "__main__":
    main()
