"""Token-token cosine maps and batched verifier scoring.

``M[b, i, j] = cos(q_i, c_j)`` with query tokens as rows and candidate tokens as columns
(the map of arXiv 2604.16351). Entries outside the valid (query token, candidate token) pairs are 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch
import torch.nn.functional as F

if TYPE_CHECKING:  # pragma: no cover
    from .archs import Verifier

__all__ = ["pad_tokens", "similarity_map", "score_pairs"]


def pad_tokens(
    embs: Sequence[torch.Tensor], multiple: int = 8, max_len: int | None = 128
) -> tuple[torch.Tensor, torch.Tensor]:
    """Stack ``(L_i, d)`` token embeddings into ``X (B, L, d)`` and a float ``mask (B, L)``.

    ``L`` is the longest ``L_i`` rounded up to ``multiple``, capped at ``max_len`` (``None``: no
    cap); texts longer than ``max_len`` are truncated. Differentiable (used in end-to-end training).
    """
    if len(embs) == 0:
        raise ValueError("pad_tokens needs at least one tensor")
    if multiple < 1:
        raise ValueError("multiple must be >= 1")
    longest = max(int(e.shape[0]) for e in embs)
    length = max(1, math.ceil(longest / multiple)) * multiple
    if max_len is not None:
        length = min(length, max_len)
        embs = [e[:max_len] for e in embs]
    X = torch.stack([F.pad(e, (0, 0, 0, length - e.shape[0])) for e in embs])
    lengths = torch.tensor([int(e.shape[0]) for e in embs], device=X.device)
    mask = (torch.arange(length, device=X.device)[None, :] < lengths[:, None]).to(X.dtype)
    return X, mask


def similarity_map(
    q: torch.Tensor, q_mask: torch.Tensor, c: torch.Tensor, c_mask: torch.Tensor
) -> torch.Tensor:
    """Cosine map ``M (B, m, n)`` of query tokens ``q (B, m, d)`` vs candidate tokens ``c (B, n, d)``.

    Token vectors are L2-normalised, then multiplied batch-wise; pairs where either token is
    padding are set to 0.
    """
    qn = F.normalize(q.float(), dim=-1)
    cn = F.normalize(c.float(), dim=-1)
    M = torch.bmm(qn, cn.transpose(1, 2))
    pair = q_mask.to(M.dtype)[:, :, None] * c_mask.to(M.dtype)[:, None, :]
    return M * pair


def _module_device(module: torch.nn.Module) -> torch.device | None:
    for t in module.parameters():
        return t.device
    for t in module.buffers():
        return t.device
    return None


def score_pairs(
    verifier: Verifier,
    q_embs: Sequence[torch.Tensor],
    c_embs: Sequence[torch.Tensor],
    batch_size: int = 64,
) -> np.ndarray:
    """Score pair ``i = (q_embs[i], c_embs[i])`` with ``verifier``; returns float64 of length N.

    Runs in eval mode under ``torch.inference_mode`` (the verifier's train/eval mode is restored
    afterwards). Pairs are batched in order of (candidate length, query length) to keep padding
    small; verifiers are padding-invariant, so the batching does not change any score.
    """
    n = len(q_embs)
    if len(c_embs) != n:
        raise ValueError(f"{n} query embeddings but {len(c_embs)} candidate embeddings")
    out = np.zeros(n, dtype=np.float64)
    if n == 0:
        return out
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    device = _module_device(verifier) or q_embs[0].device
    max_len = getattr(verifier, "max_len", None)
    multiple = getattr(verifier, "pad_multiple", 8)
    order = sorted(range(n), key=lambda i: (int(c_embs[i].shape[0]), int(q_embs[i].shape[0]), i))
    was_training = verifier.training
    verifier.eval()
    try:
        with torch.inference_mode():
            for start in range(0, n, batch_size):
                idx = order[start : start + batch_size]
                Q, qm = pad_tokens([q_embs[i].to(device) for i in idx], multiple, max_len)
                C, cm = pad_tokens([c_embs[i].to(device) for i in idx], multiple, max_len)
                scores = verifier(similarity_map(Q, qm, C, cm), qm, cm)
                out[idx] = scores.detach().double().cpu().numpy()
    finally:
        verifier.train(was_training)
    return out
