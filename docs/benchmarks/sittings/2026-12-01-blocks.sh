#!/bin/sh
# Block checksums (segment/index version 2) against the commit before them: open time
# (`xvec count`, which opens read-only and checksums every section, vectors included)
# and `xvec verify` throughput, on 116,659 × 384-d fp32 synthetic rows (one 182 MB
# segment, flat index). Old and new runs alternate, 9 each; medians go to blocks.csv.
# OLD, NEW: release binaries of e5a10c2 and of the block-checksum commit.
set -eu
OLD=${OLD:-/tmp/xvec-old-e5a10c2}
NEW=${NEW:-/tmp/xvec-new}
W=${W:-/work/bench-blocks}
cd "$W"
# base.fvecs: 116,659 rows of 384 N(0,1) floats (Python random.seed(7), gauss per element).
cat > schema.json <<'J'
{"name":"synthetic","fields":[{"name":"emb","type":"vector_fp32","dim":384,"metric":"cosine","index":{"type":"flat"}}]}
J
for v in old new; do
  eval X=\$$(echo $v | tr a-z A-Z)
  rm -rf c-$v
  $X create c-$v --schema schema.json >/dev/null
  $X import c-$v base.fvecs --field emb --flush >/dev/null 2>&1
done
ms() { s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
for v in old new; do eval X=\$$(echo $v | tr a-z A-Z); $X count c-$v >/dev/null; $X verify c-$v >/dev/null 2>&1; done
for i in 1 2 3 4 5 6 7 8 9; do
  for v in old new; do
    eval X=\$$(echo $v | tr a-z A-Z)
    echo "open $v $(ms $X count c-$v)"
    echo "verify $v $($X verify c-$v 2>&1 >/dev/null | sed -n 's/.*(\([0-9.]*\) MB\/s).*/\1/p')"
  done
done
