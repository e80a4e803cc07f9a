"""Token-level embeddings for the similarity-map verifiers.

Mirrors the reference extractor (``training_utils.py`` of github.com/radoslavralev/limitations-text-retrieval,
the code of arXiv 2604.16351): tokenize with padding to the
longest text in the batch, ``truncation=True`` and ``max_length`` (128), run the SentenceTransformer's
underlying Hugging Face model and keep ``last_hidden_state`` -- no Sentence-Transformers pooling and
no normalisation. Special tokens ([CLS]/[SEP]) are kept as valid tokens; padding positions are
removed, so every text comes back as its own ``(L_i, d)`` float32 tensor.

One deliberate difference: the reference drops ``token_type_ids`` unconditionally (for ModernBERT).
Here every input the tokenizer produces is passed on if the model's ``forward`` accepts it, so BERT
models get their (all-zero) ``token_type_ids`` exactly as Sentence-Transformers passes them.
"""

from __future__ import annotations

import contextlib
import inspect
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:  # pragma: no cover
    from sentence_transformers import SentenceTransformer

__all__ = ["encode_tokens"]


def _accepted_inputs(auto_model: torch.nn.Module) -> set[str] | None:
    """Names of keyword arguments accepted by ``auto_model.forward`` (None = accepts **kwargs)."""
    params = inspect.signature(auto_model.forward).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return None
    return set(params)


def encode_tokens(
    model: SentenceTransformer,
    texts: list[str],
    max_length: int = 128,
    batch_size: int = 32,
    grad: bool = False,
) -> list[torch.Tensor]:
    """Last-hidden-state token embeddings of ``texts``, one ``(L_i, d)`` float32 tensor per text.

    ``L_i`` is the number of attention-mask-1 tokens of text ``i`` (special tokens included, at most
    ``max_length``). Texts are sorted by token length for batching (less padding) and returned in
    the input order. Tensors live on the model's device.

    ``grad=False`` (frozen encoder): puts the model in eval mode and runs under
    ``torch.inference_mode``; the returned tensors are ordinary (non-inference) tensors, so they can
    be cached and fed to trainable verifiers. ``grad=True`` (end-to-end training): keeps the autograd
    graph and leaves the model's train/eval mode to the caller.
    """
    texts = list(texts)
    if not texts:
        return []
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    first = model[0]
    auto_model = first.auto_model
    tokenizer = first.tokenizer
    accepted = _accepted_inputs(auto_model)
    try:
        device = next(auto_model.parameters()).device
    except StopIteration:  # pragma: no cover - a model always has parameters
        device = torch.device("cpu")

    # Token lengths (after truncation) decide the batching order; ties keep input order.
    lengths = [
        len(ids)
        for ids in tokenizer(list(texts), truncation=True, max_length=max_length)["input_ids"]
    ]
    order = sorted(range(len(texts)), key=lambda i: (-lengths[i], i))

    if not grad:
        model.eval()
    context = contextlib.nullcontext() if grad else torch.inference_mode()
    out: list[torch.Tensor | None] = [None] * len(texts)
    with context:
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            enc = tokenizer(
                [texts[i] for i in idx],
                padding=True,
                truncation=True,
                max_length=max_length,
                return_tensors="pt",
            )
            inputs = {
                k: v.to(device)
                for k, v in enc.items()
                if accepted is None or k in accepted
            }
            hidden = auto_model(**inputs).last_hidden_state.float()
            valid = enc["attention_mask"].to(device).bool()
            for row, i in enumerate(idx):
                # Boolean selection works for either padding side and keeps the graph (grad=True).
                out[i] = hidden[row][valid[row]]
    if not grad:
        # Leave inference mode: clone into normal tensors that autograd may save for backward.
        out = [t.clone() for t in out]
    return out  # type: ignore[return-value]
