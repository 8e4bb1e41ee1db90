#!/usr/bin/env bash
# Session 11 words-minilm-384 sitting (issue 39, k = 10): xvec qg (default Vamana base) vs
# SymphonyQG 8-bit (rabitq-qg-q8, one saved build, SQG_BITS=8) vs hnswlib (peers.py --repeat 1),
# three rounds alternating, each step under the cargo lock. QG: the xvec qg collection
# (`xvec bench --dataset $D --index qg --path $QG` builds it); SQG_INDEX: the saved SymphonyQG
# build (`XVEC_DATASET=$D SQG_BITS=8 SQG_INDEX=... python 2026-12-07-qg-k10-sqg.py build`).
set -u
D=$HOME/.cache/xvec-bench/words-minilm-384
O=${O:-/tmp/qg-words}; mkdir -p $O
X=${X:-/tmp/xvec-sit}
PY=/root/.cache/xvec-bench/peers-venv/bin/python
RQ=/root/.cache/xvec-bench/peers-venv-rabitq/bin/python
L="flock /tmp/cargo.lock"
EFS=32,48,64,96,128,160,200
for r in 1 2 3; do
  echo "round $r xvec $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  $L $X bench --dataset $D --index qg --path ${QG:?path of the qg collection} --skip-load -k 10 --sweep ef=$EFS --concurrency 1 --duration 2s --warmup 100 --output $O/xvec-$r.json > $O/xvec-$r.txt 2>&1 || echo "xvec failed"
  echo "round $r sqg $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  for ef in ${EFS//,/ } 256; do XVEC_DATASET=$D SQG_BITS=8 $L $RQ $(dirname "$0")/2026-12-07-qg-k10-sqg.py search $ef 10 1000; done > $O/sqg-$r.txt 2>&1
  echo "round $r hnswlib $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  $L $PY /work/shared/bench/peers.py --no-setup --dataset $D -k 10 --ef $EFS,256 --peers hnswlib --repeat 1 --threads 2 --output $O/peers-$r.json > $O/peers-$r.txt 2>&1 || echo "peers failed"
done
echo "done $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
