#!/usr/bin/env python3
"""The tables of README.md "Filtered runs" from the reports of filtered-runs.sh.

    python3 docs/benchmarks/filtered_table.py /tmp/filt/reports

Each cell is the median over the rounds of the serial pass (1,000 queries). "x unfiltered"
is the indexed copy's p50 against its unfiltered p50; "vs best" is the planner's p50
against the better of the forced graph and forced exact routes.
"""
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

FILTERS = ["", "lexname = 'noun.motive'", "pos = 'r'", "lexname = 'noun.animal'", "pos = 'v'",
           "n_lemmas >= 3", "pos = 'n'"]


def main(reports: Path) -> None:
    runs = defaultdict(list)
    for path in sorted(reports.glob("r*-*-*-*.json")):
        _, filt, coll, route = path.stem.split("-")
        runs[(int(filt), coll, route)].append(json.loads(path.read_text()))
    med = lambda key, field: statistics.median(r["serial"][field] for r in runs[key])
    unfiltered = med((0, "indexed", "auto"), "latency_p50_ms")
    print("| filter | selectivity | p50 ms, no index | p50 ms, indexed | p99 ms, indexed | × unfiltered "
          "| p50 ms, graph | p50 ms, exact | vs best | recall@10 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for i, text in enumerate(FILTERS):
        if (i, "indexed", "auto") not in runs:
            continue
        any_run = runs[(i, "indexed", "auto")][0]
        share = (any_run["dataset"]["filter_rows"] or any_run["dataset"]["rows"]) / any_run["dataset"]["rows"]
        p50 = med((i, "indexed", "auto"), "latency_p50_ms")
        cells = [f"`{text}`" if text else "none", f"{share:.2%}" if share < 0.01 else f"{share:.1%}",
                 f"{med((i, 'plain', 'auto'), 'latency_p50_ms'):.3f}", f"{p50:.3f}",
                 f"{med((i, 'indexed', 'auto'), 'latency_p99_ms'):.3f}", f"{p50 / unfiltered:.2f}"]
        if (i, "indexed", "graph") in runs:
            graph, exact = med((i, "indexed", "graph"), "latency_p50_ms"), med((i, "indexed", "exact"), "latency_p50_ms")
            cells += [f"{graph:.3f}", f"{exact:.3f}", f"{p50 / min(graph, exact):.2f}"]
        else:
            cells += ["", "", ""]
        cells.append(f"{med((i, 'indexed', 'auto'), 'recall'):.4f}")
        print("| " + " | ".join(cells) + " |")
    rounds = {len(v) for v in runs.values()}
    print(f"\n{sorted(rounds)} rounds per cell; CPU {any_run['system'].get('cpu_model')}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
