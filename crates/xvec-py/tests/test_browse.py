"""Browsing and aggregates: `Collection.scan` pages (key order, field order, offset,
cursor) against a sorted brute force, `facets` against a `collections.Counter`,
`aggregate` against Python's own min/max/sum."""

import collections
import math

import numpy as np
import pytest

import xvec
from conftest import vectors


def live_rows(c):
    """Every live document, by key, from a plain scan."""
    docs, cursor = c.scan(fields=["pos", "n", "tags"])
    assert cursor is None
    return {d["_key"]: d for d in docs}


@pytest.fixture
def browsed(filled):
    """`filled` with a flushed segment, nulls, deletes and rows written again."""
    filled.flush()
    filled.insert(
        {
            "_key": [f"m{i:03}" for i in range(40)],
            "pos": ["a"] * 40,
            "n": [None if i % 5 == 0 else i % 7 for i in range(40)],
            "tags": [["x", "y"] if i % 2 else ["y"] for i in range(40)],
            "emb": vectors(40, 1),
        }
    )
    filled.delete([f"k{i:03}" for i in range(0, 200, 9)])
    return filled


@pytest.mark.covers("Collection.scan")
def test_scan_pages_by_cursor_and_offset_equal_a_sorted_brute_force(browsed):
    rows = live_rows(browsed)
    assert len(rows) == browsed.count()
    for order_by, desc in [(None, False), (None, True), ("n", False), ("n", True), ("pos", True)]:
        def sort_key(k):
            v = rows[k].get(order_by) if order_by else None
            return (v is None, v if v is not None else 0)

        want = sorted(rows, reverse=desc) if order_by is None else sorted(sorted(rows), key=sort_key)
        if order_by is not None and desc:
            # Descending values, nulls first, ties in key order.
            nulls = [k for k in sorted(rows) if rows[k].get(order_by) is None]
            rest = sorted((k for k in rows if rows[k].get(order_by) is not None), key=lambda k: k)
            want = nulls + sorted(rest, key=lambda k: rows[k][order_by], reverse=True)
        pages, cursor = [], None
        while True:
            docs, cursor = browsed.scan(order_by=order_by, desc=desc, limit=17, after=cursor, fields=["n"])
            pages.extend(d["_key"] for d in docs)
            if cursor is None:
                break
        assert pages == want, (order_by, desc)
        docs, _ = browsed.scan(order_by=order_by, desc=desc, offset=30, limit=5)
        assert [d["_key"] for d in docs] == want[30:35]
    docs, cursor = browsed.scan("pos = $p", params={"p": "v"}, limit=3)
    assert [d["pos"] for d in docs] == ["v"] * 3 and cursor == docs[-1]["_key"]
    assert isinstance(docs[0]["emb"], np.ndarray) and docs[0]["emb"].shape == (8,)
    with pytest.raises(xvec.QueryError, match="cannot order by `emb`"):
        browsed.scan(order_by="emb")
    with pytest.raises(xvec.QueryError, match="not a position of this scan"):
        browsed.scan(order_by="n", after="k001")


@pytest.mark.covers("Collection.facets")
def test_facets_equal_a_counter(browsed):
    rows = live_rows(browsed)
    pos = collections.Counter(d["pos"] for d in rows.values())
    f = browsed.facets("pos", top=2)
    assert f["values"] == pos.most_common(2)
    assert (f["others"], f["distinct"], f["missing"], f["rows"]) == (
        sum(pos.values()) - sum(n for _, n in pos.most_common(2)),
        len(pos),
        0,
        len(rows),
    )
    kept = [d for d in rows.values() if d["pos"] == "a"]
    tags = collections.Counter(t for d in kept for t in set(d.get("tags", [])))
    f = browsed.facets("tags", "pos = 'a'")
    assert dict(f["values"]) == dict(tags) and f["rows"] == len(kept)
    n = browsed.facets("n", "pos = 'a'", top=100)
    assert n["missing"] == sum(1 for d in kept if d.get("n") is None)
    assert sum(c for _, c in n["values"]) + n["missing"] == len(kept)
    with pytest.raises(xvec.QueryError, match="cannot aggregate `emb`"):
        browsed.facets("emb")


@pytest.mark.covers("Collection.aggregate")
def test_aggregate_equals_python_arithmetic(browsed):
    rows = live_rows(browsed)
    ns = [d["n"] for d in rows.values() if d.get("n") is not None]
    s = browsed.aggregate("n")
    assert (s["rows"], s["count"], s["min"], s["max"], s["sum"]) == (len(rows), len(ns), min(ns), max(ns), sum(ns))
    assert math.isclose(s["avg"], sum(ns) / len(ns))
    s = browsed.aggregate("pos", "pos != 'n'")
    assert (s["min"], s["max"], s["sum"], s["avg"]) == ("a", "v", None, None)
    assert browsed.aggregate("n", "n > 10000")["count"] == 0
