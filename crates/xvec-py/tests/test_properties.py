"""Query results against numpy brute force: a hypothesis property over random data, metric,
filter, k, segment layout and deletes under the flat index (exact), and the recall of an
HNSW index."""

import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xvec

VALUES = 12  # n takes values 0..11


def leaf():
    v = st.integers(0, VALUES - 1)
    return st.one_of(
        st.tuples(st.sampled_from(["<", "<=", ">", ">=", "=", "<>"]), v).map(
            lambda t: (f"n {t[0]} {t[1]}", cmp(t[0], t[1]))
        ),
        st.lists(v, min_size=1, max_size=4).map(
            lambda xs: (f"n IN ({', '.join(map(str, xs))})", lambda n, xs=tuple(xs): n in xs)
        ),
    )


def cmp(op, b):
    return {
        "<": lambda n: n < b, "<=": lambda n: n <= b, ">": lambda n: n > b,
        ">=": lambda n: n >= b, "=": lambda n: n == b, "<>": lambda n: n != b,
    }[op]


def combine(children):
    return st.one_of(
        st.tuples(children, children).map(lambda ab: (f"({ab[0][0]}) AND ({ab[1][0]})", lambda n, a=ab[0][1], b=ab[1][1]: a(n) and b(n))),
        st.tuples(children, children).map(lambda ab: (f"({ab[0][0]}) OR ({ab[1][0]})", lambda n, a=ab[0][1], b=ab[1][1]: a(n) or b(n))),
        children.map(lambda a: (f"NOT ({a[0]})", lambda n, f=a[1]: not f(n))),
    )


filters = st.one_of(st.none(), st.recursive(leaf(), combine, max_leaves=4))


def true_scores(metric, base, q):
    if metric == "l2":
        return ((base - q) ** 2).sum(axis=1), False
    if metric == "ip":
        return base @ q, True
    cos = (base @ q) / (np.linalg.norm(base, axis=1) * np.linalg.norm(q))
    return cos, True


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    metric=st.sampled_from(["l2", "ip", "cosine"]),
    n=st.integers(1, 300),
    dim=st.integers(1, 12),
    k=st.integers(1, 40),
    flt=filters,
    flush_at=st.one_of(st.none(), st.floats(0.1, 0.9)),
    deleted=st.floats(0, 0.3),
    seed=st.integers(0, 2**32 - 1),
)
@pytest.mark.covers("QueryResult.keys", "QueryResult.scores")
def test_flat_query_equals_numpy_brute_force(metric, n, dim, k, flt, flush_at, deleted, seed):
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((n, dim)).astype(np.float32)
    vals = rng.integers(0, VALUES, n)
    queries = rng.standard_normal((3, dim)).astype(np.float32)
    schema = {
        "name": "p",
        "fields": [
            {"name": "n", "type": "int64"},
            {"name": "emb", "type": "vector_fp32", "dim": dim, "metric": metric, "index": {"type": "flat"}},
        ],
    }
    gone = set(rng.choice(n, int(n * deleted), replace=False).tolist())
    with tempfile.TemporaryDirectory() as d, xvec.create(d + "/c", schema) as c:
        cut = n if flush_at is None else int(n * flush_at)
        for lo, hi in ((0, cut), (cut, n)):
            if hi > lo:
                c.insert({"_key": [str(i) for i in range(lo, hi)], "n": vals[lo:hi].tolist(), "emb": base[lo:hi]})
                if hi == cut and flush_at is not None:
                    c.flush()
        if gone:
            c.delete([str(i) for i in sorted(gone)])
        where, pred = flt if flt else (None, lambda _: True)
        allowed = np.array([i not in gone and pred(int(vals[i])) for i in range(n)], dtype=bool)
        assert c.count(where) == allowed.sum()
        batch_keys, batch_scores = c.query_batch(queries, k=k, filter=where, threads=2)
        for qi, q in enumerate(queries):
            scores, higher_better = true_scores(metric, base.astype(np.float64), q.astype(np.float64))
            idx = np.flatnonzero(allowed)
            order = idx[np.argsort(-scores[idx] if higher_better else scores[idx], kind="stable")][:k]
            r = c.query(q, k=k, filter=where)
            assert len(r) == len(order)
            got = [int(key) for key in r.keys]
            assert all(allowed[g] for g in got)
            # Reported scores are the true ones, in rank order, and as good as the best k.
            np.testing.assert_allclose(r.scores, scores[got], rtol=1e-4, atol=1e-4)
            step = np.diff(r.scores)
            assert (step <= 1e-5).all() if higher_better else (step >= -1e-5).all()
            np.testing.assert_allclose(np.sort(r.scores), np.sort(scores[order]), rtol=1e-4, atol=1e-4)
            # query_batch answers the same.
            assert [x for x in batch_keys[qi] if x is not None] == r.keys
            np.testing.assert_array_equal(batch_scores[qi][: len(r)], r.scores)


