"""Arrow out: export() streams every document and round-trips through insert into a second
collection; a QueryResult is an Arrow stream and converts to pyarrow, pandas, polars and
numpy."""

import numpy as np
import pyarrow as pa
import pytest

import xvec
from conftest import DIM, vectors
from test_inputs import FULL_ROW, RICH


def all_docs(c):
    keys = [b["_key"].to_pylist() for b in c.export(fields=[])]
    return {d["_key"]: d for d in c.fetch([k for ks in keys for k in ks])}


def same_doc(a, b):
    assert a.keys() == b.keys(), (a, b)
    for name in a:
        if isinstance(a[name], np.ndarray):
            assert a[name].dtype == b[name].dtype
            np.testing.assert_array_equal(a[name], b[name])
        else:
            assert a[name] == b[name], name


@pytest.mark.covers("Collection.export", "Collection.schema")
def test_export_round_trips_every_field_type_through_insert(tmp_path):
    with xvec.create(str(tmp_path / "a"), RICH) as a, xvec.create(str(tmp_path / "b"), RICH) as b:
        rng = np.random.default_rng(0)
        rows = [dict(FULL_ROW, _key=f"r{i}", i=int(i), v32=rng.standard_normal(4)) for i in range(30)]
        rows += [{"_key": f"sparse{i}", "v32": np.zeros(4)} for i in range(5)]  # nulls everywhere
        assert a.insert(rows).count == 35
        a.flush()
        a.insert([dict(FULL_ROW, _key="mem")])  # one in the memtable too
        reader = a.export(batch_size=8)
        assert isinstance(reader, pa.RecordBatchReader)
        s = reader.schema
        assert s.names == ["_key"] + [f["name"] for f in a.schema()["fields"]]
        assert s.field("v32").type == pa.list_(pa.float32(), 4) and s.field("v8").type == pa.list_(pa.int8(), 4)
        assert s.field("tags").type == pa.list_(pa.string()) and s.field("u").type == pa.uint32()
        batches = list(reader)
        assert [len(x) for x in batches] == [8, 8, 8, 8, 4]
        assert b.insert(pa.Table.from_batches(batches, s)).count == 36
        da, db = all_docs(a), all_docs(b)
        assert len(da) == 36 and da.keys() == db.keys()
        for k in da:
            same_doc(da[k], db[k])


def test_export_fields_filter_params_and_key_name(filled):
    t = filled.export(fields=["n"], filter="pos = $p AND n < 10", params={"p": "v"}, key="id").read_all()
    assert t.column_names == ["id", "n"] and t.num_rows == 5
    assert sorted(t["id"].to_pylist()) == ["k001", "k003", "k005", "k007", "k009"]
    assert filled.export(filter="n > 1000").read_all().num_rows == 0
    # A snapshot: writes after export() began are not in it.
    reader = filled.export(fields=["n"], batch_size=50)
    filled.insert([{"_key": "late", "pos": "n", "emb": np.ones(DIM)}])
    assert reader.read_all().num_rows == 200
    emb = filled.export(fields=["emb"], filter="_key = 'k010'").read_all()["emb"]
    np.testing.assert_array_equal(np.asarray(emb.to_pylist()[0], np.float32), vectors(200)[10])


def test_export_into_polars_and_pandas(filled):
    pl = pytest.importorskip("polars")
    df = pl.from_arrow(filled.export(fields=["pos", "n"]).read_all())
    assert df.shape == (200, 3) and df["n"].sum() == sum(range(200))
    pdf = filled.export(fields=["n"]).read_pandas()
    assert len(pdf) == 200 and list(pdf.columns) == ["_key", "n"]


@pytest.mark.covers(
    "QueryResult.to_arrow", "QueryResult.to_pandas", "QueryResult.to_numpy", "QueryResult.__arrow_c_stream__",
    "QueryResult.fields",
)
def test_query_result_to_arrow_pandas_polars_numpy(filled):
    q = vectors(200)[4]
    r = filled.query(q, k=5, fields=["pos", "n", "emb"])
    t = r.to_arrow()
    assert t.column_names == ["_key", "_score", "pos", "n", "emb"]
    assert t["_key"].to_pylist() == r.keys and t["_score"].type == pa.float32()
    np.testing.assert_array_equal(t["_score"].to_numpy(), r.scores)
    assert t["n"].to_pylist() == [f["n"] for f in r.fields]
    np.testing.assert_array_equal(np.asarray(t["emb"].to_pylist()[0], np.float32), vectors(200)[4])
    assert pa.table(r).equals(t)
    pl = pytest.importorskip("polars")
    df = pl.DataFrame(r)
    assert df.columns == t.column_names and df["_key"].to_list() == r.keys
    # polars.from_arrow of a bare stream is a Series of struct rows: the same frame inside.
    s = pl.from_arrow(r)
    frame = s.struct.unnest() if isinstance(s, pl.Series) else s
    assert frame.equals(df)
    pdf = r.to_pandas()
    assert list(pdf["_key"]) == r.keys and pdf["_score"].dtype == np.float32
    keys, scores = r.to_numpy()
    assert keys.dtype == object and list(keys) == r.keys and scores.dtype == np.float32
    np.testing.assert_array_equal(scores, r.scores)
    # Empty results keep their columns.
    empty = filled.query(q, k=5, filter="n > 1000")
    assert len(empty) == 0 and empty.to_arrow().num_rows == 0 and empty.keys == []
    assert empty.to_numpy()[1].shape == (0,)
    # The fields a query returns by default: the scalars, not the vectors, unless asked.
    assert filled.query(q, k=1).to_arrow().column_names == ["_key", "_score", "pos", "n"]
    assert filled.query(q, k=1, vectors=True).to_arrow().column_names == ["_key", "_score", "pos", "n", "emb"]
