"""`kind: encoder` - a sentence-transformers bi-encoder, exact search."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field

from harness.models import check_remote_code, declared_int
from harness.run_context import RunContext
from harness.scorers.base import EmbeddingScorer, ModelFields, ModelScorer


class HFModelFields(ModelFields):
    max_seq_length: int | None = Field(default=None, gt=0, le=32768)
    batch_size: int = Field(default=32, gt=0, le=4096)
    trust_remote_code: bool = False


class EncoderConfig(HFModelFields):
    kind: Literal["encoder"]
    similarity: Literal["cosine", "dot"] = "cosine"
    query_prompt: str = ""
    document_prompt: str = ""


class EncoderScorer(EmbeddingScorer, ModelScorer):
    kind = "encoder"
    Config = EncoderConfig
    colour = "#1f77b4"  # leaderboard plot
    mteb_model_type = "dense"
    mteb_frameworks = ("Sentence Transformers",)

    def __init__(self, config: EncoderConfig, ctx: RunContext, base_dir: Path | None = None, *, path: Path | None = None):
        super().__init__(config, ctx, base_dir, path=path)
        self.cfg = config
        self.similarity = config.similarity
        self._model = None
        # Fail before any data is read or any results folder is made: permission, then the weights.
        check_remote_code(config.trust_remote_code, ctx.trust_remote_code, self.source)
        self.resolved  # noqa: B018 - resolves (offline: checks) the model reference now

    load_errors = (Exception,)  # not a model folder, bad config, missing weights: one line

    def load_model(self, location: str) -> Any:
        from sentence_transformers import SentenceTransformer

        remote = check_remote_code(self.cfg.trust_remote_code, self.ctx.trust_remote_code, self.source)
        model = SentenceTransformer(location, device=self.ctx.device, trust_remote_code=remote)
        if self.cfg.max_seq_length is not None:
            model.max_seq_length = self.cfg.max_seq_length
        return model

    def load_failure(self, location: str, why: str) -> str:
        return f"cannot load model from '{location}': {why if len(why) <= 200 else why[:200] + '…'}"

    def max_seq_length(self) -> int | None:
        """The effective length, read from the model folder when possible (no model load)."""
        if self.cfg.max_seq_length is not None:
            return self.cfg.max_seq_length
        if self._model is None:
            declared = declared_int(Path(self.resolved.location), "sentence_bert_config.json", "max_seq_length")
            if declared is not None:
                return declared
        return self.model.max_seq_length

    def prompt(self, role: str) -> str:
        return self.cfg.query_prompt if role == "query" else self.cfg.document_prompt

    def cache_spec(self, role: str) -> dict:
        return {
            "kind": "encoder-pooled",
            "weights": self.resolved.fingerprint,
            "max_seq_length": self.max_seq_length(),
            "role": role,
            "prompt": self.prompt(role),
        }

    def encode_batch(self, texts: list[str], role: str) -> np.ndarray:
        prompt = self.prompt(role) or None
        return self.model.encode(
            texts,
            batch_size=self.cfg.batch_size,
            prompt=prompt,
            convert_to_numpy=True,
            show_progress_bar=False,
        )

    def info(self) -> dict[str, Any]:
        return {
            **self.model_info(),
            "max_seq_length": self.max_seq_length(),
            "similarity": self.similarity,
        }