@pytest.mark.covers("Collection.describe")
def test_hnsw_recall_at_10_against_brute_force(tmp_path):
    rng = np.random.default_rng(3)
    base = rng.standard_normal((3000, 32)).astype(np.float32)
    queries = rng.standard_normal((100, 32)).astype(np.float32)
    schema = {
        "name": "h",
        "fields": [{"name": "emb", "type": "vector_fp32", "dim": 32, "metric": "l2", "index": {"type": "hnsw"}}],
    }
    with xvec.create(str(tmp_path / "h"), schema) as c:
        c.insert({"_key": [str(i) for i in range(3000)], "emb": base})
        c.optimize()
        assert c.describe()["vector_indexes"]["emb"]["completeness"] == 1.0
        d2 = ((queries[:, None, :] - base[None]) ** 2).sum(-1)
        truth = np.argsort(d2, axis=1)[:, :10]

        def recall(keys):
            return np.mean([len({int(k) for k in row} & set(t)) / 10 for row, t in zip(keys, truth)])

        keys, _ = c.query_batch(queries, k=10)
        assert recall(keys) >= 0.9
        high = recall(c.query_batch(queries, k=10, ef=200)[0])
        assert high >= 0.95 and high >= recall(c.query_batch(queries, k=10, ef=10)[0])
        single = [c.query(q, k=10, ef=64).keys for q in queries]
        assert recall(single) >= 0.9


def rich_rows():
    from test_inputs import RICH  # noqa: F401  (the schema these rows fit)

    opt = lambda s: st.one_of(st.none(), s)  # noqa: E731
    finite = st.floats(-1e6, 1e6, width=32)  # the engine refuses vectors whose norm overflows
    row = st.fixed_dictionaries(
        {
            "s": opt(st.text(max_size=8)),
            "i": opt(st.integers(-(2**63), 2**63 - 1)),
            "u": opt(st.integers(0, 2**32 - 1)),
            "f": opt(st.floats(allow_nan=False, allow_infinity=False)),
            "b": opt(st.booleans()),
            "tags": opt(st.lists(st.text(max_size=4), max_size=3)),
            "nums": opt(st.lists(st.integers(-(2**31), 2**31 - 1), max_size=3)),
            "v32": st.lists(finite, min_size=4, max_size=4),
            "v16": opt(st.lists(st.integers(-1000, 1000).map(lambda x: x / 8), min_size=4, max_size=4)),
            "v8": opt(st.lists(st.integers(-128, 127), min_size=4, max_size=4)),
            "sp": opt(
                st.dictionaries(st.integers(0, 50), st.floats(-10, 10, width=32), max_size=3).map(
                    lambda d: {"indices": sorted(d), "values": [d[k] for k in sorted(d)]}
                )
            ),
        }
    )
    return st.lists(row, min_size=1, max_size=12)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=rich_rows())
def test_dicts_columns_and_arrow_store_the_same_documents(rows):
    import pyarrow as pa

    from test_inputs import RICH

    for i, r in enumerate(rows):
        r["_key"] = f"r{i}"
    names = [f["name"] for f in RICH["fields"]]
    with tempfile.TemporaryDirectory() as d:
        colls = [xvec.create(f"{d}/{form}", RICH) for form in ("dicts", "columns", "arrow")]
        try:
            dicts = [{k: v for k, v in r.items() if v is not None} for r in rows]
            assert colls[0].insert(dicts).count == len(rows)
            columns = {"_key": [r["_key"] for r in rows], **{n: [r[n] for r in rows] for n in names}}
            columns["v32"] = np.array(columns["v32"], np.float32)
            assert colls[1].insert(columns).count == len(rows)
            schema = colls[0].export().schema
            table = pa.Table.from_pylist([{"_key": r["_key"], **{n: r[n] for n in names}} for r in rows], schema)
            assert colls[2].insert(table).count == len(rows)
            keys = [r["_key"] for r in rows]
            got = [c.fetch(keys) for c in colls]
            for a, b, c in zip(*got):
                for other in (b, c):
                    assert a.keys() == other.keys(), (a, other)
                    for n in a:
                        if isinstance(a[n], np.ndarray):
                            np.testing.assert_array_equal(a[n], other[n])
                        else:
                            assert a[n] == other[n], n
            assert all(x.export().read_all().equals(got_t) for x, got_t in
                       zip(colls[1:], [colls[0].export().read_all()] * 2))
        finally:
            for c in colls:
                c.close()
