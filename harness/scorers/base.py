"""The scorer interface every submission kind implements, and the shared submission fields."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_serializer

from harness.cache import EmbeddingCache, cached_encode, namespace_id
from harness.models import ResolvedModel, resolve_model
from harness.search import exact_search

log = logging.getLogger("cbench")

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"
# Fields that describe a submission but do not change its scores (left out of its hash).
DESCRIPTIVE_FIELDS = frozenset({"description", "authors", "url", "license", "parameters", "provenance"})


class SubmissionBase(BaseModel):
    """Fields every submission YAML has. Each kind adds its own in a subclass."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=NAME_PATTERN, description="unique name, used in results paths")
    kind: str
    description: str = ""
    authors: list[str] = Field(default_factory=list)
    url: str | None = None
    license: str | None = None
    parameters: int | None = Field(default=None, ge=0, description="number of parameters")
    provenance: dict[str, Any] | None = Field(default=None, description="how the model was made (written by cbench finetune); descriptive only")

    @model_serializer(mode="wrap")
    def _omit_empty_provenance(self, handler):
        """Dumps (results' submission_config) of submissions without provenance stay as they were."""
        data = handler(self)
        if isinstance(data, dict) and data.get("provenance") is None:
            data.pop("provenance", None)
        return data


@dataclass
class RunContext:
    """What a scorer needs from the run: device, cache, progress, permissions."""

    device: str = "cpu"
    cache_root: Path | None = None
    use_cache: bool = True
    trust_remote_code: bool = False
    progress: Any = None  # harness.ui.Progress or None
    submissions: Any = None  # harness.submissions.Registry, to resolve first stages
    scorers: dict[str, Any] = field(default_factory=dict)  # built scorers by submission name (shared models)
    building: set[str] = field(default_factory=set)  # submissions being built (cycle detection)
    counters: dict[str, int] = field(default_factory=dict)
    _caches: dict[str, EmbeddingCache] = field(default_factory=dict, repr=False)

    def count(self, name: str, n: int) -> None:
        self.counters[name] = self.counters.get(name, 0) + n

    def cache(self, spec: dict) -> EmbeddingCache:
        """One cache object per namespace for the whole run: its index is read from disk once,
        not once per dataset (and a corrupt chunk is reported once)."""
        from harness.paths import cache_dir

        key = namespace_id(spec)
        if not self.use_cache:  # in-memory only: a fresh one per call, freed after it
            return EmbeddingCache(self.cache_root or cache_dir(), spec, enabled=False)
        if key not in self._caches:
            self._caches[key] = EmbeddingCache(self.cache_root or cache_dir(), spec, enabled=self.use_cache)
        return self._caches[key]


