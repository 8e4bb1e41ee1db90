import numpy as np
import pytest

import xvec

DIM = 8


def vectors(n, seed=0, dim=DIM):
    return np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)


SCHEMA = {
    "name": "t",
    "fields": [
        {"name": "pos", "type": "string"},
        {"name": "n", "type": "int64", "nullable": True},
        {"name": "tags", "type": "array_string", "nullable": True},
        {"name": "emb", "type": "vector_fp32", "dim": DIM, "metric": "l2"},
    ],
}


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "coll")


@pytest.fixture
def coll(path):
    c = xvec.create(path, SCHEMA)
    yield c
    c.close()


@pytest.fixture
def filled(coll):
    """200 rows: keys k000..k199, pos alternating n/v, n = i, emb random."""
    n = 200
    coll.insert(
        {
            "_key": [f"k{i:03}" for i in range(n)],
            "pos": ["n" if i % 2 == 0 else "v" for i in range(n)],
            "n": list(range(n)),
            "emb": vectors(n),
        }
    )
    return coll


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "covers(*names): the public names of xvec a test exercises (`xvec.create`, "
        "`Collection.insert`, ...); test_api_surface.py fails on a public name no test covers",
    )


def run_python(code, *args, timeout=60):
    """Runs `code` in a fresh interpreter (with this package importable); returns the
    CompletedProcess. For what might crash or hang the interpreter running pytest."""
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout
    )
