#!/usr/bin/env bash
# Issue 42's query_batch and ingest A/B after the sharded search split its CPUs
# (docs/benchmarks/ray.csv, rows of 2026-12-07T07:06-07:38): old and new xvec.ray on one
# release extension, each side its own interpreter (a venv whose .pth names the unpacked
# package first, so Ray's workers run the driver's side), interleaved A, B, A, B...
#   A: xvec.ray of $MAIN; B: xvec.ray of $NEW (both on the wheel's extension).
# Steps (run under flock /tmp/cargo.lock, one at a time):
#   build           side A, the whole bench: Parquet, one collection, the sharded one, rounds
#   batch           $ROUNDS x (A, B) of --batch-only (3 query_batch rounds each, the median)
#   ingest          $ROUNDS x (A, B) of --ingest-only
#   profile-batch SIDE / profile-ingest SIDE
#                   one run under `perf record -a -g -k CLOCK_MONOTONIC`; the output's
#                   `timed` span is the one to report (`perf report --time START,END`)
# Run as: build; profile-batch A; profile-batch B; batch; profile-ingest A; profile-ingest B;
# ingest; ingest; batch; then NOTE=... ARROW_DEFAULT_MEMORY_POOL=jemalloc ROUNDS=2 ... ingest
# and three rounds of { NOTE="set 3 round $r, default memory pool" ROUNDS=1 ... ingest;
# ARROW_DEFAULT_MEMORY_POOL=jemalloc NOTE="set 3 round $r, ..." ROUNDS=1 ... ingest }.
set -u
WHEEL=${WHEEL:?a wheel of the branch: maturin build --release -o DIR}
MAIN=${MAIN:-main}
NEW=${NEW:-HEAD}
VENV=${VENV:-target/py-venv}   # has ray[data], pyarrow, numpy
S=${S:-/tmp/ray-ab2}
D=${D:-$HOME/.cache/xvec-bench/words-minilm-384}
W=${W:-/work/bench-ray}
ROUNDS=${ROUNDS:-3}
CSV=${CSV:-docs/benchmarks/ray.csv}
# NOTE: added to every row's note (e.g. an environment variable the run was given).
step=${1:?build, batch, ingest, profile-batch SIDE or profile-ingest SIDE}
bench=crates/xvec-py/bench/bench_ray.py

setup() {  # the venvs once; each side's xvec.ray afresh from git every step
  if [ ! -d "$S/venvB" ]; then
    rm -rf "$S"; mkdir -p "$S/A"; (cd "$S/A" && unzip -q "$WHEEL"); cp -r "$S/A" "$S/B"
    site=$(cd "$VENV" && pwd)/lib/python3.11/site-packages
    for side in A B; do
      "$(readlink -f "$VENV/bin/python")" -m venv --without-pip "$S/venv$side"
      printf '%s\n%s\n' "$S/$side" "$site" > "$S/venv$side/lib/python3.11/site-packages/ab.pth"
    done
  fi
  for f in __init__.py _actors.py _data.py _merge.py _root.py _sharded.py; do
    git show "$MAIN:crates/xvec-py/python/xvec/ray/$f" > "$S/A/xvec/ray/$f"
    git show "$NEW:crates/xvec-py/python/xvec/ray/$f" > "$S/B/xvec/ray/$f"
  done
}

commit() {  # the CSV's commit column for a side
  if [ "$1" = A ]; then echo "$(git rev-parse --short=12 "$MAIN") (xvec.ray of main on the wheel's extension)"
  else echo "$(git rev-parse --short=12 "$NEW") (xvec.ray of the branch on the wheel's extension)"; fi
}

run() {  # side, note, bench args...
  local side=$1 note="$2${NOTE:+, $NOTE}"; shift 2
  echo "== $note side $side $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
  XVEC_COMMIT=$(commit "$side") "$S/venv$side/bin/python" $bench --data "$D" --work "$W" \
    --xvec target/release/xvec --shards 2 --ef 64 "$@" --note "$note, side $side"
}

setup
case $step in
  build) run A "build run" --rounds 3 --csv "$CSV" ;;
  batch | ingest)
    for r in $(seq "$ROUNDS"); do
      for side in A B; do
        run "$side" "$step A/B round $r of $ROUNDS" "--$step-only" --rounds 3 --csv "$CSV"
        sleep 2
      done
    done ;;
  profile-batch | profile-ingest)
    side=${2:?A or B}; what=${step#profile-}
    XVEC_COMMIT=$(commit "$side") perf record -F 499 -a -g -k CLOCK_MONOTONIC -o "$S/perf-$what-$side.data" -- \
      "$S/venv$side/bin/python" $bench --data "$D" --work "$W" --xvec target/release/xvec --shards 2 --ef 64 \
      "--$what-only" --rounds 30 $([ "$what" = batch ] && echo --sharded-only) --csv "$CSV" --note "under perf, side $side" ;;
  *) echo "unknown step $step" >&2; exit 2 ;;
esac
