#!/bin/sh
# Second part of the workspace-split sitting: search only, 5 interleaved passes per binary
# over one collection per quantization (built once by the new binary; the files are the
# same format for both), to tell a change of the search path from the ±20% of one pass;
# then two more interleaved optimize runs (HNSW fp32) per binary for the build time.
set -eu
BEFORE=${BEFORE:-/work/xvec-before}
AFTER=${AFTER:-/work/xvec-after}
DATA=${DATA:-$HOME/.cache/xvec-bench/wordnet-minilm-384}
W=${W:-/work/bench-split}
cd "$W"
common="--dataset $DATA --metric cosine -k 10 --optimize-concurrency 2 --concurrency 1 --duration 1s --index hnsw --m 16 --ef-construction 200"
for q in none int8; do
  rm -rf "s-$q"
  $AFTER bench $common --quantize "$q" --sweep ef=32 --path "s-$q" --output "build-$q.json" > "build-$q.txt" 2>&1
done
for i in 1 2 3 4 5; do
  for v in before after; do
    eval X=\$$(echo $v | tr a-z A-Z)
    for q in none int8; do
      $X bench $common --quantize "$q" --sweep ef=32,64,128 --skip-load --path "s-$q" \
        --output "q-$v-$q-$i.json" --csv "search-$v.csv" > "qlog-$v-$q-$i.txt" 2>&1
    done
  done
done
for i in 4 5; do
  for v in before after; do
    eval X=\$$(echo $v | tr a-z A-Z)
    rm -rf "c-$v-none"
    $X bench $common --quantize none --sweep ef=64 --path "c-$v-none" \
      --output "r-$v-none-$i.json" --csv "split-$v.csv" > "log-$v-none-$i.txt" 2>&1
    rm -rf "c-$v-none"
  done
done
