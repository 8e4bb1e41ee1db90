#!/bin/bash
# Insert throughput: 50,000 x 384-d fp32 rows through `xvec import`, batches of 1,000, one
# old = df1fbe0 (WAL version 1), new = 5ed1b3a (WAL version 2); both release builds copied to /tmp/xvec-old, /tmp/xvec-new.
# base.fvecs: 50,000 x 384 uniform(-1, 1) fp32, python random.seed(1).
# WAL fsync per batch (the default sync policy), old and new binaries interleaved.
set -e
cd /tmp/ins
for rep in 1 2 3; do
  for b in old new; do
    rm -rf c-$b; /tmp/xvec-$b create c-$b --vector emb:384:l2 >/dev/null 2>&1
    s=$(date +%s.%N); /tmp/xvec-$b import c-$b base.fvecs --field emb --batch-size 1000 >/dev/null 2>&1; e=$(date +%s.%N)
    echo "$b rep$rep $(python3 -c "print(f'{50000/($e-$s):.0f} rows/s {($e-$s):.3f} s')") load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
