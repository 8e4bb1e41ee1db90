#!/usr/bin/env bash
# The second issue-40 serving sitting (docs/benchmarks/disk-serve.csv, rows s2-*): the
# same words-minilm-384 collections as sittings/2026-12-06-disk-serve.sh, served by the
# disk index with io_uring reads (O_DIRECT under the budget) and its neighbour-list cache.
# The cache fills as searches read nodes, so every run warms up with 20,000 base rows
# (--warmup-from base), never with the measured queries; `cached_nodes` shows the cache
# was full before the first timed pass. Rounds interleaved: capped at beam 4 and 8, the
# HNSW index capped, the disk index uncapped (no budget: an 8 MiB cache and the page
# cache).
set -u
D=${D:-$HOME/.cache/xvec-bench/words-minilm-384}
X=${X:-target/release/xvec}
CAP=$(dirname "$0")/../cgroup-cap.sh
W=${W:-/work/bench-words}
CSV=$W/out/disk-serve-2.csv
ROUNDS=${ROUNDS:-2}
common=(--dataset "$D" --skip-load --concurrency 1,2 --duration 3s --cooldown 0.5s --csv "$CSV")
warm=(--warmup 20000 --warmup-from base)
for r in $(seq ${FIRST:-1} "$ROUNDS"); do
  echo "== round $r $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
  for beam in 4 8; do
    $CAP --evict $W/disk --stats $W/out/cap2-disk-b$beam-$r.txt 256M -- \
      $X --memory-budget 190MiB bench "${common[@]}" "${warm[@]}" --path $W/disk --index disk \
         --beam-width $beam --sweep ef=64,80,100 --output $W/out/disk2-capped-b$beam-$r.json \
         > $W/out/disk2-capped-b$beam-$r.txt 2>&1
    echo "disk capped beam $beam: status $? $(tr '\n' ' ' < $W/out/cap2-disk-b$beam-$r.txt)"
  done
  if [ "$r" = 1 ]; then
    $CAP --evict $W/hnsw --stats $W/out/cap2-hnsw-$r.txt 256M -- \
      $X --memory-budget 190MiB bench "${common[@]}" --warmup 50 --path $W/hnsw --index hnsw \
         --sweep ef=64,100 --output $W/out/hnsw2-capped-$r.json > $W/out/hnsw2-capped-$r.txt 2>&1
    echo "hnsw capped: status $? $(tr '\n' ' ' < $W/out/cap2-hnsw-$r.txt)"
  fi
  $X bench "${common[@]}" "${warm[@]}" --path $W/disk --index disk --sweep ef=48,64,80 \
     --output $W/out/disk2-uncapped-$r.json > $W/out/disk2-uncapped-$r.txt 2>&1
  echo "disk uncapped: status $?"
done
echo "== end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
