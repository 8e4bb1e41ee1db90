"""Merging the shards' top-k (or a hybrid branch's rankings) into one: best score first, ties broken by key (a shard's own
(segment, row) order means nothing across shards)."""

from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np


class Hit(NamedTuple):
    """One hit of a sharded query."""

    key: str
    score: float
    fields: Dict[str, Any]


class ShardedQueryResult:
    """The merged top-k of a sharded query: `keys`, `scores` (float32), `fields`, like
    `xvec.QueryResult`."""

    def __init__(self, keys: List[str], scores: np.ndarray, fields: List[Dict[str, Any]]):
        self.keys = keys
        self.scores = scores
        self.fields = fields

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, i: int) -> Hit:
        return Hit(self.keys[i], float(self.scores[i]), self.fields[i])

    def __iter__(self) -> Iterator[Hit]:
        return (self[i] for i in range(len(self)))

    def to_numpy(self) -> Tuple[np.ndarray, np.ndarray]:
        return np.array(self.keys, dtype=object), self.scores

    def to_arrow(self):
        import pyarrow as pa

        cols = {"_key": pa.array(self.keys, pa.string()), "_score": pa.array(self.scores, pa.float32())}
        names = [n for f in self.fields for n in f]
        for name in dict.fromkeys(names):
            cols[name] = pa.array([f.get(name) for f in self.fields])
        return pa.table(cols)

    def __repr__(self) -> str:
        return f"xvec.ray.ShardedQueryResult({len(self)} hits)"


def merge(parts: Sequence[Tuple[List[str], np.ndarray, List[Dict[str, Any]]]], k: int, higher_better: bool):
    """One result from each shard's (keys, scores, fields): the best `k`."""
    rows = [(float(s), key, f) for keys, scores, fields in parts for key, s, f in zip(keys, scores, fields)]
    rows.sort(key=(lambda r: (-r[0], r[1])) if higher_better else (lambda r: (r[0], r[1])))
    rows = rows[:k]
    return ShardedQueryResult(
        [r[1] for r in rows], np.array([r[0] for r in rows], dtype=np.float32), [r[2] for r in rows]
    )


def merge_batch(parts: Sequence[Tuple[np.ndarray, np.ndarray]], k: int, higher_better: bool):
    """One (keys, scores) pair of (n, k) arrays from each shard's `query_batch` answer:
    per row the best `k`, `None` and NaN past a row's last hit. Sorted by score for all
    rows at once; only rows with a tie among the hits kept are sorted again by key."""
    keys = np.concatenate([p[0] for p in parts], axis=1)
    scores = np.concatenate([p[1] for p in parts], axis=1).astype(np.float32, copy=False)
    n, width = keys.shape[0], min(k, keys.shape[1])
    # Missing hits (NaN) sort last.
    primary = np.where(np.isnan(scores), np.inf, -scores if higher_better else scores)
    order = np.argsort(primary, axis=1, kind="stable")
    sorted_primary = np.take_along_axis(primary, order, axis=1)
    # A tie that decides what is kept or in which order: equal neighbours among the first
    # width + 1 (finite) scores of a row.
    head = sorted_primary[:, : width + 1]
    tied = np.flatnonzero(((head[:, 1:] == head[:, :-1]) & np.isfinite(head[:, 1:])).any(axis=1))
    for i in tied:
        names = np.where(keys[i] == None, "", keys[i]).astype(str)  # noqa: E711 (elementwise)
        order[i] = np.lexsort((names, primary[i]))
    order = order[:, :width]
    out_keys = np.empty((n, k), dtype=object)
    out_scores = np.full((n, k), np.nan, dtype=np.float32)
    out_keys[:, :width] = np.take_along_axis(keys, order, axis=1)
    out_scores[:, :width] = np.take_along_axis(scores, order, axis=1)
    return out_keys, out_scores


def merge_ranking(parts: Sequence[tuple], k: int, keys: Optional[Sequence[str]] = None) -> tuple:
    """One branch's ranking from each shard's `(keys, scores, higher_is_better, fields)`:
    the best `k` by score, ties broken by key; a keys branch (`keys` given) keeps the
    query's order instead, every listed key found."""
    higher = bool(parts[0][2])
    rows = [(float(s), key, f) for ks, scores, _, fields in parts for key, s, f in zip(ks, scores, fields)]
    if keys is not None:
        first: Dict[str, int] = {}
        for i, key in enumerate(keys):
            first.setdefault(key, i)
        rows.sort(key=lambda r: first[r[1]])
    else:
        rows.sort(key=(lambda r: (-r[0], r[1])) if higher else (lambda r: (r[0], r[1])))
        rows = rows[:k]
    return [r[1] for r in rows], [r[0] for r in rows], higher, [r[2] for r in rows]


def sum_text_stats(stats: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """The sum of shards' text statistics (`Collection.text_stats`' form), field by field
    and term by term."""
    out: Dict[str, Any] = {}
    for s in stats:
        for name, f in s.items():
            o = out.setdefault(name, {"docs": 0, "total_len": 0, "doc_freq": {}})
            o["docs"] += f["docs"]
            o["total_len"] += f["total_len"]
            for term, n in f["doc_freq"].items():
                o["doc_freq"][term] = o["doc_freq"].get(term, 0) + n
    return out
