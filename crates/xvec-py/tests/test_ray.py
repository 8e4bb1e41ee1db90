"""`xvec.ray` on a local two-node Ray cluster (`ray.cluster_utils.Cluster`, 1 CPU each):
Ray Data in and out, sharded queries against one collection's, a writer killed mid-write,
reopening from the root manifest, an interrupted alter finished on reopen, placement."""

import json
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pyarrow as pa
import pytest

# ray[data] is in requirements-test.txt: missing, these tests fail rather than skip.
import ray  # noqa: E402
import ray.cluster_utils  # noqa: E402

import xvec  # noqa: E402
import xvec.ray  # noqa: E402

DIM = 16
ROWS = 50_000


def schema(index):
    return {
        "name": "t",
        "fields": [
            {"name": "pos", "type": "string"},
            {"name": "n", "type": "int64"},
            {"name": "emb", "type": "vector_fp32", "dim": DIM, "metric": "l2", "index": index},
        ],
    }


def table(n, start=0, seed=0):
    v = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return pa.table(
        {
            "_key": [f"k{i:06}" for i in range(start, start + n)],
            "pos": ["n" if i % 3 else "v" for i in range(start, start + n)],
            "n": np.arange(start, start + n, dtype=np.int64),
            "emb": pa.FixedSizeListArray.from_arrays(pa.array(v.reshape(-1)), DIM),
        }
    )


@pytest.fixture(scope="module")
def cluster():
    c = ray.cluster_utils.Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    c.add_node(num_cpus=1)
    ray.init(address=c.address, log_to_driver=False)
    c.wait_for_nodes()
    yield c
    ray.shutdown()
    c.shutdown()


@pytest.fixture(scope="module")
def data():
    return table(ROWS)


@pytest.fixture(scope="module")
def flat(cluster, data, tmp_path_factory):
    """50,000 rows written from a Ray Dataset into 4 shards, and the same rows in one
    collection."""
    root = str(tmp_path_factory.mktemp("ray") / "flat.shards")
    ds = ray.data.from_arrow(data).repartition(8)
    coll = xvec.ray.write(ds, root, schema({"type": "flat"}), shards=4)
    one = xvec.create(str(tmp_path_factory.mktemp("one") / "flat"), schema({"type": "flat"}))
    one.insert(data)
    one.optimize()
    yield coll, one
    coll.close()
    one.close()


def test_a_dataset_is_written_into_the_shards_and_read_back_once(flat, data):
    coll, one = flat
    assert coll.written.count == ROWS and not coll.written.failed
    assert len(coll) == ROWS
    sizes = [xvec.open(coll.root.shard_dir(i), read_only=True).count() for i in range(4)]
    assert sum(sizes) == ROWS and min(sizes) > ROWS // 4 * 0.9, sizes
    back = xvec.ray.read(coll.path).to_arrow_refs()
    got = pa.concat_tables(ray.get(back))
    assert sorted(got.column("_key").to_pylist()) == data.column("_key").to_pylist()
    assert got.schema.field("emb").type == pa.list_(pa.float32(), DIM)
    want = {k: v for k, v in zip(data.column("_key").to_pylist(), data.column("n").to_pylist())}
    assert all(want[k] == n for k, n in zip(got.column("_key").to_pylist(), got.column("n").to_pylist()))


def test_a_read_pushes_the_filter_and_the_columns_into_the_engine(flat):
    coll, one = flat
    ds = xvec.ray.read(coll.path, filter="pos = 'v' AND n < 30000", columns=["_key", "n"])
    got = pa.concat_tables(ray.get(ds.to_arrow_refs()))
    assert got.column_names == ["_key", "n"]
    assert got.num_rows == one.count("pos = 'v' AND n < 30000") == coll.count("pos = 'v' AND n < 30000")
    assert len(set(got.column("_key").to_pylist())) == got.num_rows
    # One read task per part (segment or memtable chunk) of each shard.
    parts = sum(len(xvec.open(coll.root.shard_dir(i), read_only=True).snapshot().parts()) for i in range(4))
    assert parts >= 4
    assert ds.materialize().num_blocks() >= parts