class Scorer(ABC):
    """A submission turned into something that can rank documents and score text pairs."""

    kind: ClassVar[str]
    Config: ClassVar[type[SubmissionBase]]
    # Rerankers keep their first stage's ranking of the last retrieve() here, so the suite can
    # report the change a reranker makes (before/after, as in the reference experiment).
    first_stage_run: dict[str, dict[str, float]] | None = None

    def __init__(self, config: SubmissionBase, ctx: RunContext, base_dir: Path | None = None):
        self.config = config
        self.ctx = ctx
        self.base_dir = base_dir  # folder of the submission file: relative paths resolve here

    def local_path(self, ref: str) -> Path:
        """A path named in the submission: relative ones are relative to its file's folder."""
        p = Path(ref).expanduser()
        return p if p.is_absolute() or self.base_dir is None else (self.base_dir / p).resolve()

    @property
    def source(self) -> str:
        """How error lines name this submission."""
        return f"submission {self.config.name}"

    @property
    def resolved(self) -> ResolvedModel:
        """The submission's ``model`` (and ``revision``) resolved once: ``./x`` and ``../x`` are
        folders next to the submission file; a bare ``org/name`` is a hub id."""
        if getattr(self, "_resolved", None) is None:
            ref = self.config.model  # type: ignore[attr-defined]
            relative = ref in {".", ".."} or ref.startswith(("./", "../"))
            location = str(self.local_path(ref)) if relative else ref
            self._resolved = resolve_model(location, getattr(self.config, "revision", None), source=self.source)
        return self._resolved

    def cached_rows(self, spec: dict, texts: list[str], encode: Callable[[list[str]], list[np.ndarray]], label: str) -> list[np.ndarray]:
        """``encode`` through the embedding cache, with a progress bar and the encode counter."""
        progress = self.ctx.progress
        task = progress.add(label, total=len(texts)) if progress else None

        def advance(n: int) -> None:
            if task is not None:
                progress.advance(task, n)

        rows, n_encoded = cached_encode(self.ctx.cache(spec), texts, encode, on_progress=advance)
        if task is not None:
            progress.finish(task)
        self.ctx.count("texts_encoded", n_encoded)
        return rows

    @abstractmethod
    def retrieve(self, queries: dict[str, str], corpus: dict[str, str], top_k: int) -> dict[str, dict[str, float]]:
        """Top-``top_k`` documents per query: {query_id: {doc_id: score}}."""

    @abstractmethod
    def score_pairs(self, a: list[str], b: list[str]) -> np.ndarray:
        """s(a[i], b[i]) for every i; higher = more similar / more acceptable."""

    def info(self) -> dict[str, Any]:
        """Provenance recorded in results (model revision, first stage, rerank depth, ...)."""
        return {}

    def model_info(self) -> dict[str, Any]:
        """Provenance of the submission's ``model``: reference, source, revision, weights hash."""
        r = self.resolved
        return {"model": self.config.model, "model_source": r.source, "model_revision": r.revision, "weights_fingerprint": r.fingerprint}  # type: ignore[attr-defined]

    def fingerprints(self) -> dict[str, str]:
        """What determines the scores beyond the submission YAML (weights, checkpoints): results
        made with other fingerprints are recomputed, not resumed."""
        return {"model": self.resolved.fingerprint} if hasattr(self.config, "model") else {}


class EmbeddingScorer(Scorer):
    """A scorer defined by one vector per text: retrieval is exact search, pairs are cosine/dot."""

    similarity: str = "cosine"

    @abstractmethod
    def cache_spec(self, role: str) -> dict:
        """Everything that determines an embedding for this role except the text."""

    @abstractmethod
    def encode_batch(self, texts: list[str], role: str) -> np.ndarray:
        """(len(texts), d) float32 embeddings; called only for texts the cache lacks."""

    def embed(self, texts: list[str], role: str, label: str = "encoding") -> np.ndarray:
        def encode(batch: list[str]) -> list[np.ndarray]:
            vecs = np.asarray(self.encode_batch(batch, role), dtype=np.float32)
            return [v[None, :] for v in vecs]

        rows = self.cached_rows(self.cache_spec(role), texts, encode, f"{label} ({role})")
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        return np.concatenate(rows, axis=0).astype(np.float32, copy=False)

    def retrieve(self, queries: dict[str, str], corpus: dict[str, str], top_k: int) -> dict[str, dict[str, float]]:
        doc_ids, q_ids = list(corpus), list(queries)
        d = self.embed([corpus[i] for i in doc_ids], "document")
        q = self.embed([queries[i] for i in q_ids], "query")
        return exact_search(q, d, q_ids, doc_ids, top_k, cosine=self.similarity == "cosine")

    def score_pairs(self, a: list[str], b: list[str]) -> np.ndarray:
        # Near-miss pairs are symmetric sentence pairs: both sides use the query role.
        ea = self.embed(a, "query", label="encoding pairs")
        eb = self.embed(b, "query", label="encoding pairs")
        if self.similarity == "cosine":
            ea = ea / np.maximum(np.linalg.norm(ea, axis=1, keepdims=True), 1e-12)
            eb = eb / np.maximum(np.linalg.norm(eb, axis=1, keepdims=True), 1e-12)
        return np.einsum("ij,ij->i", ea.astype(np.float64), eb.astype(np.float64))


ScorerFactory = Callable[[SubmissionBase, RunContext], Scorer]
