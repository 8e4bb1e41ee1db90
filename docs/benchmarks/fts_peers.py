#!/usr/bin/env python3
"""Full-text BM25 search by two peers, bm25s and tantivy, on the WordNet glosses.

What it measures, per peer, on the `wordnet-minilm-384` dataset (`base.jsonl`,
`queries.jsonl`), to sit beside xvec's own FTS figures:

- Documents: every base line's `gloss`, doc id = its `row`.  Queries: each query
  line's `lemmas` joined by a space ("skeet skeet shooting trapshooting"), a
  disjunctive (OR) BM25 query over the glosses, top `--k`.
- Indexing: wall time and docs/s of analysis + index build (for tantivy also the
  commit, the wait for merges and the reader reload).  Reading the JSON is not timed.
- Search: single-threaded per-query latency (perf_counter_ns around query analysis,
  search and the mapping to rows) over all queries, `--repeat` passes interleaved
  between the peers (pass 1: bm25s, tantivy; pass 2: ...).  Reported: p50/p99/mean
  latency and QPS (= queries / sum of latencies) of the best pass (highest QPS) and of
  every pass.
- Peak RSS: each peer runs in its own spawned process; its VmHWM at the end, which
  includes the interpreter and the process's own copy of the glosses.
- Sanity: overlap@k between the peers' top-k lists (mean of |A & B| / k), and the
  queries whose score lists agree at every rank (see `agreement`).

Analysis, as close as the peers allow to xvec's `standard` tokenizer + `lowercase` +
`stop_en` (Lucene's 33 English stop words) + `stem_en` (Porter2), and identical in both
peers: runs of Unicode letters and digits, lowercased, the 33 stop words dropped,
Snowball English (Porter2) stems.
- bm25s: `bm25s.tokenize(stopwords="en", stemmer=Stemmer.Stemmer("english"),
  token_pattern=r"(?u)[^\\W_]+")` (its default pattern drops one-letter words); BM25
  with k1 = 1.2, b = 0.75, method="lucene", numpy backend; `retrieve(n_threads=0,
  backend_selection="numpy")`, one query per call; hits with score 0 (no query term)
  are dropped.  Most of its query time is `np.argpartition` over a dense array of every
  document's score, mostly zeros, which numpy's selection handles slowly.  Its numba
  backend (`backend="numba"`, needs the numba package) is not measured here.
- tantivy: the `en_stem` chain (simple tokenizer, remove_long(40), lowercase, English
  stemmer) with Lucene's stop words added, registered as a custom analyzer on a text
  field with positions; one writer thread, on disk in a temporary directory.  The query
  is a BooleanQuery of SHOULD term queries, `searcher.search(query, k, count=False)`,
  rows read from a fast field.  `index.parse_query` is not used: it turns `hot-air`
  into a phrase query and scores a repeated word twice.
- Both score each distinct query term once, as xvec does.
- Left apart from xvec's UAX #29 words: `fox's` and `3.14` split at the apostrophe or
  point, `comic_strip` at the underscore.  tantivy stores document lengths as one-byte
  approximations (exact below 40 terms).  Ties at the k-th score break differently
  (tantivy: lower row first; bm25s: whatever np.argpartition leaves), which is most of
  what keeps overlap@k below 1; queries neither peer answers count 0 in it.

Setup and a run (the venv holds bm25s, PyStemmer, tantivy and numpy):

    python3 -m venv ~/.cache/xvec-bench/fts-venv
    ~/.cache/xvec-bench/fts-venv/bin/pip install bm25s==0.3.16 PyStemmer==3.1.0 \\
        tantivy==0.27.0 numpy==2.4.6
    ~/.cache/xvec-bench/fts-venv/bin/python docs/benchmarks/fts_peers.py --repeat 3 \\
        --output /tmp/fts-peers.json --csv /tmp/fts-peers.csv --hits /tmp/fts-peers-hits.jsonl
"""

import argparse
import csv
import gc
import json
import multiprocessing
import os
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from importlib import metadata

DEFAULT_DATA = os.path.expanduser("~/.cache/xvec-bench/wordnet-minilm-384")
PEERS = ("bm25s", "tantivy")

# Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, xvec's stop_en and bm25s's "en".
STOP_EN = (
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not",
    "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was",
    "will", "with",
)
TOKEN_PATTERN = r"(?u)[^\W_]+"
K1, B = 1.2, 0.75
TANTIVY_ANALYZER = "en_stem_lucene_stop"
TANTIVY_HEAP = 128_000_000

