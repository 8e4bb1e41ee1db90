#!/usr/bin/env bash
# Issue 42's ingest A/B (docs/benchmarks/ray.csv, 2026-12-07T04:1x rows): the sharded ingest
# of words-minilm-384's Parquet (bench_ray.py --ingest-only: ray.init(num_cpus=2),
# xvec.ray.write(ray.data.read_parquet(words.parquet), 2 shards, optimize=False)), old and
# new xvec.ray interleaved, 3 rounds.
#   A: main's python/xvec/ray on the branch's release extension (the old write path:
#      table.take(order) per block, a slice per shard, 1000-row WAL batches);
#   B: the branch (one put of the block, Collection.insert(rows=) in place, one WAL batch).
# Each side is its own interpreter (a venv whose .pth names the unpacked package first), so
# Ray's workers run the driver's side (PYTHONPATH did not reach them); every run prints
# `worker_xvec`, the package its workers imported. The Parquet is made on first use by
# `xvec export --format parquet` (bench_ray.py's step 1), so run once first, unrecorded.
set -u
WHEEL=${WHEEL:?a wheel of the branch: maturin build --release -o DIR}
MAIN=${MAIN:-main}
VENV=${VENV:-target/py-venv}   # has ray[data], pyarrow, numpy
S=${S:-/tmp/ray-ab}
D=${D:-$HOME/.cache/xvec-bench/words-minilm-384}
rm -rf "$S"; mkdir -p "$S/B"; (cd "$S/B" && unzip -q "$WHEEL"); cp -r "$S/B" "$S/A"
for f in __init__.py _actors.py _data.py _merge.py _root.py _sharded.py; do
  git show "$MAIN:crates/xvec-py/python/xvec/ray/$f" > "$S/A/xvec/ray/$f"
done
site=$(cd "$VENV" && pwd)/lib/python3.11/site-packages
for side in A B; do
  "$(readlink -f "$VENV/bin/python")" -m venv --without-pip "$S/venv$side"
  printf '%s\n%s\n' "$S/$side" "$site" > "$S/venv$side/lib/python3.11/site-packages/ab.pth"
done
for r in 1 2 3; do
  for side in A B; do
    echo "== round $r side $side $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
    "$S/venv$side/bin/python" crates/xvec-py/bench/bench_ray.py --data "$D" --work /work/bench-ray \
      --xvec target/release/xvec --shards 2 --ingest-only --csv docs/benchmarks/ray.csv \
      --note "A/B round $r of 3, side $side"
    sleep 2
  done
done
