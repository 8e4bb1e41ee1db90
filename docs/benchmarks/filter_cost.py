#!/usr/bin/env python3
"""The filter's own cost against the whole filtered search, from `explain analyze`.

    python3 docs/benchmarks/filter_cost.py /tmp/filt/none/indexed "$DATA/queries.fvecs"

For each filter of README.md "Filtered runs": one `xvec shell DIR -f` script of 200
`explain analyze query --vector-file Q --row i --filter F` statements; the medians of the
second (warm) half of the filter's leaves' time and of the vector search's time.
"""
import csv
import io
import statistics
import subprocess
import sys
import tempfile

FILTERS = ["lexname = 'noun.motive'", "pos = 'r'", "lexname = 'noun.animal'", "pos = 'v'", "n_lemmas >= 3",
           "pos = 'n'"]


def main(coll: str, queries: str, xvec: str = "target/release/xvec") -> None:
    print("| filter | filter µs | vector search µs | filter share |")
    print("| --- | ---: | ---: | ---: |")
    for f in FILTERS:
        with tempfile.NamedTemporaryFile("w", suffix=".xvec") as script:
            for row in range(200):
                script.write(f'explain analyze query --vector-file {queries} --row {row} --filter "{f}"\n')
            script.flush()
            out = subprocess.run([xvec, "shell", coll, "-f", script.name, "--mode", "csv"], check=True,
                                 capture_output=True, text=True).stdout
        # Per statement: one row per filter leaf, then one for the vector search.
        leaves, search, pending = [], [], 0.0
        for r in csv.reader(io.StringIO(out)):
            if len(r) < 8 or r[1] == "step":
                continue
            us = float(r[7].split()[0]) * 1000
            if r[1] == "vector search":
                leaves.append(pending)
                search.append(us)
                pending = 0.0
            else:
                pending += us
        leaf, vec = statistics.median(leaves[100:]), statistics.median(search[100:])
        print(f"| `{f}` | {leaf:.0f} | {vec:.0f} | {leaf / (leaf + vec):.1%} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
