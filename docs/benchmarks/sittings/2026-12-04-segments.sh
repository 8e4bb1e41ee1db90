#!/bin/sh
# One segment against four after 113536d (int8-ranked centroids, list bounds from the
# segments searched before): IVF fp32 nlist 1024 on wordnet-minilm-384, cosine, k=10,
# serial, two interleaved passes; rows append to docs/benchmarks/ivf.csv. SEG1: a
# collection `xvec bench --index ivf --nlist 1024` loaded (one segment); SEG4 is made here.
set -eu
XVEC=${XVEC:-target/release/xvec}
DATA=${DATA:-$HOME/.cache/xvec-bench/wordnet-minilm-384}
SEG1=${SEG1:?a one-segment IVF collection made by xvec bench}
W=${W:-/tmp/bench-segments}
CSV=${CSV:-docs/benchmarks/ivf.csv}
mkdir -p "$W"
S4="$W/seg4"
rm -rf "$S4"
$XVEC create "$S4" --vector emb:384:cosine --index '{"type":"ivf","nlist":1024}' --max-docs-per-segment 29165
$XVEC import "$S4" "$DATA/base.fvecs" --field emb --flush > /dev/null
$XVEC optimize "$S4" --concurrency 2 > /dev/null
common="--dataset $DATA --metric cosine -k 10 --concurrency 1 --duration 1s --warmup 100 --index ivf --nlist 1024"
for pass in 1 2; do
  for s in 1 4; do
    p=$SEG1; [ $s = 4 ] && p=$S4
    $XVEC bench $common --sweep nprobe=16,32,64,128 --path "$p" --skip-load -o "$W/seg$s-$pass.json" \
      --csv "$CSV" > "$W/seg$s-$pass.log" 2>&1
  done
done