CSV_COLUMNS = [
    "date", "db", "db_version", "command", "machine", "cores", "load_start", "load_end", "dataset", "docs",
    "queries", "k", "index_seconds", "docs_per_second", "latency_p50_ms", "latency_p99_ms", "latency_mean_ms",
    "qps", "peak_rss_mib", "notes",
]


def log(msg):
    print(f"fts_peers: {msg}", file=sys.stderr, flush=True)


def status_kib(field):
    """VmRSS (current) or VmHWM (peak) of this process in KiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def load1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def load_data(data_dir):
    """Glosses in row order and query texts; only these are kept, to leave RSS to the index."""
    glosses = []
    with open(os.path.join(data_dir, "base.jsonl"), encoding="utf-8") as f:
        for i, line in enumerate(f):
            doc = json.loads(line)
            if doc["row"] != i:
                raise SystemExit("base.jsonl: line i must describe row i")
            glosses.append(doc["gloss"])
    with open(os.path.join(data_dir, "queries.jsonl"), encoding="utf-8") as f:
        queries = [" ".join(json.loads(line)["lemmas"]) for line in f]
    return glosses, queries


def distinct(terms):
    return list(dict.fromkeys(terms))


class Bm25sPeer:
    def __init__(self, k):
        import bm25s
        import Stemmer
        from bm25s.stopwords import STOPWORDS_EN

        if sorted(STOPWORDS_EN) != sorted(STOP_EN):
            raise SystemExit("bm25s's English stop words are no longer Lucene's 33")
        self.bm25s, self.k = bm25s, k
        self.stemmer = Stemmer.Stemmer("english")
        self.versions = {p: metadata.version(p) for p in ("bm25s", "PyStemmer", "numpy")}

    def tokenize(self, texts, return_ids):
        return self.bm25s.tokenize(texts, stopwords="en", stemmer=self.stemmer, token_pattern=TOKEN_PATTERN,
                                   return_ids=return_ids, show_progress=False)

    def build(self, docs):
        self.retriever = self.bm25s.BM25(k1=K1, b=B, method="lucene", backend="numpy")
        self.retriever.index(self.tokenize(docs, return_ids=True), show_progress=False)
        s = self.retriever.scores
        return {"index_mib": round(sum(s[a].nbytes for a in ("data", "indices", "indptr")) / 2**20, 1),
                "vocabulary": len(self.retriever.vocab_dict)}

    def search(self, text):
        """[(row, score)], best first."""
        terms = distinct(self.tokenize(text, return_ids=False)[0])
        if not terms:
            return []
        rows, scores = self.retriever.retrieve([terms], k=self.k, n_threads=0, backend_selection="numpy",
                                               show_progress=False)
        return [(int(r), float(s)) for r, s in zip(rows[0], scores[0]) if s > 0]

    def close(self):
        """Nothing on disk."""


class TantivyPeer:
    def __init__(self, k):
        import tantivy

        self.tantivy, self.k = tantivy, k
        self.versions = {"tantivy": metadata.version("tantivy"), "core": tantivy.__version__}
        self.analyzer = (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
                         .filter(tantivy.Filter.remove_long(40))
                         .filter(tantivy.Filter.lowercase())
                         .filter(tantivy.Filter.custom_stopword(list(STOP_EN)))
                         .filter(tantivy.Filter.stemmer("english"))
                         .build())
        self.dir = tempfile.mkdtemp(prefix="fts-peers-tantivy-")

    def build(self, docs):
        t = self.tantivy
        builder = t.SchemaBuilder()
        builder.add_text_field("gloss", tokenizer_name=TANTIVY_ANALYZER, index_option="position")
        builder.add_unsigned_field("row", fast=True)
        self.schema = builder.build()
        self.index = t.Index(self.schema, path=self.dir)
        self.index.register_tokenizer(TANTIVY_ANALYZER, self.analyzer)
        writer = self.index.writer(heap_size=TANTIVY_HEAP, num_threads=1)
        for row, gloss in enumerate(docs):
            doc = t.Document()
            doc.add_text("gloss", gloss)
            doc.add_unsigned("row", row)
            writer.add_document(doc)
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()
        size = sum(e.stat().st_size for e in os.scandir(self.dir) if e.is_file())
        return {"index_mib": round(size / 2**20, 1), "segments": self.searcher.num_segments}

    def search(self, text):
        """[(row, score)], best first."""
        t = self.tantivy
        terms = distinct(self.analyzer.analyze(text))
        if not terms:
            return []
        query = t.Query.boolean_query(
            [(t.Occur.Should, t.Query.term_query(self.schema, "gloss", term, index_option="freq")) for term in terms])
        hits = self.searcher.search(query, self.k, count=False).hits
        rows = self.searcher.fast_field_values("row", [address for _, address in hits])
        return list(zip(rows, (score for score, _ in hits)))

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def peer_main(name, data_dir, k, conn):
    """Child process: build one peer's index, then run a query pass per request."""
    docs, queries = load_data(data_dir)
    peer = {"bm25s": Bm25sPeer, "tantivy": TantivyPeer}[name](k)
    rss_loaded = status_kib("VmRSS")
    gc.collect()
    start = time.perf_counter()
    detail = peer.build(docs)
    index_seconds = time.perf_counter() - start
    conn.send({"versions": peer.versions, "index_seconds": index_seconds, "docs": len(docs),
               "rss_after_load_mib": round(rss_loaded / 1024, 1),
               "rss_after_build_mib": round(status_kib("VmRSS") / 1024, 1), **detail})
    while conn.recv() == "pass":
        gc.collect()
        latencies, hits = [], []
        for text in queries:
            t0 = time.perf_counter_ns()
            rows = peer.search(text)
            latencies.append(time.perf_counter_ns() - t0)
            hits.append(rows)
        conn.send({"latencies_ns": latencies, "hits": hits})
    peer.close()
    conn.send({"peak_rss_mib": round(status_kib("VmHWM") / 1024, 1)})


