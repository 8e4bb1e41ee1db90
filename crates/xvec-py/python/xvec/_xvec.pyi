"""Type stubs of the `_xvec` extension module (crates/xvec-py/src). Docstrings match the
Rust doc comments that `help()` shows."""

import os
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
KEY_FIELD: str
MAX_K: int
MAX_QUERY_THREADS: int
MAX_SHARDS: int

PathLike = Union[str, "os.PathLike[str]"]
Json = Union[None, bool, int, float, str, List[Any], Dict[str, Any]]
#: A list of dicts, a dict of columns, or Arrow data (anything with __arrow_c_stream__).
WriteData = Any
Params = Mapping[str, Union[str, int, float, bool, Sequence[Union[str, int, float, bool]]]]
Vector = Union[npt.ArrayLike, Sequence[float]]
#: A version number, or a tag naming one.
AsOf = Union[int, str]

def create(path: PathLike, schema: Union[Mapping[str, Any], str], *, options: Optional[Mapping[str, Any]] = None) -> Collection:
    """Creates a collection in `path` (a new or empty directory) and opens it for writing.

    `schema` is the JSON form `xvec create --schema` takes, as a dict or a JSON string.
    `options` sets collection options (`auto_flush_rows`, `max_docs_per_segment`, ...)."""

def open(
    path: PathLike,
    *,
    read_only: bool = False,
    follow: bool = True,
    mmap: bool = True,
    lock_timeout: Optional[float] = None,
    sync: Union[str, int, None] = None,
    maintenance_threads: Optional[int] = None,
) -> Collection:
    """Opens the collection in `path`: the writer (the default; `LockedError` while another
    handle writes) or, with `read_only=True`, a reader that follows the writer."""

def shard_ids(values: Any, shards: int) -> "npt.NDArray[np.uint32]":
    """The shard of each value of an Arrow string array: `crc32c(UTF-8 bytes) % shards`
    (uint32). The rule `xvec.ray` routes rows by; a null value is an error naming its row."""

def fuse(
    query: Union[Mapping[str, Any], str],
    rankings: Sequence[Tuple[Sequence[str], Sequence[float], bool, Sequence[Dict[str, Any]]]],
) -> List[Tuple[str, float, Dict[str, Any]]]:
    """Fuses per-branch rankings (one `(keys, scores, higher_is_better, fields)` per branch
    of `query`, as `Collection.rankings` gives them, merged over shards) by the query's
    fusion into its best `k`: `[(key, score, fields)]`, as `Collection.hybrid` returns."""

def restore(backup: PathLike, path: PathLike) -> Dict[str, Any]:
    """Restores the backup in `backup` into `path` (new or empty): copies it, verifies the
    copy and only then puts it in place (`CorruptionError` when it does not verify)."""

