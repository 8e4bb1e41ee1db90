"""Every form a write takes (list of dicts, dict of columns, pyarrow Table and RecordBatch,
`__arrow_c_stream__` from polars and pandas, `__arrow_c_array__`), every field type the
schema allows through each, and the write calls: insert, upsert, update, delete."""

import numpy as np
import pyarrow as pa
import pytest

import xvec
from conftest import DIM, vectors

RICH = {
    "name": "rich",
    "fields": [
        {"name": "s", "type": "string", "nullable": True},
        {"name": "i", "type": "int64", "nullable": True},
        {"name": "u", "type": "uint32", "nullable": True},
        {"name": "f", "type": "double", "nullable": True},
        {"name": "b", "type": "bool", "nullable": True},
        {"name": "tags", "type": "array_string", "nullable": True},
        {"name": "nums", "type": "array_int32", "nullable": True},
        {"name": "v32", "type": "vector_fp32", "dim": 4, "metric": "l2"},
        {"name": "v16", "type": "vector_fp16", "dim": 4, "metric": "ip", "nullable": True},
        {"name": "v8", "type": "vector_int8", "dim": 4, "metric": "l2", "nullable": True},
        {"name": "sp", "type": "sparse_fp32", "nullable": True},
    ],
}

FULL_ROW = {
    "_key": "a",
    "s": "x",
    "i": -(2**40),
    "u": 7,
    "f": 1.5,
    "b": True,
    "tags": ["p", "q"],
    "nums": [1, -2],
    "v32": [1.0, 2.0, 3.0, 4.0],
    "v16": np.array([0.5, 1, 2, 3], np.float16),
    "v8": np.array([1, -2, 3, 127], np.int8),
    "sp": {"indices": [1, 5], "values": [0.5, 1.0]},
}


@pytest.fixture
def rich(tmp_path):
    with xvec.create(str(tmp_path / "rich"), RICH) as c:
        yield c


def check_full_row(doc):
    assert doc["_key"] == "a" and doc["s"] == "x" and doc["i"] == -(2**40) and doc["u"] == 7
    assert doc["f"] == 1.5 and doc["b"] is True and doc["tags"] == ["p", "q"] and doc["nums"] == [1, -2]
    assert doc["v32"].dtype == np.float32 and doc["v32"].tolist() == [1, 2, 3, 4]
    assert doc["v16"].tolist() == [0.5, 1, 2, 3]
    assert doc["v8"].dtype == np.int8 and doc["v8"].tolist() == [1, -2, 3, 127]
    assert doc["sp"] == {"indices": [1, 5], "values": [0.5, 1.0]}


@pytest.mark.covers("Collection.insert", "Collection.fetch", "WriteResult.count", "WriteResult.keys")
def test_list_of_dicts_with_every_field_type_and_nulls(rich):
    r = rich.insert([FULL_ROW, {"_key": "n", "s": None, "v32": np.zeros(4, np.float64)}])
    assert r.count == 2 and r.keys == ["a", "n"]
    check_full_row(rich.fetch("a"))
    n = rich.fetch("n")
    assert set(n) == {"_key", "v32"}, n  # nulls and missing nullable fields read as absent
    assert rich.fetch(["n", "missing", "a"])[1] is None


def test_dict_of_columns_with_every_field_type(rich):
    cols = {k: [v] for k, v in FULL_ROW.items() if k not in ("v32",)}
    cols["v32"] = np.array([[1, 2, 3, 4]], np.float32)
    assert rich.insert(cols).count == 1
    check_full_row(rich.fetch("a"))


@pytest.mark.parametrize(
    "dtype", [np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8, np.int8]
)
def test_column_matrix_of_any_numeric_dtype(coll, dtype):
    base = (vectors(20) * 10).round() if np.dtype(dtype).kind in "iu" else vectors(20)
    if np.dtype(dtype).kind == "u":
        base = np.abs(base)
    arr = base.astype(dtype)
    r = coll.insert({"_key": [f"r{i}" for i in range(20)], "pos": ["n"] * 20, "emb": arr})
    assert r.count == 20 and not r.failed
    for i in (0, 19):
        np.testing.assert_array_equal(coll.fetch(f"r{i}")["emb"], arr[i].astype(np.float32))


