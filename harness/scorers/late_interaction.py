"""`kind: late-interaction` - a ColBERT model through pylate: one vector per token, MaxSim.

Token embeddings are L2-normalised (pylate's default). Queries are padded with [MASK]
expansion tokens to ``query_length``; documents keep their tokens minus punctuation (pylate's
skiplist), at most ``document_length``.

MaxSim(q, d) = sum over query tokens of the best cosine with any document token.

Retrieval:
- exact (corpus <= ``exact_max_docs`` documents): every document is scored by MaxSim, in
  chunks of documents of similar length, so memory stays bounded;
- voyager (larger corpora): pylate's Voyager HNSW index over all document tokens proposes
  candidates (the ``k_token`` nearest document tokens of each query token, pylate's
  ``retrieve.ColBERT`` scheme); the candidates are then scored by the same exact MaxSim as
  above, so a document's score never depends on the search method. PLAID is not used: pylate
  1.2.0 builds it from C++ extensions compiled at run time. ``info()`` records which ran.

Pair scores (near-miss suite): s(a, b) = MaxSim(a as query, b as document) / number of query
tokens of ``a`` (``query_length`` after expansion), i.e. the mean over query tokens of the best
cosine in ``b``: within [-1, 1], comparable across pairs, 1 only when every query token has an
exact match in ``b``. Not symmetric.

Token embeddings are cached (harness.cache) as float16, per weights fingerprint, role and the
configured length of that role; scores are computed in float32.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
from pydantic import Field

from harness.cache import cached_encode
from harness.errors import CBenchError
from harness.models import ResolvedModel, check_remote_code, resolve_model
from harness.scorers.base import RunContext, Scorer, SubmissionBase

DOC_TOKENS_PER_CHUNK = 32_768  # padded document tokens scored at once
QUERY_CHUNK = 8  # queries scored at once (for 32-token queries; fewer when longer)


class LateInteractionConfig(SubmissionBase):
    kind: Literal["late-interaction"]
    model: str = Field(min_length=1, description="hub id or local folder of a pylate ColBERT model")
    revision: str | None = Field(default=None, description="hub revision (commit, tag or branch)")
    query_length: int | None = Field(default=None, gt=1, le=8192, description="query tokens incl. expansion; null = the model's")
    document_length: int | None = Field(default=None, gt=1, le=32768, description="document tokens; null = the model's")
    batch_size: int = Field(default=32, gt=0, le=4096)
    exact_max_docs: int = Field(default=20_000, ge=0, description="exact MaxSim search up to this many documents, a Voyager index above")
    k_token: int = Field(default=100, gt=0, le=10_000, description="voyager only: neighbours fetched per query token")
    trust_remote_code: bool = False


def _pad(rows: list[torch.Tensor], device: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Stack (n_i, d) tensors into (len, max n_i, d) float32 zeros-padded, plus a (len, max n_i) mask."""
    longest = max(max(r.shape[0] for r in rows), 1)
    padded = torch.zeros((len(rows), longest, rows[0].shape[1]), dtype=torch.float32)
    mask = torch.zeros((len(rows), longest), dtype=torch.bool)
    for i, r in enumerate(rows):
        padded[i, : r.shape[0]] = r.float()
        mask[i, : r.shape[0]] = True
    return padded.to(device), mask.to(device)


