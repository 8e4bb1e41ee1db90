"""Admin and reads around the query: flush, optimize, schema changes and indexes, stats,
describe, verify, snapshots, read-only handles and refresh, hybrid, explain, grouping,
and the small objects (Collection, QueryResult, Hit, Snapshot) as Python values."""

import numpy as np
import pytest

import xvec
from conftest import DIM, SCHEMA, vectors


@pytest.mark.covers("Collection.flush", "Collection.stats")
def test_flush_moves_the_memtable_into_a_segment(filled):
    s = filled.stats()
    assert s["mem_rows"] == 200 and s["segments"] == [] and s["live_docs"] == 200
    assert s["memory"]["total"] == sum(v for k, v in s["memory"].items() if k != "total") > 0
    filled.flush()
    s2 = filled.stats()
    assert s2["mem_rows"] == 0 and len(s2["segments"]) == 1 and s2["segments"][0]["rows"] == 200
    assert s2["generation"] > s["generation"] and s2["disk_bytes"] > 0
    assert s2["background_error"] is None and s2["unindexed_rows"] >= 0


@pytest.mark.covers("Collection.optimize")
def test_optimize_merges_builds_and_reports_progress(path):
    schema = {"name": "o", "fields": [
        {"name": "n", "type": "int64"},
        {"name": "emb", "type": "vector_fp32", "dim": 16, "metric": "cosine", "index": {"type": "hnsw"}},
    ]}
    x = np.random.default_rng(0).standard_normal((1500, 16)).astype(np.float32)
    with xvec.create(path, schema) as c:
        for part in range(3):
            sl = slice(part * 500, (part + 1) * 500)
            c.insert({"_key": [str(i) for i in range(sl.start, sl.stop)], "n": list(range(sl.start, sl.stop)), "emb": x[sl]})
            c.flush()
        c.delete(["0", "1"])
        seen = []
        report = c.optimize(progress=lambda done, total: seen.append((done, total)), threads=1)
        assert report["segments_before"] == 3 and report["segments_after"] == 1
        assert report["rows"] == 1498 and report["dropped"] == 2 and report["indexes_built"] == 1
        assert report["seconds"] > 0
        assert all(0 <= d <= t for d, t in seen)
        index = c.describe()["vector_indexes"]["emb"]
        assert index["completeness"] == 1.0
        # The knobs the engine defines for this index kind, with its defaults: an HNSW
        # field takes ef (at least 1), not nprobe, and query refuses what it does not take.
        knobs = {k["name"]: k for k in index["search_knobs"]}
        assert "ef" in knobs and "nprobe" not in knobs and knobs["ef"]["min"] >= 1
        with pytest.raises(xvec.QueryError, match="nprobe"):
            c.query(x[7], k=1, nprobe=4)
        assert c.query(x[7], k=1).keys == ["7"]
        assert c.optimize()["segments_before"] == 1  # again: nothing to merge, no harm


@pytest.mark.covers("Collection.add_field", "Collection.rename_field", "Collection.drop_field")
def test_field_changes(filled):
    filled.add_field({"name": "note", "type": "string", "nullable": True})
    filled.add_field('{"name": "score", "type": "double", "default": 0.5}')
    assert filled.fetch("k001").get("score") == 0.5 and "note" not in filled.fetch("k001")
    filled.update([{"_key": "k001", "note": "hello"}])
    filled.rename_field("note", "memo")
    assert filled.fetch("k001")["memo"] == "hello" and filled.count("memo = 'hello'") == 1
    filled.drop_field("memo")
    names = [f["name"] for f in filled.schema()["fields"]]
    assert names == ["pos", "n", "tags", "emb", "score"]
    with pytest.raises(xvec.DocError):
        filled.insert([{"_key": "z", "pos": "n", "memo": "x", "emb": np.ones(DIM)}]).raise_for_errors()


