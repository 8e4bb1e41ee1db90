#!/usr/bin/env bash
# Issue 42's query_batch at equal recall (docs/benchmarks/ray.csv, rows whose notes say "ef
# sweep"): bench_ray.py --ef-sweep on the collections `2026-12-07-ray-batch.sh build` made in
# $W (one collection, HNSW m 16, and 2 shards of words-minilm-384). Each run: $ROUNDS
# rounds; each round, per per-shard ef E of $EFS, one collection's query_batch at ef 64, then
# the sharded one's at E, the shards with no Ray at E, shard 0 alone at E (the module doc of
# bench_ray.py). $RUNS runs, one after another. Run under flock /tmp/cargo.lock.
set -u
WHEEL=${WHEEL:?a wheel of the branch: maturin build --release -o DIR}
VENV=${VENV:-target/py-venv}   # has ray[data], pyarrow, numpy
S=${S:-/tmp/ray-recall}
D=${D:-$HOME/.cache/xvec-bench/words-minilm-384}
W=${W:-/work/bench-ray}
EFS=${EFS:-16,24,32,40,44,48,50,52,54,56,64}
ROUNDS=${ROUNDS:-5}
RUNS=${RUNS:-2}
CSV=${CSV:-docs/benchmarks/ray.csv}
if [ ! -d "$S/venv" ]; then   # the wheel unpacked first on the path, so Ray's workers import it too
  rm -rf "$S"; mkdir -p "$S/pkg"; (cd "$S/pkg" && unzip -q "$WHEEL")
  "$(readlink -f "$VENV/bin/python")" -m venv --without-pip "$S/venv"
  printf '%s\n%s\n' "$S/pkg" "$(cd "$VENV" && pwd)/lib/python3.11/site-packages" > "$S/venv/lib/python3.11/site-packages/pkg.pth"
fi
for r in $(seq "$RUNS"); do
  echo "== ef sweep run $r of $RUNS $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$S/venv/bin/python" crates/xvec-py/bench/bench_ray.py --data "$D" --work "$W" --shards 2 --ef 64 \
    --ef-sweep "$EFS" --rounds "$ROUNDS" --csv "$CSV" --note "ef sweep run $r of $RUNS"
  sleep 2
done
