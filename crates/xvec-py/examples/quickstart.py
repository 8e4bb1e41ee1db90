"""The README's Python example, on the WordNet sample in commands/data: the synsets with
384-d MiniLM vectors. Builds a collection from numpy and Arrow, queries it, reads it back.

    python crates/xvec-py/examples/quickstart.py
"""

import json
import pathlib
import tempfile

import numpy as np
import pyarrow as pa

import xvec

data = pathlib.Path(__file__).resolve().parents[3] / "commands" / "data"


def fvecs(path):
    """TEXMEX .fvecs: per row an int32 dimension, then that many float32."""
    raw = np.fromfile(path, dtype=np.int32)
    dim = raw[0]
    return raw.reshape(-1, dim + 1)[:, 1:].view(np.float32)


rows = [json.loads(line) for line in open(data / "wordnet.jsonl")]
vectors = fvecs(data / "wordnet.fvecs")
schema = json.loads((data / "schema.json").read_text())
schema["fields"][-1]["index"] = {"type": "hnsw", "m": 16, "ef_construction": 200}

with tempfile.TemporaryDirectory() as tmp, xvec.create(f"{tmp}/wordnet", schema) as words:
    # Columns in: keys and scalars as lists, vectors as one (n, 384) float32 array.
    columns = {name: [r[name] for r in rows] for name in ("lemma", "pos", "lexname", "n_lemmas", "gloss")}
    result = words.insert({"_key": [r["id"] for r in rows], **columns, "emb": vectors})
    assert not result.failed, result.failed
    words.optimize()

    # A filtered query by vector, and the same by key.
    pack_animal = words.fetch("n.01317391")
    hits = words.query(pack_animal["emb"], k=5, filter="lexname = 'noun.animal'", fields=["lemma"])
    print([f["lemma"] for f in hits.fields], hits.scores)
    assert hits.keys[0] == "n.01317391"

    # Many queries at once, in parallel, as (n, k) arrays.
    keys, scores = words.query_batch(vectors[:100], k=10)
    # HNSW is approximate: about one query in 2,000 here misses its own row.
    missed = np.flatnonzero(scores[:, 0] <= 0.99)
    assert keys.shape == (100, 10) and missed.size <= 2, (missed, keys[missed], scores[missed])

    # Arrow out: a streaming reader of every noun, vectors as fixed_size_list<float32>.
    nouns = words.export(filter="pos = 'n'", fields=["lemma", "emb"]).read_all()
    print(nouns.num_rows, "nouns;", nouns.schema.field("emb").type)
    assert nouns.num_rows == words.count("pos = 'n'")