def maxsim(queries: list[torch.Tensor], docs: list[torch.Tensor], device: str = "cpu") -> torch.Tensor:
    """(len(queries), len(docs)) MaxSim scores. Each tensor is (tokens, dim); padding never counts.

    Documents are sorted by length and cut into chunks of at most DOC_TOKENS_PER_CHUNK padded
    tokens; queries go QUERY_CHUNK at a time, so memory is bounded by
    QUERY_CHUNK x query tokens x DOC_TOKENS_PER_CHUNK scores.
    """
    out = torch.zeros((len(queries), len(docs)), dtype=torch.float32)
    if not queries or not docs:
        return out
    order = sorted(range(len(docs)), key=lambda i: docs[i].shape[0])
    chunks: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = []
    start = 0
    while start < len(order):
        end = start + 1  # sorted by length: the last document of a chunk is its longest
        while end < len(order) and (end - start + 1) * max(docs[order[end]].shape[0], 1) <= DOC_TOKENS_PER_CHUNK:
            end += 1
        idx = order[start:end]
        padded, mask = _pad([docs[i] for i in idx], device)
        chunks.append((torch.tensor(idx), padded, mask))
        start = end
    q_chunk = max(1, QUERY_CHUNK // max(1, max(q.shape[0] for q in queries) // 32))
    with torch.inference_mode():
        for qs in range(0, len(queries), q_chunk):
            qpad, qmask = _pad(queries[qs : qs + q_chunk], device)
            for cols, padded, mask in chunks:
                sim = torch.einsum("ash,bth->abst", qpad, padded)  # (Q, B, Lq, Ld)
                sim = sim.masked_fill(~mask[None, :, None, :], float("-inf"))
                best = sim.max(dim=3).values  # (Q, B, Lq)
                best = torch.where(torch.isinf(best), torch.zeros_like(best), best)  # document without tokens
                best = best * qmask[:, None, :]
                out[qs : qs + qpad.shape[0], cols] = best.sum(dim=2).cpu()
    return out


def top_k(scores: torch.Tensor, q_ids: list[str], doc_ids: list[str], k: int) -> dict[str, dict[str, float]]:
    """Best k per row, ties broken by document id."""
    run: dict[str, dict[str, float]] = {}
    for r, qid in enumerate(q_ids):
        row = scores[r].tolist()
        ranked = sorted(range(len(doc_ids)), key=lambda j: (-row[j], doc_ids[j]))[:k]
        run[qid] = {doc_ids[j]: float(row[j]) for j in ranked}
    return run


def declared_length(folder: Path, key: str) -> int | None:
    try:
        value = json.loads((folder / "config_sentence_transformers.json").read_text()).get(key)
    except (OSError, ValueError):
        return None
    return value if isinstance(value, int) else None


class LateInteractionScorer(Scorer):
    kind = "late-interaction"
    Config = LateInteractionConfig

    def __init__(self, config: LateInteractionConfig, ctx: RunContext):
        super().__init__(config, ctx)
        self.cfg = config
        self._model = None
        self._resolved: ResolvedModel | None = None
        self.searches: set[str] = set()

    @property
    def source(self) -> str:
        return f"submission {self.cfg.name}"

    @property
    def resolved(self) -> ResolvedModel:
        if self._resolved is None:
            self._resolved = resolve_model(self.cfg.model, self.cfg.revision, source=self.source)
        return self._resolved

    @property
    def model(self):
        if self._model is None:
            from pylate import models

            location = self.resolved.location  # one-line error for hub-only models offline
            remote = check_remote_code(self.cfg.trust_remote_code, self.ctx.trust_remote_code, self.source)
            try:
                self._model = models.ColBERT(
                    model_name_or_path=location,
                    device=self.ctx.device,
                    trust_remote_code=remote,
                    query_length=self.cfg.query_length,
                    document_length=self.cfg.document_length,
                    local_files_only=True,
                )
            except (OSError, ValueError) as e:
                msg = str(e).splitlines()[0] if str(e) else type(e).__name__
                raise CBenchError(f"cannot load a ColBERT model from {self.cfg.model}: {msg}", source=self.source, field="model") from None
        return self._model

    # -- lengths -------------------------------------------------------------------------
    def length(self, role: str) -> int | None:
        """The effective query_length / document_length (without loading the model when possible)."""
        key = "query_length" if role == "query" else "document_length"
        configured = getattr(self.cfg, key)
        if configured is not None:
            return configured
        if self._model is not None:
            return getattr(self._model, key)
        return declared_length(Path(self.resolved.location), key)

    # -- token embeddings ----------------------------------------------------------------
    def cache_spec(self, role: str) -> dict:
        import pylate

        key = "query_length" if role == "query" else "document_length"
        return {
            "kind": "late-interaction-tokens",
            "weights": self.resolved.fingerprint,
            "role": role,
            key: getattr(self.cfg, key),  # None = the model's own (covered by the fingerprint)
            "pylate": pylate.__version__,
            "dtype": "float16",
        }

    def embed(self, texts: list[str], role: str, label: str = "encoding") -> list[torch.Tensor]:
        cache = self.ctx.cache(self.cache_spec(role))
        progress = self.ctx.progress
        task = progress.add(f"{label} ({role} tokens)", total=len(texts)) if progress else None

        def encode(batch: list[str]) -> list[np.ndarray]:
            embs = self.model.encode(
                batch,
                batch_size=self.cfg.batch_size,
                is_query=role == "query",
                show_progress_bar=False,
                convert_to_numpy=True,
            )
            return [np.asarray(e, dtype=np.float16).reshape(-1, np.asarray(e).shape[-1]) for e in embs]

        def advance(n: int) -> None:
            if task is not None:
                progress.advance(task, n)

        rows, n_encoded = cached_encode(cache, texts, encode, on_progress=advance)
        if task is not None:
            progress.finish(task)
        self.ctx.count("texts_encoded", n_encoded)
        return [torch.from_numpy(np.ascontiguousarray(r)) for r in rows]

    # -- scoring -------------------------------------------------------------------------
    def retrieve(self, queries: dict[str, str], corpus: dict[str, str], top_k_: int) -> dict[str, dict[str, float]]:
        doc_ids, q_ids = list(corpus), list(queries)
        if not q_ids:
            return {}
        if not doc_ids:
            return {q: {} for q in q_ids}
        docs = self.embed([corpus[d] for d in doc_ids], "document")
        qs = self.embed([queries[q] for q in q_ids], "query")
        if len(doc_ids) <= self.cfg.exact_max_docs:
            self.searches.add("exact")
            return top_k(maxsim(qs, docs, self.ctx.device), q_ids, doc_ids, top_k_)
        self.searches.add("voyager")
        return self._voyager(qs, docs, q_ids, doc_ids, top_k_)

    def _voyager(self, qs, docs, q_ids, doc_ids, k) -> dict[str, dict[str, float]]:
        from pylate import indexes

        dim = docs[0].shape[1]
        run: dict[str, dict[str, float]] = {}
        pos = {d: i for i, d in enumerate(doc_ids)}
        progress = self.ctx.progress
        with tempfile.TemporaryDirectory(prefix="cbench-voyager-") as tmp:
            index = indexes.Voyager(index_folder=tmp, index_name="index", override=True, embedding_size=dim)
            index.add_documents(documents_ids=doc_ids, documents_embeddings=[d.float().numpy() for d in docs])
            task = progress.add("voyager search", total=len(q_ids)) if progress else None
            for qid, q in zip(q_ids, qs, strict=True):
                found = index(queries_embeddings=[q.float().numpy()], k=self.cfg.k_token)["documents_ids"][0]
                cand = sorted({d for token_hits in found for d in token_hits}, key=pos.__getitem__)
                scores = maxsim([q], [docs[pos[d]] for d in cand], self.ctx.device)
                run.update(top_k(scores, [qid], cand, k))
                if task is not None:
                    progress.advance(task, 1)
            if task is not None:
                progress.finish(task)
        return run

    def score_pairs(self, a: list[str], b: list[str]) -> np.ndarray:
        if len(a) != len(b):
            raise ValueError(f"score_pairs needs lists of equal length, got {len(a)} and {len(b)}")
        if not a:
            return np.zeros(0, dtype=np.float64)
        qa = self.embed(a, "query", label="encoding pairs")
        db = self.embed(b, "document", label="encoding pairs")
        out = np.zeros(len(a), dtype=np.float64)
        device = self.ctx.device
        with torch.inference_mode():
            for i, (q, d) in enumerate(zip(qa, db, strict=True)):
                if q.shape[0] == 0 or d.shape[0] == 0:
                    continue
                sim = q.float().to(device) @ d.float().to(device).T
                out[i] = float(sim.max(dim=1).values.mean())
        return out

    def info(self) -> dict[str, Any]:
        import pylate

        r = self.resolved
        return {
            "model": self.cfg.model,
            "model_source": r.source,
            "model_revision": r.revision,
            "weights_fingerprint": r.fingerprint,
            "pylate_version": pylate.__version__,
            "query_length": self.length("query"),
            "document_length": self.length("document"),
            "similarity": "maxsim",
            "search": "+".join(sorted(self.searches)) or None,
            "exact_max_docs": self.cfg.exact_max_docs,
            "k_token": self.cfg.k_token if "voyager" in self.searches else None,
            "pair_score": "maxsim(a as query, b as document) / query tokens",
        }
