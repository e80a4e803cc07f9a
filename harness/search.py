"""Exact nearest-neighbour search over embeddings, chunked so memory stays bounded."""

from __future__ import annotations

import numpy as np
import torch


def exact_search(
    q: np.ndarray,
    d: np.ndarray,
    q_ids: list[str],
    d_ids: list[str],
    top_k: int,
    *,
    cosine: bool = True,
    doc_chunk: int = 50_000,
    query_chunk: int = 1024,
) -> dict[str, dict[str, float]]:
    """Top-``top_k`` documents per query by cosine (or dot) similarity.

    Memory is bounded by query_chunk x doc_chunk scores at a time; partial top-k lists are
    merged across document chunks.
    """
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
            best_s = torch.full((qb.shape[0], 0), float("-inf"))
            best_i = torch.zeros((qb.shape[0], 0), dtype=torch.long)
            for ds in range(0, len(d_ids), doc_chunk):
                scores = qb @ dt[ds : ds + doc_chunk].T
                kk = min(k, scores.shape[1])
                s, i = torch.topk(scores, kk, dim=1)
                best_s = torch.cat([best_s, s], dim=1)
                best_i = torch.cat([best_i, i + ds], dim=1)
                if best_s.shape[1] > k:
                    best_s, pos = torch.topk(best_s, k, dim=1)
                    best_i = torch.gather(best_i, 1, pos)
            for row in range(qb.shape[0]):
                run[q_ids[qs + row]] = {
                    d_ids[j]: float(s) for j, s in zip(best_i[row].tolist(), best_s[row].tolist(), strict=True)
                }
    return run
