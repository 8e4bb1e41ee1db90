"""Errors and hostile inputs: each raises the documented class (an `xvec.Error` subclass
for what the engine refuses, `TypeError`/`ValueError` for a Python argument of the wrong
kind) with the engine's message and attributes; nothing crashes the interpreter. What
could abort the process runs in a child interpreter."""

import glob
import inspect
import os

import numpy as np
import pyarrow as pa
import pytest

import xvec
from conftest import DIM, SCHEMA, run_python, vectors

ARG_ERRORS = (TypeError, ValueError)


@pytest.mark.covers(
    "xvec.Error", "xvec.SchemaError", "xvec.DocError", "xvec.QueryError", "xvec.FilterError",
    "xvec.StorageError", "xvec.LockedError", "xvec.CorruptionError", "xvec.ReadOnlyError",
    "xvec.CancelledError", "xvec.BusyError", "xvec.ClosedError", "xvec.Interrupted",
)
def test_the_exception_hierarchy():
    under_error = {
        xvec.SchemaError: xvec.Error, xvec.DocError: xvec.Error, xvec.QueryError: xvec.Error,
        xvec.FilterError: xvec.QueryError, xvec.StorageError: xvec.Error, xvec.LockedError: xvec.StorageError,
        xvec.CorruptionError: xvec.StorageError, xvec.ReadOnlyError: xvec.Error,
        xvec.CancelledError: xvec.Error, xvec.BusyError: xvec.Error, xvec.ClosedError: xvec.Error,
    }
    for cls, parent in under_error.items():
        assert cls.__bases__ == (parent,), cls
        assert cls.__module__ == "xvec" and cls.__doc__ and cls.__doc__ != parent.__doc__
    assert issubclass(xvec.Error, Exception) and xvec.Error.__bases__ == (Exception,)
    # Ctrl-C part-way through a write is still a KeyboardInterrupt, and not an xvec.Error.
    assert xvec.Interrupted.__bases__ == (KeyboardInterrupt,) and not issubclass(xvec.Interrupted, Exception)
    assert "committed" in xvec.Interrupted.__doc__


@pytest.mark.parametrize(
    "vector, exc, message",
    [
        (np.ones(DIM + 1), xvec.QueryError, "dimension 8, found 9"),
        (np.array([np.nan] + [0.0] * (DIM - 1)), xvec.QueryError, "not finite at index 0"),
        ([0.0] * (DIM - 1) + [np.inf], xvec.QueryError, f"not finite at index {DIM - 1}"),
        ([], xvec.QueryError, "found 0"),
        (np.array(["a"] * DIM), TypeError, "dtype <U1"),
        (np.array([1] * DIM, dtype=object), TypeError, "dtype object"),
        (np.ones(DIM, np.complex64), TypeError, "complex64"),
        (np.ones((1, DIM)), ValueError, "use query_batch"),
        (np.ones((1, 1, DIM)), ValueError, "1-D"),
        ("abcdefgh", TypeError, "found str"),
        (["a"] * DIM, TypeError, "found list"),
        ({"x": 1}, TypeError, "found dict"),
    ],
)
def test_query_vector_refusals(filled, vector, exc, message):
    with pytest.raises(exc, match=message):
        filled.query(vector)


@pytest.mark.covers("Collection.query", "Collection.query_batch", "Collection.explain")
def test_non_contiguous_and_other_dtypes_query_like_float32(filled):
    q = vectors(1, seed=5)[0]
    want = filled.query(q, k=5).keys
    wide = np.zeros(2 * DIM, np.float64)
    wide[::2] = q
    assert filled.query(wide[::2], k=5).keys == want
    assert filled.query(q.astype(np.float64), k=5).keys == want
    assert filled.query(list(map(float, q)), k=5).keys == want
    batch = np.repeat(q[None, :], 3, axis=0).astype(np.float64)
    keys, _ = filled.query_batch(np.asfortranarray(batch), k=5)
    assert [list(r) for r in keys] == [want] * 3
    assert filled.explain(wide[::2], k=5)["hits"] == 5