def test_column_matrix_non_contiguous_and_fortran_order(coll):
    big = vectors(40, dim=2 * DIM)
    strided = big[::2, ::2]  # neither C- nor F-contiguous
    fortran = np.asfortranarray(vectors(20, seed=3))
    assert not strided.flags.c_contiguous and not fortran.flags.c_contiguous
    coll.insert({"_key": [f"s{i}" for i in range(20)], "pos": ["n"] * 20, "emb": strided})
    coll.insert({"_key": [f"f{i}" for i in range(20)], "pos": ["n"] * 20, "emb": fortran})
    np.testing.assert_array_equal(coll.fetch("s7")["emb"], strided[7])
    np.testing.assert_array_equal(coll.fetch("f19")["emb"], fortran[19])


def test_float32_input_is_not_modified_and_later_changes_do_not_leak(coll):
    arr = vectors(10)
    before = arr.copy()
    coll.insert({"_key": [str(i) for i in range(10)], "pos": ["n"] * 10, "emb": arr})
    np.testing.assert_array_equal(arr, before)
    arr[:] = 0  # the engine holds its own copy
    np.testing.assert_array_equal(coll.fetch("3")["emb"], before[3])


def test_column_of_vectors_as_lists_and_1d_arrays(coll):
    coll.insert({"_key": ["l", "a"], "pos": ["n", "n"], "emb": [[1.0] * DIM, np.arange(DIM, dtype=np.float64)]})
    assert coll.fetch("l")["emb"].tolist() == [1.0] * DIM
    assert coll.fetch("a")["emb"].tolist() == list(range(DIM))


@pytest.mark.covers("Collection.count")
def test_numeric_keys_in_every_form(coll):
    coll.insert([{"_key": 1, "pos": "n", "emb": np.ones(DIM)}, {"_key": np.int64(2), "pos": "n", "emb": np.ones(DIM)}])
    coll.insert({"_key": np.array([3, 4], np.int64), "pos": ["n", "n"], "emb": vectors(2)})
    coll.insert(pa.table({"_key": pa.array([5, 6], pa.uint32()), "pos": ["n", "n"], "emb": list(vectors(2))}))
    assert coll.count() == 6
    assert [d["_key"] for d in coll.fetch([1, 2, 3, 4, 5, 6])] == ["1", "2", "3", "4", "5", "6"]
    assert coll.fetch(np.array([4]))[0]["_key"] == "4"


def test_custom_key_column_and_batch_size(coll):
    n = 25
    r = coll.insert({"id": [f"x{i}" for i in range(n)], "pos": ["v"] * n, "emb": vectors(n)}, key="id", batch_size=4)
    assert r.count == n and r.keys == [f"x{i}" for i in range(n)]
    rows = [{"id": "y", "pos": "n", "emb": np.ones(DIM)}]
    assert coll.insert(rows, key="id", batch_size=1).keys == ["y"]
    t = pa.table({"id": ["z"], "pos": ["n"], "emb": [np.ones(DIM, np.float32)]})
    assert coll.insert(t, key="id").keys == ["z"]
    assert coll.count() == n + 2


def arrow_table(n=30, seed=0):
    v = vectors(n, seed)
    emb = pa.FixedSizeListArray.from_arrays(pa.array(v.ravel()), DIM)
    return pa.table(
        {
            "_key": [f"t{i}" for i in range(n)],
            "pos": ["n" if i % 3 else "v" for i in range(n)],
            "n": pa.array([i if i % 5 else None for i in range(n)], pa.int64()),
            "tags": [["a", str(i)] if i % 2 else None for i in range(n)],
            "emb": emb,
        }
    ), v


