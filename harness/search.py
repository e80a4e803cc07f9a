"""Ranking: the one tie rule every scorer kind uses, and exact nearest-neighbour search.

Tie rule (every top-k in the harness): score descending, then document id ascending. So equal
scores rank the same way whatever the kind, and everything tied with the k-th score competes for
the last places by id, not by the order a library happened to return.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import torch

# Documents scored against a chunk of queries at once. The sharded search cuts the corpus at the
# same offsets (harness/executors/sharded.py), so every score comes from the same matrix product.
DOC_CHUNK = 50_000


def rank_key(item: tuple[str, float]) -> tuple[float, str]:
    """Sort key of a (document id, score) pair: score descending, then id ascending."""
    return (-item[1], item[0])


def rank(scored: Mapping[str, float] | Iterable[tuple[str, float]], k: int | None = None) -> dict[str, float]:
    """The best ``k`` (all when None) of {doc_id: score} or (doc_id, score) pairs, best first."""
    items = scored.items() if isinstance(scored, Mapping) else scored
    ranked = sorted(((d, float(s)) for d, s in items), key=rank_key)
    return dict(ranked if k is None else ranked[: max(k, 0)])


def rank_row(scores: np.ndarray, ids: list[str], k: int, candidates: np.ndarray | None = None) -> dict[str, float]:
    """The best ``k`` of one row of scores (``scores[j]`` belongs to ``ids[j]``), restricted to
    ``candidates`` (indices) when given. Everything tied with the k-th score is kept until the
    tie rule decides."""
    idx = np.arange(len(scores)) if candidates is None else np.asarray(candidates, dtype=np.int64)
    if k <= 0 or len(idx) == 0:
        return {}
    vals = np.asarray(scores)[idx]
    if len(idx) > k:
        kth = np.partition(vals, len(vals) - k)[len(vals) - k]
        keep = vals >= kth
        idx, vals = idx[keep], vals[keep]
    return rank(((ids[j], s) for j, s in zip(idx.tolist(), vals.tolist(), strict=True)), k)


def exact_search(
    q: np.ndarray,
    d: np.ndarray,
    q_ids: list[str],
    d_ids: list[str],
    top_k: int,
    *,
    cosine: bool = True,
    doc_chunk: int | None = None,
    query_chunk: int = 1024,
) -> dict[str, dict[str, float]]:
    """Top-``top_k`` documents per query by cosine (or dot) similarity (ties: the rule above).

    Memory is bounded by query_chunk x doc_chunk scores at a time; each chunk's best ``top_k``,
    with everything tied with its k-th score, are merged across document chunks.
    """
    doc_chunk = doc_chunk or DOC_CHUNK
    if len(q_ids) == 0:
        return {}
    if len(d_ids) == 0:
        return {qid: {} for qid in q_ids}
    qt = torch.from_numpy(np.ascontiguousarray(q, dtype=np.float32))
    dt = torch.from_numpy(np.ascontiguousarray(d, dtype=np.float32))
    if cosine:
        qt = torch.nn.functional.normalize(qt, dim=1)
        dt = torch.nn.functional.normalize(dt, dim=1)
    k = min(top_k, len(d_ids))
    run: dict[str, dict[str, float]] = {}
    with torch.inference_mode():
        for qs in range(0, len(q_ids), query_chunk):
            qb = qt[qs : qs + query_chunk]
            best: list[dict[str, float]] = [{} for _ in range(qb.shape[0])]
            for ds in range(0, len(d_ids), doc_chunk):
                scores = (qb @ dt[ds : ds + doc_chunk].T).numpy()
                chunk_ids = d_ids[ds : ds + doc_chunk]
                for row in range(qb.shape[0]):
                    best[row] = rank({**best[row], **rank_row(scores[row], chunk_ids, k)}, k)
            for row in range(qb.shape[0]):
                run[q_ids[qs + row]] = best[row]
    return run
