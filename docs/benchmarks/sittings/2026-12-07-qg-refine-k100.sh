#!/usr/bin/env bash
# Issue 39's k = 100 sitting of `refine` on a qg index (docs/benchmarks/qg.csv, rows of
# 2026-12-07T13:25-13:47): xvec with refine 0, with refine 2, and the peers, alternating,
# three rounds; each step under the lock the machine's builds share (2 cores).
#   QG: a qg collection of wordnet-minilm-384 (Vamana base, degree 32, fp32 rows), built by
#       xvec bench --dataset $WORDNET --index qg --path $QG --sweep ef=48
#   PEERS_PY: the Python of ../shared/bench/peers-setup's venv.
#   REFINES: the `refine` settings of xvec's runs (default "0 2"); ROUNDS (default 3);
#   PEERS: peers.py's --peers; WORDNET may name another dataset (words-minilm-384).
# Then `sittings/qg_sitting_to_csv.py $O docs/benchmarks/qg.csv ...` appends the rows.
set -u
WORDNET=${WORDNET:-$HOME/.cache/xvec-bench/wordnet-minilm-384}
X=${X:-target/release/xvec}
QG=${QG:?a qg collection of wordnet-minilm-384}
O=${O:-bench-out}
PEERS_PY=${PEERS_PY:?the peers venv python}
L="flock /tmp/cargo.lock"
mkdir -p "$O"
for r in $(seq "${ROUNDS:-3}"); do
  for rf in ${REFINES:-0 2}; do
    EF=100,128,160,200,256; [ $rf = 0 ] && EF=100,160,256,320,400
    echo "round $r xvec refine $rf $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
    $L $X bench --dataset "$WORDNET" --index qg --path "$QG" --skip-load -k 100 --refine $rf --sweep ef=$EF \
      --concurrency 1 --duration 1s --warmup 100 --output "$O/k100-r$rf-$r.json" --csv "$O/xvec-refine$rf-$r.csv" \
      > "$O/k100-r$rf-$r.txt" 2>&1
  done
  echo "round $r peers $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  $L "$PEERS_PY" ../shared/bench/peers.py --no-setup --dataset "$WORDNET" -k 100 --ef 100,128,160,200,256 \
    --peers "${PEERS:-hnswlib,zvec-hnsw-int8,rabitq-qg-q8}" --repeat 1 --threads 2 --output "$O/peers-$r.json" > "$O/peers-$r.txt" 2>&1
done
