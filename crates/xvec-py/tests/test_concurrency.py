"""Threads: the GIL is released around engine calls, so `query` from two Python threads
runs on two cores; `query_batch` on several threads answers as serial queries do; writes,
reads and close from several threads at once stay consistent."""

import hashlib
import threading
import time

import numpy as np
import pytest

import xvec

N, D = 20_000, 128


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """20k x 128 under a flat index: a query costs about a millisecond."""
    path = str(tmp_path_factory.mktemp("big") / "c")
    x = np.random.default_rng(0).standard_normal((N, D)).astype(np.float32)
    schema = {
        "name": "big",
        "fields": [
            {"name": "n", "type": "int64"},
            {"name": "emb", "type": "vector_fp32", "dim": D, "metric": "l2"},
        ],
    }
    c = xvec.create(path, schema)
    c.insert({"_key": [str(i) for i in range(N)], "n": list(range(N)), "emb": x})
    c.flush()
    yield c, x
    c.close()


def run_split(c, queries, threads):
    """Wall time of querying every row of `queries`, split across `threads` threads."""
    parts = np.array_split(queries, threads)
    barrier = threading.Barrier(threads + 1)

    def work(part):
        barrier.wait()
        for q in part:
            c.query(q, k=10)

    ts = [threading.Thread(target=work, args=(p,)) for p in parts]
    for t in ts:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in ts:
        t.join()
    return time.perf_counter() - t0


def hashing_split(threads, reps=24):
    """The same split over a workload known to release the GIL and run on one core each
    (hashlib over large buffers): what this machine gives two threads right now."""
    data = bytes(4 << 20)
    barrier = threading.Barrier(threads + 1)

    def work():
        barrier.wait()
        for _ in range(reps // threads):
            hashlib.sha256(data).digest()

    ts = [threading.Thread(target=work) for _ in range(threads)]
    for t in ts:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in ts:
        t.join()
    return time.perf_counter() - t0


def test_query_from_two_threads_is_faster_than_one(big):
    # A check that the GIL is released around the search, not a speed target: with it
    # held, two threads take as long as one. Best of three; if even hashlib gets no
    # speedup from a second thread right now (other load on the machine), say so.
    c, x = big
    queries = x[:160]
    run_split(c, queries[:20], 2)  # warm
    best, calib = 0.0, 0.0
    for _ in range(3):
        one = run_split(c, queries, 1)
        two = run_split(c, queries, 2)
        best = max(best, one / two)
        if best > 1.3:
            break
        # What the machine gives a second thread right now, measured between the rounds.
        calib = max(calib, hashing_split(1) / hashing_split(2))
    if best <= 1.3:
        if calib < 1.5:
            pytest.skip(f"no second free core right now (hashlib's 2-thread speedup {calib:.2f}); xvec's {best:.2f}")
        # Part of a core is busy elsewhere: held GIL gives ~1.0x, so ask for 3/4 of what
        # hashlib got (at least 1.125x).
        assert best > 0.75 * calib, f"2 threads of query ran {best:.2f}x as fast as 1 (hashlib {calib:.2f}x)"
    else:
        assert best > 1.3


@pytest.mark.covers("Collection.query_batch")
def test_query_batch_on_threads_equals_serial_queries(big):
    c, x = big
    qs = np.random.default_rng(7).standard_normal((40, D)).astype(np.float32)
    k1, s1 = c.query_batch(qs, k=7, threads=1)
    k2, s2 = c.query_batch(qs, k=7, threads=2)
    assert k1.shape == (40, 7) and s1.shape == (40, 7) and s1.dtype == np.float32 and k1.dtype == object
    assert (k1 == k2).all()
    np.testing.assert_array_equal(s1, s2)
    for i in (0, 17, 39):
        r = c.query(qs[i], k=7)
        assert list(k1[i]) == r.keys
        np.testing.assert_array_equal(s1[i], r.scores)
    # Filtered, with fewer matches than k: None and NaN past the last hit.
    keys, scores = c.query_batch(qs[:3], k=5, filter="n < 3", threads=2)
    assert all(sorted(k for k in row if k is not None) == ["0", "1", "2"] for row in keys)
    assert (keys[:, 3:] == None).all() and np.isnan(scores[:, 3:]).all()  # noqa: E711


def test_writers_and_readers_on_threads(coll):
    stop = threading.Event()
    errors = []
    counts = [[], []]

    def writer(t):
        try:
            for b in range(20):
                keys = [f"t{t}-{b}-{i}" for i in range(25)]
                v = np.random.default_rng(b).standard_normal((25, 8)).astype(np.float32)
                r = coll.insert({"_key": keys, "pos": ["n"] * 25, "emb": v})
                assert r.count == 25, r.failed
        except BaseException as e:  # reported below
            errors.append(e)

    def reader(mine):
        try:
            while not stop.is_set():
                mine.append(coll.count())
                coll.query(np.ones(8, np.float32), k=5)
                coll.count("pos = 'n'")
        except BaseException as e:
            errors.append(e)

    ws = [threading.Thread(target=writer, args=(t,)) for t in range(2)]
    rs = [threading.Thread(target=reader, args=(counts[i],)) for i in range(2)]
    for t in ws + rs:
        t.start()
    for t in ws:
        t.join()
    stop.set()
    for t in rs:
        t.join()
    assert not errors, errors
    assert coll.count() == 1000
    for mine in counts:  # each reader saw the count only grow, by whole batches
        assert mine and mine == sorted(mine) and all(n % 25 == 0 and n <= 1000 for n in mine)
    coll.flush()
    assert coll.verify()["clean"]


@pytest.mark.covers("Collection.close", "Collection.closed")
def test_close_while_other_threads_query(path, tmp_path):
    c = xvec.create(path, {"name": "c", "fields": [{"name": "v", "type": "vector_fp32", "dim": 16, "metric": "ip"}]})
    c.insert({"_key": [str(i) for i in range(2000)], "v": np.random.default_rng(0).random((2000, 16))})
    outcomes = []

    def q():
        n = 0
        try:
            while True:
                c.query(np.ones(16), k=3)
                n += 1
        except xvec.ClosedError as e:
            outcomes.append(("closed", n, str(e)))
        except BaseException as e:
            outcomes.append(("other", n, repr(e)))

    ts = [threading.Thread(target=q) for _ in range(3)]
    for t in ts:
        t.start()
    time.sleep(0.05)
    c.close()
    for t in ts:
        t.join(timeout=10)
    assert c.closed and len(outcomes) == 3
    assert all(kind == "closed" and "closed" in msg for kind, _, msg in outcomes), outcomes
    # Closed cleanly: the lock is released and the data durable.
    with xvec.open(path) as again:
        assert again.count() == 2000 and again.verify()["clean"]
