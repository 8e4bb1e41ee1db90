"""The public surface: every name of `xvec` and every method and attribute of its classes
is claimed by some test (`@pytest.mark.covers("Collection.insert", ...)`), each claim is
backed by the claiming test's own code using that name, and every name is documented.

A new public name without a test fails here; so does a claim that names nothing or a test
that claims a name its body never touches."""

import ast
import inspect
import pathlib

import pytest

import xvec

CLASSES = [xvec.Collection, xvec.Snapshot, xvec.QueryResult, xvec.Hit, xvec.WriteResult]
# Values, not callables: Python gives an int or a str no docstring of its own.
CONSTANTS = {"KEY_FIELD": str, "MAX_K": int, "MAX_QUERY_THREADS": int, "MAX_SHARDS": int, "__version__": str}
# Class members every Python class has, not part of what the binding defines.
NOT_API = {"__doc__", "__module__", "__dict__", "__weakref__"}
HERE = pathlib.Path(__file__).parent


def public_names():
    names = {f"xvec.{n}" for n in xvec.__all__}
    for cls in CLASSES:
        for m in dir(cls):
            if not m.startswith("_"):
                names.add(f"{cls.__name__}.{m}")
        for m in vars(cls):
            if m.startswith("__") and m not in NOT_API:
                names.add(f"{cls.__name__}.{m}")
    return names


def covers_of(fn):
    """The names a test function's `covers` marker claims."""
    out = []
    for d in fn.decorator_list:
        if (
            isinstance(d, ast.Call)
            and isinstance(d.func, ast.Attribute)
            and d.func.attr == "covers"
        ):
            out.extend(a.value for a in d.args if isinstance(a, ast.Constant))
    return out


def used_in(fn, name):
    """Whether the body of `fn` uses the member `name` ("Cls.attr" or "xvec.attr")."""
    owner, attr = name.split(".", 1)
    nodes = list(ast.walk(fn))
    attrs = {n.attr for n in nodes if isinstance(n, ast.Attribute)}
    called = {n.func.id for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    evidence = {
        "__len__": "len" in called,
        "__repr__": "repr" in called,
        "__bool__": "bool" in called or any(isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not) for n in nodes),
        "__getitem__": any(isinstance(n, ast.Subscript) for n in nodes),
        "__enter__": any(isinstance(n, ast.With) for n in nodes),
        "__exit__": any(isinstance(n, ast.With) for n in nodes),
        "__arrow_c_stream__": bool(attrs & {"table", "from_arrow", "__arrow_c_stream__"}),
        "__new__": owner in attrs,
    }
    if attr in evidence:
        return evidence[attr]
    return attr in attrs


def claims():
    """(test file, test name, claimed name, backed by the test's code) for every claim."""
    out = []
    for f in sorted(HERE.glob("test_*.py")):
        tree = ast.parse(f.read_text(), filename=str(f))
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name.startswith("test_"):
                for name in covers_of(fn):
                    out.append((f.name, fn.name, name, used_in(fn, name)))
    return out


@pytest.mark.covers("xvec.__version__", "xvec.KEY_FIELD", "xvec.MAX_K", "xvec.MAX_QUERY_THREADS")
def test_every_public_name_is_covered_by_a_test():
    names = public_names()
    assert len(names) > 60, sorted(names)  # the walk found the classes' members
    claimed = claims()
    assert claimed, "no test declares what it covers"
    unknown = sorted({f"{f}::{t}: {n}" for f, t, n, _ in claimed if n not in names})
    assert not unknown, f"claims of names that are not public: {unknown}"
    unbacked = sorted({f"{f}::{t}: {n}" for f, t, n, ok in claimed if not ok})
    assert not unbacked, f"tests claim names their code never uses: {unbacked}"
    uncovered = sorted(names - {n for _, _, n, _ in claimed})
    assert not uncovered, f"public names no test covers: {uncovered}"
    # The constants this test claims, checked here.
    for n, ty in CONSTANTS.items():
        assert isinstance(getattr(xvec, n), ty), n
    assert xvec.KEY_FIELD == "_key" and xvec.MAX_K >= 1000 and xvec.MAX_QUERY_THREADS >= 2
    assert xvec.__version__.count(".") == 2


def test_all_lists_exactly_the_public_module_names():
    listed = set(xvec.__all__)
    assert len(listed) == len(xvec.__all__), "duplicates in __all__"
    # Submodules (`xvec.ray`, once imported) are not names of the module itself.
    present = {n for n in dir(xvec) if not n.startswith("_") and not inspect.ismodule(getattr(xvec, n))}
    present |= {"__version__"}
    present.discard("annotations")
    assert listed == present, (sorted(listed - present), sorted(present - listed))


def test_every_public_name_has_a_docstring():
    missing = []
    for n in xvec.__all__:
        if n in CONSTANTS:
            continue
        obj = getattr(xvec, n)
        doc = vars(obj).get("__doc__") if inspect.isclass(obj) else obj.__doc__
        if not doc or len(doc.strip()) < 15:
            missing.append(f"xvec.{n}")
    for cls in CLASSES:
        for m in dir(cls):
            if m.startswith("_"):
                continue
            doc = getattr(cls, m).__doc__
            if not doc or len(doc.strip()) < 10:
                missing.append(f"{cls.__name__}.{m}")
    assert not missing, f"public names without a docstring: {missing}"
    assert xvec.__doc__ and "xvec.create" in xvec.__doc__


def test_every_public_callable_shows_its_signature():
    # help() and IDEs read __text_signature__; a method without one shows `(...)`.
    blind = []
    for cls in CLASSES:
        for m in dir(cls):
            member = getattr(cls, m)
            if not m.startswith("_") and callable(member):
                try:
                    inspect.signature(member)
                except (TypeError, ValueError):
                    blind.append(f"{cls.__name__}.{m}")
    for f in (xvec.create, xvec.open):
        inspect.signature(f)
    assert not blind, blind
    q = inspect.signature(xvec.Collection.query).parameters
    assert q["k"].default == 10 and q["k"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "read_only" in inspect.signature(xvec.open).parameters


@pytest.mark.covers(
    "Collection.__new__", "Snapshot.__new__", "QueryResult.__new__", "Hit.__new__", "WriteResult.__new__",
    "xvec.Collection", "xvec.Snapshot", "xvec.QueryResult", "xvec.Hit", "xvec.WriteResult",
)
def test_handles_and_results_are_not_constructed_directly():
    for make in (xvec.Collection, xvec.Snapshot, xvec.QueryResult, xvec.Hit, xvec.WriteResult):
        assert make.__module__ == "xvec"
        with pytest.raises(TypeError):
            make()


def test_the_walk_sees_a_claim_without_use():
    # The checker itself: a claim the body does not back is caught, one it does is not.
    fn = ast.parse(
        "@pytest.mark.covers('Collection.flush', 'QueryResult.__len__')\n"
        "def test_x(c):\n    c.count()\n"
    ).body[0]
    assert covers_of(fn) == ["Collection.flush", "QueryResult.__len__"]
    assert not used_in(fn, "Collection.flush") and not used_in(fn, "QueryResult.__len__")
    assert used_in(fn, "Collection.count")