def pass_stats(latencies_ns):
    ms = [x / 1e6 for x in latencies_ns]
    cuts = statistics.quantiles(ms, n=100, method="inclusive")
    total = sum(ms) / 1e3
    return {"qps": round(len(ms) / total, 1), "latency_p50_ms": round(cuts[49], 4),
            "latency_p99_ms": round(cuts[98], 4), "latency_mean_ms": round(statistics.fmean(ms), 4),
            "total_seconds": round(total, 4)}


def agreement(a_hits, b_hits, k):
    """How far bm25s's (a) and tantivy's (b) top-k lists agree.

    overlap_at_k: mean |A & B| / k over all queries (0 for a query neither answers);
    overlap_with_hits: mean |A & B| / max(|A|, |B|) over queries at least one answers;
    same_scores: queries whose score lists agree at every rank (tantivy's scores are
    (k1 + 1) times bm25s's, whose Lucene variant leaves that factor out), so their top-k
    differ at most in how ties are broken."""
    pairs = [({r for r, _ in a}, {r for r, _ in b}) for a, b in zip(a_hits, b_hits)]
    answered = [(a, b) for a, b in pairs if a or b]

    def same_scores(a, b):
        return len(a) == len(b) and all(abs(tb / (K1 + 1) - sa) <= 1e-4 * sa for (_, sa), (_, tb) in zip(a, b))

    return {"overlap_at_k": round(statistics.fmean(len(a & b) / k for a, b in pairs), 4),
            "overlap_with_hits": round(statistics.fmean(len(a & b) / max(len(a), len(b)) for a, b in answered), 4),
            "queries": len(pairs), "queries_with_hits": len(answered),
            "identical_top_k": sum(1 for a, b in zip(a_hits, b_hits) if [r for r, _ in a] == [r for r, _ in b]),
            "same_scores": sum(1 for a, b in zip(a_hits, b_hits) if same_scores(a, b))}