def check_arrow_rows(coll, v):
    assert coll.count() == len(v)
    d = coll.fetch("t7")
    assert d["pos"] == "n" and d["n"] == 7 and d["tags"] == ["a", "7"]
    assert "n" not in coll.fetch("t5") and "tags" not in coll.fetch("t4")
    np.testing.assert_array_equal(d["emb"], v[7])
    assert coll.count("pos = 'v'") == 10


def test_pyarrow_table_in_several_batches(coll):
    t, v = arrow_table()
    t = pa.Table.from_batches(t.to_batches(max_chunksize=7))
    assert t.num_columns == 5 and len(t.to_batches()) == 5
    assert coll.insert(t, batch_size=4).count == 30
    check_arrow_rows(coll, v)


@pytest.mark.parametrize("batch_size", [1, 4, 1000])
def test_rows_picks_arrow_rows_by_position_across_batches(coll, batch_size):
    t, v = arrow_table()
    t = pa.Table.from_batches(t.to_batches(max_chunksize=7))
    keys = t.column("_key").to_pylist()
    picked = [29, 3, 7, 14, 0, 21, 6]
    r = coll.insert(t, rows=np.array(picked), batch_size=batch_size)
    assert r.keys == [keys[i] for i in picked] and coll.count() == len(picked)
    for i in picked:
        d = coll.fetch(keys[i])
        assert d["pos"] == ("n" if i % 3 else "v") and d.get("n") == (i if i % 5 else None)
        np.testing.assert_array_equal(d["emb"], v[i])
    # A failed row is named by its position in the data, not in `rows`.
    r = coll.insert(t, rows=[5, 29, 8], batch_size=batch_size)
    assert [(i, k) for i, k, _ in r.failed] == [(29, "t29")] and r.keys == ["t5", "t8"]
    assert coll.upsert(t, rows=(1, 2)).keys == ["t1", "t2"]
    r = coll.update(t.select(["_key", "pos"]), rows=[2, 9])
    assert r.keys == ["t2"] and [(i, k) for i, k, _ in r.failed] == [(9, "t9")]
    assert coll.count() == 11
    with pytest.raises(ValueError, match="rows\\[1\\] is 30; the data has 30 rows"):
        coll.insert(t, rows=[4, 30])
    with pytest.raises(ValueError, match="rows\\[0\\] is -1"):
        coll.insert(t, rows=[-1])
    with pytest.raises(TypeError, match="rows= picks rows of Arrow data"):
        coll.insert([{"_key": "x", "emb": np.ones(DIM)}], rows=[0])
    assert coll.count() == 11 and coll.insert(t, rows=[]).count == 0


def test_pyarrow_record_batch_and_reader(coll, tmp_path):
    t, v = arrow_table()
    assert coll.insert(t.to_batches()[0]).count == 30
    check_arrow_rows(coll, v)
    with xvec.create(str(tmp_path / "b"), coll.schema()) as other:
        assert other.insert(pa.RecordBatchReader.from_batches(t.schema, t.to_batches(max_chunksize=9))).count == 30
        check_arrow_rows(other, v)


def test_object_with_only_arrow_c_array(coll):
    t, v = arrow_table()

    class OnlyArray:
        def __init__(self, batch):
            self.batch = batch

        def __arrow_c_array__(self, requested_schema=None):
            return self.batch.__arrow_c_array__(requested_schema)

    assert coll.insert(OnlyArray(t.combine_chunks().to_batches()[0])).count == 30
    check_arrow_rows(coll, v)


def test_arrow_vectors_as_lists_of_other_widths(coll):
    v = vectors(3)
    for i, (typ, data) in enumerate(
        [
            (pa.list_(pa.float64()), [list(map(float, x)) for x in v]),
            (pa.large_list(pa.float32()), [list(map(float, x)) for x in v]),
            (pa.list_(pa.float16()), [x.astype(np.float16) for x in v]),
        ]
    ):
        t = pa.table({"_key": [f"w{i}{j}" for j in range(3)], "pos": ["n"] * 3, "emb": pa.array(data, typ)})
        assert coll.insert(t).count == 3
        np.testing.assert_allclose(coll.fetch(f"w{i}2")["emb"], v[2], atol=1e-2 if i == 2 else 1e-6)


