"""Processes: a handle inherited through os.fork() fails clearly in the child and the child
leaves the parent's collection alone; with multiprocessing (fork and spawn), one writer in
the parent and read-only handles in children that see its data, and a second writer in a
child refused with LockedError."""

import gc
import multiprocessing as mp
import os

import numpy as np
import pytest

import xvec
from conftest import DIM, SCHEMA, vectors


def rows(prefix, n, seed=0):
    return {"_key": [f"{prefix}{i}" for i in range(n)], "pos": ["n"] * n, "emb": vectors(n, seed)}


@pytest.mark.covers("Collection.writable")
def test_a_handle_after_fork_raises_closed_error_in_the_child(path):
    c = xvec.create(path, SCHEMA)
    c.insert(rows("a", 50))
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report through the pipe, never return into pytest
        code = 0
        try:
            from test_errors import collection_calls

            calls = collection_calls(c, path) + [("close", c.close)]
            assert len(calls) >= 25
            for _, call in calls:
                try:
                    call()
                    code |= 1
                except xvec.ClosedError as e:
                    if "before a fork" not in str(e) and "belongs to process" not in str(e):
                        code |= 2
            del calls, call
            del c  # dropping the child's copy must not close the parent's files
            gc.collect()
        except BaseException:
            code |= 4
        os.write(w, bytes([code]))
        os._exit(0)
    os.close(w)
    _, status = os.waitpid(pid, 0)
    got = os.read(r, 1)
    os.close(r)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert got == b"\x00", f"child flags {got!r}: 1 = a call worked, 2 = wrong message, 4 = other error"
    # The parent's handle and files are untouched by the child's exit.
    assert c.writable and c.count() == 50
    c.insert(rows("b", 10))
    c.flush()
    assert c.count() == 60 and c.verify()["clean"]
    c.close()
    with xvec.open(path, read_only=True) as again:
        assert again.count() == 60


def reader(path, conn):
    """A child: opens read-only, reports what it sees, waits, reports again."""
    try:
        follow = xvec.open(path, read_only=True)
        pinned = xvec.open(path, read_only=True, follow=False)
        conn.send(("open", follow.count(), pinned.count(), follow.fetch("a3")["_key"], follow.writable))
        conn.recv()  # the parent wrote more
        before_refresh = pinned.count()
        changed = pinned.refresh()
        hits = follow.query(vectors(1, 9)[0], k=1, filter="pos = 'v'").keys
        conn.send(("after", follow.count(), before_refresh, changed, pinned.count(), hits))
        try:
            xvec.open(path, lock_timeout=0)
            conn.send(("writer", "opened"))
        except xvec.LockedError as e:
            conn.send(("writer", type(e).__name__, e.path == path))
        follow.close()
        pinned.close()
    except BaseException as e:  # shown in the parent's assertion
        conn.send(("error", repr(e)))


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_one_writer_and_readers_in_other_processes(path, method):
    ctx = mp.get_context(method)
    with xvec.create(path, SCHEMA) as c:
        c.insert(rows("a", 100))
        c.flush()
        c.insert(rows("m", 20, seed=1))  # in the WAL only: readers see logged batches too
        parent, child = ctx.Pipe()
        p = ctx.Process(target=reader, args=(path, child))
        p.start()
        assert parent.poll(60), "the child said nothing"
        assert parent.recv() == ("open", 120, 120, "a3", False)
        c.insert({"_key": ["late"], "pos": ["v"], "emb": vectors(1, 9)})
        parent.send("go")
        assert parent.poll(60)
        assert parent.recv() == ("after", 121, 120, True, 121, ["late"])
        assert parent.poll(60)
        assert parent.recv() == ("writer", "LockedError", True)
        p.join(30)
        assert p.exitcode == 0
        assert c.count() == 121 and c.verify()["clean"]
