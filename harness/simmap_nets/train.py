"""Training of similarity-map verifiers with the reference verifier MNRL loss.

As in the reference code of arXiv 2604.16351 (github.com/radoslavralev/limitations-text-retrieval,
``train_and_eval_verifiers_experiment.py`` and ``run_frozen_vs_e2e_experiment.sh``): MNRL over all
in-batch positives plus only each anchor's own explicit negative, temperature 0.1; AdamW; linear
warmup (10 %) then linear decay to 0; gradient clipping at 1.0 (separately for verifier and encoder
parameters); infinite cycling over shuffled, drop-last batches; the final-step weights are kept (no checkpoint selection).

Two modes:

* frozen (default): ``token_fn`` is called once with every unique text; training then only runs the
  verifier over cosine maps of those cached token embeddings;
* end-to-end (``end_to_end_model`` given): token embeddings are recomputed with gradients every step
  (:func:`harness.simmap_nets.tokens.encode_tokens` with ``grad=True``) and the encoder's parameters
  are trained in place (own AdamW param group, ``encoder_lr``). Only the verifier is written to
  ``out_dir``; saving the fine-tuned encoder is up to the caller.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from .archs import ALIASES, ARCHS, Verifier, build_verifier
from .simmap import pad_tokens
from .tokens import encode_tokens

__all__ = ["mnrl_loss", "train_verifier", "load_verifier", "triplets_sha256"]

WEIGHTS_FILE = "verifier.safetensors"
LEGACY_WEIGHTS_FILE = "verifier.pt"
CONFIG_FILE = "config.json"
CURVE_FILE = "curve.json"
CURVE_PLOT = "curve.png"
MAX_CHECKPOINT_BYTES = 10 * 1024 * 1024


def mnrl_loss(
    verifier: Verifier,
    a_embs: Sequence[torch.Tensor],
    p_embs: Sequence[torch.Tensor],
    n_embs: Sequence[torch.Tensor],
    temperature: float = 0.1,
) -> tuple[torch.Tensor, dict[str, float]]:
    """Reference verifier MNRL for a batch of B triplets of token embeddings.

    ``S_ij = V(a_i, p_j)`` for all i, j (B^2 pairs) and ``s_neg_i = V(a_i, n_i)``, scored in one
    batched verifier call; ``logits = [S | s_neg] / T`` (B x (B+1)); cross-entropy with label i.
    Returns ``(loss, stats)`` with stats ``loss, accuracy`` (argmax == i), ``pos_mean`` (diagonal),
    ``neg_mean`` (own negatives), ``in_batch_neg_mean`` (off-diagonal), ``margin``
    (mean of ``S_ii - s_neg_i``).
    """
    B = len(a_embs)
    if B == 0 or len(p_embs) != B or len(n_embs) != B:
        raise ValueError("a_embs, p_embs, n_embs must be non-empty and of equal length")
    max_len = getattr(verifier, "max_len", None)
    multiple = getattr(verifier, "pad_multiple", 8)
    A, am = pad_tokens(list(a_embs), multiple=multiple, max_len=max_len)
    # positives and negatives share one padded width so that all B^2 + B maps form one batch
    PN, pnm = pad_tokens(list(p_embs) + list(n_embs), multiple=multiple, max_len=max_len)
    pm, nm = pnm[:B], pnm[B:]
    An = F.normalize(A.float(), dim=-1)
    PNn = F.normalize(PN.float(), dim=-1)
    # map (i, j) of the B^2 block is row i * B + j: one (B*La, d) x (d, B*Lp) GEMM, no repeats
    La, Lp = An.shape[1], PNn.shape[1]
    S_maps = (
        (An.reshape(B * La, -1) @ PNn[:B].reshape(B * Lp, -1).T)
        .view(B, La, B, Lp)
        .transpose(1, 2)
        .reshape(B * B, La, Lp)
    )
    N_maps = torch.bmm(An, PNn[B:].transpose(1, 2))
    qm = torch.cat([am.repeat_interleave(B, dim=0), am], dim=0)
    cm = torch.cat([pm.repeat(B, 1), nm], dim=0)
    M = torch.cat([S_maps, N_maps], dim=0) * (qm[:, :, None] * cm[:, None, :])
    scores = verifier(M, qm, cm)
    S = scores[: B * B].view(B, B)
    s_neg = scores[B * B :]
    logits = torch.cat([S, s_neg[:, None]], dim=1) / temperature
    labels = torch.arange(B, device=logits.device)
    loss = F.cross_entropy(logits, labels)
    with torch.no_grad():
        diag = S.diagonal()
        off = S.masked_select(~torch.eye(B, dtype=torch.bool, device=S.device))
        stats = {
            "loss": float(loss.detach()),
            "accuracy": float((logits.argmax(1) == labels).float().mean()),
            "pos_mean": float(diag.mean()),
            "neg_mean": float(s_neg.mean()),
            "in_batch_neg_mean": float(off.mean()) if off.numel() else float("nan"),
            "margin": float((diag - s_neg).mean()),
        }
    return loss, stats


def triplets_sha256(triplets: Sequence[Sequence[str]]) -> str:
    """sha256 of the sorted triplets (JSON, UTF-8): identifies the training data."""
    rows = sorted([list(t) for t in triplets])
    blob = json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


def _lr_lambda(steps: int, warmup_ratio: float) -> Callable[[int], float]:
    warmup = int(math.floor(steps * warmup_ratio))

    def fn(step: int) -> float:  # linear warmup, then linear decay to 0 (HF-style)
        if step < warmup:
            return step / max(1, warmup)
        return max(0.0, (steps - step) / max(1, steps - warmup))

    return fn


def _plot_curve(curve: list[dict[str, float]], path: Path, title: str) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 3.2))
    FigureCanvasAgg(fig)
    ax1, ax2 = fig.subplots(1, 2)
    steps = [r["step"] for r in curve]
    ax1.plot(steps, [r["loss"] for r in curve], color="tab:blue")
    ax1.set_xlabel("step")
    ax1.set_ylabel("MNRL loss")
    ax2.plot(steps, [r["accuracy"] for r in curve], color="tab:orange")
    ax2.set_xlabel("step")
    ax2.set_ylabel("in-batch accuracy")
    ax2.set_ylim(-0.02, 1.02)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


_LAYER = re.compile(r"(?:^|\.)encoder\.layer\.(\d+)\.")


def trainable_encoder_params(model: Any, train_layers: int | None) -> list[tuple[str, torch.nn.Parameter]]:
    """The encoder parameters that end-to-end training updates: all of them, or only those of
    the top ``train_layers`` transformer layers (named ``...encoder.layer.<i>....``)."""
    named = list(model.named_parameters())
    if train_layers is None:
        return named
    layer_of = {n: int(m.group(1)) for n, _ in named if (m := _LAYER.search(n))}
    if not layer_of:
        raise ValueError("train_layers: the encoder has no parameters named encoder.layer.<i>")
    top = sorted(set(layer_of.values()))[-train_layers:]
    return [(n, p) for n, p in named if layer_of.get(n) in top]


def save_encoder_delta(model: Any, train_layers: int, path: Path) -> Path:
    """The trained top layers of an end-to-end encoder as float16 safetensors: applied to the
    base model by the encoder kind's ``weights_delta``."""
    from safetensors.torch import save_file

    state = {n: p.detach().cpu().to(torch.float16).contiguous() for n, p in trainable_encoder_params(model, train_layers)}
    save_file(state, str(path), metadata={"format": "cbench-encoder-delta", "train_layers": str(train_layers)})
    return path


