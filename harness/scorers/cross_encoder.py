"""`kind: cross-encoder` - a sentence-transformers CrossEncoder that reranks a first stage.

Retrieval: the submission named by ``first_stage`` retrieves its top ``rerank_depth`` documents
per query; the cross-encoder scores each (query, document) pair and the reranked list, cut to
``top_k``, is the run. Documents the first stage did not return are never returned, so the
cross-encoder only reorders first-stage candidates (and ``top_k`` above ``rerank_depth`` returns
``rerank_depth`` documents). Ties: harness.search's rule (score descending, id ascending).

Pair scores (near-miss suite): the cross-encoder's score of (a, b), after ``activation``
(sigmoid: in [0, 1]; none: the raw logit). Query-document pairs (``score_query_docs``): the same
score of (query, document), the input order reranking uses; the first stage is not run.

Scores are cached (harness.cache, one (1, 1) row per pair keyed by the JSON of the pair) per
weights fingerprint, max_length and activation, so a rerun scores nothing it scored before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field

from harness.cache import cached_encode
from harness.errors import CBenchError
from harness.model_refs import check_remote_code
from harness.names import NAME_PATTERN
from harness.run_context import RunContext
from harness.scorers.base import DocumentStore, ModelFields, ModelScorer, Retrieval, Scorer, config_hash
from harness.search import rank
from harness.ui import progress_bar


class CrossEncoderConfig(ModelFields):
    kind: Literal["cross-encoder"]
    max_length: int | None = Field(default=None, gt=0, le=32768, description="tokens of query + document; null = the model's")
    batch_size: int = Field(default=32, gt=0, le=4096)
    activation: Literal["sigmoid", "none"] = "sigmoid"
    first_stage: str = Field(pattern=NAME_PATTERN, description="name of the submission whose run is reranked")
    rerank_depth: int = Field(default=100, gt=0, le=10_000, description="first-stage documents reranked per query")
    trust_remote_code: bool = False


class CrossEncoderScorer(ModelScorer):
    kind = "cross-encoder"
    Config = CrossEncoderConfig
    colour = "#9467bd"  # leaderboard plot
    mteb_model_type = "cross-encoder"
    mteb_frameworks = ("Sentence Transformers",)
    parts = ("first_stage",)

    def __init__(self, config: CrossEncoderConfig, ctx: RunContext, base_dir: Path | None = None, *, path: Path | None = None, first_stage: Scorer):
        super().__init__(config, ctx, base_dir, path=path)
        self.cfg = config
        self._model = None
        self.first_stage = first_stage  # built by harness.submissions.registry.build_submission_scorer

    @property
    def source(self) -> str:
        return f"{self.path} (submission {self.cfg.name})" if self.path else f"submission {self.cfg.name}"

    def load_model(self, location: str) -> Any:
        import torch
        from sentence_transformers import CrossEncoder

        remote = check_remote_code(self.cfg.trust_remote_code, self.ctx.trust_remote_code, self.source)
        activation = torch.nn.Sigmoid() if self.cfg.activation == "sigmoid" else torch.nn.Identity()
        model = CrossEncoder(
            location,
            max_length=self.cfg.max_length,
            activation_fn=activation,
            device=self.ctx.device,
            trust_remote_code=remote,
            local_files_only=True,
        )
        if model.num_labels != 1:
            raise CBenchError(f"the model has {model.num_labels} output labels; a reranker needs exactly 1", source=self.source, field="model")
        return model

    def load_failure(self, location: str, why: str) -> str:
        return f"cannot load a cross-encoder from {self.cfg.model}: {why}"

    def cache_spec(self) -> dict:
        return {
            "kind": "cross-encoder-score",
            "weights": self.resolved.fingerprint,
            "max_length": self.cfg.max_length,
            "activation": self.cfg.activation,
        }

    def predict(self, pairs: list[tuple[str, str]], label: str) -> np.ndarray:
        """Scores of (query, document) pairs, read from the cache where possible."""
        if not pairs:
            return np.zeros(0, dtype=np.float64)
        cache = self.ctx.cache(self.cache_spec())
        keys = [json.dumps(p, ensure_ascii=False) for p in pairs]

        def score(batch: list[str]) -> list[np.ndarray]:
            todo = [tuple(json.loads(k)) for k in batch]
            s = self.model.predict(todo, batch_size=self.cfg.batch_size, show_progress_bar=False, convert_to_numpy=True)
            return [np.asarray([[v]], dtype=np.float32) for v in np.asarray(s, dtype=np.float32).reshape(-1)]

        with progress_bar(self.ctx.progress, label, len(keys)) as advance:
            rows, n_scored = cached_encode(cache, keys, score, on_progress=advance)
        self.ctx.count("pairs_scored", n_scored)
        return np.asarray([float(r[0, 0]) for r in rows], dtype=np.float64)

    def retrieve(self, queries: dict[str, str], corpus: dict[str, str], top_k: int) -> Retrieval:
        self.resolved  # noqa: B018 - a missing model fails before the first stage runs
        first = self.first_stage.retrieve(queries, corpus, self.cfg.rerank_depth).run
        pairs: list[tuple[str, str]] = []
        where: list[tuple[str, str]] = []
        for qid in queries:
            for did in rank(first.get(qid, {}), self.cfg.rerank_depth):
                pairs.append((queries[qid], corpus[did]))
                where.append((qid, did))
        scores = self.predict(pairs, "reranking")
        per_query: dict[str, list[tuple[str, float]]] = {qid: [] for qid in queries}
        for (qid, did), s in zip(where, scores.tolist(), strict=True):
            per_query[qid].append((did, s))
        return Retrieval({qid: rank(docs, top_k) for qid, docs in per_query.items()}, first_stage_run=first)

    def index_documents(self, corpus: dict[str, str]) -> DocumentStore | None:
        """Nothing: every (query, candidate) pair is a full forward pass at query time, so there is
        nothing to store per document (the index is its first stage's). Scores nothing either: the
        score cache must stay empty for the query timing."""
        return None

    def score_pairs(self, a: list[str], b: list[str]) -> np.ndarray:
        if len(a) != len(b):
            raise ValueError(f"score_pairs needs lists of equal length, got {len(a)} and {len(b)}")
        self.resolved  # noqa: B018
        return self.predict(list(zip(a, b, strict=True)), "scoring pairs")

    def score_query_docs(self, queries: list[str], docs: list[str]) -> np.ndarray:
        """The cross-encoder's score of (query, document), as when it reranks (no first stage:
        the suite names the candidates)."""
        if len(queries) != len(docs):
            raise ValueError(f"pair scores need lists of equal length, got {len(queries)} and {len(docs)}")
        self.resolved  # noqa: B018
        return self.predict(list(zip(queries, docs, strict=True)), "scoring query-document pairs")

    def fingerprints(self) -> dict[str, str]:
        return {"model": self.resolved.fingerprint, **{f"first_stage.{k}": v for k, v in self.first_stage.fingerprints().items()}}

    def info(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            **self.model_info(),
            "max_length": self.cfg.max_length if self._model is None else int(self._model.max_length),
            "activation": self.cfg.activation,
            "first_stage": self.cfg.first_stage,
            "first_stage_hash": config_hash(self.first_stage.config),
            "rerank_depth": self.cfg.rerank_depth,
            "first_stage_info": self.first_stage.info(),
        }
        return out
