#!/bin/bash
# The 2026-11-30 late sitting, after sketches reached every graph index: HNSW FP32 against
# hnswlib (interleaved, twice), HNSW FP16 and INT8 + refine, Vamana FP32 against diskannpy,
# Vamana INT8 + refine.
set -x
# Run from the repository root after `cargo build --release`; appends to docs/benchmarks/*.csv.
D=${DATA:-../shared/bench/wordnet-minilm-384}
X=${XVEC:-target/release/xvec}
O=${OUT:-/tmp/xvec-sitting-sketches-all}
mkdir -p "$O"
COMMON="--dataset $D --metric cosine -k 10 --optimize-concurrency 2 --concurrency 1 --duration 1s"
H="--index hnsw --m 16 --ef-construction 200"
V="--index vamana --degree 64 --build-list 100 --alpha 1.2"
EFS="ef=16,24,32,40,48,64,96,128"
VS="ef=10,20,30,40,60,80,120,200"
PEERS="python3 ../shared/bench/peers.py --dataset $D --threads 2 --summary --no-setup"
peer_csv() { # json csv peer efs
  python3 docs/benchmarks/peers_to_csv.py "$1" "$2" \
    --command "python3 ../shared/bench/peers.py --dataset DATA --peers $3 --ef $4 --threads 2 --summary"
}
# Rows name the commit built, though the CSVs this appends to make the tree dirty.
export XVEC_COMMIT=${XVEC_COMMIT:-$(git rev-parse --short HEAD)}
uptime > $O/load-start
for i in 1 2; do
  rm -rf $O/h-fp32
  $X bench $COMMON $H --sweep $EFS --path $O/h-fp32 --output $O/h-fp32-$i.json --csv docs/benchmarks/hnsw.csv > $O/h-fp32-$i.out 2>&1
  $PEERS --peers hnswlib --ef ${EFS#ef=} --output $O/hnswlib-$i.json > $O/hnswlib-$i.out 2>&1
  peer_csv $O/hnswlib-$i.json docs/benchmarks/hnsw.csv hnswlib ${EFS#ef=}
done
$X bench $COMMON $H --quantize fp16 --sweep $EFS --path $O/h-fp16 --output $O/h-fp16.json --csv docs/benchmarks/hnsw.csv > $O/h-fp16.out 2>&1
$X bench $COMMON $H --quantize int8 --refine 2 --sweep $EFS --path $O/h-int8 --output $O/h-int8.json --csv docs/benchmarks/hnsw.csv > $O/h-int8.out 2>&1
$X bench $COMMON $V --sweep $VS --path $O/v-fp32 --output $O/v-fp32.json --csv docs/benchmarks/vamana.csv > $O/v-fp32.out 2>&1
$PEERS --peers diskann --ef ${VS#ef=} --output $O/diskann.json > $O/diskann.out 2>&1
peer_csv $O/diskann.json docs/benchmarks/vamana.csv diskann ${VS#ef=}
$X bench $COMMON $V --quantize int8 --refine 2 --sweep $VS --path $O/v-int8 --output $O/v-int8.json --csv docs/benchmarks/vamana.csv > $O/v-int8.out 2>&1
uptime > $O/load-end