def peer_notes(name, r, agree, k):
    def joined(key):
        return "/".join(f"{p[key]:g}" for p in r["passes"])

    v = r["versions"]
    if name == "bm25s":
        config = (f"bm25s {v['bm25s']} + PyStemmer {v['PyStemmer']}, numpy {v['numpy']} backend, "
                  f"retrieve(n_threads=0) per query, method=lucene k1={K1} b={B}")
    else:
        config = (f"tantivy-py {v['tantivy']} ({v['core']}), en_stem + Lucene stop words, 1 writer thread, "
                  f"{r['segments']} segment(s) on disk, BooleanQuery of distinct SHOULD terms, "
                  "search(count=False), rows from a fast field")
    return (f"{config}; analysis: letter/digit runs, lowercase, 33 Lucene stop words, Porter2; "
            f"passes (interleaved with the other peer) qps {joined('qps')}, p50 ms {joined('latency_p50_ms')}, "
            f"p99 ms {joined('latency_p99_ms')}; best pass {r['best_pass']}; against the other peer: overlap@{k} "
            f"{agree['overlap_at_k']} ({agree['overlap_with_hits']} over the {agree['queries_with_hits']} queries "
            f"with hits), same scores at every rank for {agree['same_scores']} of {agree['queries']} "
            f"queries; index {r['index_mib']} MiB; peak RSS includes Python and the process's own "
            f"glosses (RSS after loading them {r['rss_after_load_mib']} MiB)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=DEFAULT_DATA, help="dataset dir with base.jsonl and queries.jsonl")
    ap.add_argument("--k", type=int, default=10, help="hits per query")
    ap.add_argument("--repeat", type=int, default=3, help="query passes per peer, interleaved")
    ap.add_argument("--output", help="write the full report as JSON here")
    ap.add_argument("--csv", help="append one row per peer (best pass) to this CSV")
    ap.add_argument("--hits", help="write each query's top-k rows per peer as JSON lines here")
    args = ap.parse_args()
    if args.k < 1 or args.repeat < 1:
        ap.error("--k and --repeat must be at least 1")

    date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    load_start = load1()
    _, queries = load_data(args.data)
    ctx = multiprocessing.get_context("spawn")
    children, results = {}, {}
    for name in PEERS:
        parent_end, child_end = ctx.Pipe()
        proc = ctx.Process(target=peer_main, args=(name, args.data, args.k, child_end), daemon=True)
        proc.start()
        results[name] = {**parent_end.recv(), "passes": []}
        children[name] = (proc, parent_end)
        r = results[name]
        log(f"{name}: indexed {r['docs']} docs in {r['index_seconds']:.3f} s")
    hits = {}
    for i in range(args.repeat):
        for name in PEERS:
            conn = children[name][1]
            conn.send("pass")
            reply = conn.recv()
            hits.setdefault(name, reply["hits"])
            results[name]["passes"].append(pass_stats(reply["latencies_ns"]))
            log(f"pass {i + 1}/{args.repeat} {name}: {results[name]['passes'][-1]}")
    for name, (proc, conn) in children.items():
        conn.send("done")
        results[name].update(conn.recv())
        proc.join()
    load_end = load1()

    agree = agreement(hits["bm25s"], hits["tantivy"], args.k)
    for name, r in results.items():
        best = max(range(len(r["passes"])), key=lambda j: r["passes"][j]["qps"])
        r.update(best_pass=best + 1, best=r["passes"][best],
                 docs_per_second=round(r["docs"] / r["index_seconds"], 1),
                 index_seconds=round(r["index_seconds"], 4),
                 queries_without_hits=sum(1 for h in hits[name] if not h),
                 queries_under_k_hits=sum(1 for h in hits[name] if len(h) < args.k))
    meta = {"date": date, "command": shlex.join(sys.argv), "machine": cpu_model(),
            "cores": len(os.sched_getaffinity(0)), "load_start": load_start, "load_end": load_end,
            "dataset": os.path.basename(os.path.normpath(args.data)), "docs": results["bm25s"]["docs"],
            "queries": len(queries), "k": args.k, "repeat": args.repeat,
            "python": sys.version.split()[0]}
    report = {**meta, "agreement": agree, "peers": results}
    print(json.dumps({n: {"index_seconds": r["index_seconds"], "docs_per_second": r["docs_per_second"],
                          **r["best"], "peak_rss_mib": r["peak_rss_mib"]} for n, r in results.items()}, indent=1))
    log(f"agreement: {agree}")

    if args.output:
        with open(args.output, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
    if args.hits:
        with open(args.hits, "w") as f:
            for i, text in enumerate(queries):
                line = {"query": i, "text": text}
                for n in PEERS:
                    line[n] = [r for r, _ in hits[n][i]]
                    line[n + "_scores"] = [float(f"{s:.7g}") for _, s in hits[n][i]]
                f.write(json.dumps(line) + "\n")
    if args.csv:
        fresh = not os.path.exists(args.csv) or os.path.getsize(args.csv) == 0
        with open(args.csv, "a", newline="") as f:
            w = csv.writer(f)
            if fresh:
                w.writerow(CSV_COLUMNS)
            for name, r in results.items():
                best = r["best"]
                w.writerow([
                    date, name, r["versions"][name], meta["command"], meta["machine"], meta["cores"], load_start,
                    load_end, meta["dataset"], meta["docs"], meta["queries"], args.k, r["index_seconds"],
                    r["docs_per_second"], best["latency_p50_ms"], best["latency_p99_ms"], best["latency_mean_ms"],
                    best["qps"], r["peak_rss_mib"], peer_notes(name, r, agree, args.k),
                ])


if __name__ == "__main__":
    main()
