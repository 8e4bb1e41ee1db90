"""The root manifest of a sharded collection (`xvec-shards.json`) and the rule that routes a
row to its shard.

The root names the shards (a directory each, relative to the root on a shared file system,
or absolute on the node whose local disk holds it), the column rows are routed by and the
schema; while an `alter` is being applied shard by shard it also records the change, so
reopening finishes it. It is written like the engine's manifest: a temporary file, synced,
renamed over the old one, the directory synced.
"""

import json
import os
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import numpy as np

from .. import CorruptionError, MAX_SHARDS, SchemaError, shard_ids

ROOT_FILE = "xvec-shards.json"
FORMAT = "xvec-shards"
VERSION = 1
#: The routing rule, written into the root so other languages can reproduce it.
RULE = "crc32c(utf8(value)) % shards"


@dataclass
class Shard:
    """One shard: its directory and, when it lives on one node's local disk, that node."""

    path: str
    node: Optional[str] = None


@dataclass
class Root:
    """A sharded collection's root manifest."""

    dir: str
    id: str
    schema: Dict[str, Any]
    shard_by: str
    shards: List[Shard]
    #: An alter applied to some shards only: {"op": name, "args": [...]}.
    pending: Optional[Dict[str, Any]] = None
    options: Dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def new(dir, schema, shards, shard_by, nodes, options) -> "Root":
        if not isinstance(shards, int) or not 1 <= shards <= MAX_SHARDS:
            raise ValueError(f"shards is {shards!r}; expected an int in 1..={MAX_SHARDS}")
        if nodes is not None and len(nodes) != shards:
            raise ValueError(f"nodes names {len(nodes)} nodes; expected one per shard ({shards})")
        names = {f.get("name") for f in schema.get("fields", [])}
        if shard_by != "_key" and shard_by not in names:
            raise SchemaError(f"shard_by names {shard_by!r}, which is not a field of the schema")
        place = nodes or [None] * shards
        return Root(
            dir=os.path.abspath(dir),
            id=uuid.uuid4().hex[:12],
            schema=schema,
            shard_by=shard_by,
            shards=[Shard(path=f"shard-{i:04}", node=place[i]) for i in range(shards)],
            options=dict(options or {}),
        )

    def shard_dir(self, i: int) -> str:
        return os.path.join(self.dir, self.shards[i].path)

    def to_json(self) -> Dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "id": self.id,
            "rule": RULE,
            "shard_by": self.shard_by,
            "shards": [{"path": s.path, "node": s.node} for s in self.shards],
            "schema": self.schema,
            "options": self.options,
            "pending": self.pending,
        }

    def save(self) -> None:
        path = os.path.join(self.dir, ROOT_FILE)
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.to_json(), f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        fd = os.open(self.dir, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    @staticmethod
    def load(dir) -> "Root":
        path = os.path.join(os.path.abspath(dir), ROOT_FILE)
        try:
            with open(path) as f:
                doc = json.load(f)
        except FileNotFoundError:
            raise FileNotFoundError(f"{path}: no sharded collection here (no {ROOT_FILE})") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise CorruptionError(f"{path}: not JSON: {e}") from None

        def want(key, kind):
            if not isinstance(doc, dict) or not isinstance(doc.get(key), kind):
                found = type(doc.get(key)).__name__ if isinstance(doc, dict) else type(doc).__name__
                raise CorruptionError(f"{path}: key {key!r} is {found}; expected {kind.__name__}")
            return doc[key]

        if want("format", str) != FORMAT:
            raise CorruptionError(f"{path}: format is {doc['format']!r}; expected {FORMAT!r}")
        if want("version", int) != VERSION:
            raise CorruptionError(f"{path}: version {doc['version']} is not one this xvec reads ({VERSION})")
        if want("rule", str) != RULE:
            raise CorruptionError(f"{path}: routing rule {doc['rule']!r} is not {RULE!r}")
        shards = []
        for i, s in enumerate(want("shards", list)):
            if not isinstance(s, dict) or not isinstance(s.get("path"), str) or not s["path"]:
                raise CorruptionError(f"{path}: shards[{i}] has no path")
            if os.path.isabs(s["path"]) and s.get("node") is None:
                raise CorruptionError(f"{path}: shards[{i}] has an absolute path but no node")
            shards.append(Shard(path=s["path"], node=s.get("node")))
        if not 1 <= len(shards) <= MAX_SHARDS:
            raise CorruptionError(f"{path}: {len(shards)} shards; expected 1..={MAX_SHARDS}")
        pending = doc.get("pending")
        if pending is not None and not (isinstance(pending, dict) and isinstance(pending.get("op"), str)):
            raise CorruptionError(f"{path}: key 'pending' is not an alter ({{'op': ..., 'args': [...]}})")
        return Root(
            dir=os.path.abspath(dir),
            id=want("id", str),
            schema=want("schema", dict),
            shard_by=want("shard_by", str),
            shards=shards,
            pending=pending,
            options=doc.get("options") or {},
        )


def route(table, column: str, shards: int):
    """The rows of `table` grouped by shard: (order, bounds), where the rows of shard i are
    `table.take(order)[bounds[i]:bounds[i + 1]]`. Reads the column's buffers in place."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if column not in table.column_names:
        raise ValueError(f"the rows have no column {column!r} to route them by (columns: {table.column_names})")
    col = table.column(column)
    if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
        col = pc.cast(col, pa.string())
    ids = [shard_ids(chunk, shards) for chunk in col.chunks if len(chunk)]
    ids = np.concatenate(ids) if ids else np.zeros(0, dtype=np.uint32)
    order = np.argsort(ids, kind="stable")
    bounds = np.zeros(shards + 1, dtype=np.int64)
    np.cumsum(np.bincount(ids, minlength=shards), out=bounds[1:])
    return order, bounds