def test_flat_queries_over_shards_equal_one_collections(flat):
    coll, one = flat
    q = np.random.default_rng(7).standard_normal((50, DIM)).astype(np.float32)
    for i in range(5):
        a, b = coll.query(q[i], k=10, filter="pos = 'n'", fields=["n"]), one.query(q[i], k=10, filter="pos = 'n'", fields=["n"])
        assert a.keys == b.keys and np.allclose(a.scores, b.scores)
        assert [h.fields["n"] for h in a] == [h["n"] for h in b.fields]
    ka, sa = coll.query_batch(q, k=10)
    kb, sb = one.query_batch(q, k=10)
    assert (ka == kb).all() and np.allclose(sa, sb)
    got = coll.fetch(["k000001", "nope"])
    assert got[1] is None and got[0]["n"] == 1 and got[0]["pos"] == "n"
    assert np.array_equal(got[0]["emb"], one.fetch("k000001")["emb"])


def text_table(n, seed=3):
    """Rows with a text (8 to 60 words of a skewed 40-word vocabulary) and a vector."""
    rng = np.random.default_rng(seed)
    words = [" ".join(f"w{min(int(rng.exponential(8)), 39)}" for _ in range(rng.integers(8, 61))) for _ in range(n)]
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return pa.table(
        {
            "_key": [f"t{i:05}" for i in range(n)],
            "body": words,
            "n": np.arange(n, dtype=np.int64),
            "emb": pa.FixedSizeListArray.from_arrays(pa.array(v.reshape(-1)), DIM),
        }
    )


def test_a_hybrid_query_over_shards_equals_one_collections(cluster, tmp_path):
    s = {
        "name": "t",
        "fields": [
            {"name": "body", "type": "string", "index": {"type": "fts"}},
            {"name": "n", "type": "int64"},
            {"name": "emb", "type": "vector_fp32", "dim": DIM, "metric": "l2", "index": {"type": "flat"}},
        ],
    }
    data = text_table(3000)
    coll = xvec.ray.create(str(tmp_path / "hy"), s, shards=4)
    one = xvec.create(str(tmp_path / "one"), s)
    # Part in segments (through their full-text indexes), part in memtables, some deleted.
    for lo, hi in ((0, 2000), (2000, 3000)):
        coll.insert(data.slice(lo, hi - lo))
        one.insert(data.slice(lo, hi - lo))
        if lo == 0:
            coll.optimize()
            one.optimize()
    gone = [f"t{i:05}" for i in range(0, 3000, 97)]
    assert coll.delete(gone) == one.delete(gone).count == len(gone)
    text = "w1 w7 w12"
    # No two of the texts the branch ranks score the same: one collection breaks a tie by
    # row, shards by key.
    branch = one.hybrid({"k": 31, "branches": [{"text": text}]})
    assert len({round(sc, 4) for _, sc, _ in branch}) == 31
    vec = np.random.default_rng(5).standard_normal(DIM).astype(np.float32).tolist()
    queries = [
        {"k": 10, "fields": ["n"], "branches": [{"vector": vec, "k": 30}, {"text": text, "k": 30}]},
        {"k": 8, "filter": "n > 100", "fusion": {"weighted": [1, 0.5, 0.2]},
         "branches": [{"vector": vec, "k": 20}, {"text": text, "k": 20}, {"keys": ["t00777", "t00005", "t02999"]}]},
        {"k": 30, "branches": [{"text": text}]},
    ]
    for q in queries:
        got, want = coll.hybrid(q), one.hybrid(q)
        assert [h[0] for h in got] == [h[0] for h in want], q
        assert np.allclose([h[1] for h in got], [h[1] for h in want], rtol=1e-6, atol=0), q
        assert [h[2] for h in got] == [h[2] for h in want]
    # Local readers: the driver reads the shards itself and answers the same.
    local = xvec.ray.open(str(tmp_path / "hy"), local_readers=True)
    for q in queries:
        assert local.hybrid(q) == coll.hybrid(q)
    a, b = local.query(vec, k=12, fields=["n"]), coll.query(vec, k=12, fields=["n"])
    assert a.keys == b.keys and np.array_equal(a.scores, b.scores) and a.fields == b.fields
    ka, sa = local.query_batch(np.array([vec, vec[::-1]], dtype=np.float32), k=5)
    kb, sb = coll.query_batch(np.array([vec, vec[::-1]], dtype=np.float32), k=5)
    assert (ka == kb).all() and np.array_equal(sa, sb)
    assert local.count("n > 100") == coll.count("n > 100") and local.fetch(["t00001", "x"], fields=["n"]) == coll.fetch(["t00001", "x"], fields=["n"])
    # A write through the actors is seen by the local readers (they follow the writer).
    coll.insert(text_table(1).set_column(0, "_key", pa.array(["new"])))
    assert local.fetch("new")["n"] == 0 and len(local) == len(one) + 1
    local.close()  # the same actors as `coll`'s: stops them
    one.close()


