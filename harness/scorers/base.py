"""The scorer interface every submission kind implements, and the shared submission fields."""

from __future__ import annotations

import hashlib
import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_serializer

from harness.cache import cached_encode
from harness.errors import CBenchError
from harness.model_refs import ResolvedModel, resolve_model
from harness.names import NAME_PATTERN
from harness.run_context import RunContext
from harness.search import exact_search
from harness.ui import progress_bar

log = logging.getLogger("cbench")

# Fields that describe a submission but do not change its scores (left out of its hash).
# ``build`` says how to make its weights, not what they are: the fingerprints recorded in results
# ("the model weights ... changed") cover those.
# ``fit`` (kind fusion) records how cbench fuse chose the constants, which are fields of their own.
DESCRIPTIVE_FIELDS = frozenset({"description", "authors", "url", "license", "parameters", "provenance", "build", "fit"})


def config_hash(config: BaseModel) -> str:
    """Hash of the fields of a submission that change scores (not description, authors, ...)."""
    data = config.model_dump(mode="json", exclude=set(DESCRIPTIVE_FIELDS))
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


class BuildStep(BaseModel):
    """How to make files a submission needs that the repository does not ship (e.g. fine-tuned
    weights): ``cbench run`` stops with one line naming ``command`` while one of ``makes`` is missing."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: str = Field(min_length=1, description="the shell command that makes them, run in the cbench repository's root (e.g. make paper-ab)")
    time: str = Field(min_length=1, description="about how long it takes, and on what (e.g. several hours on CPU)")
    makes: list[str] = Field(min_length=1, description="the files or folders it makes, relative to the submission file's folder")


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
    build: BuildStep | None = Field(default=None, description="how to make weights the repository does not ship; not hashed")

    # Fields added after results were published: left out of dumps (hash, results'
    # submission_config) while they hold their default, so older results keep their hashes.
    omitted_when_default: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _omit_empty_provenance(self, handler):
        """Dumps (results' submission_config) of submissions without provenance or build, or with a newer
        field at its default (``omitted_when_default``), stay as they were."""
        data = handler(self)
        if isinstance(data, dict):
            for key in ("provenance", "build"):
                if data.get(key) is None:
                    data.pop(key, None)
            fields = type(self).model_fields
            for name in self.omitted_when_default:
                if name in data and getattr(self, name) == fields[name].default:
                    data.pop(name)
        return data


class ModelFields(SubmissionBase):
    """Fields of every kind whose submission names a model: ``model`` and ``revision``."""

    model: str = Field(min_length=1, description="hub id or local folder (relative: to the submission file's folder)")
    revision: str | None = Field(default=None, description="hub revision (commit, tag or branch)")


@dataclass(frozen=True)
class DocumentStore:
    """What a kind stores per document at index time (``Scorer.index_documents``), for the documents
    it was built over: a one-line description, the bytes held at the precision actually stored, and
    a key naming the store (two stores with equal keys over the same documents hold the same arrays:
    ``cbench cost`` builds such a store once and counts it once)."""

    stores: str  # e.g. "pooled vectors float32 (384 dims)", "document token embeddings float16 (mean 118 tokens x 384 dims)"
    nbytes: int  # bytes stored for all the documents, at the stored precision (float16 tokens: tokens x dim x 2)
    documents: int
    key: str  # what the arrays are apart from the documents: the cache namespace's spec, or the kind's index settings


def store_key(kind: str, spec: dict) -> str:
    """``DocumentStore.key`` from a JSON-able spec (a cache spec, a kind's index settings)."""
    return json.dumps({"store": kind, **spec}, sort_keys=True)


@dataclass(frozen=True)
class Retrieval:
    """What ``Scorer.retrieve`` returns: the run ({query_id: {doc_id: score}}, each query's top
    ``top_k``) and, for a reranker, the run of its first stage that it reordered, so the suite can
    report the change the reranker makes (before/after, as in the reference experiment)."""

    run: dict[str, dict[str, float]]
    first_stage_run: dict[str, dict[str, float]] | None = None


class Scorer(ABC):
    """A submission turned into something that can rank documents and score text pairs."""

    kind: ClassVar[str]
    Config: ClassVar[type[SubmissionBase]]
    # Config fields that name another submission whose built scorer this kind is handed (keyword
    # arguments of the constructor of the same name), e.g. ("first_stage",) for a reranker.
    # harness.submissions.registry.build_submission_scorer resolves and builds them.
    parts: ClassVar[tuple[str, ...]] = ()
    # What reports need to know about the kind: its colour in the leaderboard plot, and how an
    # MTEB export describes it (ModelMeta model_type / framework).
    colour: ClassVar[str] = "#7f7f7f"
    mteb_model_type: ClassVar[str] = "dense"
    mteb_frameworks: ClassVar[tuple[str, ...]] = ()
    # Controls (scorers that cannot read for meaning) are not ranked: the leaderboard lists them in
    # their own table and draws their composition scores as the chance band.
    is_control: ClassVar[bool] = False

    def __init__(self, config: SubmissionBase, ctx: RunContext, base_dir: Path | None = None, *, path: Path | None = None):
        self.config = config
        self.ctx = ctx
        self.path = path  # the submission file (None for ad-hoc submissions and tests)
        self.base_dir = base_dir if base_dir is not None or path is None else path.parent  # relative paths resolve here

    def local_path(self, ref: str) -> Path:
        """A path named in the submission: relative ones are relative to its file's folder."""
        p = Path(ref).expanduser()
        return p if p.is_absolute() or self.base_dir is None else (self.base_dir / p).resolve()

    @property
    def source(self) -> str:
        """How error lines name this submission."""
        return f"submission {self.config.name}"

    def cached_rows(self, spec: dict, texts: list[str], encode: Callable[[list[str]], list[np.ndarray]], label: str) -> list[np.ndarray]:
        """``encode`` through the embedding cache, with a progress bar and the encode counter."""
        with progress_bar(self.ctx.progress, label, len(texts)) as advance:
            rows, n_encoded = cached_encode(self.ctx.cache(spec), texts, encode, on_progress=advance)
        self.ctx.count("texts_encoded", n_encoded)
        return rows

    @abstractmethod
    def retrieve(self, queries: dict[str, str], corpus: dict[str, str], top_k: int) -> Retrieval:
        """Top-``top_k`` documents per query (``Retrieval.run``: {query_id: {doc_id: score}}); a
        reranker also returns its first stage's run."""

    @abstractmethod
    def score_pairs(self, a: list[str], b: list[str]) -> np.ndarray:
        """s(a[i], b[i]) for every i; higher = more similar / more acceptable. Both sides are
        sentences of one kind (near-miss pairs): an encoder encodes both in the query role."""

    def corpus_index(self, corpus: dict[str, str], doc_ids: list[str], build: Callable[[list[str]], Any]) -> Any:
        """``build(texts)`` over the corpus's texts in ``doc_ids`` order, for kinds that index the
        corpus inside ``retrieve`` (BM25, TF-IDF): kept for the next call over the same documents,
        so a corpus searched again (``cbench cost`` times searches against a built index) is not
        indexed again, as the embedding kinds keep their documents' vectors in the cache."""
        key = tuple((d, corpus[d]) for d in doc_ids)
        last = getattr(self, "_corpus_index", None)
        if last is None or last[0] != key:
            last = self._corpus_index = (key, build([corpus[d] for d in doc_ids]))
            self.ctx.count("texts_indexed", len(doc_ids))
        return last[1]

    def index_documents(self, corpus: dict[str, str]) -> DocumentStore | None:
        """The index hook: build what this kind itself stores per document at index time for
        ``corpus`` ({doc id: text}), in the same caches retrieval and reranking read (the embedding
        cache of ``self.ctx``; ``corpus_index`` for BM25 / TF-IDF), so that later ``retrieve`` /
        ``score_query_docs`` calls over these documents find them there; return what it stores and
        its size (``DocumentStore``). None (the default): nothing of its own per document (a
        cross-encoder scores every pair at query time; controls have no retrieval).

        Only this kind's own store: a reranker's first stage has its own hook, and ``index_parts``
        says whose stores make up a submission's index."""
        return None

    def index_parts(self) -> list[Scorer]:
        """The scorers whose ``index_documents`` together make up this submission's index, first
        stage first: a first stage itself; a reranker (a kind with ``first_stage``) its first
        stage's parts and itself. A part listed twice, or two stores with one key, count once."""
        first = getattr(self, "first_stage", None)
        return [*(first.index_parts() if isinstance(first, Scorer) else []), self]

    def score_query_docs(self, queries: list[str], docs: list[str]) -> np.ndarray:
        """s(queries[i], docs[i]) for every i, as retrieval scores a document for a query: the query
        side in the query role, the document side in the document role (paired query-document
        suites, e.g. NevIR). By default ``score_pairs(queries, docs)``, right for a kind without
        roles (controls, a toy kind); kinds whose roles differ (encoders' prompts, ColBERT's query
        expansion, BM25's query vs document) override it."""
        return self.score_pairs(queries, docs)

    def info(self) -> dict[str, Any]:
        """Provenance recorded in results (model revision, first stage, rerank depth, ...)."""
        return {}

    def fingerprints(self) -> dict[str, str]:
        """What determines the scores beyond the submission YAML (weights, checkpoints): results
        made with other fingerprints are recomputed, not resumed. None by default (BM25, TF-IDF)."""
        return {}


class ModelScorer(Scorer):
    """A kind whose submission names a model (its config has ``ModelFields``): the one lazy
    loader and the model's provenance. ``resolved`` resolves the reference once (one-line error for
    missing / hub-only models offline); ``model`` calls ``load_model`` once and turns the library's
    load errors (``load_errors``) into one line (``load_failure``); ``model_info`` and
    ``fingerprints`` record what was loaded."""

    config: ModelFields
    load_errors: ClassVar[tuple[type[Exception], ...]] = (OSError, ValueError)
    _model: Any = None
    _resolved: ResolvedModel | None = None

    @property
    def resolved(self) -> ResolvedModel:
        """The submission's ``model`` (and ``revision``) resolved once: ``./x`` and ``../x`` are
        folders next to the submission file; a bare ``org/name`` is a hub id."""
        if self._resolved is None:
            ref = self.config.model
            relative = ref in {".", ".."} or ref.startswith(("./", "../"))
            location = str(self.local_path(ref)) if relative else ref
            self._resolved = resolve_model(location, self.config.revision, source=self.source)
        return self._resolved

    def model_info(self) -> dict[str, Any]:
        """Provenance of the submission's ``model``: reference, source, revision, weights hash."""
        r = self.resolved
        return {"model": self.config.model, "model_source": r.source, "model_revision": r.revision, "weights_fingerprint": r.fingerprint}

    def fingerprints(self) -> dict[str, str]:
        return {"model": self.resolved.fingerprint}

    @abstractmethod
    def load_model(self, location: str) -> Any:
        """The library's model object, from a resolved local folder."""

    def load_failure(self, location: str, why: str) -> str:
        return f"cannot load a model from {self.config.model}: {why}"

    @property
    def model(self) -> Any:
        if self._model is None:
            location = self.resolved.location
            try:
                model = self.load_model(location)
            except CBenchError:
                raise
            except self.load_errors as e:
                why = (str(e).splitlines() or [type(e).__name__])[0]
                raise CBenchError(self.load_failure(location, why), source=self.source, field="model") from None
            self._model = model
        return self._model


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

    def retrieve(self, queries: dict[str, str], corpus: dict[str, str], top_k: int) -> Retrieval:
        doc_ids, q_ids = list(corpus), list(queries)
        d = self.embed([corpus[i] for i in doc_ids], "document")
        q = self.embed([queries[i] for i in q_ids], "query")
        return Retrieval(exact_search(q, d, q_ids, doc_ids, top_k, cosine=self.similarity == "cosine"))

    def score_pairs(self, a: list[str], b: list[str]) -> np.ndarray:
        # Near-miss pairs are symmetric sentence pairs: both sides use the query role.
        return self._rowwise(self.embed(a, "query", label="encoding pairs"), self.embed(b, "query", label="encoding pairs"))

    def score_query_docs(self, queries: list[str], docs: list[str]) -> np.ndarray:
        # As retrieval: queries in the query role, documents in the document role (prompts apply).
        return self._rowwise(self.embed(queries, "query", label="encoding queries"), self.embed(docs, "document", label="encoding documents"))

    def index_documents(self, corpus: dict[str, str]) -> DocumentStore | None:
        """One pooled vector per document (document role), float32 as stored in the cache and
        searched (``exact_search`` multiplies float32 matrices): documents x dim x 4 bytes."""
        d = self.embed(list(corpus.values()), "document", label="index")
        dim = int(d.shape[1]) if d.ndim == 2 and len(d) else 0
        return DocumentStore(f"pooled vectors {d.dtype} ({dim} dims)", int(d.nbytes), len(corpus), store_key("pooled", self.cache_spec("document")))

    def _rowwise(self, ea: np.ndarray, eb: np.ndarray) -> np.ndarray:
        """The similarity (cosine or dot) of row i of ``ea`` with row i of ``eb``."""
        if len(ea) != len(eb):
            raise ValueError(f"pair scores need lists of equal length, got {len(ea)} and {len(eb)}")
        if len(ea) == 0:
            return np.zeros(0, dtype=np.float64)
        if self.similarity == "cosine":
            ea = ea / np.maximum(np.linalg.norm(ea, axis=1, keepdims=True), 1e-12)
            eb = eb / np.maximum(np.linalg.norm(eb, axis=1, keepdims=True), 1e-12)
        return np.einsum("ij,ij->i", ea.astype(np.float64), eb.astype(np.float64))

