"""`kind: encoder` - a sentence-transformers bi-encoder, exact search."""

from __future__ import annotations

import logging
import os
import shutil
import uuid
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field

from harness.errors import CBenchError
from harness.model_refs import check_remote_code, declared_int
from harness.run_context import RunContext
from harness.scorers.backends import Backend, ExportedBackend, exported_backend
from harness.scorers.base import EmbeddingScorer, ModelFields, ModelScorer

log = logging.getLogger("cbench")

class HFModelFields(ModelFields):
    max_seq_length: int | None = Field(default=None, gt=0, le=32768)
    batch_size: int = Field(default=32, gt=0, le=4096)
    trust_remote_code: bool = False


class EncoderConfig(HFModelFields):
    kind: Literal["encoder"]
    similarity: Literal["cosine", "dot"] = "cosine"
    query_prompt: str = ""
    document_prompt: str = ""
    weights_delta: str | None = Field(
        default=None,
        description="safetensors file of parameters that replace the model's own (e.g. the top layers an "
        "end-to-end verifier trained); relative: to the submission file",
    )
    backend: Backend = Field(
        default="torch",
        description="torch, onnx or openvino: the same weights exported once (cached) and run by ONNX Runtime "
        "or OpenVINO (float32) on the CPU; scores equal torch's within 1e-4",
    )

    # `backend: torch` (the default) leaves the hash and the recorded config as they were before
    # the field existed: results made before it stay valid.
    omitted_when_default = frozenset({"backend"})


def apply_weights_delta(model: Any, path: Path, source: str) -> None:
    """Overwrite the model's parameters named in a safetensors file (all must exist, same shapes)."""
    import torch
    from safetensors.torch import load_file

    try:
        delta = load_file(str(path))
    except Exception as e:  # noqa: BLE001 - not a safetensors file: one line
        raise CBenchError(f"cannot read weights delta {path}: {e}", source=source, field="weights_delta") from None
    own = model.state_dict()
    for name, tensor in delta.items():
        if name not in own or own[name].shape != tensor.shape:
            raise CBenchError(f"weights delta {path.name}: '{name}' does not match the model", source=source, field="weights_delta")
    with torch.no_grad():
        for name, tensor in delta.items():
            own[name].copy_(tensor.to(own[name].dtype))


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
        self.exported = exported_backend(config.backend)
        if self.exported is not None and ctx.device != "cpu":
            raise CBenchError(f"backend {config.backend} runs on the CPU; got --device {ctx.device}", source=self.source, field="backend")
        self.resolved  # noqa: B018 - resolves (offline: checks) the model reference now

    load_errors = (Exception,)  # not a model folder, bad config, missing weights: one line

    def load_model(self, location: str) -> Any:
        from sentence_transformers import SentenceTransformer

        remote = check_remote_code(self.cfg.trust_remote_code, self.ctx.trust_remote_code, self.source)
        if self.exported is not None:
            return self._load_exported(self.exported, location, remote)
        model = SentenceTransformer(location, device=self.ctx.device, trust_remote_code=remote)
        if self.cfg.max_seq_length is not None:
            model.max_seq_length = self.cfg.max_seq_length
        if self.cfg.weights_delta:
            apply_weights_delta(model, self.delta_path, self.source)
        return model

    def _load_exported(self, backend: ExportedBackend, location: str, remote: bool) -> Any:
        """The cached export of the weights (made now if missing), loaded by the backend."""
        from sentence_transformers import SentenceTransformer

        backend.require(self.source)
        target = backend.export_dir(self.weights_fingerprint)
        if not backend.is_exported(target):
            if self.cfg.weights_delta:  # export the weights as they are scored: the model with its delta
                staging = target.parent / f".tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}-delta"
                try:
                    model = SentenceTransformer(location, device="cpu", trust_remote_code=remote)
                    apply_weights_delta(model, self.delta_path, self.source)
                    model.save_pretrained(str(staging))
                    backend.export(str(staging), target, trust_remote_code=remote, where=self.source)
                finally:
                    shutil.rmtree(staging, ignore_errors=True)
            else:
                backend.export(location, target, trust_remote_code=remote, where=self.source)
        model = backend.load(target, remote)
        if self.cfg.max_seq_length is not None:
            model.max_seq_length = self.cfg.max_seq_length
        return model

    def load_failure(self, location: str, why: str) -> str:
        return f"cannot load model from '{location}': {why if len(why) <= 200 else why[:200] + '…'}"

    @property
    def delta_path(self) -> Path:
        path = self.local_path(self.cfg.weights_delta or "")
        if not path.is_file():
            raise CBenchError(f"weights delta not found: {path}", source=self.source, field="weights_delta")
        return path

    @property
    def weights_fingerprint(self) -> str:
        """The model's fingerprint, combined with the delta's sha256 when there is one."""
        if not self.cfg.weights_delta:
            return self.resolved.fingerprint
        import hashlib

        delta = hashlib.sha256(self.delta_path.read_bytes()).hexdigest()
        return hashlib.sha256(f"{self.resolved.fingerprint}+{delta}".encode()).hexdigest()

    def backend_fields(self) -> dict[str, str]:
        """What the backend adds to fingerprints, cache keys and provenance: nothing for torch (so
        results made before backends existed stay valid), the backend and what its export is otherwise."""
        return {} if self.exported is None else self.exported.fields()

    def fingerprints(self) -> dict[str, str]:
        return {"model": self.weights_fingerprint, **self.backend_fields()}

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
            "weights": self.weights_fingerprint,
            "max_seq_length": self.max_seq_length(),
            "role": role,
            "prompt": self.prompt(role),
            **self.backend_fields(),
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
        delta = {}
        if self.cfg.weights_delta:
            from harness.paths import recorded_name

            delta = {"weights_delta": recorded_name(self.delta_path), "weights_fingerprint": self.weights_fingerprint}
        backend: dict[str, str] = dict(self.backend_fields())
        if self.exported is not None:
            backend[f"{self.exported.name}_libraries"] = self.exported.versions()
        return {
            **self.model_info(),
            **delta,
            **backend,
            "max_seq_length": self.max_seq_length(),
            "similarity": self.similarity,
        }
