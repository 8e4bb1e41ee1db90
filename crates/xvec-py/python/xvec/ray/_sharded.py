"""`ShardedCollection`: N ordinary xvec collections behind one handle, each owned by a
writer actor and searched by reader actors; writes are routed by the root's rule, reads fan
out to every shard and merge."""

import collections
import copy
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import ray

from .. import DocError, Error, QueryError, SchemaError, fuse
from . import _actors
from ._merge import ShardedQueryResult, merge, merge_batch, merge_ranking, sum_text_stats
from ._root import ROOT_FILE, Root, route

#: Times a call to a shard whose actor died (or is restarting) is sent again.
RETRIES = 20
#: Pause before sending it again, doubled each time up to a second.
RETRY_PAUSE_S = 0.05
#: The errors of a call to an actor that died or is being restarted by Ray.
ACTOR_GONE = (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError)
#: The changes `alter` applies to every shard (the names of `Collection`'s methods).
ALTERS = ("add_field", "drop_field", "rename_field", "add_index", "drop_index")


class ShardedWriteResult:
    """What a sharded write did: rows written, and each row refused as (position in the
    input, key, message), or from `xvec.ray.write` as (write task, position in that
    task's input, key, message)."""

    def __init__(self, count: int, failed: List[tuple], retried: int = 0):
        self.count = count
        self.failed = sorted(failed)
        #: Shard writes sent again because the shard's actor died or was restarting.
        self.retried = retried

    def raise_for_errors(self) -> None:
        if self.failed:
            *where, key, msg = self.failed[0]
            row = f"row {where[0]}" if len(where) == 1 else f"write task {where[0]}'s row {where[1]}"
            raise DocError(f"{row} (key {key!r}): {msg}; {len(self.failed)} rows refused in all")

    def __len__(self) -> int:
        return self.count

    def __repr__(self) -> str:
        return f"xvec.ray.ShardedWriteResult(count={self.count}, failed={len(self.failed)}, retried={self.retried})"


def to_table(data, schema: Dict[str, Any]):
    """The write forms of `Collection.insert` (Arrow data, a dict of columns with 2-D numpy
    vectors, a list of dicts, a pandas DataFrame) as one `pyarrow.Table`."""
    import pyarrow as pa

    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    if hasattr(data, "__arrow_c_stream__") and not isinstance(data, (dict, list)):
        if type(data).__module__.startswith("pandas"):
            return pa.Table.from_pandas(data, preserve_index=False)
        return pa.table(data)
    if isinstance(data, dict):
        cols = {}
        for name, col in data.items():
            arr = np.asarray(col) if isinstance(col, np.ndarray) else None
            if arr is not None and arr.ndim == 2:
                flat = pa.array(np.ascontiguousarray(arr).reshape(-1))
                cols[name] = pa.FixedSizeListArray.from_arrays(flat, arr.shape[1])
            else:
                cols[name] = pa.array(col)
        return pa.table(cols)
    if isinstance(data, list):
        return pa.Table.from_pylist(data)
    raise TypeError(f"cannot write {type(data).__name__}: expected Arrow data, a dict of columns or a list of dicts")