@pytest.mark.covers("Collection.add_index", "Collection.drop_index", "Collection.hybrid", "Collection.explain")
def test_indexes_explain_and_hybrid(filled):
    filled.update({"_key": [f"k{i:03}" for i in range(0, 200, 20)], "tags": [["small", "plant"]] * 10})
    filled.add_index("n", "range")
    filled.add_index("pos", {"type": "inverted"})
    filled.flush()
    fields = {f["name"]: f for f in filled.schema()["fields"]}
    assert fields["n"]["index"] == {"type": "range"} and fields["pos"]["index"] == {"type": "inverted"}
    e = filled.explain(vectors(1, 5)[0], k=3, filter="n < 30")
    assert e["filter_leaves"] == ["n < 30"] and e["hits"] == 3
    leaf = e["sources"][0]["leaves"][0]
    assert leaf["leaf"] == "n < 30" and leaf["matched"] == 30 and "Scan" not in leaf["access"]
    assert filled.explain(key="k010", k=2)["hits"] == 2
    filled.drop_index("n", "range")
    assert "index" not in {f["name"]: f for f in filled.schema()["fields"]}["n"]
    assert filled.explain(vectors(1, 5)[0], k=3, filter="n < 30")["sources"][0]["leaves"][0]["access"] == "Scan"
    # Full-text on a string field, queried through hybrid with a vector branch, fused.
    filled.add_field({"name": "gloss", "type": "string", "nullable": True})
    filled.update({"_key": ["k004", "k006"], "gloss": ["a small flowering plant", "a large animal"]})
    filled.add_index("gloss", "fts")
    hits = filled.hybrid({"k": 3, "fields": ["gloss"], "branches": [{"text": "flowering plant", "fields": ["gloss"]}]})
    assert hits[0][0] == "k004" and hits[0][2] == {"gloss": "a small flowering plant"} and hits[0][1] > 0
    fused = filled.hybrid(
        '{"k": 2, "fusion": "rrf", "branches": [{"key": "k006"}, {"text": "animal", "fields": ["gloss"]}]}'
    )
    assert fused[0][0] == "k006"
    filled.drop_index("gloss", "fts")
    with pytest.raises(xvec.Error):
        filled.hybrid({"k": 3, "branches": [{"text": "plant", "fields": ["gloss"]}]})


@pytest.mark.covers("QueryResult.__getitem__", "QueryResult.__len__", "QueryResult.__repr__", "Hit.key", "Hit.score",
                    "Hit.fields", "Hit.__repr__")
def test_query_result_and_hit(filled):
    q = vectors(200)[3]
    r = filled.query(q, k=4, filter="pos = 'v'", fields=["n"])
    assert len(r) == 4 and r.keys[0] == "k003"
    h = r[0]
    assert isinstance(h, xvec.Hit) and h.key == "k003" and h.score == r.scores[0] and h.fields == {"n": 3}
    assert r[-1].key == r.keys[-1] and [x.key for x in r] == r.keys
    with pytest.raises(IndexError):
        r[4]
    with pytest.raises(IndexError):
        r[-5]
    assert repr(h).startswith('Hit(key="k003", score=') and float(repr(h)[22:-1]) == h.score
    assert repr(r).startswith('QueryResult(4 hits: ["k003"')
    assert r.fields == [{"n": int(k[1:])} for k in r.keys]
    by_key = filled.query(key="k003", k=1, fields=[])
    assert by_key.keys == ["k003"] and by_key.fields == [{}]


def test_group_by(filled):
    groups = filled.query(vectors(1, 2)[0], k=5, group_by="pos", per_group=3)
    assert sorted(v for v, _ in groups) == ["n", "v"]
    for value, r in groups:
        assert isinstance(r, xvec.QueryResult) and 1 <= len(r) <= 3
        assert all(int(k[1:]) % 2 == (value == "v") for k in r.keys)


@pytest.mark.covers("Collection.snapshot", "Snapshot.count", "Snapshot.fetch", "Snapshot.query",
                    "Snapshot.generation", "Snapshot.__len__", "Snapshot.__repr__")
def test_snapshot_is_pinned(filled):
    s = filled.snapshot()
    g = s.generation
    filled.delete(["k000"])
    filled.insert([{"_key": "new", "pos": "n", "emb": vectors(200)[0]}])
    filled.flush()
    assert len(s) == 200 and s.count() == 200 and s.count("pos = 'n'") == 100
    assert s.count("n < $x", params={"x": 5}) == 5
    assert s.generation == g < filled.snapshot().generation
    assert [d and d["_key"] for d in s.fetch(["k000", "new"])] == ["k000", None]
    assert s.fetch(["k001"], fields=["n"]) == [{"_key": "k001", "n": 1}]
    assert s.query(vectors(200)[0], k=1).keys == ["k000"]
    assert filled.query(vectors(200)[0], k=1).keys == ["new"]
    assert repr(s) == f"xvec.Snapshot(generation={g}, count=200)"
    filled.close()
    assert s.count() == 200  # a snapshot outlives its handle


@pytest.mark.covers("Collection.__enter__", "Collection.__exit__", "Collection.__repr__", "Collection.__len__",
                    "Collection.path", "Collection.schema")
def test_collection_as_a_value(path):
    with xvec.create(path, SCHEMA, options={"auto_flush_rows": 50}) as c:
        assert c.path == path and repr(c) == f"xvec.Collection({path!r}, writable)".replace("'", '"')
        c.insert({"_key": [str(i) for i in range(120)], "pos": ["n"] * 120, "emb": vectors(120)})
        assert len(c) == 120 and c.schema()["name"] == "t"
        assert c.describe()["options"]["auto_flush_rows"] == 50
    assert c.closed and "closed" in repr(c)
    with pytest.raises(xvec.ClosedError, match="closed"):
        len(c)
    with pytest.raises(RuntimeError):  # the exception passes through __exit__, which closes
        with xvec.open(path) as c2:
            raise RuntimeError("inside")
    assert c2.closed
    with xvec.open(path, read_only=True) as r:
        assert "read-only" in repr(r) and r.stats()["live_docs"] == 120