def test_k_out_of_range(filled):
    with pytest.raises(xvec.QueryError, match=r"top-k 0 is out of range; expected 1\.\.=") as e:
        filled.query(np.ones(DIM), k=0)
    assert isinstance(e.value, xvec.Error)
    with pytest.raises(xvec.QueryError, match=str(xvec.MAX_K)):
        filled.query(np.ones(DIM), k=xvec.MAX_K + 1)
    with pytest.raises(OverflowError, match="negative"):
        filled.query(np.ones(DIM), k=-1)
    with pytest.raises(TypeError):
        filled.query(np.ones(DIM), k=1.5)
    with pytest.raises(xvec.QueryError, match="top-k"):
        filled.query_batch(vectors(2), k=xvec.MAX_K + 1)
    with pytest.raises(xvec.QueryError, match="threads is 0"):
        filled.query_batch(vectors(2), threads=0)
    with pytest.raises(xvec.QueryError, match=f"expected 1..={xvec.MAX_QUERY_THREADS}"):
        filled.query_batch(vectors(2), threads=xvec.MAX_QUERY_THREADS + 1)
    # k beyond the collection is fine: fewer hits.
    assert len(filled.query(np.ones(DIM), k=1000)) == 200


@pytest.mark.covers("Collection.query", "Collection.query_batch", "Collection.explain", "Snapshot.query")
def test_beam_width_of_a_disk_index(filled, path):
    disk = {"type": "disk", "degree": 8, "build_list": 16}
    emb = {"name": "emb", "type": "vector_fp32", "dim": DIM, "metric": "l2", "index": disk}
    x = vectors(300, seed=3)
    with xvec.create(path + "-disk", {"name": "d", "fields": [emb]}) as c:
        c.insert({"_key": [str(i) for i in range(300)], "emb": x})
        c.optimize()
        for width in (1, 16, 64):
            assert c.query(x[7], k=1, beam_width=width).keys == ["7"], width
        keys, _ = c.query_batch(x[:3], k=1, beam_width=8)
        assert [list(r) for r in keys] == [["0"], ["1"], ["2"]]
        assert c.explain(x[7], k=1, beam_width=8)["hits"] == 1
        assert c.snapshot().query(x[7], k=1, beam_width=8).keys == ["7"]
        for width in (0, 65):
            with pytest.raises(xvec.QueryError, match=rf"beam_width {width} is out of range; expected 1\.\.=64"):
                c.query(x[7], beam_width=width)
        with pytest.raises(OverflowError):
            c.query(x[7], beam_width=-1)
    # Another index kind refuses it, as it does every knob it does not take.
    with pytest.raises(xvec.QueryError, match="beam_width does not apply to field `emb`: its index is flat"):
        filled.query(np.ones(DIM), beam_width=8)


@pytest.mark.covers("Collection.query", "Collection.query_batch", "Collection.explain", "Snapshot.query")
def test_target_recall_of_an_ivf_index(filled, path):
    ivf = {"type": "ivf", "nlist": 16}
    emb = {"name": "emb", "type": "vector_fp32", "dim": DIM, "metric": "l2", "index": ivf}
    x = vectors(2000, seed=4)
    with xvec.create(path + "-ivf", {"name": "i", "fields": [emb]}) as c:
        c.insert({"_key": [str(i) for i in range(2000)], "emb": x})
        c.optimize()
        # A lower target probes fewer lists, so scores fewer rows; 1.0 probes what held
        # every true neighbour at build.
        scored = {r: c.explain(x[7], k=10, target_recall=r)["sources"][0]["search"] for r in (0.2, 1.0)}
        assert scored[0.2] != scored[1.0], scored
        assert c.query(x[7], k=1, target_recall=1.0).keys == ["7"]
        keys, _ = c.query_batch(x[:3], k=1, target_recall=1.0)
        assert [list(r) for r in keys] == [["0"], ["1"], ["2"]]
        assert c.snapshot().query(x[7], k=1, target_recall=1.0).keys == ["7"]
        for bad in (0.0, 1.5):
            with pytest.raises(xvec.QueryError, match=f"target recall {bad:g} is out of range"):
                c.query(x[7], target_recall=bad)
    with pytest.raises(xvec.QueryError, match="target_recall does not apply to field `emb`: its index is flat"):
        filled.query(np.ones(DIM), target_recall=0.9)


