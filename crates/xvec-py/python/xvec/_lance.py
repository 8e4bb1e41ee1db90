"""Export to Lance: a collection's documents as a Lance dataset, which LanceDB, lance-ray,
lance-spark and DuckDB open, so data moves on without code. Through `pylance`, not the
`lance` crate, which would pull DataFusion into the engine's and the tool's build."""

from typing import Any, Optional, Sequence


def to_lance(
    source,
    uri: str,
    *,
    fields: Optional[Sequence[str]] = None,
    filter: Optional[str] = None,
    params: Optional[Any] = None,
    mode: str = "create",
    **write_args: Any,
):
    """Writes the documents of `source` (a `Collection` or a `Snapshot`; those `filter`
    keeps) to a Lance dataset at `uri`, streaming: the key column `_key`, then `fields`
    (default: all), vectors as `fixed_size_list<float32>` (Lance's vector columns).
    `mode` ("create", "append", "overwrite") and `write_args` go to
    `lance.write_dataset`. Returns the `lance.LanceDataset`. Needs `pip install pylance`."""
    try:
        import lance
    except ImportError as e:
        raise ImportError("xvec.to_lance needs pylance: pip install pylance") from e
    reader = source.export(fields=fields, filter=filter, params=params)
    return lance.write_dataset(reader, uri, mode=mode, **write_args)
