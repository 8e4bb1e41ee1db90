#!/bin/sh
# The workspace split (issue 16) against the commit before it (b1d8964): the same `xvec
# bench` runs with each binary, interleaved (before, after, before, after, ...), 3 each,
# on wordnet-minilm-384: HNSW fp32 and HNSW int8 (the code scorer moved), m=16,
# ef_construction=200, ef 32/64/128, 2 build threads, serial queries on 1 thread.
# Every run appends its rows to split-{before,after}.csv; medians of 3 go in the note.
# BEFORE, AFTER: release binaries of b1d8964 and of the split.
set -eu
BEFORE=${BEFORE:-/work/xvec-before}
AFTER=${AFTER:-/work/xvec-after}
DATA=${DATA:-$HOME/.cache/xvec-bench/wordnet-minilm-384}
W=${W:-/work/bench-split}
cd "$W"
for i in 1 2 3; do
  for v in before after; do
    eval X=\$$(echo $v | tr a-z A-Z)
    for q in none int8; do
      rm -rf "c-$v-$q"
      $X bench --dataset "$DATA" --metric cosine -k 10 --optimize-concurrency 2 --concurrency 1 \
        --duration 1s --index hnsw --m 16 --ef-construction 200 --quantize "$q" --sweep ef=32,64,128 \
        --path "c-$v-$q" --output "r-$v-$q-$i.json" --csv "split-$v.csv" > "log-$v-$q-$i.txt" 2>&1
      rm -rf "c-$v-$q"
    done
  done
done
