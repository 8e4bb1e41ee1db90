"""The core round trip: create, write in every form, read back, query, close."""

import numpy as np
import pytest

import xvec
from conftest import DIM, vectors


def test_columns_in_fetch_and_query_out(filled):
    assert filled.count() == 200 and len(filled) == 200
    doc = filled.fetch("k010")
    assert doc["_key"] == "k010" and doc["pos"] == "n" and doc["n"] == 10
    np.testing.assert_array_equal(doc["emb"], vectors(200)[10])
    hits = filled.query(vectors(200)[10], k=3)
    assert hits.keys[0] == "k010" and hits.scores[0] == 0.0
    assert list(hits.scores) == sorted(hits.scores)


def test_query_matches_numpy_brute_force(filled):
    base = vectors(200)
    q = vectors(1, seed=9)[0]
    order = np.argsort(((base - q) ** 2).sum(axis=1))[:10]
    hits = filled.query(q, k=10, filter="pos = 'n' OR pos = 'v'")
    assert hits.keys == [f"k{i:03}" for i in order]
    np.testing.assert_allclose(hits.scores, ((base[order] - q) ** 2).sum(axis=1), rtol=1e-5)


def test_writes_report_each_failed_row_and_keep_the_rest(coll):
    r = coll.insert(
        [
            {"_key": "a", "pos": "n", "emb": np.ones(DIM, np.float32)},
            {"_key": "b", "pos": 3, "emb": np.ones(DIM)},
            {"_key": "c", "pos": "n", "emb": np.ones(DIM - 1)},
            {"pos": "n", "emb": np.ones(DIM)},
        ]
    )
    assert r.count == 1 and r.keys == ["a"] and not r
    failed = {i: (k, e) for i, k, e in r.failed}
    assert set(failed) == {1, 2, 3}
    assert isinstance(failed[1][1], xvec.DocError) and failed[1][1].field == "pos" and failed[1][1].key == "b"
    assert "dimension" in str(failed[2][1]) and failed[2][1].field == "emb"
    assert failed[3][1].field == "_key"
    with pytest.raises(xvec.DocError, match="row 1"):
        r.raise_for_errors()


def test_errors_are_typed_and_carry_their_parts(filled, path):
    with pytest.raises(xvec.FilterError) as e:
        filled.count("pos = ")
    assert (e.value.line, e.value.column) == (1, 7) and isinstance(e.value, xvec.QueryError)
    with pytest.raises(xvec.QueryError, match="dimension"):
        filled.query(np.ones(DIM + 1))
    with pytest.raises(xvec.LockedError) as e:
        xvec.open(path)
    assert isinstance(e.value, xvec.StorageError) and isinstance(e.value, xvec.Error)
    with pytest.raises(xvec.SchemaError):
        xvec.create(path + "-2", {"name": "bad", "fields": [{"name": "x", "type": "nope"}]})


def test_close_is_idempotent_and_a_closed_handle_says_so(path):
    with xvec.create(path, {"name": "c", "fields": [{"name": "v", "type": "vector_fp32", "dim": 2, "metric": "l2"}]}) as c:
        c.insert([{"_key": "x", "v": [1.0, 2.0]}])
    assert c.closed
    c.close()
    with pytest.raises(xvec.ClosedError):
        c.count()
    with xvec.open(path, read_only=True) as r:
        assert r.count() == 1 and not r.writable
        with pytest.raises(xvec.ReadOnlyError):
            r.insert([{"_key": "y", "v": [0.0, 0.0]}])