def test_query_batch_with_an_absurd_k_is_an_error_not_a_crash():
    # (n, k) scores were allocated before k was checked: 2**62 overflowed (a panic), and a
    # large k on many rows could abort the process on the allocation. Run in a child.
    r = run_python(
        """
import numpy as np, sys, tempfile, xvec
d = tempfile.mkdtemp()
c = xvec.create(d + "/c", {"name": "t", "fields": [{"name": "v", "type": "vector_fp32", "dim": 2, "metric": "l2"}]})
c.insert([{"_key": "a", "v": [1.0, 2.0]}])
for k in (2**62, 2**40, 10**9):
    try:
        c.query_batch(np.ones((1000, 2), np.float32), k=k)
        print("no error", k)
    except xvec.QueryError as e:
        print("QueryError", "top-k" in str(e))
print(c.query_batch(np.ones((0, 2), np.float32), k=3)[1].shape[0])
"""
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["QueryError", "True"] * 3 + ["0"], r.stdout + r.stderr


def test_filter_errors_carry_line_and_column(filled):
    with pytest.raises(xvec.FilterError) as e:
        filled.count("pos = 'n' AND\n  nope = 1")
    assert (e.value.line, e.value.column) == (2, 3) and "unknown field `nope`" in str(e.value)
    for call in (
        lambda: filled.query(np.ones(DIM), filter="(("),
        lambda: filled.delete(where="n ="),
        lambda: filled.export(filter="n >"),
        lambda: filled.snapshot().count("n >"),
        lambda: filled.query_batch(vectors(2), filter="n >"),
    ):
        with pytest.raises(xvec.FilterError) as e:
            call()
        assert e.value.line == 1 and e.value.column >= 1 and "filter: line 1, column" in str(e.value)
    with pytest.raises(xvec.FilterError, match=r"\$x.*not bound"):
        filled.count("n = $x")
    assert filled.count("n = $x", params={"x": 3}) == 1
    with pytest.raises(ValueError, match=r'params\["x"\]'):
        filled.count("n = $x", params={"x": None})
    with pytest.raises(TypeError, match=r'params\["x"\]'):
        filled.count("n = $x", params={"x": object()})


def test_unknown_fields_name_themselves(filled):
    for call, exc, msg in [
        (lambda: filled.query(np.ones(DIM), field="nope"), xvec.QueryError, "no vector field named `nope`"),
        (lambda: filled.query(np.ones(DIM), fields=["nope"]), xvec.QueryError, "unknown field `nope`"),
        (lambda: filled.fetch("k001", fields=["nope"]), xvec.QueryError, "unknown field `nope`"),
        (lambda: filled.export(fields=["nope"]), xvec.QueryError, "unknown field `nope`"),
        (lambda: filled.query(np.ones(DIM), group_by="nope"), xvec.QueryError, "group by `nope`"),
        (lambda: filled.query(np.ones(DIM), ef=10), xvec.QueryError, "ef does not apply"),
        (lambda: filled.query(key="absent"), xvec.QueryError, '"absent" not found'),
        (lambda: filled.insert({"_key": ["x"], "nope": [1]}), ValueError, 'column "nope" is not a field'),
        (lambda: filled.insert(pa.table({"_key": ["x"], "nope": [1]})), ValueError, 'column "nope" is not a field'),
        (lambda: filled.drop_field("nope"), xvec.SchemaError, "no field `nope`"),
        (lambda: filled.add_index("nope", "inverted"), xvec.SchemaError, "no field `nope`"),
    ]:
        with pytest.raises(exc, match=msg):
            call()


@pytest.mark.parametrize(
    "schema, exc, message",
    [
        ("{not json", ValueError, "schema: key must be a string at line 1 column 2"),
        (5, xvec.SchemaError, "invalid type: integer"),
        ({"name": "x"}, xvec.SchemaError, "missing field `fields`"),
        ({"name": "x", "fields": [{"name": "v", "type": "vector_fp32", "dim": 0, "metric": "l2"}]},
         xvec.SchemaError, "dimension 0 is out of range"),
        ({"name": "x", "fields": [{"name": "v", "type": "vector_fp32", "dim": 4, "metric": "cos"}]},
         xvec.SchemaError, "unknown variant `cos`"),
        ({"name": "x", "fields": [{"name": "v", "type": "string"}, {"name": "v", "type": "string"}]},
         xvec.SchemaError, "`v` is defined twice"),
        ({"name": "x", "fields": [{"name": "v", "type": "nope"}]}, xvec.SchemaError, 'unknown type "nope"'),
        ({"name": "x", "fields": [{"name": "v", "type": "string", "index": "btree"}]}, xvec.SchemaError, "btree"),
        ({"name": "x", "fields": [{"name": "v", "type": "string"}], 1: 2}, TypeError, "keys must be strings"),
    ],
)
def test_bad_schemas(tmp_path, schema, exc, message):
    with pytest.raises(exc, match=message):
        xvec.create(str(tmp_path / "c"), schema)
    assert not (tmp_path / "c" / "CURRENT").exists()


def test_bad_options_and_paths(tmp_path, filled, path):
    p = str(tmp_path / "x")
    unknown = "collection options: unknown field `nope`, expected one of .*auto_flush_rows.*keep_versions"
    with pytest.raises(ValueError, match=unknown):
        xvec.create(p, SCHEMA, options={"nope": 1})
    with pytest.raises(ValueError, match="collection options: invalid type"):
        xvec.create(p, SCHEMA, options={"auto_flush_rows": "many"})
    with pytest.raises(TypeError):
        xvec.create(p, SCHEMA, options=[("auto_flush_rows", 1)])
    with pytest.raises(TypeError):
        xvec.create(5, SCHEMA)
    with pytest.raises(ValueError, match="lock_timeout is -1"):
        xvec.open(path, lock_timeout=-1)
    with pytest.raises(ValueError, match="lock_timeout is NaN"):
        xvec.open(path, lock_timeout=float("nan"))
    with pytest.raises(xvec.StorageError, match="no such directory") as e:
        xvec.open(str(tmp_path / "missing"))
    assert str(tmp_path / "missing") in str(e.value)
    with pytest.raises(xvec.StorageError, match="os error") as e:
        xvec.create("/proc/xvec-no", SCHEMA)
    assert e.value.path == "/proc/xvec-no" and e.value.errno == 2
    with pytest.raises(xvec.LockedError, match="waited 50 ms") as e:
        xvec.open(path, lock_timeout=0.05)
    assert e.value.path == path
    with pytest.raises(xvec.LockedError):
        xvec.create(path, SCHEMA)  # the writer holds it; its data is untouched
    assert filled.count() == 200


def test_a_corrupted_segment_block_is_a_corruption_error_for_its_rows_only(path):
    with xvec.create(path, SCHEMA) as c:
        c.insert({"_key": [str(i) for i in range(50)], "pos": ["n"] * 50, "emb": vectors(50)})
        c.flush()
    seg = glob.glob(os.path.join(path, "SEG-*.xseg"))[0]
    data = bytearray(open(seg, "rb").read())
    data[len(data) // 2] ^= 0xFF
    open(seg, "wb").write(bytes(data))
    # The open is degraded, not refused: the damaged block's rows are left out.
    c = xvec.open(path, read_only=True)
    assert c.count() < 50
    lost = 0
    for key in map(str, range(50)):
        try:
            c.fetch([key])
        except xvec.CorruptionError as e:
            lost += 1
            assert e.path == seg and "xvec repair" in str(e)
            assert isinstance(e, xvec.StorageError)
    assert lost == 50 - c.count()
    s = c.stats()
    assert len(s["degraded"]) == 1 and "unreadable" in s["degraded"][0]
    assert s["segments"][0]["unreadable"] == 50 - c.count() and s["segments"][0]["damaged"]


def test_a_damaged_index_is_searched_exactly_and_said_so(path):
    schema = dict(SCHEMA, fields=SCHEMA["fields"][:-1] + [dict(SCHEMA["fields"][-1], index={"type": "hnsw", "m": 8})])
    data = vectors(300)
    with xvec.create(path, schema) as c:
        c.insert({"_key": [str(i) for i in range(300)], "pos": ["n"] * 300, "emb": data})
        c.optimize()
    index = [f for f in glob.glob(os.path.join(path, "SEG-*")) if not f.endswith((".xseg", ".del"))][0]
    raw = bytearray(open(index, "rb").read())
    raw[len(raw) // 2] ^= 0xFF
    open(index, "wb").write(bytes(raw))
    with xvec.open(path, read_only=True) as c:
        s = c.stats()
        assert s["segments"][0]["unusable_indexes"] == [os.path.basename(index)]
        assert "searched exactly" in s["degraded"][0]
        q = vectors(1, 3)[0]
        exact = np.argsort(((data - q) ** 2).sum(axis=1))[:10]
        assert c.query(q, k=10).keys == [str(i) for i in exact]


def test_per_row_doc_errors_name_key_and_field(coll):
    r = coll.insert(
        [
            {"_key": "ok", "pos": "n", "emb": np.ones(DIM)},
            {"_key": "nan", "pos": "n", "emb": np.array([np.nan] * DIM)},
            {"_key": "int", "pos": "n", "n": "seven", "emb": np.ones(DIM)},
            {"_key": "tags", "pos": "n", "tags": ["a", None], "emb": np.ones(DIM)},
            {"_key": "nopos", "emb": np.ones(DIM)},
        ]
    )
    assert r.keys == ["ok"]
    got = {k: (e.field, str(e)) for _, k, e in r.failed}
    assert got["nan"][0] == "emb" and "finite" in got["nan"][1]
    assert got["int"][0] == "n" and "expects an integer, found a string" in got["int"][1]
    assert got["tags"][0] == "tags" and "index 1" in got["tags"][1]
    assert got["nopos"][0] == "pos"
    assert all(k in msg for k, (_, msg) in got.items())
    # The same through columns and Arrow.
    r = coll.insert({"_key": ["c1", "c2"], "pos": ["n", None], "emb": np.array([[np.nan] * DIM, [0] * DIM])})
    assert {k: e.field for _, k, e in r.failed} == {"c1": "emb", "c2": "pos"}
    r = coll.insert(pa.table({"_key": ["a1"], "pos": [5], "emb": [np.ones(DIM, np.float32)]}))
    assert r.failed[0][2].field == "pos" and r.failed[0][2].key == "a1"


@pytest.mark.covers("WriteResult.raise_for_errors", "WriteResult.__bool__", "WriteResult.__len__", "WriteResult.__repr__")
def test_raise_for_errors_and_truthiness(coll):
    good = coll.insert([{"_key": "g", "pos": "n", "emb": np.ones(DIM)}])
    assert bool(good) and len(good) == 1 and good.raise_for_errors() is None
    assert repr(good) == "WriteResult(count=1, failed=0)"
    bad = coll.insert([{"_key": "g", "pos": "n", "emb": np.ones(DIM)}, {"_key": "h", "pos": 1, "emb": np.ones(DIM)}])
    assert not bad and len(bad) == 0 and repr(bad) == "WriteResult(count=0, failed=2)"
    with pytest.raises(xvec.DocError, match=r"row 0: .*g.*\(and 1 more\)") as e:
        bad.raise_for_errors()
    assert e.value.key == "g" and len(e.value.failed) == 2


def test_input_refused_as_a_whole(coll):
    for data, exc, msg in [
        ("abc", TypeError, "cannot write a str"),
        (5, TypeError, "cannot write a int"),
        ([1, 2], TypeError, "row 0: expected a dict, found int"),
        ([{1: "a"}], TypeError, "row 0: dict keys must be strings"),
        ({"pos": ["x"]}, ValueError, 'no key column "_key"'),
        ({"_key": ["x", "y"], "pos": ["n"]}, ValueError, 'column "pos" has 1 rows, the key column "_key" has 2'),
        ({"_key": ["x"], "emb": np.ones((1, 1, DIM))}, ValueError, r"found shape \[1, 1, 8\]"),
        ({"_key": ["x"], "emb": np.ones((1, DIM + 1))}, ValueError, r"dimension 8, the array has shape \(1, 9\)"),
        ({"_key": ["x"], "emb": np.ones((1, DIM), dtype=object)}, TypeError, "dtype object"),
        ({"_key": ["x"], "emb": np.ones((1, DIM), dtype=bool)}, TypeError, "dtype |b1"),
        ({"_key": ["x"], "emb": np.full((1, DIM), "1")}, TypeError, "dtype <U1"),
        ({"_key": [1.5], "pos": ["n"], "emb": np.ones((1, DIM))}, TypeError, "a key must be a str or an int, found float"),
        ({"_key": [None], "pos": ["n"], "emb": np.ones((1, DIM))}, TypeError, "found NoneType"),
        ([{"_key": 2**70, "pos": "n", "emb": np.ones(DIM)}], ValueError, "does not fit 64 bits"),
        ([{"_key": "o", "pos": object(), "emb": np.ones(DIM)}], TypeError, 'row 0, field "pos": a object cannot be stored'),
        ([{"_key": "o", "pos": "n", "n": float("nan"), "emb": np.ones(DIM)}], ValueError, "not a finite number"),
        ([{"_key": "o", "pos": "n", "emb": np.ones((2, DIM // 2))}], ValueError, "a vector must be a 1-D array"),
        (pa.table({"pos": ["x"]}), ValueError, 'no key column "_key"'),
        (pa.table({"_key": [1.5]}), TypeError, "keys must be strings or integers, found Float64"),
        (pa.table({"_key": ["x"], "emb": ["abc"]}), TypeError, 'Arrow column "emb" of type Utf8 cannot hold field emb'),
        (pa.table({"_key": ["x"], "pos": pa.array(["n"]).dictionary_encode()}), TypeError, "Dictionary"),
        (pa.table({"_key": ["x"], "n": pa.array([1], pa.timestamp("s"))}), TypeError, "Timestamp"),
    ]:
        with pytest.raises(exc, match=msg):
            coll.insert(data)
    assert coll.count() == 0
    with pytest.raises(OverflowError):
        coll.insert([], batch_size=-1)


def test_an_error_part_way_says_what_was_committed(coll):
    rows = [{"_key": f"r{i}", "pos": "n", "emb": np.ones(DIM)} for i in range(25)]
    rows[21]["pos"] = object()
    with pytest.raises(TypeError, match='row 21, field "pos"') as e:
        coll.insert(rows, batch_size=10)
    assert e.value.committed == 20 == coll.count()
    assert e.value.committed_keys == [f"r{i}" for i in range(20)]


def test_hostile_arrow_producers_do_not_crash():
    # A capsule of the wrong kind, a non-struct array, a producer that raises: each an
    # exception; a plain array (not a record batch) used to hit an unreachable!() panic.
    r = run_python(
        """
import tempfile, pyarrow as pa, xvec
d = tempfile.mkdtemp()
c = xvec.create(d + "/c", {"name": "t", "fields": [{"name": "n", "type": "int64", "nullable": True}]})
def producer(**members):
    return type("P", (), members)()
cases = [
    producer(__arrow_c_stream__=lambda self, r=None: 5),
    producer(__arrow_c_stream__=lambda self, r=None: pa.array([1]).__arrow_c_array__()[0]),
    producer(__arrow_c_stream__=lambda self, r=None: 1 / 0),
    producer(__arrow_c_array__=lambda self, r=None: (1, 2)),
    producer(__arrow_c_array__=lambda self, r=None: pa.array([1, 2]).__arrow_c_array__()),
    pa.array([1, 2]),
    pa.chunked_array([[1], [2]]),
]
for data in cases:
    try:
        c.insert(data)
        print("accepted")
    except BaseException as e:
        print(type(e).__name__)
print(c.count())
"""
    )
    assert r.returncode == 0, r.stderr
    got = r.stdout.split()
    assert got[:4] == ["TypeError", "ValueError", "ZeroDivisionError", "TypeError"], r.stdout + r.stderr
    assert got[4:6] == ["TypeError", "TypeError"], r.stdout + r.stderr
    assert got[6] in ("TypeError", "ValueError") and got[7] == "0", r.stdout + r.stderr


def base_calls(c, path):
    """A valid call of every method that takes arguments, as (function, kwargs)."""
    q = np.ones(DIM, np.float32)
    try:
        snap = c.snapshot()
        c.flush()
        version = c.tag("base")  # kept through the optimize and alters below
    except xvec.ClosedError:  # closed, or inherited through fork: the handle's calls only
        snap, version = None, 1
    calls = [
        (xvec.create, dict(path=path + "-new", schema=SCHEMA, options={"auto_flush_rows": 1000})),
        (xvec.open, dict(path=path + "-ro", read_only=True, follow=True, mmap=True, lock_timeout=1.0)),
        (xvec.open, dict(path=path + "-ro", sync="flush", maintenance_threads=1)),
        (c.insert, dict(data=pa.table({"_key": ["z"], "pos": ["n"], "emb": [q]}), key="_key", rows=[0], batch_size=10)),
        (c.upsert, dict(data=pa.table({"_key": ["z"], "pos": ["n"], "emb": [q]}), key="_key", rows=[0], batch_size=10)),
        (c.update, dict(data=pa.table({"_key": ["z"], "pos": ["n"]}), key="_key", rows=[0], batch_size=10)),
        (c.delete, dict(keys=["z"])),
        (c.delete, dict(where="n = $n", params={"n": -5})),
        (c.fetch, dict(keys=["k001"], fields=["pos"], as_of=version)),
        (c.count, dict(filter="n > $n", params={"n": 3}, as_of=version)),
        (
            c.scan,
            dict(
                filter="n > $n",
                fields=["pos"],
                order_by="n",
                desc=True,
                limit=3,
                offset=1,
                after="[150,\"k150\"]",
                params={"n": 3},
                as_of=version,
            ),
        ),
        (c.facets, dict(field="pos", filter="n > $n", top=3, params={"n": 3}, as_of=version)),
        (c.aggregate, dict(field="n", filter="n > $n", params={"n": 3}, as_of=version)),
        (c.query, dict(vector=q, k=3, filter="n > $n", params={"n": 3}, field="emb", fields=["pos"],
                       vectors=False, group_by="pos", per_group=2)),
        (c.query, dict(key="k001", ef=None, nprobe=None, target_recall=None, refine=None, beam_width=None, as_of=version)),
        (c.query_batch, dict(vectors=np.ones((2, DIM), np.float32), k=3, filter="n > $n", params={"n": 3},
                             field="emb", threads=2, ef=None, nprobe=None, target_recall=None, refine=None, beam_width=None)),
        (c.explain, dict(vector=q, k=3, filter="n > $n", params={"n": 3}, field="emb")),
        (c.explain, dict(key="k001", ef=None, nprobe=None, target_recall=None, refine=None, beam_width=None)),
        (c.hybrid, dict(query={"k": 3, "branches": [{"vector": q.tolist()}, {"key": "k001"}]})),
        (c.text_stats, dict(query={"k": 3, "branches": [{"vector": q.tolist()}, {"key": "k001"}]})),
        (c.rankings, dict(query={"k": 3, "branches": [{"vector": q.tolist()}, {"key": "k001"}]})),
        (c.optimize, dict(progress=lambda done, total: None, threads=1)),
        (c.add_field, dict(field={"name": "note", "type": "string", "nullable": True})),
        (c.rename_field, dict(old="note", new="note2")),
        (c.drop_field, dict(name="note2")),
        (c.add_index, dict(field="pos", index="inverted")),
        (c.drop_index, dict(field="pos", index="inverted")),
        (c.set_index, dict(field="emb", index="flat", wait=True)),
        (c.verify, dict(deep=False)),
        (c.backup, dict(dest=path + "-backup", copy=False, incremental=False)),
        (xvec.restore, dict(backup=path + "-backup", path=path + "-restored")),
        (c.export, dict(fields=["pos"], filter="n > $n", params={"n": 3}, key="id", batch_size=7, as_of=version)),
        (c.snapshot, dict(as_of=version)),
        (c.tag, dict(name="t1", version=version)),
        (c.delete_tag, dict(name="t1")),
        (c.checkout, dict(version=version)),
        (snap.count if snap else None, dict(filter="n > $n", params={"n": 3})),
        (snap.query if snap else None, dict(vector=q, k=3, filter="n > $n", params={"n": 3}, field="emb", fields=["pos"], vectors=True,
                          ef=None, nprobe=None, target_recall=None, refine=None, beam_width=None)),
        (snap.fetch if snap else None, dict(keys=["k001"], fields=["pos"])),
        (snap.export if snap else None, dict(fields=["pos"], filter="n > $n", params={"n": 3}, key="id",
                                              batch_size=7, part=0)),
        (xvec.shard_ids, dict(values=pa.array(["k001"]), shards=2)),
    ]
    return [(fn, kwargs) for fn, kwargs in calls if snap or getattr(fn, "__self__", None) is not None]


class Weird:
    """Has every dunder a conversion might try, and means nothing."""

    def __repr__(self):
        return "Weird()"


@pytest.mark.covers("xvec.open", "xvec.create")
def test_wrong_types_for_every_argument(filled, path):
    with xvec.create(path + "-ro", SCHEMA):
        pass
    calls = base_calls(filled, path)
    for fn, kwargs in calls:  # each base call is valid
        fn(**kwargs)
        if fn is xvec.create:
            xvec.open(path + "-new").close()
            import shutil

            shutil.rmtree(path + "-new")
    seen = 0
    for fn, kwargs in calls:
        for name in kwargs:
            for wrong in (Weird(), object()):
                bad = dict(kwargs, **{name: wrong})
                try:
                    fn(**bad)
                except ARG_ERRORS:
                    seen += 1
                    continue
                except xvec.Error as e:  # refused by the engine: also fine, but say so
                    seen += 1
                    assert str(e), (fn, name)
                    continue
                pytest.fail(f"{fn.__qualname__}({name}={wrong!r}) was accepted")
    assert seen == 2 * sum(len(k) for _, k in calls)
    # Every parameter of every method with parameters was given a wrong value.
    given = {}
    for fn, kwargs in calls:
        given.setdefault(fn.__qualname__ if hasattr(fn, "__qualname__") else fn.__name__, set()).update(kwargs)
    for cls in (xvec.Collection, xvec.Snapshot):
        for m in dir(cls):
            member = getattr(cls, m)
            if m.startswith("_") or not callable(member):
                continue
            params = set(inspect.signature(member).parameters) - {"self"}
            if params:
                assert params == given.get(f"{cls.__name__}.{m}"), m
    for fn in (xvec.create, xvec.open, xvec.shard_ids, xvec.restore):
        assert set(inspect.signature(fn).parameters) == given[fn.__name__]
    assert filled.count() == 200 and filled.verify()["clean"]


def test_self_containing_and_deeply_nested_values_do_not_crash():
    # A list that contains itself recursed until the stack overflowed (SIGSEGV).
    r = run_python(
        """
import numpy as np, tempfile, xvec
d = tempfile.mkdtemp()
c = xvec.create(d + "/c", {"name": "t", "fields": [{"name": "tags", "type": "array_string", "nullable": True},
                                                    {"name": "v", "type": "vector_fp32", "dim": 2, "metric": "l2"}]})
loop = []
loop.append(loop)
deep = []
for _ in range(100_000):
    deep = [deep]
looped = {}
looped["x"] = looped
for call in (
    lambda: c.insert([{"_key": "a", "tags": loop, "v": [1.0, 2.0]}]),
    lambda: c.insert({"_key": ["b"], "tags": [deep], "v": [[1.0, 2.0]]}),
    lambda: c.hybrid(looped),
    lambda: c.count("tags = $t", params={"t": deep}),
    lambda: c.add_field(looped),
    lambda: xvec.create(d + "/x", {"name": "x", "fields": [looped]}),
):
    try:
        call()
        print("accepted")
    except ValueError as e:
        print("ValueError", "nested deeper than 128 levels" in str(e))
print(c.count())
"""
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["ValueError", "True"] * 6 + ["0"], r.stdout + r.stderr[-2000:]


def test_batch_size_at_the_top_of_its_range(coll):
    # next + batch_size overflowed (a panic) on the second chunk of dicts and columns.
    top = 2**64 - 1
    assert coll.insert([{"_key": "a", "pos": "n", "emb": np.ones(DIM)}], batch_size=top).count == 1
    assert coll.insert({"_key": ["b"], "pos": ["n"], "emb": np.ones((1, DIM))}, batch_size=top).count == 1
    t = pa.table({"_key": ["c"], "pos": ["n"], "emb": [np.ones(DIM, np.float32)]})
    assert coll.insert(t, batch_size=top).count == 1
    assert coll.export(batch_size=top).read_all().num_rows == 3
    with pytest.raises(OverflowError):
        coll.insert([], batch_size=2**64)


def collection_calls(c, path):
    """Every Collection method with valid arguments, as (name, thunk)."""
    methods = {fn.__name__: (fn, kwargs) for fn, kwargs in base_calls(c, path) if getattr(fn, "__self__", None) is c}
    out = []
    for name in dir(xvec.Collection):
        member = getattr(xvec.Collection, name)
        if name.startswith("_") or not callable(member) or name == "close":
            continue
        fn = getattr(c, name)
        kwargs = methods[name][1] if name in methods else {}
        out.append((name, lambda fn=fn, kwargs=kwargs: fn(**kwargs)))
    out += [("len", lambda: len(c)), ("writable", lambda: c.writable), ("version", lambda: c.version)]
    return out


def test_every_call_on_a_closed_handle_raises_closed_error(path):
    c = xvec.create(path, SCHEMA)
    c.insert({"_key": ["k001"], "pos": ["n"], "emb": np.ones((1, DIM))})
    c.close()
    calls = collection_calls(c, path)
    assert len(calls) >= 25
    for name, call in calls:
        with pytest.raises(xvec.ClosedError, match="closed"):
            call()
    c.close()  # closing again is a no-op
    assert c.closed and c.path == path and "closed" in repr(c)


def test_close_from_inside_a_call_on_the_handle_is_an_error_not_a_hang():
    # close() waited for every call holding the handle, including the one that was
    # running it (from a progress callback or a write's input): a hang Ctrl-C could not end.
    r = run_python(
        """
import numpy as np, pyarrow as pa, tempfile, xvec
d = tempfile.mkdtemp()
c = xvec.create(d + "/c", {"name": "t", "fields": [
    {"name": "v", "type": "vector_fp32", "dim": 8, "metric": "l2", "index": {"type": "hnsw"}}]})
c.insert({"_key": [str(i) for i in range(3000)], "v": np.random.default_rng(0).random((3000, 8))})

class Rows(list):
    def __getitem__(self, i):
        c.close()

def batches():
    c.close()
    yield pa.record_batch({"_key": ["b"], "v": [[0.0] * 8]})

schema = pa.schema([("_key", pa.string()), ("v", pa.list_(pa.float32()))])
for call in (
    lambda: c.optimize(progress=lambda done, total: c.close()),
    lambda: c.insert(Rows([{"_key": "a", "v": [0.0] * 8}])),
    lambda: c.insert(pa.RecordBatchReader.from_batches(schema, batches())),
):
    try:
        call()
        print("returned")
    except (RuntimeError, ValueError) as e:  # through pyarrow's stream: its ValueError, ours inside
        print("Error", "close after it returns" in str(e))
print(c.closed, c.count())
c.close()
print(c.closed)
""",
        timeout=30,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["Error", "True"] * 3 + ["False", "3000", "True"], r.stdout + r.stderr[-2000:]