class ShardedCollection:
    """A collection split into shards, each an ordinary xvec collection owned by Ray
    actors. Create with `xvec.ray.create`, reattach with `xvec.ray.open`."""

    def __init__(
        self, root: Root, readers: int, actor_options: Optional[Dict[str, Any]], create: bool, local_readers: bool = False
    ):
        if not isinstance(readers, int) or readers < 1:
            raise ValueError(f"readers is {readers!r}; expected an int ≥ 1")
        self.root = root
        self._closed = False
        schema = root.schema if create else None
        self._writers = [
            _actors.spawn(
                _actors.ShardWriter, f"xvec/{root.id}/w{i}", s.node, actor_options, root.shard_dir(i), schema, root.options
            )
            for i, s in enumerate(root.shards)
        ]
        # Every shard exists before its readers open it. Where each writer runs: a write
        # from this node hands a writer here its rows in place.
        self._writer_nodes = each(self._writers, "node")
        self._readers_per_shard = readers
        self._actor_options = actor_options
        # The reader actors start on the first read that needs them: a write (an ingest
        # from Ray Data) or a handle with local readers never pays for their processes.
        self._readers: Optional[List[list]] = None
        #: Per reader set (the j-th reader of every shard, used together): the threads each
        #: shard's `query_batch` is given when the caller names none.
        self._reader_threads: List[List[int]] = []
        self._next_reader = 0
        # Local readers: the driver's own read-only handles of the shards (on a file system
        # it shares with them), searched from a thread per shard; no actor round trip.
        self._local = [_actors.ShardReader(root.shard_dir(i)) for i in range(len(root.shards))] if local_readers else None
        self._pool = ThreadPoolExecutor(len(root.shards), thread_name_prefix="xvec-shard") if local_readers else None
        self._local_threads = split_cpus([None] * len(root.shards), {None: local_cpus()}) if local_readers else None
        if root.pending is not None:
            self._finish_alter()

    # -- the handle ----------------------------------------------------------------------

    @property
    def path(self) -> str:
        return self.root.dir

    @property
    def shards(self) -> int:
        return len(self.root.shards)

    def schema(self) -> Dict[str, Any]:
        return self.root.schema

    def nodes(self) -> List[str]:
        """The node each shard's writer runs on."""
        self._writer_nodes = each(self._writers, "node")
        return self._writer_nodes

    def writer(self, shard: int):
        """The actor owning `shard`'s writer (for operations tests and tools)."""
        return self._writers[shard]

    def close(self) -> None:
        """Closes every shard (syncing its WAL) and stops the actors. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._local is not None:
            self._pool.shutdown()
            for r in self._local:
                r.c.close()
        each(self._writers, "close")
        for a in self._writers + [r for rs in self._readers or [] for r in rs]:
            ray.kill(a, no_restart=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _check(self):
        if self._closed:
            raise Error("the sharded collection is closed")

    def _read(self, method: str, *args, **kwargs) -> list:
        """`method(*args, **kwargs)` of one reader of every shard (a `ShardReader` method),
        the answers in shard order: the local handles when there are, else the actors."""
        if self._local is not None:
            return list(self._pool.map(lambda r: getattr(r, method)(*args, **kwargs), self._local))
        return each(self._readers_now(), method, *args, **kwargs)

    def _readers_now(self, with_threads: bool = False):
        """One reader per shard, taking turns (the reader actors started on first use);
        `with_threads`: also the threads each one's `query_batch` is given by default."""
        if self._readers is None:
            root = self.root
            readers = [
                [
                    _actors.spawn(
                        _actors.ShardReader, f"xvec/{root.id}/r{i}.{j}", s.node, self._actor_options, root.shard_dir(i)
                    )
                    for j in range(self._readers_per_shard)
                ]
                for i, s in enumerate(root.shards)
            ]
            # Where each set of readers searching together landed: the shards searched on
            # one node share its CPUs instead of each starting a thread per CPU.
            cpus = node_cpus()
            self._reader_threads = [
                split_cpus(each([rs[j] for rs in readers], "node"), cpus) for j in range(self._readers_per_shard)
            ]
            self._readers = readers
        j = self._next_reader % self._readers_per_shard
        self._next_reader += 1
        readers = [rs[j] for rs in self._readers]
        return (readers, self._reader_threads[j]) if with_threads else readers

    # -- writes --------------------------------------------------------------------------

    def insert(self, data, *, key: str = "_key") -> ShardedWriteResult:
        """Inserts rows (any `Collection.insert` form); an existing key fails its row."""
        return self._write(data, "insert", key)

    def upsert(self, data, *, key: str = "_key") -> ShardedWriteResult:
        return self._write(data, "upsert", key)

    def update(self, data, *, key: str = "_key") -> ShardedWriteResult:
        return self._write(data, "update", key)

    def _write(self, data, mode: str, key: str) -> ShardedWriteResult:
        self._check()
        return write_table(self._writers, self.root, to_table(data, self.root.schema), mode, key, self._writer_nodes)

    def delete(self, keys=None, *, where: Optional[str] = None, params=None) -> int:
        """Deletes by key (routed) or by filter (every shard); the rows deleted."""
        self._check()
        if (keys is None) == (where is None):
            raise ValueError("give keys or where=, not both")
        if where is not None:
            return sum(each(self._writers, "delete", None, where, params))
        keys = [keys] if isinstance(keys, str) else list(keys)
        by_shard = self._keys_by_shard(keys)
        return sum(gather([_sender(self._writers[s], "delete", ks, None, None) for s, ks in by_shard.items()]))

    def _keys_by_shard(self, keys: Sequence[str]) -> Dict[int, List[str]]:
        import pyarrow as pa

        if self.root.shard_by != "_key":
            return {s: list(keys) for s in range(self.shards)}
        order, bounds = route(pa.table({"_key": pa.array(keys, pa.string())}), "_key", self.shards)
        return {
            s: [keys[i] for i in order[bounds[s] : bounds[s + 1]]] for s in range(self.shards) if bounds[s + 1] > bounds[s]
        }

    def flush(self) -> None:
        self._check()
        each(self._writers, "call", "flush")

    def optimize(self, *, threads: Optional[int] = None) -> List[Dict[str, Any]]:
        """Optimizes every shard at once; each shard's report."""
        self._check()
        return each(self._writers, "call", "optimize", threads=threads)

    # -- schema changes: recorded in the root first, so an interrupted one is finished ---

    def add_field(self, field) -> None:
        self._alter("add_field", [field])

    def drop_field(self, name: str) -> None:
        self._alter("drop_field", [name])

    def rename_field(self, old: str, new: str) -> None:
        self._alter("rename_field", [old, new])

    def add_index(self, field: str, index) -> None:
        self._alter("add_index", [field, index])

    def drop_index(self, field: str, index) -> None:
        self._alter("drop_index", [field, index])

    def _alter(self, op: str, args: list) -> None:
        self._check()
        if self.root.pending is not None:
            self._finish_alter()
        self.root.pending = {"op": op, "args": args, "from": self.root.schema}
        self.root.save()
        self._finish_alter()

    def _finish_alter(self) -> None:
        """Applies the root's pending alter to every shard still on the schema before it,
        then records the new schema and clears it. A change the shards refuse before any
        has it is dropped (and raised); once one shard has it, it stays pending until all
        do."""
        p = self.root.pending
        where = os.path.join(self.root.dir, ROOT_FILE)
        if p.get("op") not in ALTERS or not isinstance(p.get("args"), list) or not isinstance(p.get("from"), dict):
            raise Error(f"{where}: pending alter {p!r} is not one of {ALTERS} with its args and the schema before")
        before = each(self._writers, "call", "schema")
        for i, w in enumerate(self._writers):
            if before[i] != p["from"]:
                continue
            try:
                ray.get(w.call.remote(p["op"], *p["args"]))
            except Exception as e:
                if i == 0 and all(b == p["from"] for b in before):
                    self.root.pending = None
                    self.root.save()
                    raise
                raise Error(f"shard {i} refused {p['op']}{tuple(p['args'])}, which other shards have: {e}") from e
        after = each(self._writers, "call", "schema")
        if any(a != after[0] for a in after):
            raise Error(f"{where}: the shards' schemas differ after {p['op']}; the change stays pending")
        self.root.schema = after[0]
        self.root.pending = None
        self.root.save()

    # -- reads ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return self.count()

    def count(self, filter: Optional[str] = None, *, params=None) -> int:
        self._check()
        return sum(self._read("call", "count", filter, params=params))

    def fetch(self, keys, *, fields: Optional[Sequence[str]] = None):
        """Documents by key as dicts, `None` where not found; one key, one dict."""
        self._check()
        one = isinstance(keys, str)
        keys = [keys] if one else list(keys)
        readers = self._local or self._readers_now()
        out: Dict[str, Any] = {}
        for s, ks in self._keys_by_shard(keys).items():
            if self._local is not None:
                found = readers[s].call("fetch", ks, fields=fields)
            else:
                found = gather([_sender(readers[s], "call", "fetch", ks, fields=fields)])[0]
            for k, d in zip(ks, found):
                if d is not None:
                    out[k] = d
        docs = [out.get(k) for k in keys]
        return docs[0] if one else docs

    def _higher_better(self, field: Optional[str]) -> bool:
        vectors = [f for f in self.root.schema["fields"] if str(f.get("type", "")).startswith("vector_")]
        chosen = [f for f in vectors if field is None or f["name"] == field]
        if not chosen:
            raise QueryError(f"no vector field {field!r}" if field else "the schema has no vector field")
        return chosen[0].get("metric") != "l2"

    def query(
        self,
        vector,
        *,
        k: int = 10,
        filter: Optional[str] = None,
        params=None,
        field: Optional[str] = None,
        fields: Optional[Sequence[str]] = None,
        ef: Optional[int] = None,
        nprobe: Optional[int] = None,
        target_recall: Optional[float] = None,
        refine: Optional[int] = None,
        beam_width: Optional[int] = None,
        vectors: bool = False,
    ) -> ShardedQueryResult:
        """The `k` nearest rows over every shard: each shard's top `k` (the arguments of
        `Collection.query`, every search knob given to every shard as it is), merged best
        first, ties broken by key."""
        self._check()
        kwargs = dict(k=k, filter=filter, params=params, field=field, fields=fields, ef=ef, nprobe=nprobe,
                      target_recall=target_recall, refine=refine, beam_width=beam_width, vectors=vectors)
        vector = np.asarray(vector, dtype=np.float32)
        parts = self._read("query", vector, kwargs)
        return merge(parts, k, self._higher_better(field))

    def query_batch(
        self,
        vectors,
        *,
        k: int = 10,
        filter: Optional[str] = None,
        params=None,
        field: Optional[str] = None,
        ef: Optional[int] = None,
        nprobe: Optional[int] = None,
        target_recall: Optional[float] = None,
        refine: Optional[int] = None,
        beam_width: Optional[int] = None,
        threads: Optional[int] = None,
    ):
        """`Collection.query_batch` over every shard (its arguments, given to every
        shard): (keys, scores), two (n, k) arrays. The matrix is put in Ray's object
        store once for all shards. `threads` is each shard's; by default the shards
        searched on one node split its CPUs (at least one thread each), as one collection
        takes every CPU of its machine, so no node runs more search threads than cores."""
        self._check()
        kwargs = dict(k=k, filter=filter, params=params, field=field, ef=ef, nprobe=nprobe,
                      target_recall=target_recall, refine=refine, beam_width=beam_width)
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if self._local is not None:
            each_threads = [t if threads is None else threads for t in self._local_threads]
            parts = list(
                self._pool.map(lambda r, t: r.query_batch(vectors, dict(kwargs, threads=t)), self._local, each_threads)
            )
        else:
            readers, default = self._readers_now(with_threads=True)
            matrix = ray.put(vectors)
            parts = gather(
                [_sender(r, "query_batch", matrix, dict(kwargs, threads=t if threads is None else threads))
                 for r, t in zip(readers, default)]
            )
        return merge_batch(parts, k, self._higher_better(field))

    def hybrid(self, query) -> List[tuple]:
        """`Collection.hybrid` over every shard (a dict or a JSON string), answering as one
        collection holding every row would: each text branch first gathers its BM25
        statistics from every shard and scores with their sum (Elasticsearch's
        `dfs_query_then_fetch`); each branch's rankings are then merged over the shards
        (best first, ties broken by key) and fused once. `[(key, score, fields)]`."""
        self._check()
        q = json.loads(query) if isinstance(query, str) else copy.deepcopy(dict(query))
        branches = q.get("branches")
        if not isinstance(branches, list) or not all(isinstance(b, dict) for b in branches):
            raise QueryError("hybrid query: branches: expected an array of branch objects")
        for i, b in enumerate(branches):
            if "key" in b:
                raise QueryError(
                    f"hybrid query: branches[{i}]: a `key` branch searches by a stored vector, which lives in one "
                    "shard; fetch it and give it as `vector`"
                )
        if any("text" in b and "stats" not in b for b in branches):
            per_shard = self._read("call", "text_stats", q)
            for i, b in enumerate(branches):
                if "text" in b and "stats" not in b:
                    b["stats"] = sum_text_stats([s[i] for s in per_shard])
        parts = self._read("call", "rankings", q)
        merged = []
        for i, b in enumerate(branches):
            order = b["keys"] if "keys" in b else None
            merged.append(merge_ranking([p[i] for p in parts], b.get("k", q.get("k", 10)), order))
        return fuse(q, merged)

    def verify(self, *, deep: bool = False) -> Dict[str, Any]:
        """Every shard's verify report; `clean` when all are."""
        self._check()
        reports = each(self._writers, "call", "verify", deep=deep)
        return {"clean": all(r["clean"] for r in reports), "shards": reports}

    def stats(self) -> Dict[str, Any]:
        self._check()
        shards = each(self._writers, "call", "stats")
        return {"shards": shards, "count": sum(s.get("count", 0) for s in shards)}

    def __repr__(self) -> str:
        return f"xvec.ray.ShardedCollection({self.root.dir!r}, shards={self.shards})"