def test_shards_searched_on_one_node_split_its_cpus():
    """A sharded `query_batch` gave every shard all of its node's CPUs, so two shards on a
    2-CPU node ran 4 search threads; by default the shards on a node now split its CPUs,
    at least one thread each."""
    from xvec.ray._sharded import split_cpus

    assert split_cpus(["a", "a"], {"a": 2}) == [1, 1]
    assert split_cpus(["a", "b", "a", "a"], {"a": 9, "b": 2}) == [3, 2, 3, 3]
    assert split_cpus(["a", "a", "a"], {"a": 2}) == [1, 1, 1]
    assert split_cpus(["a"], {"a": 4}) == [4]


def test_a_batch_gives_each_shard_its_share_of_the_cpus(flat):
    """The test cluster's nodes have one CPU each and hold 4 shards: one thread a shard;
    `threads=` given is passed to every shard as it is (0 is the engine's error)."""
    coll, one = flat
    readers, threads = coll._readers_now(with_threads=True)
    assert len(readers) == 4 and threads == [1, 1, 1, 1]
    q = np.random.default_rng(11).standard_normal((20, DIM)).astype(np.float32)
    ka, sa = coll.query_batch(q, k=5, threads=2)
    kb, sb = one.query_batch(q, k=5)
    assert (ka == kb).all() and np.allclose(sa, sb)
    with pytest.raises(xvec.QueryError, match=r"threads is 0; expected 1\.\.="):
        coll.query_batch(q, k=5, threads=0)


def test_ties_are_broken_by_key_across_shards(cluster, tmp_path):
    coll = xvec.ray.create(str(tmp_path / "ties"), schema({"type": "flat"}), shards=3)
    same = np.ones((30, DIM), dtype=np.float32)
    t = table(30)
    t = t.set_column(3, "emb", pa.FixedSizeListArray.from_arrays(pa.array(same.reshape(-1)), DIM))
    coll.insert(t)
    hits = coll.query(np.ones(DIM, dtype=np.float32), k=7)
    assert hits.keys == [f"k{i:06}" for i in range(7)] and (hits.scores == 0).all()
    coll.close()


def test_hnsw_recall_over_shards_matches_one_collection(cluster, data, tmp_path):
    hnsw = {"type": "hnsw", "m": 8, "ef_construction": 64}
    part = data.slice(0, 20_000)
    coll = xvec.ray.write(ray.data.from_arrow(part).repartition(4), str(tmp_path / "h"), schema(hnsw), shards=2)
    one = xvec.create(str(tmp_path / "h1"), schema(hnsw))
    one.insert(part)
    one.optimize()
    flat = xvec.create(str(tmp_path / "exact"), schema({"type": "flat"}))
    flat.insert(part)
    q = np.random.default_rng(3).standard_normal((200, DIM)).astype(np.float32)
    truth, _ = flat.query_batch(q, k=10)

    def recall(keys):
        return np.mean([len(set(keys[i]) & set(truth[i])) / 10 for i in range(len(q))])

    r_shards, r_one = recall(coll.query_batch(q, k=10, ef=64)[0]), recall(one.query_batch(q, k=10, ef=64)[0])
    # Each shard searches half the rows at the same ef: never worse than one collection's.
    assert r_shards >= r_one - 0.002, (r_shards, r_one)
    assert r_shards > 0.9
    coll.close()


