#!/usr/bin/env bash
# Issue 39's k = 10 sitting on one dataset: xvec qg vs SymphonyQG (rabitqlib's SymqgIndex, one
# saved build per bit width, searched through its Python binding) vs hnswlib (peers.py
# --repeat 1), three rounds alternating, each step under the lock the machine's builds share.
#   D:        the dataset directory (wordnet-minilm-384 or words-minilm-384)
#   QG:       an xvec qg collection of it (`xvec bench --dataset $D --index qg --path $QG`)
#   SQG_DIR:  SymphonyQG's saved builds, sqg-BITS.idx for each of SQG_BITS ("0 8": fp32 and
#             8-bit), made by `XVEC_DATASET=$D SQG_BITS=B SQG_INDEX=$SQG_DIR/sqg-B.idx
#             python 2026-12-07-qg-k10-sqg.py build`
#   X:        the xvec binary; EFS: the ef sweep; O: where the results go.
# Then `qg_sitting_to_csv.py $O docs/benchmarks/qg.csv ...` appends the rows and prints the table.
set -u
D=${D:?the dataset directory}
QG=${QG:?path of the qg collection}
SQG_DIR=${SQG_DIR:?directory of the saved SymphonyQG builds}
SQG_BITS=${SQG_BITS:-0 8}
X=${X:-target/release/xvec}
EFS=${EFS:-24,32,48,64,96,128}
O=${O:-/tmp/qg-sitting}; mkdir -p "$O"
DATA=${XVEC_BENCH_DATA:-$HOME/.cache/xvec-bench}
PY=$DATA/peers-venv/bin/python
RQ=$DATA/peers-venv-rabitq/bin/python
HERE=$(cd "$(dirname "$0")" && pwd)
L="flock /tmp/cargo.lock"
stamp() { echo "round $1 $2 $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; }
for r in 1 2 3; do
  stamp $r xvec
  $L "$X" bench --dataset "$D" --index qg --path "$QG" --skip-load -k 10 --sweep ef=$EFS --concurrency 1 \
    --duration 2s --warmup 100 --output "$O/xvec-$r.json" --csv "$O/xvec-$r.csv" > "$O/xvec-$r.txt" 2>&1 || echo "xvec failed"
  stamp $r sqg
  for bits in $SQG_BITS; do
    for ef in ${EFS//,/ }; do
      XVEC_DATASET=$D SQG_BITS=$bits SQG_INDEX=$SQG_DIR/sqg-$bits.idx $L "$RQ" "$HERE/2026-12-07-qg-k10-sqg.py" search $ef 10 1000
    done
  done > "$O/sqg-$r.txt" 2>&1
  stamp $r hnswlib
  $L "$PY" "$HERE/../../../../shared/bench/peers.py" --no-setup --dataset "$D" -k 10 --ef $EFS --peers hnswlib \
    --repeat 1 --threads 2 --output "$O/peers-$r.json" > "$O/peers-$r.txt" 2>&1 || echo "peers failed"
done
echo "done $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
