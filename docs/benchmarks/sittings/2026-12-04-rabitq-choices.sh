#!/bin/sh
# The measurements behind issue 19's choices, on wordnet-minilm-384, cosine, k=10, serial
# queries on one thread, 2 build threads; every row appends to docs/benchmarks/ivf.csv.
#  1. RaBitQ's default bits: IVF (nlist 1024) at every B = 1..8, refine 0 and 4.
#  2. FastScan list sketches kept or dropped: IVF at 7861680 (entries scored one by one)
#     against this build (32 entries bounded at once), interleaved, fp32 and rabitq 7.
#  3. Centroids per segment: the same rows as 1 segment and as 4 (max_docs_per_segment
#     29,165), IVF fp32 nlist 1024, the same nprobe.
#  4. One-bit graph codes read from the sketches: HNSW rabitq 1 before (OLD_VIEW) and
#     after, interleaved.
# XVEC: this build; OLD_SCAN: a release build of 7861680; OLD_VIEW: a build of 50b1d77.
set -eu
XVEC=${XVEC:-target/release/xvec}
OLD_SCAN=${OLD_SCAN:?a release xvec built from 7861680}
OLD_VIEW=${OLD_VIEW:?a release xvec built from 50b1d77}
DATA=${DATA:-$HOME/.cache/xvec-bench/wordnet-minilm-384}
W=${W:-/tmp/bench-choices}
CSV=${CSV:-docs/benchmarks/ivf.csv}
mkdir -p "$W"
common="--dataset $DATA --metric cosine -k 10 --optimize-concurrency 2 --concurrency 1 --duration 1s --warmup 100"

# 1. Bits.
for b in 1 2 3 4 5 6 7 8; do
  $XVEC bench $common --index ivf --nlist 1024 --quantize rabitq --bits $b --refine 0 \
    --sweep nprobe=32,64,128,200 --path "$W/bits$b" -o "$W/bits$b-r0.json" --csv "$CSV" > "$W/bits$b-r0.log" 2>&1
  $XVEC bench $common --index ivf --nlist 1024 --quantize rabitq --bits $b --refine 4 \
    --sweep nprobe=32,64,128,200 --path "$W/bits$b" --skip-load -o "$W/bits$b-r4.json" --csv "$CSV" \
    > "$W/bits$b-r4.log" 2>&1
done

# 2. FastScan, interleaved: old, new, old, new.
for pass in 1 2; do
  for bin in old new; do
    x=$XVEC; [ $bin = old ] && x=$OLD_SCAN
    skip=""; [ $pass -gt 1 ] && skip="--skip-load"
    $x bench $common --index ivf --nlist 1024 --sweep nprobe=32,64,128 --path "$W/scan-$bin-fp32" $skip \
      -o "$W/scan-$bin-fp32-$pass.json" --csv "$CSV" > "$W/scan-$bin-fp32-$pass.log" 2>&1
    $x bench $common --index ivf --nlist 1024 --quantize rabitq --bits 7 --refine 0 --sweep nprobe=64,128,200 \
      --path "$W/scan-$bin-rq7" $skip -o "$W/scan-$bin-rq7-$pass.json" --csv "$CSV" > "$W/scan-$bin-rq7-$pass.log" 2>&1
  done
done

# 3. Segments: S = 1 (bench's own load) against S = 4 (xvec create/import/optimize).
S4="$W/seg4"
rm -rf "$S4"
$XVEC create "$S4" --vector emb:384:cosine --index '{"type":"ivf","nlist":1024}' --max-docs-per-segment 29165
$XVEC import "$S4" "$DATA/base.fvecs" --field emb --flush > /dev/null
$XVEC optimize "$S4" --concurrency 2 > /dev/null
$XVEC inspect "$S4" > "$W/seg4-inspect.txt" 2>&1 || true
for pass in 1 2; do
  $XVEC bench $common --index ivf --nlist 1024 --sweep nprobe=16,32,64,128 --path "$W/scan-new-fp32" --skip-load \
    -o "$W/seg1-$pass.json" --csv "$CSV" > "$W/seg1-$pass.log" 2>&1
  $XVEC bench $common --index ivf --nlist 1024 --sweep nprobe=16,32,64,128 --path "$S4" --skip-load \
    -o "$W/seg4-$pass.json" --csv "$CSV" > "$W/seg4-$pass.log" 2>&1
done

# 4. One-bit HNSW codes: before and after the view, interleaved.
for pass in 1 2; do
  for bin in old new; do
    x=$XVEC; [ $bin = old ] && x=$OLD_VIEW
    skip=""; [ $pass -gt 1 ] && skip="--skip-load"
    $x bench $common --index hnsw --m 16 --ef-construction 200 --quantize rabitq --bits 1 --refine 4 \
      --sweep ef=32,64,128 --path "$W/view-$bin" $skip -o "$W/view-$bin-$pass.json" --csv "$CSV" \
      > "$W/view-$bin-$pass.log" 2>&1
  done
done
