"""Verifiers over the token-token cosine map (reference F0-F4: arXiv 2604.16351 and
``verifiers.py`` of github.com/radoslavralev/limitations-text-retrieval).

Every verifier maps ``(M (B, m, n), q_mask (B, m), c_mask (B, n)) -> scores (B,)``, where ``M`` is
the cosine map of query tokens (rows) against candidate tokens (columns), already 0 at invalid
pairs (see :func:`harness.simmap_nets.simmap.similarity_map`).

Invariant shared by all architectures: **padding never changes a score**. In eval mode a pair scores
the same alone as batched with longer pairs (which pads it more). The parameter-free verifiers get
this from their masked formulas. The trainable ones keep the reference channels and layers but make
every pooling step mask-aware, where the reference zero-pads each map to 128 x 128 and pools over
everything (see the class docstrings for the exact deviations).

``ARCHS`` maps names to classes; ``build_verifier(arch, **config)`` rebuilds a verifier from its
``config`` dict (the constructor kwargs, defaults filled in).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn as nn
import torch.nn.functional as F

__all__ = [
    "Verifier",
    "MeanVerifier",
    "MaxSimVerifier",
    "AlignVerifier",
    "CNNVerifier",
    "TransformerVerifier",
    "MaskedBatchNorm2d",
    "ARCHS",
    "ALIASES",
    "REFERENCE_CONFIGS",
    "build_verifier",
    "pair_features",
]


class Verifier(nn.Module):
    """Base class: ``forward(M, q_mask, c_mask) -> (B,)`` scores.

    Class attributes: ``arch`` (registry name), ``trainable`` (has parameters to learn).
    Instance attribute ``config``: the constructor kwargs with defaults filled in, so that
    ``build_verifier(v.arch, **v.config)`` rebuilds an identical (untrained) module.
    ``max_len``: maps are trimmed to this many query/candidate tokens (None: no limit).
    ``pad_multiple``: callers batching token embeddings may pad to a multiple of this (scores do
    not depend on it; it only avoids re-padding inside ``forward``).
    """

    arch: str = ""
    trainable: bool = False
    max_len: int | None = None
    pad_multiple: int = 1

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.config: dict[str, Any] = dict(config or {})

    def forward(  # pragma: no cover - abstract
        self, M: torch.Tensor, q_mask: torch.Tensor, c_mask: torch.Tensor
    ) -> torch.Tensor:
        raise NotImplementedError

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters() if p.requires_grad)

    def extra_repr(self) -> str:
        return ", ".join(f"{k}={v!r}" for k, v in self.config.items())


def _pair_mask(q_mask: torch.Tensor, c_mask: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return q_mask.to(dtype)[:, :, None] * c_mask.to(dtype)[:, None, :]


# ---------------------------------------------------------------------------------------------
# Parameter-free verifiers (F0-F2)
# ---------------------------------------------------------------------------------------------


class MeanVerifier(Verifier):
    """F0 "bag of similarities": mean of ``M`` over valid pairs, ``sum(P*M) / max(1, sum(P))``."""

    arch = "mean"

    def forward(self, M, q_mask, c_mask):
        P = _pair_mask(q_mask, c_mask, M.dtype)
        return (M * P).sum((1, 2)) / P.sum((1, 2)).clamp_min(1.0)


class MaxSimVerifier(Verifier):
    """F1 MaxSim (ColBERT late interaction), **averaged** over valid query tokens.

    ``r_i = max_{valid j} M_ij`` (0 if the candidate has no valid token);
    ``score = sum_i q_mask_i r_i / max(1, sum q_mask)``. Range [-1, 1].
    """

    arch = "maxsim"

    def forward(self, M, q_mask, c_mask):
        qm = q_mask.to(M.dtype)
        cvalid = c_mask.to(M.dtype)[:, None, :] > 0
        r = M.masked_fill(~cvalid, float("-inf")).amax(dim=2)
        r = torch.where(torch.isfinite(r), r, torch.zeros_like(r))
        return (r * qm).sum(1) / qm.sum(1).clamp_min(1.0)


class AlignVerifier(Verifier):
    """F2 soft monotone alignment with a positional penalty (lambda=0.1, tau=0.1).

    ``logits_ij = (M_ij - lam*|i - j|) / tau`` with absolute token indices; ``A`` = softmax over
    valid candidate tokens computed as in the reference (masked entries filled with the dtype
    minimum, max-subtracted, exponentiated, multiplied by the mask, divided by
    ``max(sum, 1e-9)``; a fully masked row gives zeros); ``t_i = sum_j A_ij M_ij``;
    ``score = sum_i q_mask_i t_i / max(1, sum q_mask)``. The optional monotonicity penalty
    (gamma_mono) is off in the reference runs and not implemented.
    """

    arch = "align"

    def __init__(self, lam: float = 0.1, tau: float = 0.1) -> None:
        super().__init__({"lam": lam, "tau": tau})
        self.lam = float(lam)
        self.tau = float(tau)

    def forward(self, M, q_mask, c_mask):
        B, m, n = M.shape
        qm = q_mask.to(M.dtype)
        cm = c_mask.to(M.dtype)[:, None, :]
        i = torch.arange(m, device=M.device, dtype=M.dtype)[:, None]
        j = torch.arange(n, device=M.device, dtype=M.dtype)[None, :]
        logits = (M - self.lam * (i - j).abs()) / self.tau
        logits = logits.masked_fill(cm <= 0, torch.finfo(M.dtype).min)
        logits = logits - logits.amax(dim=2, keepdim=True)
        w = torch.exp(logits) * cm
        A = w / w.sum(dim=2, keepdim=True).clamp_min(1e-9)
        t = (A * M).sum(2)
        return (t * qm).sum(1) / qm.sum(1).clamp_min(1.0)


# ---------------------------------------------------------------------------------------------
# Shared pieces for the trainable verifiers (F3, F4)
# ---------------------------------------------------------------------------------------------


def pair_features(M: torch.Tensor, P: torch.Tensor) -> torch.Tensor:
    """Channels ``[M', rowmax, colmax]`` as ``(B, 3, m, n)``, all zeroed at invalid pairs.

    ``M' = M * P``; ``rowmax_i`` = max over valid ``j`` of ``M'_ij`` and ``colmax_j`` = max over
    valid ``i`` (0 for fully invalid rows/columns), broadcast over the grid.
    """
    valid = P > 0
    Mz = M * P
    # cosines are >= -1, so -2 acts as -inf for the masked max without producing infinities
    filled = Mz.masked_fill(~valid, -2.0)
    rowmax = torch.where(valid.any(2), filled.amax(2), torch.zeros_like(filled[:, :, 0]))
    colmax = torch.where(valid.any(1), filled.amax(1), torch.zeros_like(filled[:, 0, :]))
    feats = torch.stack(
        [Mz, rowmax[:, :, None].expand_as(Mz), colmax[:, None, :].expand_as(Mz)], dim=1
    )
    return feats * P[:, None]


def _trim_and_pad(
    M: torch.Tensor, P: torch.Tensor, max_len: int, multiple: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Trim to ``max_len`` x ``max_len`` and zero-pad both axes up to a multiple of ``multiple``."""
    M = M[:, :max_len, :max_len]
    P = P[:, :max_len, :max_len]
    m, n = M.shape[1], M.shape[2]
    pm = (-m) % multiple
    pn = (-n) % multiple
    if pm or pn:
        M = F.pad(M, (0, pn, 0, pm))
        P = F.pad(P, (0, pn, 0, pm))
    return M, P


class MaskedBatchNorm2d(nn.BatchNorm2d):
    """BatchNorm2d whose training statistics use only the valid positions of ``mask``.

    Same parameters and buffers as ``nn.BatchNorm2d`` (state dicts are interchangeable). In eval mode
    it is the usual per-channel affine map with the running statistics. In training mode the batch
    mean/variance are taken over valid positions only, so padding neither enters the normalisation
    nor the running statistics (the reference's BatchNorm sees its 128 x 128 zero padding).
    """

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        """``x (B, C, H, W)``, ``mask (B, 1, H, W)`` of 0/1 (only its valid entries count)."""
        if self.training:
            w = mask[:, 0].to(x.dtype)
            count = w.sum()
            denom = count.clamp_min(1.0)
            # sums over valid positions as contractions (much cheaper than masked elementwise ops)
            mean = torch.einsum("bchw,bhw->c", x, w) / denom
            var = (torch.einsum("bchw,bhw->c", x * x, w) / denom - mean * mean).clamp_min(0.0)
            if self.track_running_stats:
                with torch.no_grad():
                    momentum = 0.1 if self.momentum is None else self.momentum
                    n = float(count)
                    unbiased = var * (n / (n - 1.0)) if n > 1 else var
                    self.running_mean.mul_(1 - momentum).add_(momentum * mean.detach())
                    self.running_var.mul_(1 - momentum).add_(momentum * unbiased.detach())
                    self.num_batches_tracked += 1
        else:
            mean, var = self.running_mean, self.running_var
        scale = torch.rsqrt(var + self.eps)
        if self.affine:
            scale = scale * self.weight
            shift = self.bias - mean * scale
        else:
            shift = -mean * scale
        return torch.addcmul(shift[None, :, None, None], x, scale[None, :, None, None])


# ---------------------------------------------------------------------------------------------
# F3: CNN
# ---------------------------------------------------------------------------------------------


class CNNVerifier(Verifier):
    """F3: small CNN over ``[M', rowmax, colmax]``, tanh output in [-1, 1].

    Layers as in the reference: Conv2d(3->h1, 3x3, pad 1) + BN + ReLU + MaxPool 2x2,
    Conv2d(h1->h2, 3x3, pad 1) + BN + ReLU + MaxPool 2x2, global pool, Linear(h2->mlp), ReLU,
    Dropout, Linear(mlp->1), tanh. Reference config: ``h1=128, h2=256, mlp=128`` (332,545
    parameters, ``REFERENCE_CONFIGS["cnn"]``). The default here is CPU-sized: ``h1=12, h2=24,
    mlp=32`` (3,857 parameters). Cost is dominated by the B^2 + B maps of an MNRL step and grows
    roughly with ``h1 * h2``: at batch 32 with ~20-token sentences one training step takes about
    0.3-0.4 s on one core of the project's 2-core CPU box (h1=16/h2=32: about 2x that; h1=32/h2=64:
    about 7x; the reference config: far more), so 1000-1500 frozen steps fit in 10 minutes. Maps
    against 128-token passages cost several times more per step.

    Deviations from the reference, all for padding invariance (a pair's score must not depend on
    how far it is padded):

    * the reference zero-pads each map to 128 x 128 and average-pools *all* 32 x 32 cells (padding
      included); here the map is only padded to a multiple of 4, the (max-pool down-sampled) valid
      mask is re-applied after every conv/BN/ReLU/pool stage, and the final pooling is a masked mean
      over the valid cells;
    * rowmax/colmax are zeroed at invalid pairs (the reference broadcasts them over the padded
      batch grid);
    * BatchNorm uses valid positions only for its training statistics (:class:`MaskedBatchNorm2d`).

    Inside the valid region the convolutions see exactly what the reference sees (zeros beyond the
    valid rectangle), and maps longer than ``max_len`` (128) are trimmed as in the reference.
    """

    arch = "cnn"
    trainable = True
    pad_multiple = 4

    def __init__(
        self,
        h1: int = 12,
        h2: int = 24,
        mlp: int = 32,
        dropout: float = 0.1,
        kernel: int = 3,
        max_len: int = 128,
    ) -> None:
        super().__init__(
            {"h1": h1, "h2": h2, "mlp": mlp, "dropout": dropout, "kernel": kernel, "max_len": max_len}
        )
        if kernel % 2 != 1:
            raise ValueError("kernel must be odd (same-size convolutions)")
        self.max_len = int(max_len)
        self.conv1 = nn.Conv2d(3, h1, kernel, padding=kernel // 2)
        self.bn1 = MaskedBatchNorm2d(h1)
        self.conv2 = nn.Conv2d(h1, h2, kernel, padding=kernel // 2)
        self.bn2 = MaskedBatchNorm2d(h2)
        self.head = nn.Sequential(
            nn.Linear(h2, mlp), nn.ReLU(), nn.Dropout(dropout), nn.Linear(mlp, 1)
        )

    def forward(self, M, q_mask, c_mask):
        P = _pair_mask(q_mask, c_mask, M.dtype)
        M, P = _trim_and_pad(M, P, self.max_len, 4)
        x = pair_features(M, P)
        # the pair mask is an outer product, so its 2x2 max-pool is the outer product of the
        # 1-D pooled token masks (much cheaper than pooling the 2-D mask)
        qv = _fit(q_mask.to(M.dtype), M.shape[1])
        cv = _fit(c_mask.to(M.dtype), M.shape[2])
        mask = P[:, None]
        for conv, bn in ((self.conv1, self.bn1), (self.conv2, self.bn2)):
            x = conv(x)
            x = F.relu(bn(x, mask)) * mask
            # post-ReLU values are >= 0 and exactly 0 outside the valid region, so pooled cells
            # outside the down-sampled mask are 0 as well: no second masking needed
            x = _max_pool2(x)
            qv = qv.view(qv.shape[0], -1, 2).amax(-1)
            cv = cv.view(cv.shape[0], -1, 2).amax(-1)
            mask = (qv[:, :, None] * cv[:, None, :])[:, None]
        pooled = x.sum((2, 3)) / (qv.sum(1) * cv.sum(1)).clamp_min(1.0)[:, None]
        return torch.tanh(self.head(pooled).squeeze(-1))


def _max_pool2(x: torch.Tensor) -> torch.Tensor:
    """2x2 / stride-2 max-pool of (B, C, H, W) with even H, W (exactly ``F.max_pool2d(x, 2)``).

    Without autograd the max of the four strided sub-grids is ~8x faster on CPU than
    ``max_pool2d``; with autograd ``max_pool2d`` (saved indices) has the cheaper backward.
    """
    if x.requires_grad:
        return F.max_pool2d(x, 2)
    return torch.maximum(
        torch.maximum(x[:, :, 0::2, 0::2], x[:, :, 0::2, 1::2]),
        torch.maximum(x[:, :, 1::2, 0::2], x[:, :, 1::2, 1::2]),
    )


def _fit(mask: torch.Tensor, length: int) -> torch.Tensor:
    """Trim or zero-pad a (B, L) token mask to ``length``."""
    mask = mask[:, :length]
    return F.pad(mask, (0, length - mask.shape[1])) if mask.shape[1] < length else mask


# ---------------------------------------------------------------------------------------------
# F4: Transformer over patches of the map
# ---------------------------------------------------------------------------------------------


class TransformerVerifier(Verifier):
    """F4: ViT-style Transformer over 8 x 8 patches of ``[M, rowmax, colmax]``, tanh output.

    Features (masked rowmax/colmax, all channels zeroed at invalid pairs) -> Conv2d(3->d, k=p,
    s=p) patch embedding -> learned CLS (N(0, 0.02)) prepended -> learned positional embeddings
    (N(0, 0.02)) -> LayerNorm -> Dropout -> ``layers`` pre-norm TransformerEncoderLayer(s) (GELU,
    batch_first) with a key-padding mask for patches containing no valid pair (CLS never masked) ->
    CLS output -> Linear(d->d), GELU, Dropout, Linear(d->1) -> tanh.

    Reference config: ``d=384, layers=1, heads=1, ff=32, dropout=0.1, max_len=128, patch=8``
    (940,065 parameters, ``REFERENCE_CONFIGS["transformer"]``). The default halves the width,
    ``d=192`` (285,729 parameters), everything else as the reference: at batch 32 with ~20-token
    sentences a training step takes ~0.25 s on one core of the project's CPU box versus ~0.65 s for
    d=384, so 1000-2000 frozen steps fit in under 10 minutes.

    Deviation from the reference, for padding invariance: the reference zero-pads every map to
    128 x 128 (a fixed 16 x 16 patch grid) and uses a (1, 257, d) positional table indexed by the
    flattened grid index. Here maps are only padded to a multiple of ``patch`` and the same table is
    indexed by the patch's 2-D grid position, ``1 + row * (max_len // patch) + col``, never by a
    flattened index of the (batch-dependent) padded grid. Because fully invalid patches are masked
    out of attention in both versions, the CLS output equals the reference's for the same weights
    (checked in the tests); only the work on all-padding patches is skipped. The last encoder layer
    is evaluated for the CLS position only (:func:`_cls_only_layer`; same parameters and maths,
    about half the cost), since the head reads nothing else.
    """

    arch = "transformer"
    trainable = True

    def __init__(
        self,
        d: int = 192,
        layers: int = 1,
        heads: int = 1,
        ff: int = 32,
        dropout: float = 0.1,
        max_len: int = 128,
        patch: int = 8,
    ) -> None:
        super().__init__(
            {
                "d": d, "layers": layers, "heads": heads, "ff": ff,
                "dropout": dropout, "max_len": max_len, "patch": patch,
            }
        )
        if max_len % patch:
            raise ValueError("max_len must be a multiple of patch")
        if layers < 1:
            raise ValueError("layers must be >= 1")
        self.max_len = int(max_len)
        self.patch = int(patch)
        self.pad_multiple = int(patch)
        self.grid = max_len // patch
        self.patch_embed = nn.Conv2d(3, d, kernel_size=patch, stride=patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, d))
        self.pos_embed = nn.Parameter(torch.zeros(1, 1 + self.grid * self.grid, d))
        nn.init.normal_(self.cls_token, std=0.02)
        nn.init.normal_(self.pos_embed, std=0.02)
        self.norm = nn.LayerNorm(d)
        self.drop = nn.Dropout(dropout)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(
                d_model=d,
                nhead=heads,
                dim_feedforward=ff,
                dropout=dropout,
                activation="gelu",
                batch_first=True,
                norm_first=True,
            )
            for _ in range(layers)
        )
        self.head = nn.Sequential(
            nn.Linear(d, d), nn.GELU(), nn.Dropout(dropout), nn.Linear(d, 1)
        )

    def forward(self, M, q_mask, c_mask):
        B = M.shape[0]
        P = _pair_mask(q_mask, c_mask, M.dtype)
        M, P = _trim_and_pad(M, P, self.max_len, self.patch)
        x = self.patch_embed(pair_features(M, P))  # (B, d, gr, gc)
        gr, gc = x.shape[2], x.shape[3]
        valid = F.max_pool2d(P[:, None], self.patch, self.patch)[:, 0] > 0  # (B, gr, gc)
        rows = torch.arange(gr, device=M.device)[:, None]
        cols = torch.arange(gc, device=M.device)[None, :]
        pos_idx = (1 + rows * self.grid + cols).reshape(-1)
        x = x.flatten(2).transpose(1, 2) + self.pos_embed[:, pos_idx]
        cls = (self.cls_token + self.pos_embed[:, :1]).expand(B, -1, -1)
        x = self.drop(self.norm(torch.cat([cls, x], dim=1)))
        pad_mask = torch.cat(
            [torch.zeros(B, 1, dtype=torch.bool, device=M.device), ~valid.reshape(B, -1)], dim=1
        )
        for layer in self.layers[:-1]:
            x = layer(x, src_key_padding_mask=pad_mask)
        cls_out = _cls_only_layer(self.layers[-1], x, pad_mask)
        return torch.tanh(self.head(cls_out).squeeze(-1))


def _cls_only_layer(
    layer: nn.TransformerEncoderLayer, x: torch.Tensor, key_padding_mask: torch.Tensor
) -> torch.Tensor:
    """Output of a pre-norm ``TransformerEncoderLayer`` at position 0 (CLS) only, ``(B, d)``.

    Same parameters and the same maths as ``layer(x, src_key_padding_mask=...)[:, 0]``, but the
    queries, attention output projection and feed-forward block are evaluated for the CLS token
    only (keys/values still use every token): the head reads nothing else, and this roughly halves
    the cost of the last layer on CPU.
    """
    attn = layer.self_attn
    B, T, d = x.shape
    heads = attn.num_heads
    hd = d // heads
    h = layer.norm1(x)
    w, b = attn.in_proj_weight, attn.in_proj_bias
    q = F.linear(h[:, :1], w[:d], None if b is None else b[:d])  # (B, 1, d)
    kv = F.linear(h, w[d:], None if b is None else b[d:])  # (B, T, 2d)
    k, v = kv.split(d, dim=-1)
    q = q.view(B, 1, heads, hd).transpose(1, 2)
    k = k.reshape(B, T, heads, hd).transpose(1, 2)
    v = v.reshape(B, T, heads, hd).transpose(1, 2)
    allowed = (~key_padding_mask)[:, None, None, :]  # (B, 1, 1, T); True = attend
    o = F.scaled_dot_product_attention(
        q, k, v, attn_mask=allowed, dropout_p=attn.dropout if layer.training else 0.0
    )
    o = attn.out_proj(o.transpose(1, 2).reshape(B, 1, d))
    y = x[:, :1] + layer.dropout1(o)
    ff = layer.linear2(layer.dropout(layer.activation(layer.linear1(layer.norm2(y)))))
    return (y + layer.dropout2(ff))[:, 0]


ARCHS: dict[str, type[Verifier]] = {
    "mean": MeanVerifier,
    "maxsim": MaxSimVerifier,
    "align": AlignVerifier,
    "cnn": CNNVerifier,
    "transformer": TransformerVerifier,
}

#: Reference ids (the reference code's ``verifiers.py``) accepted by :func:`build_verifier`.
ALIASES: dict[str, str] = {"F0": "mean", "F1": "maxsim", "F2": "align", "F3": "cnn", "F4": "transformer"}

#: Reference (paper) configurations of the trainable verifiers.
REFERENCE_CONFIGS: dict[str, dict[str, Any]] = {
    "cnn": {"h1": 128, "h2": 256, "mlp": 128, "dropout": 0.1, "kernel": 3, "max_len": 128},
    "transformer": {
        "d": 384, "layers": 1, "heads": 1, "ff": 32, "dropout": 0.1, "max_len": 128, "patch": 8,
    },
}


def build_verifier(arch: str, **config: Any) -> Verifier:
    """Instantiate verifier ``arch`` (a key of ``ARCHS`` or an alias F0-F4) with ``config``."""
    name = ALIASES.get(arch.upper(), arch)
    if name not in ARCHS:
        raise ValueError(f"unknown verifier arch {arch!r}; known: {sorted(ARCHS)}")
    return ARCHS[name](**config)
