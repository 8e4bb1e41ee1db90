"""Ray Data in and out: a `Datasink` that routes a Dataset's Arrow blocks to the shard
writers, and a `Datasource` with one read task per part of each shard (a segment, or a chunk
of the memtable), the filter and the columns pushed into the engine."""

import contextlib
import copy
import functools
import os
import sys
from typing import Any, Dict, List, Optional, Sequence

import ray
from ray.data import Datasink, Datasource, ReadTask
from ray.data.block import BlockAccessor, BlockMetadata

import xvec

from ._root import ROOT_FILE, Root
from ._sharded import ShardedCollection, ShardedWriteResult, ShardWrite, create, open


#: The label Ray gives every node, its node id: a selector on it places a task there.
NODE_LABEL = "ray.io/node-id"


class ChangedDuringReadError(xvec.Error):
    """A collection was written between planning a read and running one of its tasks."""


class XvecDatasink(Datasink):
    """Writes a Dataset into a sharded collection: each write task routes its blocks to the
    shards' writer actors and returns once every shard acknowledged them."""

    def __init__(self, coll: ShardedCollection, mode: str, key: str):
        self._writers = coll._writers
        # Where each writer runs: a write task on the same node hands it the block in place.
        self._nodes = coll.nodes()
        self._root = coll.root
        self._mode = mode
        self._key = key
        self.result: Optional[ShardedWriteResult] = None

    def get_name(self) -> str:
        return "xvec"

    def write(self, blocks, ctx) -> Dict[str, Any]:
        """Sends each block to the shards before waiting for the previous block's
        acknowledgements, so the next block is read and routed while the shards write
        this one; returns once every block is acknowledged. The blocks are read (a read
        fused into this task decodes them as they are asked for) with Arrow's jemalloc
        pool as pyarrow's default (`write_pool`). A refused row is named by (this task,
        its position in the task's input: its blocks one after another)."""
        done: List[tuple] = []  # (the block's first position in the task's input, its result)
        sent = None
        start = 0
        with write_pool():
            for block in blocks:
                table = BlockAccessor.for_block(block).to_arrow()
                if table.num_rows == 0:
                    continue
                write = ShardWrite(self._writers, self._root, table, self._mode, self._key, self._nodes)
                if sent is not None:
                    done.append((sent[0], sent[1].result()))
                sent = (start, write)
                start += table.num_rows
            if sent is not None:
                done.append((sent[0], sent[1].result()))
        count, retried = sum(r.count for _, r in done), sum(r.retried for _, r in done)
        failed = [(ctx.task_idx, first + pos, k, msg) for first, r in done for pos, k, msg in r.failed]
        return {"count": count, "failed": failed, "retried": retried}

    def on_write_complete(self, write_result) -> None:
        returns = write_result.write_returns
        self.result = ShardedWriteResult(
            sum(r["count"] for r in returns),
            [f for r in returns for f in r["failed"]],
            sum(r["retried"] for r in returns),
        )


#: Arrow's own jemalloc decay (`dirty_decay_ms` and `muzzy_decay_ms`): 1000 ms where its
#: jemalloc runs a background thread (Linux), 0 where it does not (macOS).
ARROW_JEMALLOC_DECAY_MS = 0 if sys.platform == "darwin" else 1000


@contextlib.contextmanager
def write_pool():
    """Arrow's jemalloc pool as pyarrow's default memory pool inside the block, keeping
    the pages it frees (no decay), the pool before and Arrow's decay restored after (a Ray
    worker runs other tasks later). The default pool of pyarrow's wheels, mimalloc, hands
    freed blocks back to the kernel and faults fresh huge pages in for the next ones;
    decoding the Parquet blocks of an ingest spent most of its CPU in the kernel zeroing
    them (docs/ray.md). Arrow's jemalloc hands them back too after a second, about the
    time between two blocks of a task, so without the decay held off each block was
    faulted in afresh. A pyarrow built without jemalloc keeps its default."""
    import pyarrow as pa

    try:
        pool = pa.jemalloc_memory_pool()
    except NotImplementedError:
        yield
        return
    before = pa.default_memory_pool()
    pa.set_memory_pool(pool)
    pa.jemalloc_set_decay_ms(-1)
    try:
        yield
    finally:
        pa.jemalloc_set_decay_ms(ARROW_JEMALLOC_DECAY_MS)
        pa.set_memory_pool(before)