def test_rows_a_shard_refuses_are_named_by_their_input_position(cluster, tmp_path):
    """One shard's writer on this node (handed the table and its rows' positions), one
    on the other node (handed a copy of its rows): either way a refused row is reported
    at its position in the input."""
    here = ray.get_runtime_context().get_node_id()
    other = next(n["NodeID"] for n in ray.nodes() if n["Alive"] and n["NodeID"] != here)
    coll = xvec.ray.create(str(tmp_path / "refused"), schema({"type": "flat"}), shards=2, nodes=[here, other])
    assert coll.insert(table(300)).count == 300
    again = table(600).take(np.random.default_rng(2).permutation(600))
    r = coll.insert(again)
    keys = again.column("_key").to_pylist()
    assert r.count == 300 and len(r.failed) == 300
    assert all(keys[p] == k and k < "k000300" for p, k, _ in r.failed)
    assert sorted(k for _, k, _ in r.failed) == [f"k{i:06}" for i in range(300)]
    assert len(coll) == 600
    coll.close()


def test_a_write_task_asks_for_its_blocks_with_the_jemalloc_pool_then_restores_the_pool(cluster, tmp_path):
    """A read fused into a write task decodes each block when the task asks for it: every
    block is asked for with Arrow's jemalloc pool as pyarrow's default, and the pool the
    worker had before is its default again after the task."""
    from ray.data._internal.execution.interfaces import TaskContext

    coll = xvec.ray.create(str(tmp_path / "pool"), schema({"type": "flat"}), shards=2)
    seen = []

    def blocks():
        for i in range(2):
            seen.append(pa.default_memory_pool().backend_name)
            yield table(10, start=10 * i)

    before = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        r = xvec.ray.XvecDatasink(coll, "insert", "_key").write(blocks(), TaskContext(task_idx=0, op_name="Write"))
        assert r["count"] == 20 and seen == ["jemalloc", "jemalloc"]
        assert pa.default_memory_pool().backend_name == "system"
    finally:
        pa.set_memory_pool(before)
    coll.close()


def test_a_shard_write_goes_in_wal_batches_of_a_bounded_size(tmp_path, monkeypatch):
    """A shard writer writes a call's rows in WAL batches of about `WAL_BATCH_BYTES` (one
    batch per call put a large block's buffers above glibc's 32 MiB mmap threshold, mapped
    and faulted in afresh on every call): every row is written once, and a refused row is
    still named by its position in the table, whichever batch it fell in."""
    from xvec.ray import _actors

    monkeypatch.setattr(_actors, "WAL_BATCH_BYTES", 2_000)
    w = _actors.ShardWriter(str(tmp_path / "shard"), schema({"type": "flat"}), None)
    real, sizes = w.c, []

    class Spy:
        def insert(self, *args, **kwargs):
            sizes.append(kwargs["batch_size"])
            return real.insert(*args, **kwargs)

    w.c = Spy()
    t = table(300)
    per_row = t.nbytes / t.num_rows
    n, failed = w.write(t, "insert", "_key", rows=np.arange(0, 300, 2))
    assert n == 150 and not failed
    assert 1 < sizes[0] < 150 and sizes[0] * per_row <= 2_000 < (sizes[0] + 1) * per_row
    n, failed = w.write(t, "insert", "_key")
    assert n == 150 and sorted(pos for pos, _, _ in failed) == list(range(0, 300, 2))
    assert all(k == f"k{pos:06}" for pos, k, _ in failed)
    assert len(real) == 300
    assert _actors.wal_batch_rows(table(10), 10) == 10 and _actors.wal_batch_rows(t, 0) == 1
    real.close()


def test_rows_a_write_task_refuses_are_named_by_their_position_in_its_input(cluster, tmp_path):
    """A write task handed two blocks, each with refused rows from its first position on:
    every refused row is named by its own position in the task's input (the blocks one
    after another), never by its place in its block, so no two rows share one."""
    from ray.data._internal.execution.interfaces import TaskContext

    coll = xvec.ray.create(str(tmp_path / "blocks"), schema({"type": "flat"}), shards=2)
    assert coll.insert(table(10)).count == 10
    blocks = [table(10, start=5), table(10)]  # k5..k14 (k5..k9 there), then k0..k9 (all there)
    keys = [k for b in blocks for k in b.column("_key").to_pylist()]
    r = xvec.ray.XvecDatasink(coll, "insert", "_key").write(blocks, TaskContext(task_idx=3, op_name="Write"))
    assert r["count"] == 5
    assert sorted(pos for _, pos, _, _ in r["failed"]) == [*range(5), *range(10, 20)]
    assert all(task == 3 and keys[pos] == k for task, pos, k, _ in r["failed"])
    with pytest.raises(xvec.DocError, match=r"^write task 3's row 0 \(key 'k000005'\): .*; 15 rows refused in all$"):
        xvec.ray.ShardedWriteResult(r["count"], r["failed"]).raise_for_errors()
    coll.close()