def write_table(writers, root: Root, table, mode: str, key: str, nodes=None) -> ShardedWriteResult:
    """Routes `table`'s rows to their shards' writers and waits for every shard to
    acknowledge (`ShardWrite`)."""
    return ShardWrite(writers, root, table, mode, key, nodes).result()


class ShardWrite:
    """`table`'s rows routed and sent to their shards' writers; `result()` waits for every
    shard to acknowledge. A shard whose writer runs on this node (`nodes`: each writer's
    node, when known) is sent the table itself, put in the object store once for all of
    them, with the positions of its rows, which it reads in place; a shard on another node
    is sent a copy of its rows only. A shard whose actor dies mid-write is written again
    once Ray restarted it (its WAL recovered), as an upsert of the same rows: the retry
    cannot tell rows the dead actor committed from rows it did not. A caller may send the
    next table before this one's `result()`: a writer runs its calls in the order sent."""

    def __init__(self, writers, root: Root, table, mode: str, key: str, nodes=None):
        column = key if root.shard_by == "_key" else root.shard_by
        order, bounds = route(table, column, len(writers))
        here = ray.get_runtime_context().get_node_id() if nodes is not None else None
        shared = None
        #: Per shard: (the data sent, the positions in it, or None for all its rows; the
        #: position in `table` of each of its rows when it is a copy).
        self._pending = {}
        for s in range(len(writers)):
            rows = order[bounds[s] : bounds[s + 1]]
            if not len(rows):
                continue
            if nodes is not None and nodes[s] == here:
                if shared is None:
                    shared = ray.put(table)
                self._pending[s] = (shared, rows, None)
            else:
                self._pending[s] = (table.take(rows), None, rows)
        self._writers, self._mode, self._key = writers, mode, key
        self._calls = self._send(0)

    def _send(self, attempt: int):
        how = self._mode if attempt == 0 or self._mode == "update" else "upsert"
        return {s: self._writers[s].write.remote(data, how, self._key, rows) for s, (data, rows, _) in self._pending.items()}

    def result(self) -> ShardedWriteResult:
        count, failed, retried = 0, [], 0
        for attempt in range(RETRIES + 1):
            if attempt > 0:
                self._calls = self._send(attempt)
            retry = {}
            for s, call in self._calls.items():
                try:
                    n, bad = ray.get(call)
                except ACTOR_GONE:
                    if attempt == RETRIES:
                        raise
                    retry[s] = self._pending[s]
                    continue
                count += n
                where = self._pending[s][2]
                failed.extend((int(pos if where is None else where[pos]), k, msg) for pos, k, msg in bad)
            if not retry:
                break
            self._pending = retry
            retried += len(retry)
            time.sleep(min(1.0, RETRY_PAUSE_S * 2**attempt))
        return ShardedWriteResult(count, failed, retried)


