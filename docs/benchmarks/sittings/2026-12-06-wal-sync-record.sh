#!/bin/bash
# Cost of the WAL sync record (WAL.sync, one 64-byte slot write after each WAL fsync):
# the 2026-12-01 WAL insert sitting's command, 50,000 x 384-d fp32 rows through
# `xvec import`, batches of 1,000, one WAL fsync per batch (the default sync policy).
# base = 6e8cc6e (no sync record), with = 1f667dc (sync record); release builds copied to
# /tmp/xvec-wal-base and /tmp/xvec-wal-with, runs interleaved base, with, base, with, ...
# base.fvecs: 50,000 x 384 uniform(-1, 1) fp32, python random.seed(1) (see the 2026-12-01 script).
set -e
cd /tmp/ins
for rep in 1 2 3 4 5; do
  for b in base with; do
    rm -rf c-$b; /tmp/xvec-wal-$b create c-$b --vector emb:384:l2 >/dev/null 2>&1
    l0=$(cut -d' ' -f1 /proc/loadavg)
    s=$(date +%s.%N); /tmp/xvec-wal-$b import c-$b base.fvecs --field emb --batch-size 1000 >/dev/null 2>&1; e=$(date +%s.%N)
    l1=$(cut -d' ' -f1 /proc/loadavg)
    echo "$b,$rep,$l0,$l1,$(python3 -c "print(f'{($e-$s):.3f},{50000/($e-$s):.0f}')")"
  done
done
