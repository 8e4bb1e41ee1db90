#!/bin/sh
# The closing sitting of issue 19 (after 113536d: RaBitQ 8 bits by default, int8-ranked
# centroids, list bounds from other segments). IVF, IVF-RaBitQ and HNSW-RaBitQ on wordnet-minilm-384, cosine, k=10, serial
# queries on one thread, 2 build threads, nlist 1024; the peers of the same families from
# ../shared/bench/peers.py in the same sitting, interleaved with ours: xvec pass 1, the
# peers (3 interleaved passes of their own), xvec passes 2 and 3. Our runs append to
# docs/benchmarks/ivf.csv (`--csv`), the peers' go through peers_to_csv.py.
# XVEC: release binary; PY: the peers' python (printed by ../shared/bench/peers-setup).
set -eu
XVEC=${XVEC:-target/release/xvec}
PY=${PY:?the peers python, from ../shared/bench/peers-setup}
DATA=${DATA:-$HOME/.cache/xvec-bench/wordnet-minilm-384}
W=${W:-/tmp/bench-ivf-final}
CSV=${CSV:-docs/benchmarks/ivf.csv}
mkdir -p "$W"
common="--dataset $DATA --metric cosine -k 10 --optimize-concurrency 2 --concurrency 1 --duration 1s --warmup 100"
ours() {
  pass=$1
  skip=""
  [ "$pass" -gt 1 ] && skip="--skip-load"
  $XVEC bench $common --index ivf --nlist 1024 --sweep nprobe=16,32,48,64,96,128 \
    --path "$W/ivf-fp32" $skip -o "$W/ivf-fp32-$pass.json" --csv "$CSV" > "$W/ivf-fp32-$pass.log" 2>&1
  for b in 1 4 8; do
    $XVEC bench $common --index ivf --nlist 1024 --quantize rabitq --bits $b --refine 0 \
      --sweep nprobe=16,32,64,96,128,200 --path "$W/ivf-rq$b" $skip \
      -o "$W/ivf-rq$b-r0-$pass.json" --csv "$CSV" > "$W/ivf-rq$b-r0-$pass.log" 2>&1
    $XVEC bench $common --index ivf --nlist 1024 --quantize rabitq --bits $b --refine 4 \
      --sweep nprobe=16,32,64,96,128,200 --path "$W/ivf-rq$b" --skip-load \
      -o "$W/ivf-rq$b-r4-$pass.json" --csv "$CSV" > "$W/ivf-rq$b-r4-$pass.log" 2>&1
  done
  for q in "rabitq --bits 8" "int8"; do
    name=$(echo "$q" | tr -d ' -')
    $XVEC bench $common --index hnsw --m 16 --ef-construction 200 --quantize $q \
      --sweep ef=16,24,32,48,64,96,128 --path "$W/hnsw-$name" $skip \
      -o "$W/hnsw-$name-$pass.json" --csv "$CSV" > "$W/hnsw-$name-$pass.log" 2>&1
  done
}
ours 1
$PY ../shared/bench/peers.py --dataset "$DATA" --metric cosine -k 10 --threads 2 --repeat 3 --nlist 1024 \
  --peers faiss-ivf-flat,zvec-ivf,faiss-ivf-rabitq,faiss-ivf-rabitq-refine,zvec-ivf-rabitq \
  --ef 16,32,48,64,96,128,200 --output "$W/peers-ivf.json" > "$W/peers-ivf.log" 2>&1
$PY ../shared/bench/peers.py --dataset "$DATA" --metric cosine -k 10 --threads 2 --repeat 3 \
  --peers zvec-hnsw-rabitq --ef 16,24,32,48,64,96,128 --output "$W/peers-hnsw-rabitq.json" \
  > "$W/peers-hnsw-rabitq.log" 2>&1
ours 2
ours 3
python3 docs/benchmarks/peers_to_csv.py "$W/peers-ivf.json" "$CSV" \
  --command "peers.py --peers faiss-ivf-flat,zvec-ivf,faiss-ivf-rabitq,faiss-ivf-rabitq-refine,zvec-ivf-rabitq --nlist 1024 --ef 16,32,48,64,96,128,200 --threads 2 --repeat 3"
python3 docs/benchmarks/peers_to_csv.py "$W/peers-hnsw-rabitq.json" "$CSV" \
  --command "peers.py --peers zvec-hnsw-rabitq --ef 16,24,32,48,64,96,128 --threads 2 --repeat 3"
