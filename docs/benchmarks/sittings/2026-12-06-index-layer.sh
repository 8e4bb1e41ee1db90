#!/bin/bash
# Issue 38's before/after sitting: the index-layer refactor changes no measured speed.
# `xvec bench` on wordnet-minilm-384 (cosine, k 10, serial queries on one thread) for
# Flat, HNSW (M 16, ef_construction 200, ef sweep), Vamana (defaults, ef sweep) and IVF
# (defaults, nprobe sweep), each built on one thread so that a build is deterministic and
# recall must match exactly (a 2-thread HNSW build varies from run to run). The binary
# built before the refactor ($BEFORE, commit e06da3a) and the one built from HEAD
# ($AFTER) alternate: every round runs each kind as before, after, before, so each round
# has a before-vs-before pair, the spread the after runs are held to. ROUNDS rounds (3).
# Every run builds its own collection (build time measured) and appends its rows to $CSV;
# the JSON reports stay in $W and docs/benchmarks/index_layer_table.py prints the
# comparison into $W/table.md.
#
# One command, from the repository root, on a quiet machine (about 20 minutes):
#     BEFORE=/path/to/xvec-at-e06da3a docs/benchmarks/sittings/2026-12-06-index-layer.sh
# The before binary: `git worktree add --detach /tmp/before e06da3a && cd /tmp/before &&
# cargo build --release -p xvec-cli` (BEFORE=/tmp/before/target/release/xvec).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
DATA=${DATA:-$HOME/.cache/xvec-bench/wordnet-minilm-384}
ROUNDS=${ROUNDS:-3}
W=${W:-/tmp/xvec-sitting-index-layer}
CSV=${CSV:-docs/benchmarks/index-layer.csv}
AFTER=${AFTER:-target/release/xvec}
BEFORE_COMMIT=${BEFORE_COMMIT:-e06da3a}
KINDS=${KINDS:-flat hnsw vamana ivf}
: "${BEFORE:?set BEFORE to the xvec binary built at $BEFORE_COMMIT}"
mkdir -p "$W"
lock() { if command -v flock >/dev/null; then flock /tmp/cargo.lock "$@"; else "$@"; fi; }
[ "${BUILD:-1}" = 1 ] && lock cargo build --release -p xvec-cli
AFTER_COMMIT=$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- . ':!docs/benchmarks' || echo -dirty)

common="--dataset $DATA --metric cosine -k 10 --optimize-concurrency 1 --concurrency 1 --duration 1s --cooldown 0s"
args() {
  case $1 in
    flat) echo "--index flat" ;;
    hnsw) echo "--index hnsw --m 16 --ef-construction 200 --sweep ef=16,32,64,128" ;;
    vamana) echo "--index vamana --sweep ef=16,32,64,128" ;;
    ivf) echo "--index ivf --sweep nprobe=4,8,16,32" ;;
  esac
}
# run SIDE KIND ROUND TAG: one bench run of KIND with the SIDE binary.
run() {
  local bin commit
  if [ "$1" = before ]; then bin=$BEFORE commit=$BEFORE_COMMIT; else bin=$AFTER commit=$AFTER_COMMIT; fi
  # shellcheck disable=SC2046
  XVEC_COMMIT=$commit "$bin" bench $common $(args "$2") --path "$W/coll" \
    --output "$W/$2-$1-$3-$4.json" --csv "$CSV" > "$W/$2-$1-$3-$4.log" 2>&1
  rm -rf "$W/coll"
}

{ date -u; uptime; lscpu | grep 'Model name'; echo "before $BEFORE_COMMIT after $AFTER_COMMIT"; } > "$W/start"
for r in $(seq 1 "$ROUNDS"); do
  for kind in $KINDS; do
    for step in "before a" "after a" "before b"; do
      set -- $step
      echo "$(date -u +%T) round $r: $kind $1 (load $(cut -d' ' -f1-3 /proc/loadavg))"
      run "$1" "$kind" "$r" "$2"
    done
  done
done
{ date -u; uptime; } > "$W/end"
python3 docs/benchmarks/index_layer_table.py "$W" | tee "$W/table.md"
