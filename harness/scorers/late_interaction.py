"""`kind: late-interaction` - a ColBERT model through pylate: one vector per token, MaxSim.

Token embeddings are L2-normalised (pylate's default). Queries are padded with [MASK]
expansion tokens to ``query_length``; documents keep their tokens minus punctuation (pylate's
skiplist), at most ``document_length``.

MaxSim(q, d) = sum over query tokens of the best cosine with any document token.

Retrieval:
- exact (corpus <= ``exact_max_docs`` documents): every document is scored by MaxSim, in
  chunks of documents of similar length, so memory stays bounded;
- voyager (larger corpora): an HNSW index (voyager, cosine) over all document tokens proposes
  candidates: the documents of the ``k_token`` nearest document tokens of each query token
  (the scheme of pylate's ``indexes.Voyager`` + ``retrieve.ColBERT``); the candidates are then
  scored by the same exact MaxSim as above, so a document's score never depends on the search
  method. voyager is called directly because pylate 1.2.0's Voyager wrapper passes lists
  where voyager 2.x wants arrays (``add_items`` raises TypeError), and it also needs no
  SQLite files. PLAID is not used: pylate 1.2.0 builds it from C++ extensions compiled at run
  time. ``info()`` records which search ran.

Pair scores (near-miss suite): s(a, b) = MaxSim(a as query, b as document) / number of query
tokens of ``a`` (``query_length`` after expansion), i.e. the mean over query tokens of the best
cosine in ``b``: within [-1, 1], comparable across pairs, 1 only when every query token has an
exact match in ``b``. Not symmetric. Query-document pairs (``score_query_docs``) are scored the
same way (a query against a document is what the roles were made for).

Token embeddings are cached (harness.cache) as float16, per weights fingerprint, role and the
configured length of that role; scores are computed in float32.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
from pydantic import Field

from harness.model_refs import check_remote_code, declared_int
from harness.run_context import RunContext
from harness.scorers.base import DocumentStore, ModelFields, ModelScorer, Retrieval, store_key
from harness.search import rank_row
from harness.ui import progress_bar

DOC_TOKENS_PER_CHUNK = 32_768  # padded document tokens scored at once
QUERY_CHUNK = 8  # queries scored at once (for 32-token queries; fewer when longer)
QUERY_BLOCK = 256  # queries whose full score rows are held at once (exact search)


class LateInteractionConfig(ModelFields):  # model: a pylate ColBERT model
    kind: Literal["late-interaction"]
    query_length: int | None = Field(default=None, gt=1, le=8192, description="query tokens incl. expansion; null = the model's")
    document_length: int | None = Field(default=None, gt=1, le=32768, description="document tokens; null = the model's")
    batch_size: int = Field(default=32, gt=0, le=4096)
    exact_max_docs: int = Field(default=20_000, ge=0, description="exact MaxSim search up to this many documents, a Voyager index above")
    k_token: int = Field(default=100, gt=0, le=10_000, description="voyager only: neighbours fetched per query token")
    trust_remote_code: bool = False


PAD_SCORE = -1.0e4  # what a padding position scores against any query token (cosines are >= -1)


def _pad(rows: list[torch.Tensor], device: str, *, queries: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """Stack (n_i, d) tensors into a zero-padded (len, max n_i, d + 1) float32 tensor plus a mask.

    The extra last column is 1 for query rows; for document rows it is 0 at real tokens and
    PAD_SCORE at padding, so a plain matrix product already gives every padding
    position PAD_SCORE and the max over document tokens never picks one (no masking pass).
    """
    longest = max(max(r.shape[0] for r in rows), 1)
    padded = torch.zeros((len(rows), longest, rows[0].shape[1] + 1), dtype=torch.float32)
    mask = torch.zeros((len(rows), longest), dtype=torch.bool)
    for i, r in enumerate(rows):
        padded[i, : r.shape[0], :-1] = r.float()
        mask[i, : r.shape[0]] = True
    padded[..., -1] = 1.0 if queries else torch.where(mask, 0.0, PAD_SCORE)
    return padded.to(device), mask.to(device)


class PaddedDocs:
    """Document token matrices, sorted by length and padded into chunks once, scored many times.

    A chunk holds at most DOC_TOKENS_PER_CHUNK padded tokens; queries are scored a few at a time,
    so memory beyond the documents themselves is bounded by
    QUERY_CHUNK x query tokens x DOC_TOKENS_PER_CHUNK scores.
    """

    def __init__(self, docs: list[torch.Tensor], device: str = "cpu"):
        self.n = len(docs)
        self.device = device
        self.chunks: list[tuple[torch.Tensor, torch.Tensor]] = []
        order = sorted(range(len(docs)), key=lambda i: docs[i].shape[0])
        start = 0
        while start < len(order):
            end = start + 1  # sorted by length: the last document of a chunk is its longest
            while end < len(order) and (end - start + 1) * max(docs[order[end]].shape[0], 1) <= DOC_TOKENS_PER_CHUNK:
                end += 1
            idx = order[start:end]
            padded, _ = _pad([docs[i] for i in idx], device, queries=False)
            self.chunks.append((torch.tensor(idx), padded))
            start = end

    def scores(self, queries: list[torch.Tensor]) -> torch.Tensor:
        """(len(queries), n) MaxSim scores, float32 on the CPU."""
        out = torch.zeros((len(queries), self.n), dtype=torch.float32)
        if not queries or not self.n:
            return out
        q_chunk = max(1, QUERY_CHUNK * 32 // max(32, max(q.shape[0] for q in queries)))
        with torch.inference_mode():
            for qs in range(0, len(queries), q_chunk):
                qpad, qmask = _pad(queries[qs : qs + q_chunk], self.device, queries=True)
                nq, lq, h = qpad.shape
                flat_q = qpad.reshape(nq * lq, h)
                for cols, padded in self.chunks:
                    b, ld, _ = padded.shape
                    sim = (flat_q @ padded.reshape(b * ld, h).T).reshape(nq, lq, b, ld)
                    best = sim.amax(dim=3)  # (Q, Lq, B)
                    best = torch.where(best <= PAD_SCORE / 2, torch.zeros_like(best), best)  # document without tokens
                    out[qs : qs + nq, cols] = (best * qmask[:, :, None]).sum(dim=1).cpu()
        return out


def maxsim(queries: list[torch.Tensor], docs: list[torch.Tensor], device: str = "cpu") -> torch.Tensor:
    """(len(queries), len(docs)) MaxSim scores. Each tensor is (tokens, dim); padding never counts."""
    return PaddedDocs(docs, device).scores(queries)


def top_k(scores: torch.Tensor, q_ids: list[str], doc_ids: list[str], k: int) -> dict[str, dict[str, float]]:
    """Best k per row (harness.search's tie rule)."""
    rows = scores.numpy()
    return {qid: rank_row(rows[r], doc_ids, k) for r, qid in enumerate(q_ids)}


class LateInteractionScorer(ModelScorer):
    kind = "late-interaction"
    Config = LateInteractionConfig
    colour = "#d62728"  # leaderboard plot
    mteb_model_type = "late-interaction"
    mteb_frameworks = ("PyLate",)

    def __init__(self, config: LateInteractionConfig, ctx: RunContext, base_dir: Path | None = None, *, path: Path | None = None):
        super().__init__(config, ctx, base_dir, path=path)
        self.cfg = config
        self._model = None
        self.searches: set[str] = set()



    def load_model(self, location: str) -> Any:
        from pylate import models

        remote = check_remote_code(self.cfg.trust_remote_code, self.ctx.trust_remote_code, self.source)
        return models.ColBERT(
            model_name_or_path=location,
            device=self.ctx.device,
            trust_remote_code=remote,
            query_length=self.cfg.query_length,
            document_length=self.cfg.document_length,
            local_files_only=True,
        )

    def load_failure(self, location: str, why: str) -> str:
        return f"cannot load a ColBERT model from {self.cfg.model}: {why}"

    # -- lengths -------------------------------------------------------------------------
    def length(self, role: str) -> int | None:
        """The effective query_length / document_length (without loading the model when possible)."""
        key = "query_length" if role == "query" else "document_length"
        configured = getattr(self.cfg, key)
        if configured is not None:
            return configured
        if self._model is not None:
            return getattr(self._model, key)
        return declared_int(Path(self.resolved.location), "config_sentence_transformers.json", key)

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
        def encode(batch: list[str]) -> list[np.ndarray]:
            embs = self.model.encode(
                batch,
                batch_size=self.cfg.batch_size,
                is_query=role == "query",
                show_progress_bar=False,
                convert_to_numpy=True,
            )
            return [np.asarray(e, dtype=np.float16).reshape(-1, np.asarray(e).shape[-1]) for e in embs]

        rows = self.cached_rows(self.cache_spec(role), texts, encode, f"{label} ({role} tokens)")
        return [torch.from_numpy(np.ascontiguousarray(r)) for r in rows]

    def index_documents(self, corpus: dict[str, str]) -> DocumentStore | None:
        """Every document's token embeddings (document role, at most ``document_length``, the
        skiplist applied), float16 as cached and read by MaxSim: tokens x dim x 2 bytes."""
        rows = self.embed(list(corpus.values()), "document", label="index")
        tokens = sum(int(r.shape[0]) for r in rows)
        dim = int(rows[0].shape[1]) if rows else 0
        mean = tokens / len(rows) if rows else 0.0
        dtype = str(rows[0].dtype).removeprefix("torch.") if rows else "float16"
        what = f"document token embeddings {dtype} (mean {mean:.0f} tokens x {dim} dims)"
        nbytes = sum(int(r.numel()) * int(r.element_size()) for r in rows)
        return DocumentStore(what, nbytes, len(rows), store_key("tokens", self.cache_spec("document")))

    # -- scoring -------------------------------------------------------------------------
    def retrieve(self, queries: dict[str, str], corpus: dict[str, str], top_k_: int) -> Retrieval:
        doc_ids, q_ids = list(corpus), list(queries)
        if not q_ids:
            return Retrieval({})
        if not doc_ids:
            return Retrieval({q: {} for q in q_ids})
        docs = self.embed([corpus[d] for d in doc_ids], "document")
        qs = self.embed([queries[q] for q in q_ids], "query")
        if len(doc_ids) <= self.cfg.exact_max_docs:
            self.searches.add("exact")
            padded = PaddedDocs(docs, self.ctx.device)
            run: dict[str, dict[str, float]] = {}
            for start in range(0, len(q_ids), QUERY_BLOCK):  # bounded (block x documents) score matrix
                block = slice(start, start + QUERY_BLOCK)
                run.update(top_k(padded.scores(qs[block]), q_ids[block], doc_ids, top_k_))
            return Retrieval(run)
        self.searches.add("voyager")
        return Retrieval(self._voyager(qs, docs, q_ids, doc_ids, top_k_))

    def _voyager(self, qs, docs, q_ids, doc_ids, k) -> dict[str, dict[str, float]]:
        """Candidates from an HNSW index over all document tokens, then exact MaxSim on them."""
        from voyager import Index, Space

        token_doc = np.concatenate([np.full(d.shape[0], i, dtype=np.int64) for i, d in enumerate(docs)])
        vectors = torch.cat([d.float() for d in docs]).numpy()
        index = Index(Space.Cosine, num_dimensions=vectors.shape[1], M=64, ef_construction=200)
        index.add_items(np.ascontiguousarray(vectors, dtype=np.float32), ids=list(range(len(vectors))))
        k_token = min(self.cfg.k_token, len(vectors))
        run: dict[str, dict[str, float]] = {}
        with progress_bar(self.ctx.progress, "voyager search", len(q_ids)) as advance:
            for qid, q in zip(q_ids, qs, strict=True):
                ids, _ = index.query(np.ascontiguousarray(q.float().numpy()), k=k_token, query_ef=max(200, k_token))
                cand = np.unique(token_doc[np.asarray(ids, dtype=np.int64).reshape(-1)]).tolist()
                scores = maxsim([q], [docs[i] for i in cand], self.ctx.device)
                run.update(top_k(scores, [qid], [doc_ids[i] for i in cand], k))
                advance()
        return run

    def score_pairs(self, a: list[str], b: list[str]) -> np.ndarray:
        return self._pair_maxsim(a, b, "encoding pairs")

    def score_query_docs(self, queries: list[str], docs: list[str]) -> np.ndarray:
        """MaxSim(query as query, document as document) / query tokens: for one query, the
        documents' order is retrieval's (the division is by the query's own token count)."""
        return self._pair_maxsim(queries, docs, "encoding query-document pairs")

    def _pair_maxsim(self, a: list[str], b: list[str], label: str) -> np.ndarray:
        if len(a) != len(b):
            raise ValueError(f"score_pairs needs lists of equal length, got {len(a)} and {len(b)}")
        if not a:
            return np.zeros(0, dtype=np.float64)
        qa = self.embed(a, "query", label=label)
        db = self.embed(b, "document", label=label)
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

        return {
            **self.model_info(),
            "pylate_version": pylate.__version__,
            "query_length": self.length("query"),
            "document_length": self.length("document"),
            "similarity": "maxsim",
            "search": "+".join(sorted(self.searches)) or None,
            "exact_max_docs": self.cfg.exact_max_docs,
            "k_token": self.cfg.k_token if "voyager" in self.searches else None,
            "pair_score": "maxsim(a as query, b as document) / query tokens",
        }