def test_search_knobs_reach_every_shard(cluster, tmp_path):
    """`beam_width` (a disk index) and `target_recall` (IVF) go to each shard's query as
    given: in range they search, out of range every shard's engine refuses them."""
    disk = {"name": "emb", "type": "vector_fp32", "dim": DIM, "metric": "l2",
            "index": {"type": "disk", "degree": 8, "build_list": 16}}
    ivf = {"name": "alt", "type": "vector_fp32", "dim": DIM, "metric": "l2", "index": {"type": "ivf", "nlist": 8, "nprobe": 2}}
    x = np.random.default_rng(5).standard_normal((600, DIM)).astype(np.float32)
    coll = xvec.ray.create(str(tmp_path / "knobs"), {"name": "k", "fields": [disk, ivf]}, shards=2)
    keys = [f"k{i:03}" for i in range(600)]
    coll.insert({"_key": keys, "emb": x, "alt": x})
    coll.optimize()
    for width in (1, 8, 64):
        assert coll.query(x[7], k=1, field="emb", beam_width=width).keys == ["k007"], width
    got, _ = coll.query_batch(x[:3], k=1, field="emb", beam_width=8)
    assert [list(r) for r in got] == [["k000"], ["k001"], ["k002"]]
    with pytest.raises(xvec.QueryError, match=r"beam_width 65 is out of range"):
        coll.query(x[7], field="emb", beam_width=65)
    with pytest.raises(xvec.QueryError, match=r"beam_width 65 is out of range"):
        coll.query_batch(x[:2], field="emb", beam_width=65)
    assert coll.query(x[9], k=1, field="alt", target_recall=1.0).keys == ["k009"]
    got, _ = coll.query_batch(x[:3], k=1, field="alt", target_recall=1.0)
    assert [list(r) for r in got] == [["k000"], ["k001"], ["k002"]]
    with pytest.raises(xvec.QueryError, match="target recall 1.5 is out of range"):
        coll.query(x[9], field="alt", target_recall=1.5)
    with pytest.raises(xvec.QueryError, match="target_recall does not apply to field `emb`"):
        coll.query_batch(x[:2], field="emb", target_recall=0.9)
    coll.close()


def test_a_writer_killed_mid_write_loses_no_acknowledged_row(cluster, tmp_path):
    coll = xvec.ray.create(str(tmp_path / "kill"), schema({"type": "flat"}), shards=2)
    acked, errors, retried = [], [], []

    halfway = threading.Event()

    def writer():
        try:
            for b in range(80):
                t = table(125, start=b * 125, seed=b)
                r = coll.insert(t)
                assert not r.failed and r.count == 125, r.failed[:3]
                retried.append(r.retried)
                acked.extend(t.column("_key").to_pylist())
                if b == 20:
                    halfway.set()
                    time.sleep(0.2)
        except Exception as e:  # the test fails below, naming it
            errors.append(e)

    before = ray.get(coll.writer(1).pid.remote())
    th = threading.Thread(target=writer)
    th.start()
    assert halfway.wait(60), errors
    ray.kill(coll.writer(1), no_restart=False)
    th.join(timeout=120)
    assert not th.is_alive() and not errors, errors
    after = xvec.ray._sharded.gather([lambda: coll.writer(1).pid.remote()])[0]
    assert after != before, "the writer actor was not restarted"
    assert sum(retried) >= 1, "no write met the killed actor"
    assert len(acked) == 10_000
    assert coll.count() == 10_000
    got = coll.fetch(acked[::97])
    assert all(d is not None for d in got)
    assert coll.verify()["clean"]
    coll.close()


