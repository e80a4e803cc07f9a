"""`kind: static` - a model2vec static embedding model (token vectors averaged), exact search.

``model`` is a hub id or a local folder. A relative folder (``./x``, ``../x``) is resolved
against the folder of the submission YAML that declares it (the shipped
``submissions/minilm-static.yaml`` says ``model: ../models/minilm-static``), so the
submission works from any working directory. When the YAML cannot be identified (a file given
by path that is not in a submissions folder, or a config built in code) the path is taken as
given, i.e. relative to the current directory.

A static model has no query/document asymmetry, so both roles share one cache namespace.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field

from harness.errors import CBenchError
from harness.models import ResolvedModel, resolve_model
from harness.scorers.base import EmbeddingScorer, RunContext, SubmissionBase

# model2vec's StaticModel.encode default: truncate to 512 tokens.
DEFAULT_MAX_LENGTH = 512


class StaticConfig(SubmissionBase):
    kind: Literal["static"]
    model: str = Field(min_length=1, description="hub id or local folder (relative: to the submission file's folder)")
    revision: str | None = Field(default=None, description="hub revision (commit, tag or branch)")
    max_length: int | None = Field(default=DEFAULT_MAX_LENGTH, gt=0, description="tokens kept per text; null = no truncation")
    batch_size: int = Field(default=1024, gt=0, le=1_000_000)


def model_reference(cfg: StaticConfig, ctx: RunContext) -> str:
    """``cfg.model`` with a relative folder made absolute against its submission file's folder."""
    ref = cfg.model
    if not ref.startswith(("./", "../", ".\\", "..\\")) and ref not in {".", ".."}:
        return ref
    registry = ctx.submissions
    path = None
    if registry is not None:
        try:
            sub = registry.all().get(cfg.name)
        except CBenchError:
            sub = None
        if sub is not None and sub.path is not None and sub.config == cfg:
            path = sub.path
    return str((path.parent / ref).resolve()) if path is not None else ref


class StaticScorer(EmbeddingScorer):
    kind = "static"
    Config = StaticConfig
    similarity = "cosine"

    def __init__(self, config: StaticConfig, ctx: RunContext):
        super().__init__(config, ctx)
        self.cfg = config
        self._model = None
        self._resolved: ResolvedModel | None = None

    @property
    def source(self) -> str:
        return f"submission {self.cfg.name}"

    @property
    def resolved(self) -> ResolvedModel:
        if self._resolved is None:
            self._resolved = resolve_model(model_reference(self.cfg, self.ctx), self.cfg.revision, source=self.source)
        return self._resolved

    @property
    def model(self):
        if self._model is None:
            from model2vec import StaticModel

            location = self.resolved.location  # raises the one-line error for missing / hub-only models
            try:
                self._model = StaticModel.from_pretrained(location)
            except (OSError, ValueError, KeyError) as e:
                msg = str(e).splitlines()[0] if str(e) else type(e).__name__
                raise CBenchError(f"not a model2vec static model folder ({location}): {msg}", source=self.source, field="model") from None
        return self._model

    def cache_spec(self, role: str) -> dict:
        # Same vectors for queries and documents: role left out on purpose.
        return {"kind": "static", "weights": self.resolved.fingerprint, "max_length": self.cfg.max_length}

    def encode_batch(self, texts: list[str], role: str) -> np.ndarray:
        return self.model.encode(
            texts,
            max_length=self.cfg.max_length,
            batch_size=self.cfg.batch_size,
            show_progress_bar=False,
            use_multiprocessing=False,
        ).astype(np.float32, copy=False)

    def info(self) -> dict[str, Any]:
        r = self.resolved
        out: dict[str, Any] = {
            "model": self.cfg.model,
            "model_source": r.source,
            "model_revision": r.revision,
            "weights_fingerprint": r.fingerprint,
            "max_length": self.cfg.max_length,
            "similarity": "cosine",
        }
        if self._model is not None:
            out["dimensions"] = int(self._model.dim)
            out["base_model"] = self._model.base_model_name
        return out