def _save_state(verifier: Verifier, out_dir: Path) -> Path:
    state = {k: v.detach().cpu().contiguous() for k, v in verifier.state_dict().items()}
    try:
        from safetensors.torch import save_file

        path = out_dir / WEIGHTS_FILE
        save_file(state, str(path))
    except ImportError:  # pragma: no cover - safetensors ships with transformers
        path = out_dir / LEGACY_WEIGHTS_FILE
        torch.save(state, path)
    size = path.stat().st_size
    if size > MAX_CHECKPOINT_BYTES:
        raise ValueError(f"verifier checkpoint is {size} bytes (> 10 MB); use a smaller config")
    return path


def train_verifier(
    arch: str,
    triplets: Sequence[tuple[str, str, str]],
    token_fn: Callable[[list[str]], list[torch.Tensor]] | None,
    out_dir: Path,
    *,
    config: dict[str, Any] | None = None,
    steps: int = 1000,
    batch_size: int = 32,
    lr: float = 1e-4,
    weight_decay: float = 0.01,
    warmup_ratio: float = 0.1,
    seed: int = 13,
    temperature: float = 0.1,
    end_to_end_model: Any = None,
    encoder_lr: float = 2e-5,
    encoder_weight_decay: float | None = None,
    train_layers: int | None = None,
    max_length: int = 128,
    log_every: int = 10,
    progress: Callable[[int, int, dict[str, float]], None] | None = None,
) -> dict[str, Any]:
    """Train verifier ``arch`` on (anchor, positive, negative) text triplets with MNRL.

    Frozen mode: ``token_fn(unique_texts) -> list[(L_i, d) tensors]`` is called once up front.
    End-to-end mode (``end_to_end_model`` = a SentenceTransformer): ``token_fn`` is ignored, the
    encoder is trained in place (param group ``encoder_lr``/``encoder_weight_decay``, default
    ``weight_decay``) and left in eval mode afterwards. With ``train_layers`` = N only the top N
    transformer layers of the encoder are trained (the rest stays frozen), so the change to the
    encoder is small enough to ship as a delta (:func:`save_encoder_delta`).

    A parameter-free arch (mean/maxsim/align) in frozen mode has nothing to train: no weights are
    written and ``steps`` is recorded as 0 (final loss/accuracy are those of the first batch).

    Writes ``verifier.safetensors`` (trainable archs), ``config.json``, ``curve.json`` and
    ``curve.png`` to ``out_dir`` and returns the ``config.json`` content. ``progress(step, steps,
    record)`` is called at every logged step; logged loss/accuracy are means over the steps since
    the previous log.
    """
    arch = ALIASES.get(arch.upper(), arch)
    if arch not in ARCHS:
        raise ValueError(f"unknown verifier arch {arch!r}; known: {sorted(ARCHS)}")
    triplets = [tuple(t) for t in triplets]
    if any(len(t) != 3 for t in triplets):
        raise ValueError("triplets must be (anchor, positive, negative)")
    if batch_size < 1 or len(triplets) < batch_size:
        raise ValueError(f"need at least batch_size={batch_size} triplets, got {len(triplets)}")
    if steps < 1:
        raise ValueError("steps must be >= 1")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    end_to_end = end_to_end_model is not None

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    verifier = build_verifier(arch, **(config or {}))
    has_params = any(True for _ in verifier.parameters())
    t0 = time.perf_counter()

    # ---- token embeddings -------------------------------------------------------------------
    if end_to_end:
        for p in end_to_end_model.parameters():
            p.requires_grad_(False)
        enc_params = [p for _, p in trainable_encoder_params(end_to_end_model, train_layers)]
        for p in enc_params:
            p.requires_grad_(True)
        device = enc_params[0].device
        cache: dict[str, torch.Tensor] = {}
    else:
        if token_fn is None:
            raise ValueError("token_fn is required in frozen mode")
        texts = list(dict.fromkeys(t for trip in triplets for t in trip))
        embs = token_fn(texts)
        if len(embs) != len(texts):
            raise ValueError(f"token_fn returned {len(embs)} tensors for {len(texts)} texts")
        cache = {t: e.detach().float() for t, e in zip(texts, embs, strict=True)}
        device = embs[0].device
    verifier.to(device)

    def batch_embs(batch: list[tuple[str, str, str]]):
        if end_to_end:
            flat = [t for trip in batch for t in trip]
            uniq = list(dict.fromkeys(flat))
            out = encode_tokens(
                end_to_end_model, uniq, max_length=max_length, batch_size=len(uniq), grad=True
            )
            lookup = dict(zip(uniq, out, strict=True))
        else:
            lookup = cache
        return ([lookup[a] for a, _, _ in batch], [lookup[p] for _, p, _ in batch],
                [lookup[n] for _, _, n in batch])

    # ---- batches: deterministic shuffling, drop_last, infinite cycling ------------------------
    gen = torch.Generator().manual_seed(seed)
    n_batches = len(triplets) // batch_size

    def batches():
        while True:
            perm = torch.randperm(len(triplets), generator=gen).tolist()
            for b in range(n_batches):
                yield [triplets[i] for i in perm[b * batch_size : (b + 1) * batch_size]]

    stream = batches()
    curve: list[dict[str, float]] = []
    trained = has_params or end_to_end

    if not trained:
        verifier.eval()
        with torch.no_grad():
            _, stats = mnrl_loss(verifier, *batch_embs(next(stream)), temperature=temperature)
        final = stats
        steps_done = 0
    else:
        groups = []
        ver_params = [p for p in verifier.parameters() if p.requires_grad]
        if ver_params:
            groups.append({"params": ver_params, "lr": lr, "weight_decay": weight_decay})
        if end_to_end:
            groups.append({
                "params": enc_params,
                "lr": encoder_lr,
                "weight_decay": weight_decay if encoder_weight_decay is None else encoder_weight_decay,
            })
        optimizer = torch.optim.AdamW(groups)
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, _lr_lambda(steps, warmup_ratio))
        verifier.train()
        if end_to_end:
            end_to_end_model.train()
        window: list[dict[str, float]] = []
        final = {}
        try:
            for step in range(1, steps + 1):
                loss, stats = mnrl_loss(verifier, *batch_embs(next(stream)), temperature=temperature)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                if ver_params:
                    torch.nn.utils.clip_grad_norm_(ver_params, 1.0)
                if end_to_end:
                    torch.nn.utils.clip_grad_norm_(enc_params, 1.0)
                optimizer.step()
                scheduler.step()
                window.append(stats)
                if step % log_every == 0 or step == steps:
                    record = {"step": step}
                    for key in stats:
                        record[key] = float(np.mean([w[key] for w in window]))
                    record["lr"] = float(scheduler.get_last_lr()[0])
                    record["seconds"] = round(time.perf_counter() - t0, 3)
                    curve.append(record)
                    window = []
                    if progress is not None:
                        progress(step, steps, record)
                final = stats
        finally:
            verifier.eval()
            if end_to_end:
                end_to_end_model.eval()
        steps_done = steps
    train_seconds = time.perf_counter() - t0

    # ---- outputs ------------------------------------------------------------------------------
    weights = None
    if has_params:
        weights = _save_state(verifier, out_dir).name
    result: dict[str, Any] = {
        "arch": arch,
        "config": verifier.config,
        "weights": weights,
        "trained": trained,
        "steps": steps_done,
        "batch_size": batch_size,
        "lr": lr,
        "weight_decay": weight_decay,
        "warmup_ratio": warmup_ratio,
        "seed": seed,
        "temperature": temperature,
        "end_to_end": end_to_end,
        "encoder_lr": encoder_lr if end_to_end else None,
        "encoder_train_layers": train_layers if end_to_end else None,
        "num_params": verifier.num_parameters(),
        "n_triplets": len(triplets),
        "train_sha256": triplets_sha256(triplets),
        "train_seconds": round(train_seconds, 3),
        "final_loss": final.get("loss"),
        "final_accuracy": final.get("accuracy"),
        "final_logged_loss": curve[-1]["loss"] if curve else final.get("loss"),
        "final_logged_accuracy": curve[-1]["accuracy"] if curve else final.get("accuracy"),
        "torch": torch.__version__,
    }
    (out_dir / CONFIG_FILE).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    (out_dir / CURVE_FILE).write_text(json.dumps(curve, indent=1) + "\n", encoding="utf-8")
    _plot_curve(curve, out_dir / CURVE_PLOT, f"{arch} ({'end-to-end' if end_to_end else 'frozen'})")
    return result


def load_verifier(path: Path | str, device: str | torch.device = "cpu") -> Verifier:
    """Rebuild a verifier from ``path/config.json`` (+ weights if present), in eval mode."""
    path = Path(path)
    cfg = json.loads((path / CONFIG_FILE).read_text(encoding="utf-8"))
    verifier = build_verifier(cfg["arch"], **(cfg.get("config") or {}))
    st, pt = path / WEIGHTS_FILE, path / LEGACY_WEIGHTS_FILE
    if st.exists():
        from safetensors.torch import load_file

        state = load_file(str(st), device="cpu")
    elif pt.exists():
        state = torch.load(pt, map_location="cpu", weights_only=True)
    else:
        state = None
    if state is not None:
        verifier.load_state_dict(state)
    elif any(True for _ in verifier.parameters()):
        raise FileNotFoundError(f"{path}: no {WEIGHTS_FILE} for trainable arch {cfg['arch']!r}")
    return verifier.to(device).eval()