@pytest.mark.covers("Collection.describe", "Collection.verify")
def test_describe_and_verify(filled):
    d = filled.describe()
    assert d["name"] == "t" and d["count"] == 200 and d["writable"] and d["path"] == filled.path
    assert d["schema"] == filled.schema() and d["vector_indexes"]["emb"]["index"]["type"] == "flat"
    filled.flush()
    v = filled.verify(deep=True)
    assert v["clean"] and v["problems"] == 0 and v["findings"] == [] and v["files"] >= 3


@pytest.mark.covers("Collection.refresh", "Collection.writable")
def test_read_only_follow_and_pinned_readers(filled, path):
    follow = xvec.open(path, read_only=True)
    pinned = xvec.open(path, read_only=True, follow=False, mmap=False)
    try:
        assert follow.count() == pinned.count() == 200 and not follow.writable
        filled.insert([{"_key": "late", "pos": "n", "emb": np.ones(DIM)}])
        assert follow.count() == 201 and follow.fetch("late")["pos"] == "n"
        assert pinned.count() == 200 and pinned.fetch("late") is None
        assert pinned.refresh() is True and pinned.count() == 201
        assert pinned.refresh() is False
        for write in (lambda: pinned.insert([{"_key": "x", "pos": "n", "emb": np.ones(DIM)}]),
                      lambda: pinned.delete(["k001"]), pinned.flush, lambda: pinned.add_index("n", "range")):
            with pytest.raises(xvec.ReadOnlyError):
                write()
    finally:
        follow.close()
        pinned.close()
    assert filled.count() == 201


@pytest.mark.covers("Collection.backup", "xvec.restore")
def test_backup_while_writing_then_restore(filled, tmp_path):
    filled.flush()
    filled.delete(["k001"])
    dest = tmp_path / "backup"
    r = filled.backup(dest)
    assert r["generation"] == filled.stats()["generation"] and r["wal_records"] == 1
    assert r["linked_files"] >= 1 and r["attempts"] == 1
    # Writes after the backup are not in it; the backup opens as a collection.
    filled.insert({"_key": ["late"], "pos": ["n"], "n": [7], "emb": vectors(1)})
    with xvec.open(dest, read_only=True) as b:
        assert b.count() == 199 and b.verify()["clean"]
    with pytest.raises(xvec.StorageError, match="already exists"):
        filled.backup(dest)
    r = filled.backup(dest, copy=True, incremental=True)
    assert r["linked_files"] == 0 and r["reused_files"] >= 1
    back = tmp_path / "restored"
    r = xvec.restore(dest, back)
    assert r["copied_files"] >= 3 and r["linked_files"] == 0
    with xvec.open(back) as c:
        assert c.count() == 200 and c.fetch(["late"])[0] is not None
    with pytest.raises(xvec.StorageError, match="not empty"):
        (tmp_path / "busy").mkdir()
        (tmp_path / "busy" / "x").write_text("x")
        xvec.restore(dest, tmp_path / "busy")


@pytest.mark.covers("Collection.set_index")
def test_set_index_swaps_a_vector_index_while_queries_keep_answering(coll):
    n = 3000
    v = vectors(n, seed=11)
    for part in range(3):
        rows = range(part * 1000, part * 1000 + 1000)
        coll.insert({"_key": [f"k{i:04}" for i in rows], "pos": ["n"] * 1000, "emb": v[part * 1000 : part * 1000 + 1000]})
        coll.flush()
    q = vectors(20, seed=12)
    exact, _ = coll.query_batch(q, k=10)
    coll.set_index("emb", {"type": "hnsw", "m": 8, "ef_construction": 64}, wait=True)
    emb = coll.describe()["vector_indexes"]["emb"]
    assert emb["building"] is None and emb["completeness"] == 1.0
    assert emb["index"]["type"] == "hnsw" and emb["index"]["m"] == 8
    approx, _ = coll.query_batch(q, k=10, ef=64)
    assert np.mean([len(set(a) & set(e)) / 10 for a, e in zip(approx, exact)]) > 0.9
    # Back to flat by name, without waiting: answers stay exact during the rebuild.
    coll.set_index("emb", "flat")
    assert (coll.query_batch(q, k=10)[0] == exact).all()
    with pytest.raises(xvec.SchemaError, match="emb"):
        coll.set_index("emb", "nonsense")
    with pytest.raises(xvec.SchemaError, match="emb"):
        coll.set_index("emb", {"type": "hnsw", "m": 0})
    with pytest.raises(xvec.Error, match="pos"):
        coll.set_index("pos", "hnsw")
