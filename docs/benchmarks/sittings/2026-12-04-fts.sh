#!/bin/sh
# Full-text and hybrid search on wordnet-minilm-384: xvec (bench --text), then bm25s and
# tantivy (fts_peers.py), then xvec again; all rows into docs/benchmarks/fts.csv.
# Setup: ../shared/bench/get-data; the peers' venv as fts_peers.py's docstring says.
set -e
DATA=~/.cache/xvec-bench/wordnet-minilm-384
cargo build --release -p xvec-cli
./target/release/xvec bench --dataset $DATA --index hnsw --text gloss --repeat 3 --csv docs/benchmarks/fts.csv
~/.cache/xvec-bench/fts-venv/bin/python docs/benchmarks/fts_peers.py --repeat 3 --csv docs/benchmarks/fts.csv
./target/release/xvec bench --dataset $DATA --index hnsw --text gloss --repeat 3 --csv docs/benchmarks/fts.csv
