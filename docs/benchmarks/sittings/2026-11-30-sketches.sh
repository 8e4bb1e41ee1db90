#!/bin/bash
# The 2026-11-30 evening sitting, after sketches: HNSW INT8 + refine against zvec's
# HNSW-INT8, interleaved (three builds of each, one after another), then the other HNSW
# representations once and hnswlib beside FP32.
set -x
# Run from the repository root after `cargo build --release`; appends to docs/benchmarks/*.csv.
D=${DATA:-../shared/bench/wordnet-minilm-384}
X=${XVEC:-target/release/xvec}
O=${OUT:-/tmp/xvec-sitting-sketches}
mkdir -p "$O"
COMMON="--dataset $D --metric cosine -k 10 --optimize-concurrency 2 --concurrency 1 --duration 1s"
H="--index hnsw --m 16 --ef-construction 200"
EFS="ef=16,24,32,40,48,64,96,128"
PEERS="python3 ../shared/bench/peers.py --dataset $D --ef 16,24,32,40,48,64,96,128 --threads 2 --summary --no-setup"
# Rows name the commit built, though the CSVs this appends to make the tree dirty.
export XVEC_COMMIT=${XVEC_COMMIT:-$(git rev-parse --short HEAD)}
uptime > $O/load-start
for i in 1 2 3; do
  rm -rf $O/h-int8
  $X bench $COMMON $H --quantize int8 --refine 2 --sweep $EFS --path $O/h-int8 --output $O/h-int8-$i.json --csv docs/benchmarks/hnsw.csv > $O/h-int8-$i.out 2>&1
  $PEERS --peers zvec-hnsw-int8 --output $O/zvec-int8-$i.json > $O/zvec-int8-$i.out 2>&1
  python3 docs/benchmarks/peers_to_csv.py $O/zvec-int8-$i.json docs/benchmarks/hnsw.csv \
    --command "python3 ../shared/bench/peers.py --dataset DATA --peers zvec-hnsw-int8 --ef 16,24,32,40,48,64,96,128 --threads 2 --summary"
done
$X bench $COMMON $H --quantize int8 --refine 0 --skip-load --sweep $EFS --path $O/h-int8 --output $O/h-int8-r0.json --csv docs/benchmarks/hnsw.csv > $O/h-int8-r0.out 2>&1
$X bench $COMMON $H --quantize int4 --refine 6 --sweep $EFS --path $O/h-int4 --output $O/h-int4.json --csv docs/benchmarks/hnsw.csv > $O/h-int4.out 2>&1
$X bench $COMMON $H --sweep $EFS --path $O/h-fp32 --output $O/h-fp32.json --csv docs/benchmarks/hnsw.csv > $O/h-fp32.out 2>&1
$PEERS --peers hnswlib --output $O/hnswlib.json > $O/hnswlib.out 2>&1
python3 docs/benchmarks/peers_to_csv.py $O/hnswlib.json docs/benchmarks/hnsw.csv \
  --command "python3 ../shared/bench/peers.py --dataset DATA --peers hnswlib --ef 16,24,32,40,48,64,96,128 --threads 2 --summary"
uptime > $O/load-end
