#!/bin/bash
# The 2026-11-30 sitting after HNSW construction began screening with sketches: HNSW FP32
# against hnswlib and HNSW INT8 + refine against zvec's HNSW-INT8, interleaved, twice.
set -x
# Run from the repository root after `cargo build --release`; appends to docs/benchmarks/*.csv.
D=${DATA:-../shared/bench/wordnet-minilm-384}
X=${XVEC:-target/release/xvec}
O=${OUT:-/tmp/xvec-sitting-build-screen}
mkdir -p "$O"
COMMON="--dataset $D --metric cosine -k 10 --optimize-concurrency 2 --concurrency 1 --duration 1s"
H="--index hnsw --m 16 --ef-construction 200"
EFS="16,24,32,40,48,64,96,128"
PEERS="python3 ../shared/bench/peers.py --dataset $D --ef $EFS --threads 2 --summary --no-setup"
peer_csv() { # json peer
  python3 docs/benchmarks/peers_to_csv.py "$1" docs/benchmarks/hnsw.csv \
    --command "python3 ../shared/bench/peers.py --dataset DATA --peers $2 --ef $EFS --threads 2 --summary"
}
# Rows name the commit built, though the CSVs this appends to make the tree dirty.
export XVEC_COMMIT=${XVEC_COMMIT:-$(git rev-parse --short HEAD)}
uptime > $O/load-start
for i in 1 2; do
  rm -rf $O/h-fp32 $O/h-int8
  $X bench $COMMON $H --sweep ef=$EFS --path $O/h-fp32 --output $O/h-fp32-$i.json --csv docs/benchmarks/hnsw.csv > $O/h-fp32-$i.out 2>&1
  $PEERS --peers hnswlib --output $O/hnswlib-$i.json > $O/hnswlib-$i.out 2>&1
  peer_csv $O/hnswlib-$i.json hnswlib
  $X bench $COMMON $H --quantize int8 --refine 2 --sweep ef=$EFS --path $O/h-int8 --output $O/h-int8-$i.json --csv docs/benchmarks/hnsw.csv > $O/h-int8-$i.out 2>&1
  $PEERS --peers zvec-hnsw-int8 --output $O/zvec-int8-$i.json > $O/zvec-int8-$i.out 2>&1
  peer_csv $O/zvec-int8-$i.json zvec-hnsw-int8
done
uptime > $O/load-end