class Collection:
    """A collection: a directory holding one writer's data. A context manager."""

    @property
    def path(self) -> str:
        """The collection directory."""
    @property
    def writable(self) -> bool:
        """Whether this handle is the writer."""
    @property
    def closed(self) -> bool:
        """Whether the handle is closed."""
    def __enter__(self) -> "Collection": ...
    def __exit__(self, *exc: object) -> bool: ...
    def __len__(self) -> int: ...
    def close(self) -> None:
        """Closes the handle: syncs the WAL and releases the writer lock. Idempotent."""
    def insert(
        self, data: WriteData, *, key: str = "_key", rows: Optional[Sequence[int]] = None, batch_size: int = 1000
    ) -> WriteResult:
        """Inserts documents; existing keys fail (per row)."""
    def upsert(
        self, data: WriteData, *, key: str = "_key", rows: Optional[Sequence[int]] = None, batch_size: int = 1000
    ) -> WriteResult:
        """Inserts documents, or merges the given fields into those whose keys exist."""
    def update(
        self, data: WriteData, *, key: str = "_key", rows: Optional[Sequence[int]] = None, batch_size: int = 1000
    ) -> WriteResult:
        """Sets the given fields of existing documents (a missing key fails its row)."""
    def delete(
        self, keys: Union[None, str, int, Sequence[Union[str, int]]] = None, *, where: Optional[str] = None,
        params: Optional[Params] = None
    ) -> Union[WriteResult, int]:
        """Deletes by key (a WriteResult) or by filter (`where=`, the number deleted)."""
    def fetch(
        self,
        keys: Union[str, Sequence[Union[str, int]]],
        *,
        fields: Optional[Sequence[str]] = None,
        as_of: Optional[AsOf] = None,
    ) -> Any:
        """Documents by key as dicts (`_key` first), `None` where not found; one key, one dict.
        `as_of` reads that version as it was published."""
    def count(self, filter: Optional[str] = None, *, params: Optional[Params] = None, as_of: Optional[AsOf] = None) -> int:
        """Live documents, or those `filter` keeps; `as_of` counts in that version."""
    def scan(
        self,
        filter: Optional[str] = None,
        *,
        fields: Optional[Sequence[str]] = None,
        order_by: Optional[str] = None,
        desc: bool = False,
        limit: Optional[int] = None,
        offset: int = 0,
        after: Optional[str] = None,
        params: Optional[Params] = None,
        as_of: Optional[AsOf] = None,
    ) -> Tuple[List[Dict[str, Any]], Optional[str]]:
        """A page of the documents `filter` keeps, by key or `order_by` (then key), and the
        cursor of the next page (`None` at the end) to pass back as `after`."""
    def facets(
        self,
        field: str,
        filter: Optional[str] = None,
        *,
        top: int = 20,
        params: Optional[Params] = None,
        as_of: Optional[AsOf] = None,
    ) -> Dict[str, Any]:
        """Rows per value of `field`: `values` (the `top` most frequent `(value, rows)`),
        `others`, `distinct`, `missing`, `rows`."""
    def aggregate(
        self,
        field: str,
        filter: Optional[str] = None,
        *,
        params: Optional[Params] = None,
        as_of: Optional[AsOf] = None,
    ) -> Dict[str, Any]:
        """`rows`, `count`, `min`, `max`, `sum` and `avg` of scalar field `field`."""
    def query(
        self,
        vector: Optional[Vector] = None,
        *,
        key: Optional[str] = None,
        k: int = 10,
        filter: Optional[str] = None,
        params: Optional[Params] = None,
        field: Optional[str] = None,
        fields: Optional[Sequence[str]] = None,
        ef: Optional[int] = None,
        nprobe: Optional[int] = None,
        target_recall: Optional[float] = None,
        refine: Optional[int] = None,
        beam_width: Optional[int] = None,
        vectors: bool = False,
        group_by: Optional[str] = None,
        per_group: int = 3,
        as_of: Optional[AsOf] = None,
    ) -> Union["QueryResult", List[Tuple[Any, "QueryResult"]]]:
        """Nearest neighbours of `vector` (or of the stored vector of `key`), best first;
        `as_of` searches that version as it was published."""
    def query_batch(
        self,
        vectors: npt.ArrayLike,
        *,
        k: int = 10,
        filter: Optional[str] = None,
        params: Optional[Params] = None,
        field: Optional[str] = None,
        ef: Optional[int] = None,
        nprobe: Optional[int] = None,
        target_recall: Optional[float] = None,
        refine: Optional[int] = None,
        beam_width: Optional[int] = None,
        threads: Optional[int] = None,
    ) -> Tuple["npt.NDArray[np.object_]", "npt.NDArray[np.float32]"]:
        """Searches each row of a 2-D array in parallel; `(keys, scores)` as (n, k) arrays."""
    def hybrid(self, query: Union[Mapping[str, Any], str]) -> List[Tuple[str, float, Dict[str, Any]]]:
        """A hybrid query in the JSON form of `xvec query --json`."""
    def text_stats(self, query: Union[Mapping[str, Any], str]) -> List[Optional[Dict[str, Any]]]:
        """Per branch of a hybrid query, a text branch's BM25 statistics here (`{field:
        {"docs", "total_len", "doc_freq": {term: n}}}`), `None` for other branches; shards
        sum theirs and pass the sum as the branch's `stats`."""
    def rankings(
        self, query: Union[Mapping[str, Any], str]
    ) -> List[Tuple[List[str], "npt.NDArray[np.float32]", bool, List[Dict[str, Any]]]]:
        """Per branch of a hybrid query, its ranking before fusion: `(keys, scores,
        higher_is_better, fields)`, best first; `fuse` fuses them."""
    def explain(
        self,
        vector: Optional[Vector] = None,
        *,
        key: Optional[str] = None,
        k: int = 10,
        filter: Optional[str] = None,
        params: Optional[Params] = None,
        field: Optional[str] = None,
        ef: Optional[int] = None,
        nprobe: Optional[int] = None,
        target_recall: Optional[float] = None,
        refine: Optional[int] = None,
        beam_width: Optional[int] = None,
    ) -> Dict[str, Any]:
        """How a query would run and did, per segment."""
    def flush(self) -> None:
        """Seals the memtable into a segment."""
    def optimize(
        self, *, progress: Optional[Callable[[int, int], object]] = None, threads: Optional[int] = None
    ) -> Dict[str, Any]:
        """Merges segments and builds indexes; Ctrl-C cancels with the collection unchanged."""
    def add_field(self, field: Union[Mapping[str, Any], str]) -> None:
        """Adds a field given in its schema JSON form."""
    def drop_field(self, name: str) -> None:
        """Drops a field."""
    def rename_field(self, old: str, new: str) -> None:
        """Renames a field."""
    def add_index(self, field: str, index: Union[str, Mapping[str, Any]]) -> None:
        """Adds an inverted, range or full-text index to a field."""
    def set_index(self, field: str, index: Union[str, Mapping[str, Any]], *, wait: bool = False) -> None:
        """Changes a vector field's index; segments are rebuilt in the background (`wait=True` waits)."""
    def drop_index(self, field: str, index: Union[str, Mapping[str, Any]]) -> None:
        """Drops an index from a field."""
    def stats(self) -> Dict[str, Any]:
        """Counts, sizes, background work and the engine's memory accounting."""
    def schema(self) -> Dict[str, Any]:
        """The schema in its JSON form."""
    def describe(self) -> Dict[str, Any]:
        """The schema, the options, counts and each vector field's index."""
    def backup(self, dest: PathLike, *, copy: bool = False, incremental: bool = False) -> Dict[str, Any]:
        """Backs the collection up into `dest` while writers keep writing; `copy=True` copies
        instead of hard-linking, `incremental=True` updates an earlier backup there."""
    def verify(self, *, deep: bool = False) -> Dict[str, Any]:
        """Checks every file; the report's `clean` says whether anything is wrong."""
    def snapshot(self, *, as_of: Optional[AsOf] = None) -> "Snapshot":
        """Pins the current state (or `as_of`'s version, held by a lease while the view
        lives): a read-only view later writes do not change."""
    @property
    def version(self) -> int:
        """The live version: the generation of the manifest the collection reads."""
    def versions(self) -> List[Dict[str, Any]]:
        """The versions kept, oldest first, the live one last: `version`, `time` (UTC
        datetime), `operation`, `rows`, `bytes`, `tags`, `current`."""
    def tags(self) -> Dict[str, int]:
        """The tags, as `{name: version}`."""
    def tag(self, name: str, version: Optional[AsOf] = None) -> int:
        """Names `version` (the live one by default) `name`; returns the version."""
    def delete_tag(self, name: str) -> int:
        """Deletes the tag `name`; returns the version it named."""
    def checkout(self, version: AsOf) -> int:
        """Publishes `version` again as the newest version (crash-safe); returns the new version."""
    def vacuum(self) -> Dict[str, Any]:
        """Removes the versions nothing keeps and the files only they name."""
    def refresh(self) -> bool:
        """A reader catches up with the writer now; whether anything changed."""
    def export(
        self,
        *,
        fields: Optional[Sequence[str]] = None,
        filter: Optional[str] = None,
        params: Optional[Params] = None,
        key: str = "_key",
        batch_size: int = 10000,
        as_of: Optional[AsOf] = None,
    ) -> Any:
        """The documents (of `as_of`'s version) as a streaming `pyarrow.RecordBatchReader`."""

