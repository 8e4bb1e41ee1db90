#!/usr/bin/env bash
# The third issue-40 serving sitting (docs/benchmarks/disk-serve.csv, rows s3-*): the disk
# index with packed neighbour lists (every list of words-minilm-384 fits beside the 4-bit
# codes in the budget), served under a 256 MiB memory cgroup beside its own uncapped run,
# the HNSW index under the same cap, and the disk peers (diskann-disk, zvec-diskann) in the
# same sitting under the same cap. The collections are built uncapped with each kind's
# defaults (as in sittings/2026-12-06-disk-serve.sh):
#   xvec bench --dataset $D --index disk --path $W/disk --sweep ef=100 --concurrency 1 --duration 1s
#   xvec bench --dataset $D --index hnsw --path $W/hnsw --sweep ef=100 --concurrency 1 --duration 1s
# Every xvec run warms up on 20,000 base rows (--warmup-from base), never on the measured
# queries. Rounds interleave capped and uncapped; the peers rebuild their indexes every
# run (about 10 and 18 minutes), so they run once, between the rounds.
set -u
D=${D:-$HOME/.cache/xvec-bench/words-minilm-384}
X=${X:-target/release/xvec}
CAP=$(dirname "$0")/../cgroup-cap.sh
PEERS=${PEERS:-$(dirname "$0")/../../../../shared/bench}
W=${W:-/work/bench-words}
OUT=$W/out/s3
CSV=$OUT/disk-serve-3.csv
ROUNDS=${ROUNDS:-3}
BUDGET=${BUDGET:-190MiB}
mkdir -p "$OUT"
common=(--dataset "$D" --skip-load --concurrency 1,2 --duration 3s --cooldown 0.5s --csv "$CSV")
warm=(--warmup 20000 --warmup-from base)
disk_round() {
  local r=$1
  echo "== round $r $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
  $CAP --evict $W/disk --stats $OUT/cap-disk-$r.txt 256M -- \
    $X --memory-budget "$BUDGET" bench "${common[@]}" "${warm[@]}" --path $W/disk --index disk \
       --sweep ef=48,64,80,100 --output $OUT/disk-capped-$r.json > $OUT/disk-capped-$r.txt 2>&1
  echo "disk capped: status $? $(tr '\n' ' ' < $OUT/cap-disk-$r.txt)"
  $X bench "${common[@]}" "${warm[@]}" --path $W/disk --index disk --sweep ef=48,64,80,100 \
     --output $OUT/disk-uncapped-$r.json > $OUT/disk-uncapped-$r.txt 2>&1
  echo "disk uncapped: status $?"
}
disk_round 1
if [ -d $W/hnsw ]; then
  $CAP --evict $W/hnsw --stats $OUT/cap-hnsw.txt 256M -- \
    $X --memory-budget "$BUDGET" bench "${common[@]}" --warmup 50 --path $W/hnsw --index hnsw \
       --sweep ef=64,100 --output $OUT/hnsw-capped.json > $OUT/hnsw-capped.txt 2>&1
  echo "hnsw capped: status $? $(tr '\n' ' ' < $OUT/cap-hnsw.txt)"
else
  echo "hnsw capped: skipped, no collection at $W/hnsw"
fi
if [ -z "${NO_PEERS:-}" ]; then
  echo "== peers $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$("$PEERS/peers-setup")" "$PEERS/peers.py" --dataset "$D" --peers diskann-disk,zvec-diskann \
    --cgroup-mem 256 --cgroup-phase search --drop-caches --ef 32,48,64,100,150 --repeat 2 \
    --threads 2 --output $OUT/peers-disk.json > $OUT/peers-disk.txt 2>&1
  echo "peers: status $?"
fi
for r in $(seq 2 "$ROUNDS"); do disk_round "$r"; done
echo "== end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
