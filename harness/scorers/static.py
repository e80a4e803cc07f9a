"""`kind: static` - a model2vec static embedding model (token vectors averaged), exact search.

``model`` is a hub id or a local folder. A relative folder (``./x``, ``../x``) is resolved
against the folder of the submission YAML that declares it (Scorer.base_dir; the shipped
``submissions/minilm-static.yaml`` says ``model: ../models/minilm-static``), so the
submission works from any working directory. A config built in code (no file) takes the path
as given, i.e. relative to the current directory.

A static model has no query/document asymmetry, so both roles share one cache namespace.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field

from harness.run_context import RunContext
from harness.scorers.base import EmbeddingScorer, ModelFields, ModelScorer

# model2vec's StaticModel.encode default: truncate to 512 tokens.
DEFAULT_MAX_LENGTH = 512


class StaticConfig(ModelFields):
    kind: Literal["static"]
    max_length: int | None = Field(default=DEFAULT_MAX_LENGTH, gt=0, description="tokens kept per text; null = no truncation")
    batch_size: int = Field(default=1024, gt=0, le=1_000_000)


class StaticScorer(EmbeddingScorer, ModelScorer):
    kind = "static"
    Config = StaticConfig
    colour = "#ff7f0e"  # leaderboard plot
    mteb_model_type = "dense"
    similarity = "cosine"

    def __init__(self, config: StaticConfig, ctx: RunContext, base_dir: Path | None = None, *, path: Path | None = None):
        super().__init__(config, ctx, base_dir, path=path)
        self.cfg = config
        self._model = None



    load_errors = (OSError, ValueError, KeyError)

    def load_model(self, location: str) -> Any:
        from model2vec import StaticModel

        return StaticModel.from_pretrained(location)

    def load_failure(self, location: str, why: str) -> str:
        return f"not a model2vec static model folder ({location}): {why}"

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
        out: dict[str, Any] = {
            **self.model_info(),
            "max_length": self.cfg.max_length,
            "similarity": "cosine",
        }
        if self._model is not None:
            out["dimensions"] = int(self._model.dim)
            out["base_model"] = self._model.base_model_name
        return out