class Snapshot:
    """A pinned, read-only view of a collection."""

    @property
    def generation(self) -> int:
        """The manifest generation this view reads."""
    @property
    def wal_records(self) -> int:
        """WAL records this view holds on top of its generation."""
    def parts(self) -> List[Dict[str, Any]]:
        """The parts a scan reads on its own: each segment, then each memtable chunk, as
        `{"segment": id or None, "rows": live rows}`."""
    def export(
        self,
        *,
        fields: Optional[Sequence[str]] = None,
        filter: Optional[str] = None,
        params: Optional[Params] = None,
        key: str = "_key",
        batch_size: int = 10000,
        part: Optional[int] = None,
    ) -> Any:
        """The documents of this view as a streaming `pyarrow.RecordBatchReader`; `part`
        reads one of `parts()`."""
    def __len__(self) -> int: ...
    def count(self, filter: Optional[str] = None, *, params: Optional[Params] = None) -> int:
        """Live documents in this view, or those `filter` keeps."""
    def query(
        self,
        vector: Vector,
        *,
        k: int = 10,
        filter: Optional[str] = None,
        params: Optional[Params] = None,
        field: Optional[str] = None,
        fields: Optional[Sequence[str]] = None,
        ef: Optional[int] = None,
        nprobe: Optional[int] = None,
        target_recall: Optional[float] = None,
        refine: Optional[int] = None,
        beam_width: Optional[int] = None,
        vectors: bool = False,
    ) -> "QueryResult":
        """Nearest neighbours in this view."""
    def fetch(self, keys: Sequence[str], *, fields: Optional[Sequence[str]] = None) -> List[Optional[Dict[str, Any]]]:
        """Documents by key in this view."""