def write(
    dataset,
    root: str,
    schema: Optional[Dict[str, Any]] = None,
    *,
    shards: int = 2,
    shard_by: str = "_key",
    key: str = "_key",
    mode: str = "insert",
    optimize: bool = True,
    options: Optional[Dict[str, Any]] = None,
    nodes: Optional[Sequence[str]] = None,
    readers: int = 1,
    actor_options: Optional[Dict[str, Any]] = None,
    concurrency: Optional[int] = None,
) -> ShardedCollection:
    """Writes a Ray Dataset into the sharded collection at `root` (created with `schema`
    and `shards` if it has no root manifest yet), then optimizes every shard in parallel.
    Returns the open collection; `.written` holds what the write did (rows written, rows
    refused as (write task, position in that task's input, key, message))."""
    if mode not in ("insert", "upsert", "update"):
        raise ValueError(f"mode is {mode!r}; expected insert, upsert or update")
    if os.path.exists(os.path.join(root, ROOT_FILE)):
        coll = open(root, readers=readers, actor_options=actor_options)
    else:
        if schema is None:
            raise ValueError(f"{root} holds no sharded collection; give a schema to create one")
        coll = create(
            root, schema, shards=shards, shard_by=shard_by, options=options, nodes=nodes, readers=readers,
            actor_options=actor_options,
        )
    sink = XvecDatasink(coll, mode, key)
    dataset.write_datasink(sink, concurrency=concurrency)
    coll.written = sink.result
    if optimize:
        coll.optimize()
    return coll


class XvecDatasource(Datasource):
    """Reads a collection (or every shard of a sharded one): one task per part, each
    reading the state planned here, or failing with `ChangedDuringReadError` if the
    collection was written since (read an idle collection, or plan again).

    A shard placed on a node (its directory on that node's local disk) is planned by a
    task on that node, and its read tasks must run there: `read` pins them with a label
    selector, and a task that finds itself on another node fails rather than read a
    directory that is not the shard's."""

    def __init__(self, path: str, *, filter: Optional[str] = None, columns: Optional[Sequence[str]] = None,
                 params=None, batch_size: int = 10_000):
        super().__init__()
        if os.path.exists(os.path.join(path, ROOT_FILE)):
            root = Root.load(path)
            places = [(root.shard_dir(i), s.node) for i, s in enumerate(root.shards)]
        else:
            places = [(os.path.abspath(path), None)]
        self._filter, self._params, self._batch = filter, params, batch_size
        self._fields = None if columns is None else [c for c in columns if c != xvec.KEY_FIELD]
        # A shard on a node's local disk is planned there (all at once), the rest here.
        away = {d: _on_node(ray.remote(_plan_shard), node).remote(d, self._fields) for d, node in places if node}
        #: (shard directory, node or None, generation, WAL records, parts) per shard.
        self._plan: List[tuple] = []
        self._row_bytes = 32.0
        for d, node in places:
            generation, wal, parts, self._row_bytes = ray.get(away[d]) if node else _plan_shard(d, self._fields)
            self._plan.append((d, node, generation, wal, parts))

    def nodes(self) -> List[Optional[str]]:
        """The nodes the planned shards are placed on (`None`: a shared file system)."""
        return list(dict.fromkeys(node for _, node, *_ in self._plan))

    def on(self, node: Optional[str]) -> "XvecDatasource":
        """This read of the shards placed on `node` only."""
        out = copy.copy(self)
        out._plan = [p for p in self._plan if p[1] == node]
        return out

    def get_name(self) -> str:
        return "xvec"

    def estimate_inmemory_data_size(self) -> Optional[int]:
        return int(sum(p["rows"] for *_, parts in self._plan for p in parts) * self._row_bytes)

    def get_read_tasks(self, parallelism: int, per_task_row_limit: Optional[int] = None, data_context=None):
        tasks = []
        for d, node, generation, wal, parts in self._plan:
            for i, p in enumerate(parts):
                meta = BlockMetadata(
                    num_rows=p["rows"] if self._filter is None else None,
                    size_bytes=int(p["rows"] * self._row_bytes),
                    exec_stats=None,
                    input_files=None,
                )
                read = functools.partial(
                    _read_part, d, node, generation, wal, i, self._filter, self._fields, self._params, self._batch
                )
                tasks.append(ReadTask(read, meta, per_task_row_limit=per_task_row_limit))
        return tasks


def _on_node(fn, node: str):
    """`fn` (a remote function) pinned to `node`, asking for no CPU: it only plans."""
    return fn.options(num_cpus=0, label_selector={NODE_LABEL: node})


def _plan_shard(path, fields):
    """What a read of the collection at `path` plans: (generation, WAL records, parts, bytes
    per row)."""
    c = xvec.open(path, read_only=True, follow=False)
    try:
        s = c.snapshot()
        return s.generation, s.wal_records, s.parts(), _row_bytes(c.schema(), fields)
    finally:
        c.close()