def test_arrow_string_kinds(coll):
    t = pa.table(
        {
            "_key": pa.array(["l1", "l2"], pa.large_string()),
            "pos": pa.array(["n", "v"], pa.string_view()),
            "emb": list(vectors(2)),
        }
    )
    assert coll.insert(t).count == 2 and coll.fetch("l2")["pos"] == "v"


def test_polars_dataframe_through_arrow_c_stream(coll):
    pl = pytest.importorskip("polars")
    v = vectors(12)
    df = pl.DataFrame(
        {"_key": [f"p{i}" for i in range(12)], "pos": ["n"] * 12, "n": [i if i else None for i in range(12)], "emb": v}
    )
    assert hasattr(df, "__arrow_c_stream__") and str(df.schema["emb"]).startswith("Array")
    assert coll.insert(df).count == 12
    np.testing.assert_array_equal(coll.fetch("p11")["emb"], v[11])
    assert coll.fetch("p3")["n"] == 3 and "n" not in coll.fetch("p0")
    # polars' list column of vectors, and an update through polars.
    coll.insert(pl.DataFrame({"_key": ["q"], "pos": ["n"], "emb": [list(map(float, v[0]))]}))
    np.testing.assert_array_equal(coll.fetch("q")["emb"], v[0])
    coll.update(pl.DataFrame({"_key": ["p1"], "pos": ["v"]}))
    assert coll.count("pos = 'v'") == 1


def test_pandas_through_pyarrow_and_directly(coll):
    pd = pytest.importorskip("pandas")
    v = vectors(6)
    df = pd.DataFrame({"_key": [f"d{i}" for i in range(6)], "pos": ["n"] * 6, "n": range(6), "emb": list(v)})
    assert coll.insert(pa.Table.from_pandas(df, preserve_index=False)).count == 6
    np.testing.assert_array_equal(coll.fetch("d5")["emb"], v[5])
    # pandas' own __arrow_c_stream__ (pandas >= 2.2).
    df2 = pd.DataFrame({"_key": ["e0"], "pos": ["v"], "n": [9], "emb": [np.ones(DIM, np.float32)]})
    assert coll.insert(df2).keys == ["e0"] and coll.fetch("e0")["n"] == 9


@pytest.mark.covers("Collection.upsert", "Collection.update")
def test_upsert_merges_and_update_sets_fields(filled):
    r = filled.upsert([{"_key": "k001", "n": 1001}, {"_key": "new", "pos": "n", "emb": np.ones(DIM)}])
    assert r.count == 2
    d = filled.fetch("k001")
    assert d["n"] == 1001 and d["pos"] == "v"  # other fields kept
    np.testing.assert_array_equal(d["emb"], vectors(200)[1])
    assert filled.count() == 201
    r = filled.update({"_key": ["k002", "absent"], "pos": ["x", "x"]})
    assert r.keys == ["k002"] and [(i, k) for i, k, _ in r.failed] == [(1, "absent")]
    assert isinstance(r.failed[0][2], xvec.DocError) and r.failed[0][2].key == "absent"
    assert filled.fetch("k002")["pos"] == "x" and filled.fetch("k002")["n"] == 2
    # update through Arrow, a vector replaced
    filled.update(pa.table({"_key": ["k003"], "emb": [np.zeros(DIM, np.float32)]}))
    assert filled.fetch("k003")["emb"].tolist() == [0.0] * DIM
    assert filled.query(np.zeros(DIM), k=1).keys == ["k003"]


