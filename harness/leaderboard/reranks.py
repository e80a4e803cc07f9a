"""For index.html: the queries where a reranker helped or hurt most against its own first stage.

A reranker is any ranked submission whose config names a ``first_stage`` (verifiers). Per
retrieval suite, both submissions' per-query nDCG@10 (their per-item scores files) are paired by
dataset and query id. Query ids and the change only: the queries' texts are not in the repository.
The page shows each reranker's counts; the tables of queries (:func:`rerank_payload`) are in the
reranker's explorer file (``explorer.py``), loaded when it is picked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.errors import CBenchError
from harness.leaderboard.collect import Leaderboard
from harness.sidecar import main_values

TOP = 10


@dataclass(frozen=True)
class QueryDelta:
    dataset: str
    query: str
    first: float
    reranked: float

    @property
    def delta(self) -> float:
        return self.reranked - self.first


@dataclass
class Rerank:
    suite: str
    label: str
    metric: str
    reranker: str
    first_stage: str
    queries: int = 0
    helped: int = 0
    hurt: int = 0
    mean_delta: float | None = None
    top_helped: list[QueryDelta] = field(default_factory=list)
    top_hurt: list[QueryDelta] = field(default_factory=list)
    note: str | None = None  # why there are no queries to show

    @property
    def key(self) -> str:
        return f"{self.reranker} · {self.label}"


def _per_query(lb: Leaderboard, name: str, suite: str) -> dict[tuple[str, str], float] | str:
    if lb.scored is None:
        return "no per-query scores read"
    got = lb.scored.get(name, suite)
    if isinstance(got, CBenchError):
        return f"{name}: {got.message}"
    r, by_ds = got
    out: dict[tuple[str, str], float] = {}
    for ds in r.datasets:
        items = by_ds.get(ds, [])
        values = main_values(items, r.main_metric)
        if values is None:
            return f"{name}: dataset {ds} has no per-query {r.main_metric}"
        out.update({(ds, it.id): v for it, v in zip(items, values, strict=True)})
    return out


def rerank(lb: Leaderboard, suite: str, name: str, first_stage: str) -> Rerank:
    r = lb.results[(name, suite)]
    out = Rerank(suite, lb.label(suite), r.main_metric, name, first_stage)
    if (first_stage, suite) not in lb.results:
        out.note = f"its first stage {first_stage} has no {suite} results"
        return out
    mine, theirs = _per_query(lb, name, suite), _per_query(lb, first_stage, suite)
    for got in (mine, theirs):
        if isinstance(got, str):
            out.note = got
            return out
    assert isinstance(mine, dict) and isinstance(theirs, dict)
    if set(mine) != set(theirs):
        out.note = f"{name} and {first_stage} were scored on different queries (e.g. another --limit-queries)"
        return out
    order = {ds: i for i, ds in enumerate(r.datasets)}
    pairs = [QueryDelta(ds, q, theirs[(ds, q)], v) for (ds, q), v in mine.items()]
    out.queries = len(pairs)
    out.helped = sum(1 for p in pairs if p.delta > 0)
    out.hurt = sum(1 for p in pairs if p.delta < 0)
    out.mean_delta = sum(p.delta for p in pairs) / len(pairs) if pairs else None
    out.top_helped = sorted((p for p in pairs if p.delta > 0), key=lambda p: (-p.delta, order[p.dataset], p.query))[:TOP]
    out.top_hurt = sorted((p for p in pairs if p.delta < 0), key=lambda p: (p.delta, order[p.dataset], p.query))[:TOP]
    return out


def reranks(lb: Leaderboard) -> list[Rerank]:
    """Every ranked reranker on every retrieval suite it has results for, in page order."""
    out = []
    for suite in lb.suites_of("retrieval"):
        for row in lb.rows:
            r = lb.results.get((row.submission, suite))
            first = r.metadata.submission_config.get("first_stage") if r is not None else None
            if isinstance(first, str) and first:
                out.append(rerank(lb, suite, row.submission, first))
    return out


def rerank_payload(r: Rerank) -> dict:
    """The tables of one reranker on one suite, for its explorer file: (dataset, query, first stage's
    score, reranked score) per row, largest change first."""
    def rows(qs: list[QueryDelta]) -> list[list]:
        return [[q.dataset, q.query, q.first, q.reranked] for q in qs]

    return {"suite": r.suite, "first_stage": r.first_stage, "helped": rows(r.top_helped), "hurt": rows(r.top_hurt)}