class QueryResult:
    """The hits of one query, best first."""

    @property
    def keys(self) -> List[str]:
        """The keys, best first."""
    @property
    def scores(self) -> "npt.NDArray[np.float32]":
        """The scores, in the metric's unit."""
    @property
    def fields(self) -> List[Dict[str, Any]]:
        """The returned fields of each hit."""
    def __len__(self) -> int: ...
    def __getitem__(self, i: int, /) -> "Hit": ...
    def __iter__(self) -> Iterator["Hit"]: ...
    def to_numpy(self) -> Tuple["npt.NDArray[np.object_]", "npt.NDArray[np.float32]"]:
        """`(keys, scores)` arrays."""
    def to_arrow(self) -> Any:
        """The hits as a `pyarrow.Table`: `_key`, `_score`, then the fields."""
    def to_pandas(self) -> Any:
        """The hits as a `pandas.DataFrame`."""
    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        """The Arrow PyCapsule stream protocol."""

class Hit:
    """One hit: key, score and the returned fields."""

    key: str
    score: float
    fields: Dict[str, Any]

class WriteResult:
    """What a write did: the keys written and each row that was not."""

    @property
    def count(self) -> int:
        """Rows written."""
    @property
    def keys(self) -> List[str]:
        """Keys written, in input order."""
    @property
    def failed(self) -> List[Tuple[int, str, "DocError"]]:
        """Rows not written: (position in the input, key, DocError)."""
    def raise_for_errors(self) -> None:
        """Raises the first failure as a DocError."""
    def __len__(self) -> int: ...
    def __bool__(self) -> bool: ...

class Error(Exception):
    """Every error the engine raises; its subclasses say which kind."""

class SchemaError(Error):
    """The schema, or a change to it, is invalid."""

class DocError(Error):
    """A document does not fit the schema, or its key is missing, duplicate or not found."""

    key: Optional[str]
    field: Optional[str]

class QueryError(Error):
    """A query's parameters are invalid."""

class FilterError(QueryError):
    """A filter does not parse or does not fit the schema."""

    line: int
    column: int

class StorageError(Error):
    """Reading or writing the collection's files failed."""

    path: str

class LockedError(StorageError):
    """Another handle is the collection's writer."""

class CorruptionError(StorageError):
    """A file's bytes fail a check."""

    offset: int

class ReadOnlyError(Error):
    """A write through a read-only handle."""

class CancelledError(Error):
    """A long operation was cancelled; the collection is unchanged."""

class BusyError(Error):
    """A schema change kept meeting new writes; the collection is unchanged."""

class ClosedError(Error):
    """The handle was closed, or was opened in another process before a fork."""

class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a write part-way: `committed` rows are durable."""

    committed: int
    committed_keys: List[str]