def test_reopening_from_the_root_manifest_finishes_an_interrupted_alter(cluster, tmp_path):
    root = str(tmp_path / "re")
    coll = xvec.ray.create(root, schema({"type": "flat"}), shards=3)
    coll.insert(table(3_000))
    coll.add_field({"name": "note", "type": "string", "nullable": True})
    assert any(f["name"] == "note" for f in coll.schema()["fields"])
    # An alter that reached shard 0 only, as if the driver died there.
    ray.get(coll.writer(0).call.remote("add_field", {"name": "late", "type": "int64", "nullable": True}))
    r = coll.root
    r.pending = {"op": "add_field", "args": [{"name": "late", "type": "int64", "nullable": True}], "from": r.schema}
    r.save()
    coll.close()
    with open(os.path.join(root, xvec.ray.ROOT_FILE)) as f:
        assert json.load(f)["pending"]["op"] == "add_field"
    again = xvec.ray.open(root)
    assert again.root.pending is None and len(again) == 3_000
    for i in range(3):
        names = [f["name"] for f in xvec.open(again.root.shard_dir(i), read_only=True).schema()["fields"]]
        assert "late" in names and "note" in names, (i, names)
    # A change every shard refuses is dropped, not left pending.
    with pytest.raises(xvec.Error):
        again.add_field({"name": "pos", "type": "string"})
    assert again.root.pending is None
    again.close()


def test_shards_are_placed_on_the_nodes_named(cluster, tmp_path):
    nodes = [n["NodeID"] for n in ray.nodes() if n["Alive"]]
    assert len(nodes) == 2
    place = [nodes[i % 2] for i in range(4)]
    coll = xvec.ray.create(str(tmp_path / "placed"), schema({"type": "flat"}), shards=4, nodes=place)
    assert coll.nodes() == place
    coll.close()
    with open(os.path.join(str(tmp_path / "placed"), xvec.ray.ROOT_FILE)) as f:
        assert [s["node"] for s in json.load(f)["shards"]] == place


def test_read_tasks_run_on_the_node_whose_disk_holds_their_shard(cluster, tmp_path):
    """Shards placed on nodes (their local disks): each read task runs on its shard's
    node. Ray Data spreads read tasks over the nodes unless told; a task sent elsewhere
    fails rather than read a directory that is not its shard's."""
    nodes = [n["NodeID"] for n in ray.nodes() if n["Alive"]]
    place = [nodes[0], nodes[1], nodes[1], nodes[0]]
    root = str(tmp_path / "local")
    coll = xvec.ray.create(root, schema({"type": "flat"}), shards=4, nodes=place)
    rows = table(4000)
    coll.insert(rows)
    coll.flush()
    coll.insert(table(400, start=4000))  # a memtable part too
    coll.close()
    ds = xvec.ray.read(root, columns=["_key", "n"]).materialize()
    seen = 0
    for bundle in ds.iter_internal_ref_bundles():
        for block in bundle.blocks:
            keys = ray.get(block.ref).column("_key").combine_chunks()
            ran_on = block.metadata.exec_stats.node_id
            shards = set(xvec.shard_ids(keys, 4).tolist())
            assert {place[s] for s in shards} == {ran_on}, (shards, ran_on)
            seen += len(keys)
    assert seen == 4400
    # Both nodes read: the check above compares real placements, not one node's.
    assert {e.metadata.exec_stats.node_id for b in ds.iter_internal_ref_bundles() for e in b.blocks} == set(nodes)
    # Every task pinned to one node: those of the other node's shards refuse to read.
    source = xvec.ray.XvecDatasource(root)
    wrong = ray.data.read_datasource(source, label_selector={"ray.io/node-id": nodes[0]})
    with pytest.raises(Exception, match=f"the shard is on node {nodes[1]}'s local disk"):
        wrong.materialize()


def test_reader_actors_start_on_the_first_read(cluster, tmp_path):
    """An ingest starts no reader process: they start when the first read needs them."""
    coll = xvec.ray.create(str(tmp_path / "lazy"), schema({"type": "flat"}), shards=2)
    prefix = f"xvec/{coll.root.id}/"

    def actors():
        return sorted(n[len(prefix) :] for n in ray.util.list_named_actors() if n.startswith(prefix))

    coll.insert(table(100))
    assert actors() == ["w0", "w1"]
    assert coll.count() == 100
    assert actors() == ["r0.0", "r1.0", "w0", "w1"]
    coll.close()