@pytest.mark.covers("Collection.delete", "WriteResult.failed")
def test_delete_by_keys_and_by_filter(filled):
    r = filled.delete(["k000", "k001", "nope"])
    assert isinstance(r, xvec.WriteResult) and r.keys == ["k000", "k001"]
    assert [(i, k) for i, k, _ in r.failed] == [(2, "nope")]
    assert filled.delete("k002").keys == ["k002"]
    assert filled.delete(np.array(["k003"])).count == 1
    assert filled.fetch("k000") is None and filled.count() == 196
    n = filled.delete(where="n < $lim AND pos = 'n'", params={"lim": 20})
    assert n == 8  # k004..k018 even
    assert filled.count("n < 20") == 8 and filled.count() == 188
    assert filled.delete(where="n > 100000") == 0


def test_insert_of_existing_key_fails_that_row_only(filled):
    r = filled.insert([{"_key": "k005", "pos": "n", "emb": np.ones(DIM)}, {"_key": "fresh", "pos": "n", "emb": np.ones(DIM)}])
    assert r.keys == ["fresh"] and r.failed[0][:2] == (0, "k005")
    assert filled.fetch("k005")["n"] == 5


def test_int8_vector_field_takes_integers_and_refuses_fractions(rich):
    r = rich.insert(
        [
            {"_key": "ok", "v32": np.zeros(4), "v8": [1, 2, 3, -128]},
            {"_key": "frac", "v32": np.zeros(4), "v8": [1.5, 2, 3, 4]},
            {"_key": "big", "v32": np.zeros(4), "v8": np.array([300, 0, 0, 0])},
        ]
    )
    assert r.keys == ["ok"]
    failed = {k: e for _, k, e in r.failed}
    assert set(failed) == {"frac", "big"} and all(e.field == "v8" for e in failed.values())
    assert "-128..=127" in str(failed["frac"])


def test_sparse_field_through_dicts_columns_and_arrow(rich):
    sp = {"indices": [2, 9], "values": [1.0, 0.25]}
    rich.insert([{"_key": "d", "v32": np.zeros(4), "sp": sp}])
    rich.insert({"_key": ["c"], "v32": np.zeros((1, 4), np.float32), "sp": [sp]})
    assert rich.fetch("d")["sp"] == sp and rich.fetch("c")["sp"] == sp
    t = pa.table({"_key": ["t"], "sp": pa.array([sp], rich.export(fields=["sp"]).schema.field("sp").type)})
    assert rich.insert(pa.table({**{n: t[n] for n in t.column_names}, "v32": [np.zeros(4, np.float32)]})).count == 1
    assert rich.fetch("t")["sp"] == sp
    bad = rich.insert([{"_key": "e", "v32": np.zeros(4), "sp": {"indices": [1, 2], "values": [1.0]}}])
    assert bad.count == 0 and bad.failed[0][2].field == "sp" and bad.failed[0][2].key == "e"


def test_a_float32_matrix_is_read_in_place_and_others_converted_once(tmp_path):
    # numpy reports its buffers to tracemalloc: a C-contiguous float32 (n, d) column makes
    # no Python-side copy at all; a float64 one makes exactly one float32 copy.
    import tracemalloc

    schema = {"name": "z", "fields": [{"name": "emb", "type": "vector_fp32", "dim": 64, "metric": "l2"}]}
    n = 10_000
    with xvec.create(str(tmp_path / "z"), schema) as c:
        for dtype, most in ((np.float32, 0.05), (np.float64, 0.55), (np.float16, 2.1)):
            x = np.random.default_rng(0).standard_normal((n, 64)).astype(dtype)
            keys = [f"{np.dtype(dtype).name}-{i}" for i in range(n)]
            tracemalloc.start()
            try:
                assert c.insert({"_key": keys, "emb": x}, batch_size=2000).count == n
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            copy = n * 64 * 4  # one float32 copy
            assert peak <= most * max(x.nbytes, copy), (dtype, peak, x.nbytes)
            if dtype is not np.float32:
                assert peak >= copy, (dtype, peak)


