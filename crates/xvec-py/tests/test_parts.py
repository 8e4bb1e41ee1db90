"""A snapshot read part by part (what `xvec.ray.read` plans a task for) and the shard rule
(what `xvec.ray` routes rows by), without Ray."""

import numpy as np
import pyarrow as pa
import pytest

import xvec

from conftest import vectors


@pytest.mark.covers("Snapshot.parts", "Snapshot.export", "Snapshot.wal_records")
def test_the_parts_of_a_snapshot_read_together_what_export_reads(coll):
    for start in (0, 100):
        coll.insert({"_key": [f"k{i:03}" for i in range(start, start + 100)], "pos": ["n"] * 100,
                     "emb": vectors(100, seed=start)})
        coll.flush()
    coll.insert({"_key": [f"m{i:03}" for i in range(50)], "pos": ["v"] * 50, "emb": vectors(50, seed=9)})
    coll.delete(["k000", "k150"])
    snap = coll.snapshot()
    parts = snap.parts()
    assert [p["segment"] is None for p in parts] == [False, False] + [True] * (len(parts) - 2)
    assert sum(p["rows"] for p in parts) == len(snap) == 248
    assert snap.wal_records >= 2
    whole = snap.export().read_all()
    pieces = [snap.export(part=i, fields=["pos"]).read_all() for i in range(len(parts))]
    assert [t.num_rows for t in pieces] == [p["rows"] for p in parts]
    assert pa.concat_tables(pieces).column("_key") == whole.column("_key")
    assert pieces[0].column_names == ["_key", "pos"]
    only_v = snap.export(part=len(parts) - 1, filter="pos = 'v'").read_all()
    assert set(only_v.column("pos").to_pylist()) == {"v"}
    # The view is pinned: a later write changes neither its parts nor what they read.
    coll.insert({"_key": ["late"], "pos": ["v"], "emb": vectors(1)})
    assert snap.parts() == parts and snap.export(part=0).read_all().num_rows == parts[0]["rows"]
    with pytest.raises(xvec.QueryError, match=f"scan part {len(parts)} is out of range"):
        snap.export(part=len(parts))


@pytest.mark.covers("xvec.shard_ids", "xvec.MAX_SHARDS")
def test_the_shard_of_a_key_is_crc32c_of_its_bytes_mod_shards():
    # crc32c("123456789") = 0xE3069283, the check value of the Castagnoli polynomial.
    ids = xvec.shard_ids(pa.array(["123456789", "", "é"]), 1000)
    assert ids.dtype == np.uint32 and ids[0] == 0xE3069283 % 1000
    for kind in (pa.string(), pa.large_string(), pa.string_view()):
        assert (xvec.shard_ids(pa.array(["123456789", "", "é"], kind), 1000) == ids).all()
    keys = pa.array([f"k{i}" for i in range(20_000)])
    counts = np.bincount(xvec.shard_ids(keys, 4), minlength=4)
    assert counts.min() > 4_500, counts
    with pytest.raises(ValueError, match="row 1 is null"):
        xvec.shard_ids(pa.array(["a", None]), 2)
    with pytest.raises(TypeError, match="expected strings"):
        xvec.shard_ids(pa.array([1, 2]), 2)
    with pytest.raises(ValueError, match="expected 1..="):
        xvec.shard_ids(keys, xvec.MAX_SHARDS + 1)


@pytest.mark.covers("xvec.to_lance")
def test_a_collection_exported_to_lance_reads_and_searches_the_same(filled, tmp_path):
    import lance  # in requirements-test.txt: missing, this test fails rather than skips
    ds = xvec.to_lance(filled, str(tmp_path / "t.lance"), filter="pos = 'n'")
    t = ds.to_table()
    want = filled.export(filter="pos = 'n'").read_all()
    assert t.num_rows == want.num_rows == 100
    assert t.schema.field("emb").type == pa.list_(pa.float32(), 8)
    assert t.sort_by("_key").equals(want.sort_by("_key"))
    q = vectors(1, seed=5)[0]
    near = ds.to_table(nearest={"column": "emb", "q": q, "k": 5, "metric": "l2"}, columns=["_key"])
    assert near.column("_key").to_pylist() == filled.query(q, k=5, filter="pos = 'n'").keys
    # From a snapshot, appended: a later write is not in it.
    snap = filled.snapshot()
    filled.insert({"_key": ["late"], "pos": ["v"], "emb": vectors(1)})
    again = xvec.to_lance(snap, str(tmp_path / "t.lance"), filter="pos = 'v'", fields=["pos", "emb"], mode="append")
    assert again.count_rows() == 200
    assert lance.dataset(str(tmp_path / "t.lance")).count_rows(filter="_key = 'late'") == 0


@pytest.mark.covers("Collection.text_stats", "Collection.rankings", "xvec.fuse")
def test_shards_fusing_summed_text_stats_answer_as_one_collection(tmp_path):
    schema = {"name": "t", "fields": [{"name": "body", "type": "string", "index": {"type": "fts"}},
                                      {"name": "emb", "type": "vector_fp32", "dim": 4, "metric": "cosine"}]}
    rng = np.random.default_rng(1)
    rows = [{"_key": f"d{i:03}", "body": " ".join(f"w{int(rng.exponential(3))}" for _ in range(3 + i % 41)),
             "emb": rng.standard_normal(4).astype(np.float32)} for i in range(200)]
    one = xvec.create(tmp_path / "one", schema)
    one.insert(rows)
    shards = [xvec.create(tmp_path / f"s{s}", schema) for s in range(3)]
    for s, c in enumerate(shards):
        c.insert(rows[s::3])
    q = {"k": 5, "fields": ["body"], "branches": [{"vector": [1, 0, 0, 1], "k": 20}, {"text": "w2 w5", "k": 20}]}
    stats = [c.text_stats(q) for c in shards]
    assert stats[0][0] is None and set(stats[0][1]) == {"body"}
    summed = {"docs": sum(s[1]["body"]["docs"] for s in stats),
              "total_len": sum(s[1]["body"]["total_len"] for s in stats),
              "doc_freq": {t: sum(s[1]["body"]["doc_freq"][t] for s in stats) for t in ("w2", "w5")}}
    assert one.text_stats(q)[1] == {"body": summed}
    q["branches"][1]["stats"] = {"body": summed}
    merged = []
    for b in range(2):
        parts = [c.rankings(q)[b] for c in shards]
        higher = parts[0][2]
        rows_ = sorted(((float(sc), k, f) for ks, scs, _, fs in parts for k, sc, f in zip(ks, scs, fs)),
                       key=lambda r: (-r[0] if higher else r[0], r[1]))[:20]
        merged.append(([r[1] for r in rows_], [r[0] for r in rows_], higher, [r[2] for r in rows_]))
    got, want = xvec.fuse(q, merged), one.hybrid(q)
    assert [(k, f) for k, _, f in got] == [(k, f) for k, _, f in want]
    assert np.allclose([s for _, s, _ in got], [s for _, s, _ in want], rtol=1e-6)
    with pytest.raises(xvec.QueryError, match="2 rankings for 3 branches"):
        xvec.fuse({"branches": [{"text": "a"}, {"text": "b"}, {"text": "c"}]}, merged)
