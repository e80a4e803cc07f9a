"""`kind: fusion` - a first stage and a reranker ("verifier") combined by score interpolation.

    fused(q, d) = z1(s1(q, d)) + weight * z2(s2(q, d)),   z(s) = (s - mean) / scale

``s1`` is the ``first_stage``'s score, ``s2`` the ``verifier``'s (any submission that scores a
query against a document: a token-map verifier, a cross-encoder, a late-interaction model). Each z
is ONE global affine map (the part's mean and standard deviation over development candidates,
written by ``cbench fuse`` with ``weight``), not a per-query normalisation: a near-miss pair or a
cache lookup has no candidate list to normalise over, and the same function scores every suite.
weight 0 ranks as the first stage; a large weight approaches the verifier alone.

- Retrieval: the first stage's top ``rerank_depth`` per query, each scored by both parts and
  re-sorted by the fused score (documents outside that depth are never considered). When the
  verifier is itself a reranker over the same first stage and depth (every shipped one), its own
  ``retrieve`` gives both parts' scores at once: the candidates and scores are then exactly those
  of its results and kept runs, so the fused run can be recomputed from the two kept runs.
- Near-miss pairs (``score_pairs``) and query-document pairs (``score_query_docs``): each part's
  score of the pair, fused the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from harness.errors import CBenchError
from harness.names import NAME_PATTERN
from harness.run_context import RunContext
from harness.scorers.base import Retrieval, Scorer, SubmissionBase, config_hash
from harness.search import rank

Run = dict[str, dict[str, float]]


class Affine(BaseModel):
    """z(s) = (s - mean) / scale: one part's global normalisation, fitted on development candidates."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mean: float = Field(allow_inf_nan=False)
    scale: float = Field(gt=0, allow_inf_nan=False, description="the standard deviation of the part's scores over the development candidates")
    n: int | None = Field(default=None, ge=1, description="(query, candidate) pairs they were measured on")

    def apply(self, s: np.ndarray) -> np.ndarray:
        return (np.asarray(s, dtype=np.float64) - self.mean) / self.scale


class DevPoint(BaseModel):
    """One point of the development sweep."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    weight: float | None = Field(ge=0, allow_inf_nan=False, description="w; null: the verifier alone (w -> infinity)")
    ndcg_at_10: float = Field(alias="ndcg@10", description="mean over the development datasets")
    datasets: dict[str, float] = Field(default_factory=dict, description="nDCG@10 per development dataset")


class FusionFit(BaseModel):
    """How ``cbench fuse`` chose the constants (descriptive: not part of the submission hash)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    rule: str
    budget: float = Field(ge=0)
    grid: list[float] = Field(min_length=1)
    dev_suite: str
    dev_datasets: dict[str, int] = Field(description="development dataset -> judged queries used")
    dev_queries_excluded: dict[str, int] = Field(default_factory=dict, description="dataset -> development queries left out (their text equals a test query's)")
    dev_query_ids_sha256: str = Field(description="sha256 of the sorted 'dataset/query id' lines of the queries used")
    first_stage_dev: DevPoint
    verifier_dev: DevPoint = Field(description="the verifier alone (reranking the same candidates)")
    dev: list[DevPoint] = Field(description="every weight of the grid on the development queries")
    chosen: float
    evaluator: str = Field(description="the library that fused and evaluated the development runs")
    command: str


class FusionConfig(SubmissionBase):
    kind: Literal["fusion"]
    first_stage: str = Field(pattern=NAME_PATTERN, description="submission whose top rerank_depth are fused and re-sorted")
    verifier: str = Field(pattern=NAME_PATTERN, description="submission whose score of (query, document) is fused with the first stage's")
    rerank_depth: int = Field(default=100, gt=0, le=10_000)
    weight: float = Field(ge=0, allow_inf_nan=False, description="w in z1(s1) + w * z2(s2)")
    first_stage_norm: Affine
    verifier_norm: Affine
    fit: FusionFit | None = Field(default=None, description="how cbench fuse set weight and the norms (descriptive)")

    @field_validator("verifier")
    @classmethod
    def _not_itself(cls, v: str, info):
        if v == info.data.get("first_stage"):
            raise ValueError("the verifier must be another submission than the first stage")
        return v


def fuse_scores(s1: np.ndarray, s2: np.ndarray, cfg: FusionConfig) -> np.ndarray:
    """z1(s1) + weight * z2(s2), elementwise, in float64 (the one formula every path uses)."""
    return cfg.first_stage_norm.apply(s1) + cfg.weight * cfg.verifier_norm.apply(s2)


def fuse_runs(first: Run, second: Run, cfg: FusionConfig) -> Run:
    """The fused score of every candidate of ``first`` (``second`` must score the same candidates)."""
    out: Run = {}
    for qid, docs in first.items():
        other = second.get(qid, {})
        if set(other) != set(docs):
            missing = sorted(set(docs) ^ set(other))[:3]
            raise CBenchError(
                f"the verifier's run does not score the first stage's candidates of query '{qid}' (e.g. {', '.join(missing)})",
                source=f"submission {cfg.name}",
                field="verifier",
            )
        ids = list(docs)
        fused = fuse_scores(np.array([docs[d] for d in ids]), np.array([other[d] for d in ids]), cfg)
        out[qid] = dict(zip(ids, fused.tolist(), strict=True))
    return out


