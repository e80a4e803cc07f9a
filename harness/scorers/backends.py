"""Exact inference backends for encoder submissions (`backend:` / `--backend`).

torch runs the sentence-transformers model as it is. Every other backend runs the same weights
through sentence-transformers' own `backend=` support, exported once from the local weights and
kept under ``$CBENCH_CACHE/<backend>/<key>`` (key: weights fingerprint + what the export is +
the exporting libraries' versions). Each is exact: embeddings within ~2e-7 of torch, metrics
within 1e-4. One class per backend, registered in ``EXPORTED``.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Literal

from harness.errors import CBenchError

log = logging.getLogger("cbench")

Backend = Literal["torch", "onnx", "openvino"]


def library_versions(names: tuple[str, ...]) -> str:
    """``name==version`` for each library an export depends on (a new version makes a new export)."""
    versions = []
    for name in names:
        try:
            versions.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{name}==none")
    return ",".join(versions)


class ExportedBackend:
    """A backend that runs an export of the weights: made once, cached, loaded by sentence-transformers."""

    name: ClassVar[str]
    extra: ClassVar[str]  # the pip extra that installs it
    libraries: ClassVar[tuple[str, ...]]
    subfolder: ClassVar[str]  # where sentence-transformers keeps the export in a model folder
    file: ClassVar[str]  # the file loaded from it
    variant: ClassVar[str]  # what the export is (optimisation, precision): part of the key

    def fields(self) -> dict[str, str]:
        """What the backend adds to fingerprints, cache keys and the recorded scorer."""
        raise NotImplementedError

    def versions(self) -> str:
        return library_versions(self.libraries)

    def export_dir(self, weights_fingerprint: str) -> Path:
        from harness.paths import cache_dir

        key = hashlib.sha256(f"{weights_fingerprint}|{self.variant}|{self.versions()}".encode()).hexdigest()[:32]
        return cache_dir() / self.name / key

    def is_exported(self, folder: Path) -> bool:
        return (folder / self.subfolder / self.file).is_file()

    def write(self, source: str, tmp: Path, trust_remote_code: bool) -> None:
        """Export the model folder ``source`` into the sentence-transformers folder ``tmp``."""
        raise NotImplementedError

    def load(self, folder: Path, trust_remote_code: bool) -> Any:
        raise NotImplementedError

    def export(self, source: str, target: Path, *, trust_remote_code: bool = False, where: str | None = None) -> Path:
        """A sentence-transformers folder at ``target`` holding the export, made from ``source``.

        Made once: an existing ``target`` is reused. The export is written to a temporary folder
        beside it and renamed into place in one step, so a killed export is never reused; the
        leftovers of killed exports are removed on the next export."""
        if self.is_exported(target):
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_exports(target.parent)
        tmp = target.parent / f".tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}-{target.name}"
        try:
            log.info("exporting %s to %s (%s), once, into %s", source, self.name, self.variant, target)
            self.write(source, tmp, trust_remote_code)
            if not self.is_exported(tmp):
                raise CBenchError(f"the {self.name} export wrote no {self.subfolder}/{self.file}", source=where, field="backend")
            if target.exists() and not self.is_exported(target):
                shutil.rmtree(target)  # not an export of ours (ours appear whole, in one rename): replace it
            try:
                os.rename(tmp, target)
            except OSError:
                if not self.is_exported(target):  # not another process's finished export
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return target

    def require(self, where: str | None) -> None:
        """One line naming the extra when the backend's libraries are missing."""
        try:
            self._import()
        except ImportError as e:
            raise CBenchError(
                f"backend {self.name} needs the {self.extra} extra (pip install 'cbench[{self.extra}]'): {e}", source=where, field="backend"
            ) from None

    def _import(self) -> None:
        raise NotImplementedError


STALE_AFTER_S = 6 * 3600  # an export takes seconds to minutes; a temporary folder this old was killed


def remove_stale_exports(parent: Path, *, older_than_s: float = STALE_AFTER_S) -> None:
    """Remove ``.tmp-*`` folders that killed exports left under ``parent`` (old ones only: a
    running export in another process is recent)."""
    import time

    now = time.time()
    for p in parent.glob(".tmp-*"):
        try:
            if now - p.stat().st_mtime > older_than_s:
                shutil.rmtree(p, ignore_errors=True)
        except OSError:
            pass


