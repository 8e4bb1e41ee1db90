"""Versions and time travel: `as_of` on the reads, tags, checkout, vacuum, and a reader in
another process holding its version through a vacuum."""

import datetime
import multiprocessing as mp

import numpy as np
import pytest

import xvec
from conftest import SCHEMA, vectors


def rows(prefix, n, seed=0):
    return {
        "_key": [f"{prefix}{i}" for i in range(n)],
        "pos": ["n" if i % 2 == 0 else "v" for i in range(n)],
        "n": list(range(n)),
        "emb": vectors(n, seed),
    }


def answers(c, **as_of):
    """What a version answers: a query, a filtered count, a fetch, the exported keys."""
    probe = vectors(1, 99)[0]
    table = c.export(fields=["n"], **as_of).read_all()
    return (
        c.query(probe, k=5, **as_of).keys,
        c.count("pos = 'n'", **as_of),
        c.fetch(["a1", "a2", "b0"], fields=["n"], **as_of),
        sorted(table.column("_key").to_pylist()),
    )


@pytest.mark.covers(
    "Collection.version", "Collection.versions", "Collection.tag", "Collection.tags", "Collection.checkout"
)
def test_time_travel_answers_as_the_version_did_then_checkout_publishes_it(path):
    with xvec.create(path, SCHEMA, options={"keep_versions": 10}) as c:
        c.insert(rows("a", 40))
        c.flush()
        first = c.version
        before = answers(c)
        c.delete(["a1", "a3"])
        c.upsert({"_key": ["a2"], "n": [1000]})
        c.insert(rows("b", 10, seed=1))
        assert c.version == first, "writes in the WAL belong to no version"
        c.flush()
        assert c.version > first
        now = answers(c)
        assert now != before

        # Every read with as_of answers as the version did, by number and by tag.
        assert answers(c, as_of=first) == before
        assert c.tag("first", first) == first
        assert c.tags() == {"first": first}
        assert answers(c, as_of="first") == before
        assert c.snapshot(as_of="first").count() == 40
        assert answers(c) == now, "time travel leaves the live state alone"

        listed = c.versions()
        assert [v["current"] for v in listed][-1] is True
        assert listed[-1]["version"] == c.version and listed[-1]["operation"] == "flush"
        one = next(v for v in listed if v["version"] == first)
        assert one["tags"] == ["first"] and one["rows"] == 40 and one["bytes"] > 0
        assert isinstance(one["time"], datetime.datetime) and one["time"].tzinfo is not None
        age = datetime.datetime.now(datetime.timezone.utc) - one["time"]
        assert datetime.timedelta(0) <= age < datetime.timedelta(minutes=10)

        # Checkout publishes the old version as the newest; the replaced state stays a
        # version of its own.
        replaced = c.version
        made = c.checkout("first")
        assert made > replaced and c.version == made
        assert answers(c) == before
        assert answers(c, as_of=replaced) == now
        assert c.versions()[-1]["operation"] == "checkout"
        assert c.verify()["clean"]
    with xvec.open(path) as again:
        assert answers(again) == before


@pytest.mark.covers("Collection.delete_tag", "Collection.vacuum")
def test_vacuum_removes_a_version_once_its_tag_is_deleted(path):
    with xvec.create(path, SCHEMA) as c:
        c.insert(rows("a", 30))
        c.flush()
        kept = c.tag("keep")
        c.delete(["a0", "a1"])
        c.flush()
        c.delete(["a2"])
        c.flush()
        assert kept in [v["version"] for v in c.versions()]
        assert c.vacuum()["versions"] == [], "a tagged version is kept"
        assert c.count(as_of="keep") == 30

        assert c.delete_tag("keep") == kept
        report = c.vacuum()
        assert kept in report["versions"] and report["files"] > 0 and report["bytes"] > 0
        assert kept not in [v["version"] for v in c.versions()]
        with pytest.raises(xvec.StorageError, match=f"version {kept}"):
            c.count(as_of=kept)
        with pytest.raises(xvec.StorageError, match='tag "keep": no such tag'):
            c.count(as_of="keep")
        with pytest.raises(xvec.StorageError, match="no such tag"):
            c.delete_tag("keep")
        assert c.count() == 27 and c.verify()["clean"]


def pinned_reader(path, conn):
    """A child: pins the tagged version, then answers from it after the parent vacuums."""
    try:
        with xvec.open(path, read_only=True) as c:
            snap = c.snapshot(as_of="old")
            conn.send(("pinned", len(snap)))
            conn.recv()  # the parent deleted the tag and vacuumed
            keys = sorted(snap.export(fields=["n"]).read_all().column("_key").to_pylist())
            conn.send(("after", len(snap), keys, snap.query(vectors(1, 5)[0], k=3).keys))
            del snap
        conn.send(("released",))
    except BaseException as e:  # shown in the parent's assertion
        conn.send(("error", repr(e)))


def test_a_reader_in_another_process_keeps_its_version_through_a_vacuum(path):
    ctx = mp.get_context("spawn")
    with xvec.create(path, SCHEMA) as c:
        c.insert(rows("a", 50))
        c.flush()
        old = c.tag("old")
        expected_keys = sorted(c.export(fields=["n"]).read_all().column("_key").to_pylist())
        expected_hits = c.query(vectors(1, 5)[0], k=3).keys
        parent, child = ctx.Pipe()
        p = ctx.Process(target=pinned_reader, args=(path, child))
        p.start()
        assert parent.poll(60), "the child said nothing"
        assert parent.recv() == ("pinned", 50)

        # The live state moves on and optimize rewrites the segments; the tag goes.
        c.delete([f"a{i}" for i in range(20)])
        c.flush()
        c.optimize()
        c.delete_tag("old")
        assert old not in c.vacuum()["versions"], "the child's lease keeps the version"
        parent.send("go")
        assert parent.poll(60)
        assert parent.recv() == ("after", 50, expected_keys, expected_hits)
        assert parent.poll(60)
        assert parent.recv() == ("released",)
        p.join(30)
        assert p.exitcode == 0
        assert old in c.vacuum()["versions"], "the lease is gone with the reader"
        assert c.count() == 30 and c.verify()["clean"]


def test_as_of_takes_a_number_or_a_tag_only(coll):
    coll.insert(rows("a", 5))
    with pytest.raises(TypeError):
        coll.count(as_of=1.5)
    with pytest.raises(TypeError):
        coll.query(np.zeros(8, dtype=np.float32), as_of=["v"])