def split_cpus(nodes: Sequence[Optional[str]], cpus: Dict[Optional[str], float]) -> List[int]:
    """The threads of each shard searched on `nodes[i]`: its node's CPUs (`cpus`, Ray's
    count; a node it lacks or counts no CPUs for counts as this machine's) divided evenly
    among the shards searched there, at least one each."""
    per_node = collections.Counter(nodes)
    return [max(1, int(cpus.get(n) or local_cpus()) // per_node[n]) for n in nodes]


def node_cpus() -> Dict[Optional[str], float]:
    """Each live node's CPUs, as Ray counts them."""
    return {n["NodeID"]: n.get("Resources", {}).get("CPU", 0) for n in ray.nodes() if n.get("Alive")}


def local_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _sender(actor, method, *args, **kwargs):
    return lambda: getattr(actor, method).remote(*args, **kwargs)


def each(actors, method, *args, **kwargs):
    """`method(*args, **kwargs)` on every actor at once, through `gather`."""
    return gather([_sender(a, method, *args, **kwargs) for a in actors])


def gather(calls):
    """The answers of `calls` (functions each sending one actor call), each sent again
    while its actor is dead or restarting; for reads and idempotent operations."""
    refs = [c() for c in calls]
    out = [None] * len(calls)
    for i, c in enumerate(calls):
        for attempt in range(RETRIES + 1):
            try:
                out[i] = ray.get(refs[i])
                break
            except ACTOR_GONE:
                if attempt == RETRIES:
                    raise
                time.sleep(min(1.0, RETRY_PAUSE_S * 2**attempt))
                refs[i] = c()
    return out


def create(
    root: str,
    schema: Dict[str, Any],
    *,
    shards: int = 2,
    shard_by: str = "_key",
    options: Optional[Dict[str, Any]] = None,
    nodes: Optional[Sequence[str]] = None,
    readers: int = 1,
    actor_options: Optional[Dict[str, Any]] = None,
) -> ShardedCollection:
    """Creates a sharded collection in `root` (a new or empty directory): `shards` xvec
    collections with `schema`, rows routed by `shard_by` (the key, or a field), each shard
    placed on `nodes[i]` when given (its directory on that node's local disk) or on the
    shared file system `root` is on."""
    if os.path.exists(root) and os.listdir(root):
        raise Error(f"{root}: not empty; a sharded collection is created in a new or empty directory")
    os.makedirs(root, exist_ok=True)
    r = Root.new(root, schema, shards, shard_by, list(nodes) if nodes is not None else None, options)
    r.save()
    coll = ShardedCollection(r, readers, actor_options, create=True)
    r.schema = each(coll._writers[:1], "call", "schema")[0]
    r.save()
    return coll


def open(
    root: str, *, readers: int = 1, actor_options: Optional[Dict[str, Any]] = None, local_readers: bool = False
) -> ShardedCollection:
    """Reattaches to the sharded collection in `root`: its actors are started again (or
    found, if this job has them), each shard recovering from its WAL; an alter that was
    interrupted is finished. `local_readers=True`: the driver opens every shard read-only
    itself (the shard directories must be on a file system it shares) and reads them from a
    thread per shard, without the reader actors' round trip."""
    return ShardedCollection(Root.load(root), readers, actor_options, create=False, local_readers=local_readers)
