#!/usr/bin/env bash
# Issue 42's ingest A/B of the engine's write path (docs/benchmarks/ray.csv rows of
# 2026-12-07T16:46-17:07Z with "engine writes" in the note): two release wheels, A of main and
# B of the branch, each unpacked for its own interpreter (a venv whose .pth names the
# unpacked wheel first, so Ray's workers run the driver's side), run interleaved A, B, A, B.
#   ingest   $ROUNDS x (A, B) of bench_ray.py --ingest-only: ray.data.read_parquet of the
#            Parquet and xvec.ray.write into 2 shards (optimize=False), timed as always
#   writer   $ROUNDS x (A, B) of sittings/2026-12-07-ray-shard-writes.py: one shard
#            writer's writes without Ray (user, system CPU and page faults)
# SET names a repeated sitting in the notes (the second set of rounds: SET=2).
# Wheels: maturin build --release -o DIR --manifest-path crates/xvec-py/Cargo.toml, at
# each side's commit. Run each step under flock /tmp/cargo.lock.
set -u
WHEEL_A=${WHEEL_A:?a release wheel of main}
WHEEL_B=${WHEEL_B:?a release wheel of the branch}
COMMIT_A=${COMMIT_A:?the commit of main, for the CSV}
COMMIT_B=${COMMIT_B:?the commit of the branch}
VENV=${VENV:-target/py-venv}   # has ray[data], pyarrow, numpy
S=${S:-/tmp/ray-engine-ab}
D=${D:-$HOME/.cache/xvec-bench/words-minilm-384}
W=${W:-/work/bench-ray-ingest}
ROUNDS=${ROUNDS:-5}
CSV=${CSV:-docs/benchmarks/ray.csv}
step=${1:?ingest or writer}
here=$(cd "$(dirname "$0")" && pwd)

if [ ! -d "$S/venvB" ]; then
  rm -rf "$S"
  site=$(cd "$VENV" && pwd)/lib/python3.11/site-packages
  for side in A B; do
    wheel=WHEEL_$side
    mkdir -p "$S/$side" && (cd "$S/$side" && unzip -q "${!wheel}")
    "$(readlink -f "$VENV/bin/python")" -m venv --without-pip "$S/venv$side"
    printf '%s\n%s\n' "$S/$side" "$site" > "$S/venv$side/lib/python3.11/site-packages/ab.pth"
  done
fi

for r in $(seq "$ROUNDS"); do
  for side in A B; do
    commit=COMMIT_$side
    note="engine writes $step${SET:+ set $SET} round $r of $ROUNDS, side $side (A: main, B: WAL pages dropped after each sync, memtable scan codes on first search, values checked once)"
    echo "== $note $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
    case $step in
      ingest)
        XVEC_COMMIT="${!commit} (wheel of side $side)" "$S/venv$side/bin/python" crates/xvec-py/bench/bench_ray.py \
          --data "$D" --work "$W" --xvec target/release/xvec --shards 2 --ef 64 --ingest-only --csv "$CSV" \
          --note "$note" | grep -E '"sharded_ingest_rows_per_s"|worker_xvec' ;;
      writer)
        XVEC_COMMIT="${!commit} (wheel of side $side)" "$S/venv$side/bin/python" "$here/2026-12-07-ray-shard-writes.py" \
          --parquet "$W/words.parquet" --work "$W" --csv "$CSV" --note "$note" ;;
      *) echo "unknown step $step" >&2; exit 2 ;;
    esac
    sleep 2
  done
done