def reranks_same_candidates(verifier: Scorer, first_stage: str, depth: int) -> bool:
    """Whether ``verifier`` is a reranker of ``first_stage``'s top ``depth`` (its retrieve then
    scores exactly the candidates a fusion over that first stage fuses)."""
    cfg = verifier.config
    return "first_stage" in type(verifier).parts and getattr(cfg, "first_stage", None) == first_stage and getattr(cfg, "rerank_depth", None) == depth


class FusionScorer(Scorer):
    kind = "fusion"
    Config = FusionConfig
    colour = "#17becf"  # leaderboard plot
    mteb_model_type = "cross-encoder"  # a reranker: its parts are listed in the results' scorer info
    parts = ("first_stage", "verifier")

    def __init__(
        self,
        config: FusionConfig,
        ctx: RunContext,
        base_dir: Path | None = None,
        *,
        path: Path | None = None,
        first_stage: Scorer,
        verifier: Scorer,
    ):
        super().__init__(config, ctx, base_dir, path=path)
        self.cfg = config
        self.first_stage = first_stage  # both built by harness.submissions.registry.build_submission_scorer
        self.verifier = verifier
        if verifier.is_control or first_stage.is_control:
            raise CBenchError("a control cannot be a part of a fusion (it has no retrieval)", source=f"submission {config.name}", field="verifier")

    def part_runs(self, queries: dict[str, str], corpus: dict[str, str]) -> tuple[Run, Run]:
        """(the first stage's run of its top ``rerank_depth``, the verifier's scores of the same
        candidates), through the verifier's own ``retrieve`` when it reranks this first stage."""
        depth = self.cfg.rerank_depth
        if reranks_same_candidates(self.verifier, self.cfg.first_stage, depth):
            r = self.verifier.retrieve(queries, corpus, depth)  # every candidate kept: top_k = rerank_depth
            if r.first_stage_run is None:
                raise CBenchError("the verifier returned no first-stage run", source=f"submission {self.cfg.name}", field="verifier")
            return r.first_stage_run, r.run
        first = self.first_stage.retrieve(queries, corpus, depth).run
        pairs = [(qid, did) for qid, docs in first.items() for did in docs]
        scores = self.verifier.score_query_docs([queries[q] for q, _ in pairs], [corpus[d] for _, d in pairs]) if pairs else np.zeros(0)
        second: Run = {qid: {} for qid in first}
        for (qid, did), s in zip(pairs, np.asarray(scores, dtype=np.float64).tolist(), strict=True):
            second[qid][did] = s
        return first, second

    def retrieve(self, queries: dict[str, str], corpus: dict[str, str], top_k: int) -> Retrieval:
        first, second = self.part_runs(queries, corpus)
        fused = fuse_runs(first, second, self.cfg)
        return Retrieval({qid: rank(docs, top_k) for qid, docs in fused.items()}, first_stage_run=first)

    def index_parts(self) -> list[Scorer]:
        """The first stage's parts, then the verifier's own store (not its first stage's: a fusion
        scores the verifier on its own first stage's candidates; when the two first stages are one
        submission, it is counted once)."""
        verifier = self.verifier.index_parts()
        behind = getattr(self.verifier, "first_stage", None)
        own = verifier[len(behind.index_parts()) :] if isinstance(behind, Scorer) else verifier
        return [*self.first_stage.index_parts(), *own]

    def score_pairs(self, a: list[str], b: list[str]) -> np.ndarray:
        return fuse_scores(self.first_stage.score_pairs(a, b), self.verifier.score_pairs(a, b), self.cfg)

    def score_query_docs(self, queries: list[str], docs: list[str]) -> np.ndarray:
        return fuse_scores(self.first_stage.score_query_docs(queries, docs), self.verifier.score_query_docs(queries, docs), self.cfg)

    def fingerprints(self) -> dict[str, str]:
        out = {f"first_stage.{k}": v for k, v in self.first_stage.fingerprints().items()}
        out.update({f"verifier.{k}": v for k, v in self.verifier.fingerprints().items()})
        return out

    def info(self) -> dict[str, Any]:
        c = self.cfg
        return {
            "first_stage": c.first_stage,
            "first_stage_hash": config_hash(self.first_stage.config),
            "verifier": c.verifier,
            "verifier_hash": config_hash(self.verifier.config),
            "rerank_depth": c.rerank_depth,
            "fusion": "z1(s1) + weight * z2(s2), z(s) = (s - mean) / scale, one global map per part",
            "weight": c.weight,
            "first_stage_norm": c.first_stage_norm.model_dump(mode="json"),
            "verifier_norm": c.verifier_norm.model_dump(mode="json"),
            "same_candidates_as_verifier": reranks_same_candidates(self.verifier, c.first_stage, c.rerank_depth),
            "first_stage_info": self.first_stage.info(),
            "verifier_info": self.verifier.info(),
        }
