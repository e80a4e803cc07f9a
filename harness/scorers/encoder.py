"""`kind: encoder` - a sentence-transformers bi-encoder, exact search."""

from __future__ import annotations

import hashlib
import importlib.metadata
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
from harness.scorers.base import EmbeddingScorer, ModelFields, ModelScorer

log = logging.getLogger("cbench")

Backend = Literal["torch", "onnx"]
# The ONNX graph cbench runs: sentence-transformers' export, then ONNX Runtime's "O2" graph
# optimisation (fused attention / layer norm / GELU, still exact: embeddings within ~2e-7 of
# torch). "O3" approximates GELU (4e-4 off on all-MiniLM-L6-v2) and quantisation is further off,
# so neither is used for this exact backend.
ONNX_OPTIMIZATION = "O2"
ONNX_FILE = f"model_{ONNX_OPTIMIZATION}.onnx"


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
        description="torch, or onnx: the same weights exported once (cached) and run by ONNX Runtime on the CPU; "
        "scores equal torch's within 1e-4",
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


def _onnx_versions() -> str:
    """The libraries an export depends on (a new one makes a new export)."""
    names = ("sentence-transformers", "optimum", "optimum-onnx", "onnx", "onnxruntime")
    versions = []
    for name in names:
        try:
            versions.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{name}==none")
    return ",".join(versions)


def onnx_export_dir(weights_fingerprint: str) -> Path:
    """Where the ONNX export of these weights lives: under $CBENCH_CACHE, keyed by the weights'
    fingerprint, the optimisation level and the exporting libraries' versions."""
    from harness.paths import cache_dir

    key = hashlib.sha256(f"{weights_fingerprint}|{ONNX_OPTIMIZATION}|{_onnx_versions()}".encode()).hexdigest()[:32]
    return cache_dir() / "onnx" / key


def export_onnx(source: str, target: Path, *, trust_remote_code: bool = False, where: str | None = None) -> Path:
    """A sentence-transformers folder at ``target`` with ``onnx/<ONNX_FILE>``, made from the model
    folder ``source`` by sentence-transformers' own export (optimum) and ``export_optimized_onnx_model``.

    Made once: an existing ``target`` is reused. The export is written to a temporary folder beside
    it and renamed into place, so a killed export is never reused (nor is a half-renamed one: a
    folder is renamed in one step)."""
    if (target / "onnx" / ONNX_FILE).is_file():
        return target
    try:
        from sentence_transformers import SentenceTransformer
        from sentence_transformers.backend import export_optimized_onnx_model
    except ImportError as e:
        raise CBenchError(f"backend onnx needs the onnx extra (pip install 'cbench[onnx]'): {e}", source=where, field="backend") from None
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f".tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}-{target.name}"
    try:
        log.info("exporting %s to ONNX (%s), once, into %s", source, ONNX_OPTIMIZATION, target)
        model = SentenceTransformer(source, device="cpu", backend="onnx", trust_remote_code=trust_remote_code, model_kwargs={"export": True, "provider": "CPUExecutionProvider"})
        model.save_pretrained(str(tmp))
        export_optimized_onnx_model(model, ONNX_OPTIMIZATION, str(tmp))
        (tmp / "onnx" / "model.onnx").unlink(missing_ok=True)  # only the optimised graph is loaded
        if not (tmp / "onnx" / ONNX_FILE).is_file():
            raise CBenchError(f"the ONNX export wrote no onnx/{ONNX_FILE}", source=where, field="backend")
        if target.exists() and not (target / "onnx" / ONNX_FILE).is_file():
            shutil.rmtree(target)  # not an export of ours (ours appear whole, in one rename): replace it
        try:
            os.rename(tmp, target)
        except OSError:
            if not (target / "onnx" / ONNX_FILE).is_file():  # not another process's finished export
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


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
        if config.backend == "onnx" and ctx.device != "cpu":
            raise CBenchError(f"backend onnx runs on the CPU (onnxruntime); got --device {ctx.device}", source=self.source, field="backend")
        self.resolved  # noqa: B018 - resolves (offline: checks) the model reference now

    load_errors = (Exception,)  # not a model folder, bad config, missing weights: one line

    def load_model(self, location: str) -> Any:
        from sentence_transformers import SentenceTransformer

        remote = check_remote_code(self.cfg.trust_remote_code, self.ctx.trust_remote_code, self.source)
        if self.cfg.backend == "onnx":
            return self._load_onnx(location, remote)
        model = SentenceTransformer(location, device=self.ctx.device, trust_remote_code=remote)
        if self.cfg.max_seq_length is not None:
            model.max_seq_length = self.cfg.max_seq_length
        if self.cfg.weights_delta:
            apply_weights_delta(model, self.delta_path, self.source)
        return model

    def _load_onnx(self, location: str, remote: bool) -> Any:
        """The cached ONNX export of the weights (made now if missing) in ONNX Runtime."""
        from sentence_transformers import SentenceTransformer

        target = onnx_export_dir(self.weights_fingerprint)
        if not (target / "onnx" / ONNX_FILE).is_file():
            if self.cfg.weights_delta:  # export the weights as they are scored: the model with its delta
                staging = target.parent / f".tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}-delta"
                try:
                    model = SentenceTransformer(location, device="cpu", trust_remote_code=remote)
                    apply_weights_delta(model, self.delta_path, self.source)
                    model.save_pretrained(str(staging))
                    export_onnx(str(staging), target, trust_remote_code=remote, where=self.source)
                finally:
                    shutil.rmtree(staging, ignore_errors=True)
            else:
                export_onnx(location, target, trust_remote_code=remote, where=self.source)
        import onnxruntime

        options = onnxruntime.SessionOptions()
        # Idle worker threads sleep instead of spin-waiting: on a shared machine (other jobs, the
        # usual case for a benchmark run) spinning burns the cores the work needs. Numbers unchanged.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        model = SentenceTransformer(
            str(target),
            device="cpu",
            backend="onnx",
            trust_remote_code=remote,
            model_kwargs={"file_name": ONNX_FILE, "provider": "CPUExecutionProvider", "session_options": options},
        )
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
        results made before backends existed stay valid), the backend and graph for onnx."""
        return {} if self.cfg.backend == "torch" else {"backend": self.cfg.backend, "onnx_file": ONNX_FILE}

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
        if backend:
            backend["onnx_libraries"] = _onnx_versions()
        return {
            **self.model_info(),
            **delta,
            **backend,
            "max_seq_length": self.max_seq_length(),
            "similarity": self.similarity,
        }
