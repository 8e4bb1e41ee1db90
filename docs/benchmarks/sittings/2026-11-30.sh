#!/bin/bash
# The 2026-11-30 sitting: xvec HNSW/Flat/Vamana and their peers, one after another.
set -x
# Run from the repository root after `cargo build --release`; appends to docs/benchmarks/*.csv.
D=${DATA:-../shared/bench/wordnet-minilm-384}
X=${XVEC:-target/release/xvec}
O=${OUT:-/tmp/xvec-sitting}
mkdir -p "$O"
COMMON="--dataset $D --metric cosine -k 10 --optimize-concurrency 2 --concurrency 1 --duration 1s"
H="--index hnsw --m 16 --ef-construction 200"
EFS="ef=16,24,32,40,48,64,96,128"
uptime > $O/load-start
# HNSW
$X bench $COMMON $H --sweep $EFS --path $O/h-fp32 --output $O/h-fp32.json --csv docs/benchmarks/hnsw.csv > $O/h-fp32.out 2>&1
$X bench $COMMON $H --quantize int8 --refine 2 --sweep $EFS --path $O/h-int8 --output $O/h-int8.json --csv docs/benchmarks/hnsw.csv > $O/h-int8.out 2>&1
$X bench $COMMON $H --quantize int8 --refine 0 --skip-load --sweep $EFS --path $O/h-int8 --output $O/h-int8-r0.json --csv docs/benchmarks/hnsw.csv > $O/h-int8-r0.out 2>&1
$X bench $COMMON $H --quantize fp16 --sweep $EFS --path $O/h-fp16 --output $O/h-fp16.json --csv docs/benchmarks/hnsw.csv > $O/h-fp16.out 2>&1
$X bench $COMMON $H --quantize int4 --refine 6 --sweep $EFS --path $O/h-int4 --output $O/h-int4.json --csv docs/benchmarks/hnsw.csv > $O/h-int4.out 2>&1
$X bench $COMMON $H --quantize int4 --refine 0 --skip-load --ef 64 --path $O/h-int4 --output $O/h-int4-r0.json --csv docs/benchmarks/hnsw.csv > $O/h-int4-r0.out 2>&1
# Flat (memory rows)
$X bench $COMMON --index flat --path $O/f-fp32 --output $O/f-fp32.json --csv docs/benchmarks/flat.csv > $O/f-fp32.out 2>&1
$X bench $COMMON --index flat --quantize int8 --refine 0 --path $O/f-int8 --output $O/f-int8.json --csv docs/benchmarks/flat.csv > $O/f-int8.out 2>&1
python3 ../shared/bench/peers.py --dataset $D --peers hnswlib,zvec-hnsw,zvec-hnsw-int8,faiss-hnsw-sq8 --ef 16,24,32,40,48,64,96,128 --threads 2 --summary --no-setup --output $O/peers-hnsw.json > $O/peers-hnsw.out 2>&1
# Vamana
V="--index vamana --degree 64 --build-list 100 --alpha 1.2"
VS="ef=10,20,30,40,60,80,120,200"
/usr/bin/time -v $X bench $COMMON $V --sweep $VS --path $O/v-fp32 --output $O/v-fp32.json --csv docs/benchmarks/vamana.csv > $O/v-fp32.out 2>&1
$X bench $COMMON $V --quantize int8 --refine 2 --sweep $VS --path $O/v-int8 --output $O/v-int8.json --csv docs/benchmarks/vamana.csv > $O/v-int8.out 2>&1
$X bench $COMMON $V --quantize int4 --refine 6 --sweep $VS --path $O/v-int4 --output $O/v-int4.json --csv docs/benchmarks/vamana.csv > $O/v-int4.out 2>&1
$X bench $COMMON $V --quantize fp16 --sweep $VS --path $O/v-fp16 --output $O/v-fp16.json --csv docs/benchmarks/vamana.csv > $O/v-fp16.out 2>&1
for q in fp32 int8 int4 fp16; do
  case $q in int8) R="--refine 2";; int4) R="--refine 6";; *) R="";; esac
  $X bench --dataset $D --metric cosine -k 100 --concurrency 1 --duration 1s $V --skip-load --ef 200 $R --path $O/v-$q --output $O/v-$q-k100.json --csv docs/benchmarks/vamana.csv > $O/v-$q-k100.out 2>&1
done
python3 ../shared/bench/peers.py --dataset $D --peers diskann --ef 10,20,30,40,60,80,120,200 --threads 2 --summary --no-setup --output $O/peers-diskann.json > $O/peers-diskann.out 2>&1
uptime > $O/load-end
echo done > $O/DONE
