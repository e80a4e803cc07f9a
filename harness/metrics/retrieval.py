"""Retrieval metrics, all computed by pytrec_eval (trec_eval's own code).

cbench name -> trec_eval measure. MRR@10 is trec_eval's ``recip_rank`` on the run cut to its top
10 (trec_eval's recip_rank has no cutoff of its own). Every value is the mean over the queries
that have relevance judgements.
"""

from __future__ import annotations

import pytrec_eval

METRICS: dict[str, str] = {
    "ndcg@1": "ndcg_cut_1",
    "ndcg@3": "ndcg_cut_3",
    "ndcg@5": "ndcg_cut_5",
    "ndcg@10": "ndcg_cut_10",
    "ndcg@100": "ndcg_cut_100",
    "recall@10": "recall_10",
    "recall@100": "recall_100",
    "map@100": "map_cut_100",
}
MEASURES = {"ndcg_cut.1,3,5,10,100", "recall.10,100", "map_cut.100"}
MAIN_METRIC = "ndcg@10"
ALL_METRICS = [*METRICS, "mrr@10"]


def cut(run: dict[str, dict[str, float]], k: int) -> dict[str, dict[str, float]]:
    """Keep each query's top-k in trec_eval's own evaluation order (ties: doc id descending).

    Not a ranking of the harness (that is harness.search.rank: ties by id ascending): trec_eval
    re-sorts every run it evaluates by its own rule, so the cut for MRR@10 must keep the 10
    documents trec_eval itself ranks first, or MRR@10 would disagree with nDCG@10 on ties."""
    out = {}
    for qid, docs in run.items():
        ranked = sorted(docs.items(), key=lambda kv: (-kv[1], _neg(kv[0])))[:k]
        out[qid] = dict(ranked)
    return out


def _neg(doc_id: str) -> tuple:
    # trec_eval breaks score ties by docno in descending strcmp order
    return tuple(-b for b in doc_id.encode())


def per_query(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """{query_id: {metric: value}} for every judged query (an empty ranking scores 0)."""
    run = {q: run.get(q, {}) or {"__cbench_none__": 0.0} for q in qrels}
    main = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
    mrr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(cut(run, 10))
    out: dict[str, dict[str, float]] = {}
    for qid in qrels:
        row = {name: float(main[qid][measure]) for name, measure in METRICS.items()}
        row["mrr@10"] = float(mrr[qid]["recip_rank"])
        out[qid] = row
    return out


def mean(rows: dict[str, dict[str, float]]) -> dict[str, float]:
    """Mean of each metric over the rows of ``per_query`` (empty when there are none)."""
    n = len(rows)
    return {name: sum(r[name] for r in rows.values()) / n for name in ALL_METRICS} if n else {}


def evaluate(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, float]:
    """Mean of each metric over judged queries."""
    return mean(per_query(qrels, run))
