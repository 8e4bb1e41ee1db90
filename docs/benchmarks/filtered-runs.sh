#!/bin/bash
# Filtered HNSW runs of the scalar-index table in README.md ("Filtered runs"): the six
# filters of the issue and no filter, on a collection without scalar indexes and on a copy
# with them, and on the copy with the search route forced to the graph and to an exact
# scan (`--route`), interleaved, ROUNDS times; rows go to $CSV, reports to $OUT.
#
#   DATA=$(../shared/bench/get-data) docs/benchmarks/filtered-runs.sh /tmp/filt [int8]
set -euo pipefail
X=${X:-target/release/xvec}
BASE=$1
QUANTIZE=${2:-none}
ROUNDS=${ROUNDS:-3}
OUT=${OUT:-$BASE/reports}
CSV=${CSV:-docs/benchmarks/hnsw.csv}
mkdir -p "$OUT"
filters=("" "lexname = 'noun.motive'" "pos = 'r'" "lexname = 'noun.animal'" "pos = 'v'" "n_lemmas >= 3" "pos = 'n'")
if [ ! -e "$BASE/plain" ]; then
    # The load: attributes come with --filter; the indexed copy gets its indexes by alter.
    "$X" bench --dataset "$DATA" --index hnsw --quantize "$QUANTIZE" --path "$BASE/plain" \
        --concurrency 1 --duration 2s --filter "pos = 'r'" -o "$OUT/load.json"
    cp -r "$BASE/plain" "$BASE/indexed"
    "$X" alter "$BASE/indexed" add-index pos inverted
    "$X" alter "$BASE/indexed" add-index lexname inverted
    "$X" alter "$BASE/indexed" add-index n_lemmas range
fi
for round in $(seq "$ROUNDS"); do
    for i in "${!filters[@]}"; do
        runs=(plain:auto indexed:auto)
        [ -n "${filters[$i]}" ] && runs+=(indexed:graph indexed:exact)
        for run in "${runs[@]}"; do
            coll=${run%%:*} route=${run#*:}
            args=(bench --dataset "$DATA" --index hnsw --path "$BASE/$coll" --skip-load --concurrency 1
                --duration 2s --route "$route" -o "$OUT/r$round-$i-$coll-$route.json" --csv "$CSV")
            [ -n "${filters[$i]}" ] && args+=(--filter "${filters[$i]}")
            "$X" "${args[@]}" > /dev/null
        done
    done
done