class OnnxBackend(ExportedBackend):
    """ONNX Runtime on the CPU. The graph is sentence-transformers' export, then ONNX Runtime's
    "O2" optimisation (fused attention / layer norm / GELU, still exact: embeddings within ~2e-7 of
    torch). "O3" approximates GELU (4e-4 off on all-MiniLM-L6-v2) and quantisation is further off,
    so neither is used for this exact backend."""

    name = "onnx"
    extra = "onnx"
    libraries = ("sentence-transformers", "optimum", "optimum-onnx", "onnx", "onnxruntime")
    subfolder = "onnx"
    optimization = "O2"
    file = f"model_{optimization}.onnx"
    variant = optimization

    def fields(self) -> dict[str, str]:
        return {"backend": self.name, "onnx_file": self.file}

    def _import(self) -> None:
        import onnxruntime  # noqa: F401
        from sentence_transformers.backend import export_optimized_onnx_model  # noqa: F401

    def write(self, source: str, tmp: Path, trust_remote_code: bool) -> None:
        from sentence_transformers import SentenceTransformer
        from sentence_transformers.backend import export_optimized_onnx_model

        model = SentenceTransformer(
            source, device="cpu", backend="onnx", trust_remote_code=trust_remote_code, model_kwargs={"export": True, "provider": "CPUExecutionProvider"}
        )
        model.save_pretrained(str(tmp))
        export_optimized_onnx_model(model, self.optimization, str(tmp))
        (tmp / "onnx" / "model.onnx").unlink(missing_ok=True)  # only the optimised graph is loaded

    def load(self, folder: Path, trust_remote_code: bool) -> Any:
        import onnxruntime
        from sentence_transformers import SentenceTransformer

        options = onnxruntime.SessionOptions()
        # Idle worker threads sleep instead of spin-waiting: on a shared machine (other jobs, the
        # usual case for a benchmark run) spinning burns the cores the work needs. Numbers unchanged.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        return SentenceTransformer(
            str(folder),
            device="cpu",
            backend="onnx",
            trust_remote_code=trust_remote_code,
            model_kwargs={"file_name": self.file, "provider": "CPUExecutionProvider", "session_options": options},
        )


class OpenVINOBackend(ExportedBackend):
    """OpenVINO on the CPU (optimum-intel), in float32. ``INFERENCE_PRECISION_HINT: f32`` is what
    keeps it exact: on CPUs with AMX or AVX-512 BF16, OpenVINO's default is bf16 (about 3x faster
    on all-MiniLM-L6-v2 here, but embeddings 1.4e-3 off torch's, which can reorder rankings)."""

    name = "openvino"
    extra = "openvino"
    libraries = ("sentence-transformers", "optimum", "optimum-intel", "openvino")
    subfolder = "openvino"
    file = "openvino_model.xml"
    precision = "f32"
    variant = f"ir-{precision}"
    config: ClassVar[dict[str, str]] = {"INFERENCE_PRECISION_HINT": precision}

    def fields(self) -> dict[str, str]:
        return {"backend": self.name, "openvino_precision": self.precision}

    def _import(self) -> None:
        import openvino  # noqa: F401
        from optimum.intel import OVModelForFeatureExtraction  # noqa: F401

    def write(self, source: str, tmp: Path, trust_remote_code: bool) -> None:
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(
            source, device="cpu", backend="openvino", trust_remote_code=trust_remote_code, model_kwargs={"export": True, "ov_config": dict(self.config)}
        )
        model.save_pretrained(str(tmp))

    def load(self, folder: Path, trust_remote_code: bool) -> Any:
        from sentence_transformers import SentenceTransformer

        return SentenceTransformer(
            str(folder),
            device="cpu",
            backend="openvino",
            trust_remote_code=trust_remote_code,
            model_kwargs={"file_name": self.file, "ov_config": dict(self.config)},
        )


EXPORTED: dict[str, Callable[[], ExportedBackend]] = {"onnx": OnnxBackend, "openvino": OpenVINOBackend}


def exported_backend(name: str) -> ExportedBackend | None:
    """The backend object for ``name``; None for torch (the model as it is)."""
    return EXPORTED[name]() if name in EXPORTED else None