def test_non_finite_floats_are_refused_in_every_form(tmp_path):
    # Arrow NaN or inf in a nullable float column was stored as null, silently.
    schema = {"name": "f", "fields": [{"name": "f", "type": "double", "nullable": True},
                                      {"name": "v", "type": "vector_fp32", "dim": 2, "metric": "l2"}]}
    with xvec.create(str(tmp_path / "f"), schema) as c:
        for bad in (float("nan"), float("inf"), -float("inf")):
            with pytest.raises(ValueError, match="not a finite number"):
                c.insert([{"_key": "d", "f": bad, "v": [1.0, 2.0]}])
            with pytest.raises(ValueError, match="not a finite number"):
                c.insert({"_key": ["c"], "f": [bad], "v": [[1.0, 2.0]]})
            for typ in (pa.float64(), pa.float32(), pa.float16()):
                value = np.float16(bad) if typ == pa.float16() else bad
                t = pa.table({"_key": ["a"], "f": pa.array([value], typ), "v": [[1.0, 2.0]]})
                with pytest.raises(ValueError, match='Arrow column "f", key "a": .* is not a finite number'):
                    c.insert(t)
        assert c.count() == 0
        # Null stays null, and finite values of every width go through.
        t = pa.table({"_key": ["n", "h"], "f": pa.array([None, 0.5], pa.float16()), "v": [[1.0, 2.0]] * 2})
        assert c.insert(t).count == 2 and "f" not in c.fetch("n") and c.fetch("h")["f"] == 0.5


@pytest.mark.parametrize("layout", ["big-endian", "read-only", "reversed", "memmap", "broadcast"])
def test_array_layouts_write_and_query_as_their_values(coll, tmp_path, layout):
    x = vectors(10)
    if layout == "big-endian":
        arr = x.astype(">f4")
    elif layout == "read-only":
        arr = x.copy()
        arr.setflags(write=False)
    elif layout == "reversed":
        arr = x[::-1]
    elif layout == "memmap":
        np.save(tmp_path / "x.npy", x)
        arr = np.load(tmp_path / "x.npy", mmap_mode="r")
    else:
        arr = np.broadcast_to(x[3], (10, DIM))
    keys = [f"r{i}" for i in range(10)]
    assert coll.insert({"_key": keys, "pos": ["n"] * 10, "emb": arr}).count == 10
    for i in (0, 9):
        np.testing.assert_array_equal(coll.fetch(keys[i])["emb"], np.asarray(arr[i], np.float32))
    got, _ = coll.query_batch(arr, k=1)
    assert coll.query(arr[4], k=1).keys[0] in {k for k, row in zip(keys, arr) if (row == arr[4]).all()}
    assert all((arr[keys.index(g)] == arr[i]).all() for i, g in enumerate(got[:, 0]))


@pytest.mark.parametrize("batch_size", [1, 2, 3, 1000])
@pytest.mark.parametrize("form", ["dicts", "columns", "arrow"])
def test_failed_rows_keep_their_input_positions_across_batches(coll, form, batch_size):
    # Conversion failures (found by the binding) and engine failures (a duplicate key)
    # interleaved across batch boundaries: each reported at its place in the input.
    coll.insert([{"_key": "dup", "pos": "n", "emb": np.ones(DIM)}])
    keys = ["a", "b", "dup", "c", "d", "e", "dup", "f"]
    pos = ["n", "n", "n", "n", None, "n", "n", "n"]
    emb = [np.ones(DIM)] * 8
    emb[0] = np.full(DIM, np.nan)
    if form == "dicts":
        data = [{"_key": k, "pos": p, "emb": e} for k, p, e in zip(keys, pos, emb)]
    elif form == "columns":
        data = {"_key": keys, "pos": pos, "emb": np.array(emb)}
    else:
        data = pa.table({"_key": keys, "pos": pos, "emb": [e.astype(np.float32) for e in emb]})
    r = coll.insert(data, batch_size=batch_size)
    assert [(i, k) for i, k, _ in r.failed] == [(0, "a"), (2, "dup"), (4, "d"), (6, "dup")]
    assert [e.field for _, _, e in r.failed] == ["emb", None, "pos", None]
    assert r.keys == ["b", "c", "e", "f"] and coll.count() == 5