def _row_bytes(schema: Dict[str, Any], fields: Optional[List[str]]) -> float:
    total = 32.0
    for f in schema["fields"]:
        if fields is not None and f["name"] not in fields:
            continue
        total += 4.0 * f["dim"] if "dim" in f else 16.0
    return total


def _read_part(path, node, generation, wal, part, filter, fields, params, batch_size):
    import pyarrow as pa

    if node is not None and ray.get_runtime_context().get_node_id() != node:
        raise xvec.Error(
            f"{path}: a read task of this shard runs on node {ray.get_runtime_context().get_node_id()}, but the shard "
            f"is on node {node}'s local disk; read it with xvec.ray.read, which places its tasks there"
        )
    c = xvec.open(path, read_only=True, follow=False)
    try:
        s = c.snapshot()
        if (s.generation, s.wal_records) != (generation, wal):
            raise ChangedDuringReadError(
                f"{path}: written since the read was planned (generation {generation} → {s.generation}, "
                f"WAL records {wal} → {s.wal_records}); read it again"
            )
        for batch in s.export(fields=fields, filter=filter, params=params, batch_size=batch_size, part=part):
            yield pa.Table.from_batches([batch])
    finally:
        c.close()


def read(path: str, *, filter: Optional[str] = None, columns: Optional[Sequence[str]] = None, params=None,
         **read_args):
    """A Ray Dataset of the collection (or sharded collection) at `path`: one read task per
    segment and memtable chunk of each shard, `filter` and `columns` applied in the engine,
    vectors as `fixed_size_list<float32>` columns. The tasks of a shard placed on a node
    (its local disk) run on that node: one read per node, their union the Dataset.
    `read_args` go to `ray.data.read_datasource`."""
    source = XvecDatasource(path, filter=filter, columns=columns, params=params)
    nodes = source.nodes()
    if nodes == [None]:
        return ray.data.read_datasource(source, **read_args)
    if "label_selector" in read_args:
        raise ValueError("label_selector: the read tasks of a sharded collection on local disks are placed on their shards' nodes")
    datasets = []
    for node in nodes:
        args = dict(read_args)
        if node is not None:
            args["label_selector"] = {NODE_LABEL: node}
        datasets.append(ray.data.read_datasource(source.on(node), **args))
    return datasets[0].union(*datasets[1:]) if len(datasets) > 1 else datasets[0]


def to_lance(path: str, uri: str, *, filter: Optional[str] = None, columns: Optional[Sequence[str]] = None,
             params=None, mode: str = "create"):
    """Writes the collection (or sharded collection) at `path` to a Lance dataset at `uri`
    in parallel, as lance-ray does: one Ray task per part writes its Lance fragments, then
    one commit publishes them all (`mode` "create" or "overwrite"), so a failed task
    leaves no dataset half written. Returns the `lance.LanceDataset`. Needs pylance."""
    import lance

    if mode not in ("create", "overwrite"):
        raise ValueError(f"mode is {mode!r}; expected create or overwrite")
    if mode == "create" and os.path.exists(uri):
        raise FileExistsError(f"{uri}: exists; pass mode='overwrite' to replace it")
    source = XvecDatasource(path, filter=filter, columns=columns, params=params)
    write = ray.remote(_part_to_lance)
    calls = [
        (write if node is None else write.options(label_selector={NODE_LABEL: node})).remote(
            d, node, generation, wal, i, filter, source._fields, params, uri
        )
        for d, node, generation, wal, parts in source._plan
        for i in range(len(parts))
    ]
    done = ray.get(calls)
    schema = next((s for s, frags in done if frags), done[0][0] if done else None)
    fragments = [f for _, frags in done for f in frags]
    return lance.LanceDataset.commit(uri, lance.LanceOperation.Overwrite(schema, fragments))


def _part_to_lance(path, node, generation, wal, part, filter, fields, params, uri):
    import lance.fragment
    import pyarrow as pa

    tables = list(_read_part(path, node, generation, wal, part, filter, fields, params, 10_000))
    if not tables or sum(t.num_rows for t in tables) == 0:
        c = xvec.open(path, read_only=True, follow=False)
        try:
            schema = c.snapshot().export(fields=fields, filter=filter, params=params, part=part).schema
        finally:
            c.close()
        return schema, []
    table = pa.concat_tables(tables)
    return table.schema, lance.fragment.write_fragments(table, uri, schema=table.schema)
