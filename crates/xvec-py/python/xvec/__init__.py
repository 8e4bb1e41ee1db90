"""xvec: an embedded vector database.

A collection is a directory: a write-ahead log, immutable columnar segments that are
memory-mapped and searched in place, and a manifest naming the live files. One writer
and any number of readers, also in other processes.

    import numpy as np, xvec

    schema = {"name": "words", "fields": [
        {"name": "pos", "type": "string"},
        {"name": "emb", "type": "vector_fp32", "dim": 4, "metric": "cosine",
         "index": {"type": "hnsw"}},
    ]}
    with xvec.create("words.xvec", schema) as c:
        c.insert({"_key": ["dog", "run"], "pos": ["n", "v"],
                  "emb": np.random.rand(2, 4).astype(np.float32)})
        hits = c.query(np.random.rand(4), k=1, filter="pos = 'n'")
        print(hits.keys, hits.scores)

Every engine error is an `xvec.Error` (`SchemaError`, `DocError`, `QueryError`,
`FilterError`, `StorageError`, `LockedError`, `CorruptionError`, ...). See docs/python.md.
"""

from ._xvec import (  # noqa: F401
    KEY_FIELD,
    MAX_K,
    MAX_QUERY_THREADS,
    MAX_SHARDS,
    BusyError,
    CancelledError,
    ClosedError,
    Collection,
    CorruptionError,
    DocError,
    Error,
    FilterError,
    Hit,
    Interrupted,
    LockedError,
    QueryError,
    QueryResult,
    ReadOnlyError,
    SchemaError,
    Snapshot,
    StorageError,
    WriteResult,
    __version__,
    create,
    fuse,
    open,
    shard_ids,
    restore,
)

from ._lance import to_lance  # noqa: E402

__all__ = [
    "KEY_FIELD",
    "MAX_K",
    "MAX_QUERY_THREADS",
    "MAX_SHARDS",
    "BusyError",
    "CancelledError",
    "ClosedError",
    "Collection",
    "CorruptionError",
    "DocError",
    "Error",
    "FilterError",
    "Hit",
    "Interrupted",
    "LockedError",
    "QueryError",
    "QueryResult",
    "ReadOnlyError",
    "SchemaError",
    "Snapshot",
    "StorageError",
    "WriteResult",
    "__version__",
    "create",
    "fuse",
    "open",
    "shard_ids",
    "to_lance",
    "restore",
]
