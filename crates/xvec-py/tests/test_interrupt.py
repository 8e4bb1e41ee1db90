"""Ctrl-C: an interrupted optimize raises KeyboardInterrupt and leaves the collection as it
was; an interrupted insert raises xvec.Interrupted saying exactly which rows are durable."""

import _thread
import os
import signal
import threading

import numpy as np
import pytest

import xvec

HNSW = {
    "name": "h",
    "fields": [{"name": "emb", "type": "vector_fp32", "dim": 64, "metric": "l2", "index": {"type": "hnsw"}}],
}


@pytest.fixture(autouse=True)
def armed_sigint():
    """SIGINT raises KeyboardInterrupt only while the test's call runs: an interrupt that
    arrives after the call returned (the machine was faster than the timer) is recorded,
    not raised into pytest, and the test then fails on its own assertion."""
    state = {"armed": False, "late": 0}

    def handler(signum, frame):
        if state["armed"]:
            raise KeyboardInterrupt
        state["late"] += 1

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield state
    finally:
        signal.signal(signal.SIGINT, previous)


def interrupt_after(seconds, how, armed):
    def fire():
        if how == "interrupt_main":
            _thread.interrupt_main()
        else:
            signal.raise_signal(signal.SIGINT)

    armed["armed"] = True
    t = threading.Timer(seconds, fire)
    t.start()
    return t


def disarm(timer, armed):
    timer.join()
    armed["armed"] = False
    assert armed["late"] == 0, "the interrupt came after the call had returned"


def state(c):
    s = c.stats()
    return (
        [(g["file"], g["rows"]) for g in s["segments"]],
        sorted(os.listdir(c.path)),
        c.describe()["vector_indexes"]["emb"]["completeness"],
        c.count(),
    )


@pytest.fixture
def unindexed(tmp_path):
    """10k x 64 in four segments, no HNSW graph yet: optimize merges and builds for >1 s."""
    c = xvec.create(str(tmp_path / "h"), HNSW)
    x = np.random.default_rng(0).standard_normal((10_000, 64)).astype(np.float32)
    for part in range(4):
        sl = slice(part * 2500, (part + 1) * 2500)
        c.insert({"_key": [str(i) for i in range(sl.start, sl.stop)], "emb": x[sl]})
        c.flush()
    yield c
    c.close()


@pytest.mark.parametrize("how", ["interrupt_main", "raise_signal"])
@pytest.mark.covers("Collection.optimize", "Collection.verify")
def test_ctrl_c_in_optimize_leaves_the_collection_unchanged(unindexed, how, armed_sigint):
    before = state(unindexed)
    assert len(before[0]) == 4 and before[2] < 1.0
    timer = interrupt_after(0.2, how, armed_sigint)
    with pytest.raises(KeyboardInterrupt) as e:
        unindexed.optimize()
    disarm(timer, armed_sigint)
    assert type(e.value) is KeyboardInterrupt
    assert state(unindexed) == before
    v = unindexed.verify()
    assert v["clean"] and v["problems"] == 0, v["findings"]
    # Nothing half-done is left behind: the next optimize runs to the end, and takes long
    # enough that the interrupt above came well before it would have finished.
    report = unindexed.optimize()
    assert report["segments_before"] == 4 and report["segments_after"] == 1 and report["indexes_built"] == 1
    assert report["seconds"] > 0.6, report
    assert unindexed.describe()["vector_indexes"]["emb"]["completeness"] == 1.0


def test_an_exception_from_progress_cancels_optimize(unindexed):
    before = state(unindexed)
    seen = []

    def progress(done, total):
        seen.append((done, total))
        if len(seen) >= 2:
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        unindexed.optimize(progress=progress)
    assert seen and all(0 <= d <= t for d, t in seen) and seen[0][1] >= 2500
    assert state(unindexed) == before and unindexed.verify()["clean"]


@pytest.mark.parametrize("form", ["columns", "dicts"])
def test_ctrl_c_in_a_long_insert_reports_what_was_committed(coll, form, armed_sigint):
    n, batch = 100_000, 20
    keys = [f"r{i:05}" for i in range(n)]
    v = np.random.default_rng(1).standard_normal((n, 8)).astype(np.float32)
    if form == "columns":
        data = {"_key": keys, "pos": ["n"] * n, "emb": v}
    else:
        data = [{"_key": k, "pos": "n", "emb": v[i]} for i, k in enumerate(keys)]
    timer = interrupt_after(0.15, "interrupt_main", armed_sigint)
    with pytest.raises(xvec.Interrupted) as e:
        coll.insert(data, batch_size=batch)
    disarm(timer, armed_sigint)
    err = e.value
    assert isinstance(err, KeyboardInterrupt)
    assert 0 < err.committed < n and err.committed % batch == 0, err.committed
    assert f"{err.committed} rows committed" in str(err)
    assert err.committed_keys == keys[: err.committed]
    # Exactly those rows are there, and nothing after them.
    assert coll.count() == err.committed
    assert coll.fetch(keys[err.committed - 1]) is not None and coll.fetch(keys[err.committed]) is None
    # Resuming from where it stopped completes the input.
    rest = {"_key": keys[err.committed:], "pos": ["n"] * (n - err.committed), "emb": v[err.committed:]}
    assert coll.insert(rest, batch_size=5000).count == n - err.committed
    assert coll.count() == n
