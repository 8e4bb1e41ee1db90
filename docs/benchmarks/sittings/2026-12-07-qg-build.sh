#!/usr/bin/env bash
# Issue 39's build-time A/B: xvec qg collections of one dataset built by several binaries
# (or settings), alternating, ROUNDS rounds; each build, then its search at EFS (recall
# against the dataset's ground truth), under the lock the machine's builds share.
# hnswlib's build time comes from the same sitting's peers.py runs.
#   D: the dataset; O: where the results go (build-LABEL-R.csv); INDEX: the kind (default qg)
#   V: the variants, "LABEL=BINARY[:BENCH FLAGS, commas for spaces] ...", e.g.
#      V="main=/tmp/xvec-main one=/tmp/xvec-new one200=/tmp/xvec-new:--build-list,134"
set -u
D=${D:?the dataset directory}
O=${O:-/tmp/qg-build}; mkdir -p "$O"
EFS=${EFS:-32,48,64}
ROUNDS=${ROUNDS:-2}
INDEX=${INDEX:-qg}
L="flock /tmp/cargo.lock"
for r in $(seq "$ROUNDS"); do
  for v in ${V:?the variants}; do
    label=${v%%=*}; rest=${v#*=}; bin=${rest%%:*}; flags=""
    [[ $rest == *:* ]] && flags=${rest#*:} && flags=${flags//,/ }
    rm -rf "${O:?}/$INDEX-$label"
    echo "round $r $label $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
    # shellcheck disable=SC2086 # the flags are words
    $L "$bin" bench --dataset "$D" --index "$INDEX" --path "$O/$INDEX-$label" $flags -k 10 --sweep ef=$EFS \
      --concurrency 1 --duration 1s --warmup 100 --csv "$O/build-$label-$r.csv" > "$O/build-$label-$r.txt" 2>&1 \
      || echo "$label failed"
  done
done
echo "done $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
