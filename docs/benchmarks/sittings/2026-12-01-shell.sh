#!/usr/bin/env bash
# The export-size and TUI-recall rows of docs/benchmarks/{export,tui-recall}.csv (2026-12-01).
# X: the xvec binary under test. Run from the repository root.
set -euo pipefail
X=${X:-target/debug/xvec}
d=$(mktemp -d)
sed 's/"index": {"type": "flat"}/"index": {"type": "hnsw", "m": 8, "ef_construction": 32}/' commands/data/schema.json > "$d/schema.json"
$X create "$d/w" --schema "$d/schema.json"
$X import "$d/w" commands/data/wordnet.jsonl --vectors emb=commands/data/wordnet.fvecs --flush
$X optimize "$d/w"
$X export "$d/w" -o "$d/w.jsonl"
python3 -c "import sys; l=open(sys.argv[1],'rb').read().splitlines(); print('mean bytes/row', sum(map(len,l))/len(l))" "$d/w.jsonl"
for ef in 10 20 64; do
    $X tui "$d/w" --headless --json --duration 2s --concurrency 1 --ef $ef | python3 -c "import json,sys; v=json.load(sys.stdin); print($ef, 'sampled', v['recall'])"
    $X tui "$d/w" --headless --json --duration 2s --concurrency 1 --ef $ef --queries commands/data/queries.fvecs | python3 -c "import json,sys; v=json.load(sys.stdin); print($ef, 'real', v['recall'])"
done
