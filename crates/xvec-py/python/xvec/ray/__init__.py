"""xvec on Ray: collections split into shards owned by Ray actors, Ray Data in and out.

    import ray, xvec.ray

    coll = xvec.ray.write(ray.data.read_parquet("embeddings/"), "words.shards", schema, shards=4)
    hits = coll.query(vector, k=10, filter="pos = 'n'")
    ds = xvec.ray.read("words.shards", columns=["_key", "emb"], filter="pos = 'n'")

A sharded collection is a directory with a root manifest (`xvec-shards.json`: the shards,
the routing rule `crc32c(utf8(value)) % shards` over the key or a field, the schema) and
one ordinary xvec collection per shard, which `xvec` and `xvec.open` read like any other.
Each shard has one writer actor (the engine's one writer) and `readers` reader actors.
Needs `ray[data]`; `import xvec` alone does not import Ray. See docs/ray.md.
"""

from ._merge import Hit, ShardedQueryResult
from ._root import ROOT_FILE, RULE
from ._sharded import ShardedCollection, ShardedWriteResult, create, open

__all__ = [
    "ROOT_FILE",
    "RULE",
    "ChangedDuringReadError",
    "Hit",
    "ShardedCollection",
    "ShardedQueryResult",
    "ShardedWriteResult",
    "XvecDatasink",
    "XvecDatasource",
    "create",
    "open",
    "read",
    "to_lance",
    "write",
]

#: The Ray Data half, imported on first use: every shard actor imports this package, and
#: `import ray.data` would cost each of them about 0.6 s of CPU it never needs.
_DATA = ("ChangedDuringReadError", "XvecDatasink", "XvecDatasource", "read", "to_lance", "write")


def __getattr__(name):
    if name in _DATA:
        from . import _data

        return getattr(_data, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