def test_the_shard_actors_do_not_import_ray_data():
    """The actors import `xvec.ray`; Ray Data (0.6 s of CPU a process) is imported only
    where a Dataset is read or written."""
    code = (
        "import sys, xvec.ray._actors\n"
        "assert 'ray.data' not in sys.modules, 'ray.data imported'\n"
        "import xvec.ray\n"
        "assert xvec.ray.write.__module__ == 'xvec.ray._data' and 'ray.data' in sys.modules\n"
        "from xvec.ray import XvecDatasink, ChangedDuringReadError\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_damaged_root_manifest_is_an_error_naming_the_key(cluster, tmp_path):
    root = tmp_path / "bad"
    root.mkdir()
    doc = {"format": "xvec-shards", "version": 1, "rule": xvec.ray.RULE, "shards": [{"path": "s0"}], "schema": {}}
    (root / xvec.ray.ROOT_FILE).write_text(json.dumps(doc))
    with pytest.raises(xvec.CorruptionError, match="'id'"):
        xvec.ray.open(str(root))
    (root / xvec.ray.ROOT_FILE).write_text("{not json")
    with pytest.raises(xvec.CorruptionError, match="not JSON"):
        xvec.ray.open(str(root))


def test_a_read_of_a_collection_written_after_planning_fails_clearly(cluster, tmp_path):
    path = str(tmp_path / "live")
    c = xvec.create(path, schema({"type": "flat"}))
    c.insert(table(100))
    ds = xvec.ray.read(path)
    c.insert(table(10, start=100))
    with pytest.raises(Exception, match="written since the read was planned"):
        ds.materialize()
    c.close()


def test_a_sharded_collection_is_written_to_lance_a_task_per_part(flat, tmp_path):
    import lance

    coll, one = flat
    uri = str(tmp_path / "flat.lance")
    ds = xvec.ray.to_lance(coll.path, uri, filter="n < 5000", columns=["_key", "n", "emb"])
    assert len(ds.get_fragments()) >= 4
    t = lance.dataset(uri).to_table()
    assert t.num_rows == 5000 and sorted(t.column("n").to_pylist()) == list(range(5000))
    assert t.schema.field("emb").type == pa.list_(pa.float32(), DIM)


def test_the_batch_merge_equals_a_sort_by_score_then_key():
    """merge_batch sorts all rows at once and re-sorts only rows with ties; against a plain
    per-row sort on random scores with many ties and missing hits."""
    import random

    from xvec.ray._merge import merge_batch

    rng, pick = np.random.default_rng(1), random.Random(1)

    def by_sort(parts, k, higher_better):
        keys = np.concatenate([p[0] for p in parts], 1)
        scores = np.concatenate([p[1] for p in parts], 1)
        out_k, out_s = [], []
        for i in range(len(keys)):
            rows = sorted(((float(s), key) for key, s in zip(keys[i], scores[i]) if key is not None),
                          key=lambda r: (-r[0] if higher_better else r[0], r[1]))[:k]
            rows += [(np.nan, None)] * (k - len(rows))
            out_k.append([r[1] for r in rows])
            out_s.append([r[0] for r in rows])
        return np.array(out_k, dtype=object), np.array(out_s, dtype=np.float32)

    for _ in range(200):
        k, n, higher_better = pick.randint(1, 8), pick.randint(1, 20), pick.random() < 0.5
        parts = []
        for s in range(pick.randint(1, 4)):
            scores = rng.integers(0, 4, (n, k)).astype(np.float32)
            keys = np.array([[f"s{s}r{i}c{j}" for j in range(k)] for i in range(n)], dtype=object)
            missing = rng.random((n, k)) < 0.2
            scores[missing], keys[missing] = np.nan, None
            parts.append((keys, scores))
        got, want = merge_batch(parts, k, higher_better), by_sort(parts, k, higher_better)
        assert (got[0] == want[0]).all()
        assert np.array_equal(got[1], want[1], equal_nan=True)
