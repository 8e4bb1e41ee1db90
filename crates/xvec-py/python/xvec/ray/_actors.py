"""The actors that own the shards: one writer per shard (the engine allows one writer per
collection) and any number of readers. Ray restarts a killed actor; the writer's
constructor then reopens its collection, which recovers from its WAL, so every write it
acknowledged is there again.

Actors ask Ray for no CPU by default (`num_cpus=0`): they are placed by node affinity, and
the engine sizes its own threads; pass `actor_options` to reserve resources instead.
"""

import os
import time

import ray

import xvec

#: How long a restarted writer waits for its killed predecessor's lock to be released.
LOCK_WAIT_S = 30.0
#: About the most bytes of rows one WAL batch of a shard write holds. A batch's buffers
#: (the WAL frame, the memtable's staging) are about its rows' size; above glibc's largest
#: mmap threshold (32 MiB) each is mapped fresh and handed back to the kernel on every
#: call, so every byte of it was faulted in and zeroed again. Below it the heap reuses them.
WAL_BATCH_BYTES = 16 << 20


def wal_batch_rows(table, n: int) -> int:
    """The rows per WAL batch for writing `n` rows of `table`: as many as fit in
    `WAL_BATCH_BYTES` at the table's bytes per row, at least one, at most `n`."""
    per_row = table.nbytes / max(table.num_rows, 1)
    return max(1, min(n, int(WAL_BATCH_BYTES // max(per_row, 1.0))))


def _node() -> str:
    return ray.get_runtime_context().get_node_id()


class ShardWriter:
    """Holds the writer of one shard."""

    def __init__(self, path, schema, options):
        # `schema` is given only when the sharded collection is created: a shard directory
        # that is missing or empty later is an error from `open`, never a new empty shard.
        if schema is not None and (not os.path.exists(path) or not os.listdir(path)):
            self.c = xvec.create(path, schema, options=options or None)
        else:
            self.c = xvec.open(path, lock_timeout=LOCK_WAIT_S)

    def node(self) -> str:
        return _node()

    def pid(self) -> int:
        return os.getpid()

    def write(self, table, mode, key, rows=None):
        """Writes an Arrow table (`insert`, `upsert` or `update`), or only its rows at the
        positions `rows`, in WAL batches of about `WAL_BATCH_BYTES` each (`wal_batch_rows`;
        each synced under the shard's policy); the call returns, its acknowledgement, once
        every batch is written. Returns the rows written and each row refused as (position
        in `table`, key, message)."""
        n = table.num_rows if rows is None else len(rows)
        r = getattr(self.c, mode)(table, key=key, rows=rows, batch_size=wal_batch_rows(table, n))
        return r.count, [(pos, k, str(e)) for pos, k, e in r.failed]

    def delete(self, keys, where, params):
        if where is not None:
            return self.c.delete(where=where, params=params)
        return self.c.delete(keys).count

    def call(self, method, *args, **kwargs):
        """Any other method of the collection (flush, optimize, verify, alter, stats...)."""
        return getattr(self.c, method)(*args, **kwargs)

    def close(self):
        self.c.close()


class ShardReader:
    """A read-only handle of one shard that follows its writer: every query sees what the
    writer acknowledged before it."""

    def __init__(self, path):
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                self.c = xvec.open(path, read_only=True, follow=True)
                return
            except FileNotFoundError:
                # The writer (placed at the same time) has not created the shard yet.
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def node(self) -> str:
        return _node()

    def query(self, vector, kwargs):
        r = self.c.query(vector, **kwargs)
        return r.keys, r.scores, r.fields

    def query_batch(self, vectors, kwargs):
        return self.c.query_batch(vectors, **kwargs)

    def call(self, method, *args, **kwargs):
        return getattr(self.c, method)(*args, **kwargs)


def spawn(cls, name, node, actor_options, *args):
    """The named actor `name` (reattached if this job already has it), on `node` when the
    shard lives on that node's disk; restarted whenever it dies."""
    opts = {"num_cpus": 0, "max_restarts": -1, "max_task_retries": 0, "name": name, "get_if_exists": True}
    if node is not None:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        opts["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node_id=node, soft=False)
    opts.update(actor_options or {})
    return ray.remote(cls).options(**opts).remote(*args)
