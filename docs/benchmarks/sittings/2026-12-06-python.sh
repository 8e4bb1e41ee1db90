#!/bin/bash
# Issue 37's Python sitting: xvec through its Python package (crates/xvec-py/bench/bench_py.py)
# beside `xvec bench` at the same ef values, `xvec import` of base.fvecs beside the Python
# insert of the same array, and the peers through ../shared/bench/peers.py: hnswlib and
# zvec-hnsw-int8 (the ratios the targets name) and the embedded databases users pick
# instead (LanceDB, Chroma, Milvus Lite, Qdrant Edge). wordnet-minilm-384, cosine, k 10,
# HNSW M 16, ef_construction 200, build on 2 threads, serial queries on one thread; FP32
# and INT8 + refine 2; and the binding's share of one query (a 16-row collection, through
# Python and through xvec bench). ROUNDS rounds (3), interleaved: odd rounds xvec bench, Python,
# peers; even rounds peers, Python, xvec bench (xvec bench and Python always adjacent).
# Every run appends its rows to docs/benchmarks/python.csv (xvec bench --csv, bench_py.py
# --csv, peers_to_csv.py; commit, command, machine, load in each row); the reports and
# logs stay in $W, and docs/benchmarks/python_targets.py prints the targets beside their
# measurements (medians over the rounds) into $W/targets.md.
#
# One command, from the repository root, on a quiet machine:
#     docs/benchmarks/sittings/2026-12-06-python.sh
# About 40 minutes on 2 cores (estimated from the parts' full-size times: docs/benchmarks/README.md, "Python").
# It first builds the release binary and the release extension into $VENV (BUILD=0 skips
# that) and makes sure the peers' venvs exist (peers-setup, cheap when they do).
# Quick check of the script on the 5,000-row sample (2 to 3 minutes a round, CSV to /tmp):
#     DATA=~/.cache/xvec-bench/wordnet-minilm-384/sample-5k CSV=/tmp/py-sample.csv \
#         W=/tmp/xvec-sitting-python-5k docs/benchmarks/sittings/2026-12-06-python.sh
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
DATA=${DATA:-$HOME/.cache/xvec-bench/wordnet-minilm-384}
ROUNDS=${ROUNDS:-3}
EFS=${EFS:-16,24,32,48,64,96,128}
W=${W:-/tmp/xvec-sitting-python}
CSV=${CSV:-docs/benchmarks/python.csv}
XVEC=${XVEC:-target/release/xvec}
VENV=${VENV:-target/bench-venv}
SHARED=${SHARED:-../shared/bench}
PEERS=${PEERS:-hnswlib,zvec-hnsw-int8,lancedb-hnsw-sq-refine,chroma-hnsw,milvus-lite-hnsw,qdrant-edge-hnsw}
DURATION=${DURATION:-1s}       # xvec bench: each concurrent phase (1 and 2 threads) per ef
BATCH_MIN_S=${BATCH_MIN_S:-1}  # bench_py.py: query_batch seconds per ef and thread count
mkdir -p "$W"
lock() { if command -v flock >/dev/null; then flock /tmp/cargo.lock "$@"; else "$@"; fi; }

if [ "${BUILD:-1}" = 1 ]; then
  lock cargo build --release -p xvec-cli
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check maturin numpy pyarrow
  VIRTUAL_ENV="$PWD/$VENV" lock "$VENV/bin/maturin" develop --quiet --release \
    --manifest-path crates/xvec-py/Cargo.toml
  PEERS_SETUP_SKIP=${PEERS_SETUP_SKIP:-diskann,rabitq,ngt,scann,glass} "$SHARED/peers-setup" > /dev/null
fi
# One commit for every row: the binary and the extension were built from it.
XVEC_COMMIT=$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- . ':!docs/benchmarks' || echo -dirty)
export XVEC_COMMIT

common="--dataset $DATA --metric cosine -k 10 --optimize-concurrency 2 --concurrency 1,2 --duration $DURATION"
hnsw="--index hnsw --m 16 --ef-construction 200"
xb() {
  $XVEC bench $common $hnsw --sweep ef=$EFS --path "$W/xb-fp32" \
    --output "$W/xb-fp32-$1.json" --csv "$CSV" > "$W/xb-fp32-$1.log" 2>&1
  $XVEC bench $common $hnsw --quantize int8 --refine 2 --sweep ef=$EFS --path "$W/xb-int8" \
    --output "$W/xb-int8-$1.json" --csv "$CSV" > "$W/xb-int8-$1.log" 2>&1
  rm -rf "$W/xb-fp32" "$W/xb-int8"
  # The same 16-row query as bench_py.py's xvec-overhead, without Python.
  $XVEC bench --base "$W/tiny/base.fvecs" --queries "$W/tiny/queries.fvecs" --metric cosine -k 10 $hnsw \
    --concurrency 1 --duration 0.2s --cooldown 0s --warmup 500 \
    --output "$W/xb-tiny-$1.json" --csv "$CSV" > "$W/xb-tiny-$1.log" 2>&1
}
py() {
  local args="--dataset $DATA --ef $EFS --threads 2 --refine 2 --batch-size 1000 --batch-threads 1,2
    --batch-min-s $BATCH_MIN_S --variants xvec-hnsw,xvec-hnsw-int8-refine,xvec-import,xvec-overhead --xvec $XVEC"
  # shellcheck disable=SC2086
  "$VENV/bin/python" crates/xvec-py/bench/bench_py.py $args --output "$W/py-$1.json" --csv "$CSV" \
    --command "bench_py.py $(echo $args)" > "$W/py-$1.log" 2>&1 || echo "round $1: bench_py.py failed (see $W/py-$1.log)"
}
peers() {
  local args="--dataset $DATA --peers $PEERS --ef $EFS -k 10 --threads 2 --summary --no-setup"
  # shellcheck disable=SC2086
  python3 "$SHARED/peers.py" $args --output "$W/peers-$1.json" > "$W/peers-$1.log" 2>&1 \
    || echo "round $1: a peer failed or was skipped (see $W/peers-$1.log)"
  python3 docs/benchmarks/peers_to_csv.py "$W/peers-$1.json" "$CSV" --commit "$XVEC_COMMIT" \
    --command "peers.py $args"
}

{ date -u; uptime; lscpu | grep 'Model name'; echo "commit $XVEC_COMMIT"; } > "$W/start"
"$VENV/bin/python" crates/xvec-py/bench/bench_py.py --dataset "$DATA" --overhead-files "$W/tiny"
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then order="xb py peers"; else order="peers py xb"; fi
  for step in $order; do
    echo "$(date -u +%T) round $r: $step (load $(cut -d' ' -f1-3 /proc/loadavg))"
    $step "$r"
  done
done
{ date -u; uptime; } > "$W/end"
python3 docs/benchmarks/python_targets.py "$W" | tee "$W/targets.md"
