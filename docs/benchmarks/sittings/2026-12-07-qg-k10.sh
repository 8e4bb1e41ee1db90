#!/usr/bin/env bash
# Session 10 k=10 sitting: xvec qg (main) vs SymphonyQG fp32 (rabitq-qg, a saved build) vs hnswlib
# (peers.py --repeat 1), three rounds alternating, each step under the cargo lock.
set -u
W=$HOME/.cache/xvec-bench/wordnet-minilm-384
O=${O:-/tmp/qg-k10}; mkdir -p $O   # QG: an xvec qg collection (bench --index qg)
X=${X:-/tmp/xvec-sit}
PY=/root/.cache/xvec-bench/peers-venv/bin/python
RQ=/root/.cache/xvec-bench/peers-venv-rabitq/bin/python
L="flock /tmp/cargo.lock"
for r in 1 2 3; do
  echo "round $r xvec $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  $L $X bench --dataset $W --index qg --path ${QG:?path of the qg collection} --skip-load -k 10 --sweep ef=24,32,48,64 --concurrency 1 --duration 2s --warmup 100 --output $O/xvec-$r.json > $O/xvec-$r.txt 2>&1 || echo "xvec failed"
  echo "round $r sqg $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  for ef in 24 32 48 64; do $L $RQ $(dirname "$0")/2026-12-07-qg-k10-sqg.py search $ef 10 1000; done > $O/sqg-$r.txt 2>&1
  echo "round $r hnswlib $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  $L $PY /work/shared/bench/peers.py --no-setup --dataset $W -k 10 --ef 24,32,48,64 --peers hnswlib --repeat 1 --threads 2 --output $O/peers-$r.json > $O/peers-$r.txt 2>&1 || echo "peers failed"
done
echo "done $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
