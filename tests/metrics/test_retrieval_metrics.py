import math

import pytest
import pytrec_eval

from harness.metrics.retrieval import cut, evaluate, per_query

QRELS = {"q1": {"a": 1, "b": 1, "z": 1}, "q2": {"c": 2, "d": 1}}
RUN = {"q1": {"a": 0.9, "x": 0.8, "b": 0.7}, "q2": {"y": 0.9, "d": 0.5, "c": 0.4}}


def test_ndcg_by_hand():
    # q1: rel at ranks 1 and 3 of 3 relevant: DCG = 1 + 1/log2(4); IDCG = 1 + 1/log2(3) + 1/log2(4)
    q1 = (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3) + 1 / math.log2(4))
    # q2 (graded, trec_eval uses gain = rel): d(1) at rank 2, c(2) at rank 3; ideal c, d
    q2 = (1 / math.log2(3) + 2 / math.log2(4)) / (2 + 1 / math.log2(3))
    rows = per_query(QRELS, RUN)
    assert rows["q1"]["ndcg@10"] == pytest.approx(q1)
    assert rows["q2"]["ndcg@10"] == pytest.approx(q2)
    assert rows["q1"]["mrr@10"] == 1.0 and rows["q2"]["mrr@10"] == 0.5
    assert rows["q1"]["recall@10"] == pytest.approx(2 / 3)
    assert evaluate(QRELS, RUN)["ndcg@10"] == pytest.approx((q1 + q2) / 2)


def test_matches_pytrec_eval_directly():
    ev = pytrec_eval.RelevanceEvaluator(QRELS, {"map_cut.100", "recall.100", "ndcg_cut.3"}).evaluate(RUN)
    rows = per_query(QRELS, RUN)
    for q in QRELS:
        assert rows[q]["map@100"] == ev[q]["map_cut_100"]
        assert rows[q]["recall@100"] == ev[q]["recall_100"]
        assert rows[q]["ndcg@3"] == ev[q]["ndcg_cut_3"]


def test_mrr_is_cut_at_10():
    run = {"q1": {f"n{i}": 1.0 - i / 100 for i in range(10)} | {"a": 0.0}}
    assert per_query({"q1": {"a": 1}}, run)["q1"]["mrr@10"] == 0.0
    assert len(cut(run, 10)["q1"]) == 10


def test_query_without_results_scores_zero():
    rows = per_query({"q1": {"a": 1}, "q2": {"b": 1}}, {"q1": {"a": 1.0}})
    assert rows["q2"]["ndcg@10"] == 0.0 and rows["q1"]["ndcg@10"] == 1.0
