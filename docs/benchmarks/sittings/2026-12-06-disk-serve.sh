#!/usr/bin/env bash
# The issue-40 serving sitting (docs/benchmarks/disk-serve.csv): words-minilm-384 (643,493
# x 384), a disk index and an HNSW index built uncapped, served under a 256 MiB memory
# cgroup with their files evicted before each run, beside the disk index uncapped; rounds
# interleaved. The collections were built with the defaults of each kind:
#   xvec bench --dataset $D --index disk --path $W/disk --sweep ef=100 --concurrency 1 --duration 1s
#   xvec bench --dataset $D --index hnsw --path $W/hnsw --sweep ef=100 --concurrency 1 --duration 1s
# The peers' rows: python3 ../shared/bench/peers.py --dataset $D --peers diskann-disk,zvec-diskann
#   --cgroup-mem 256 --cgroup-phase search --drop-caches --ef 20,32,48,64,100,150,200 --repeat 2
#   --threads 2 --output peers-disk.json; then disk_serve_csv.py joins them.
set -u
D=${D:-$HOME/.cache/xvec-bench/words-minilm-384}
X=${X:-target/release/xvec}
CAP=$(dirname "$0")/../cgroup-cap.sh
W=${W:-/work/bench-words}
CSV=$W/out/disk-serve.csv
ROUNDS=${ROUNDS:-2}
EF_DISK=20,32,48,64,100
EF_HNSW=64,100
common=(--dataset "$D" --skip-load --concurrency 1,2 --duration 3s --warmup 50 --cooldown 0.5s --csv "$CSV")
for r in $(seq ${FIRST:-1} "$ROUNDS"); do
  echo "== round $r $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
  $CAP --evict $W/disk --stats $W/out/cap-disk-$r.txt 256M -- \
    $X --memory-budget 200MiB bench "${common[@]}" --path $W/disk --index disk --sweep ef=$EF_DISK \
       --output $W/out/disk-capped-$r.json > $W/out/disk-capped-$r.txt 2>&1
  echo "disk capped: status $? $(tr '\n' ' ' < $W/out/cap-disk-$r.txt)"
  $CAP --evict $W/hnsw --stats $W/out/cap-hnsw-$r.txt 256M -- \
    $X --memory-budget 200MiB bench "${common[@]}" --path $W/hnsw --index hnsw --sweep ef=$EF_HNSW \
       --output $W/out/hnsw-capped-$r.json > $W/out/hnsw-capped-$r.txt 2>&1
  echo "hnsw capped: status $? $(tr '\n' ' ' < $W/out/cap-hnsw-$r.txt)"
  $X bench "${common[@]}" --path $W/disk --index disk --sweep ef=$EF_DISK \
       --output $W/out/disk-uncapped-$r.json > $W/out/disk-uncapped-$r.txt 2>&1
  echo "disk uncapped: status $?"
done
echo "== end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
