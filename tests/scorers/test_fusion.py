"""`kind: fusion`: z1(s1) + w * z2(s2) with global affine maps, on every path (retrieval, pairs,
query-document pairs), and a fused run that equals its recomputation from the parts' kept runs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from harness.metrics.retrieval import evaluate
from harness.run_context import RunContext
from harness.runs import read_kept_runs
from harness.scorers.fusion import FusionConfig, fuse_runs
from harness.submissions import Registry, build_submission_scorer

from .conftest import QRELS, cbench, read_result, write_submission

NORMS = {"first_stage_norm": {"mean": 0.2, "scale": 0.05}, "verifier_norm": {"mean": 0.4, "scale": 0.1}}


@pytest.fixture
def subs(tmp_path, tiny_bert, tiny_cross_encoder):
    folder = tmp_path / "subs"
    write_submission(folder, {"name": "t-enc", "kind": "encoder", "model": str(tiny_bert)})
    write_submission(folder, {"name": "t-maxsim", "kind": "verifier", "first_stage": "t-enc", "encoder": "t-enc", "arch": "maxsim", "rerank_depth": 6})
    write_submission(folder, {"name": "t-ce", "kind": "cross-encoder", "model": str(tiny_cross_encoder), "first_stage": "bm25", "rerank_depth": 6})
    write_submission(folder, {"name": "t-fused", "kind": "fusion", "first_stage": "t-enc", "verifier": "t-maxsim", "rerank_depth": 6, "weight": 0.7, **NORMS})
    # a verifier that reranks another first stage: scored on this first stage's candidates
    write_submission(folder, {"name": "t-fused-ce", "kind": "fusion", "first_stage": "t-enc", "verifier": "t-ce", "rerank_depth": 6, "weight": 2.0, **NORMS})
    return folder


def scorer(folder, name):
    reg = Registry([folder])
    return build_submission_scorer(reg.get(name), RunContext(use_cache=False), reg)


def test_pairs_are_the_formula(subs):
    fused = scorer(subs, "t-fused")
    a, b = ["the red car", "a blue bicycle"], ["a red car is parked", "the bicycle is blue"]
    s1 = fused.first_stage.score_pairs(a, b)
    s2 = fused.verifier.score_pairs(a, b)
    assert fused.score_pairs(a, b) == pytest.approx((s1 - 0.2) / 0.05 + 0.7 * (s2 - 0.4) / 0.1, abs=1e-12)
    q1, q2 = fused.first_stage.score_query_docs(a, b), fused.verifier.score_query_docs(a, b)
    assert fused.score_query_docs(a, b) == pytest.approx((q1 - 0.2) / 0.05 + 0.7 * (q2 - 0.4) / 0.1, abs=1e-12)


def test_weight_zero_ranks_as_the_first_stage(subs):
    cfg = Registry([subs]).get("t-fused").config
    zero = FusionConfig.model_validate({**cfg.model_dump(), "weight": 0.0})
    first = {"q": {"a": 0.3, "b": 0.1, "c": 0.2}}
    second = {"q": {"a": 0.0, "b": 9.0, "c": 5.0}}
    fused = fuse_runs(first, second, zero)["q"]
    assert sorted(fused, key=fused.get, reverse=True) == ["a", "c", "b"]


def test_run_equals_recomputation_from_the_parts_kept_runs(subs, beir_dir, tmp_path):
    results = tmp_path / "r"
    r = cbench("run", "--model", "t-maxsim", "--model", "t-fused", "--suite", str(beir_dir), "--results-dir", str(results),
               "--top-k", "6", "--submissions-dir", str(subs), "--quiet")
    assert r.exit_code == 0, r.output
    fused_results = read_result(results, "t-fused")
    parts = read_kept_runs(results / "t-maxsim" / "tinybeir.json", read_result(results, "t-maxsim")["details"], "tinybeir")
    cfg = Registry([subs]).get("t-fused").config
    recomputed = fuse_runs(parts.first_stage, parts.run, cfg)
    own = read_kept_runs(results / "t-fused" / "tinybeir.json", fused_results["details"], "tinybeir")
    assert own.run == recomputed  # the same candidates, the same float64 scores
    assert own.first_stage == parts.first_stage
    qrels = {q: {d: 1} for q, d in QRELS.items()}
    assert evaluate(qrels, recomputed)["ndcg@10"] == pytest.approx(fused_results["datasets"]["tinybeir"]["ndcg@10"], abs=1e-12)
    info = fused_results["metadata"]["scorer"]
    assert info["same_candidates_as_verifier"] is True and info["weight"] == 0.7
    assert set(fused_results["metadata"]["fingerprints"]) >= {"first_stage.model", "verifier.encoder"}


def test_a_verifier_over_another_first_stage_scores_these_candidates(subs, beir_dir):
    from .conftest import QUERIES, corpus_texts

    fused = scorer(subs, "t-fused-ce")
    corpus = corpus_texts()
    out = fused.retrieve(QUERIES, corpus, 6)
    first = fused.first_stage.retrieve(QUERIES, corpus, 6).run
    assert out.first_stage_run == first
    for q, docs in first.items():
        ids = list(docs)
        s2 = fused.verifier.score_query_docs([QUERIES[q]] * len(ids), [corpus[d] for d in ids])
        want = (np.array([docs[d] for d in ids]) - 0.2) / 0.05 + 2.0 * (s2 - 0.4) / 0.1
        assert [out.run[q][d] for d in ids] == pytest.approx(want.tolist(), abs=1e-9)


def test_bad_fusion_yaml_is_one_line(subs, tmp_path):
    bad = tmp_path / "bad"
    write_submission(bad, {"name": "t-bad", "kind": "fusion", "first_stage": "t-enc", "verifier": "t-enc", "weight": -1, **NORMS})
    r = cbench("submissions", "validate", str(bad / "t-bad.yaml"))
    assert r.exit_code == 2
    assert "weight" in r.stderr and "Traceback" not in r.stderr


def test_fit_block_is_not_hashed(subs):
    reg = Registry([subs])
    base = reg.get("t-fused")
    from harness.scorers.base import config_hash

    fit = {
        "rule": "r", "budget": 0.01, "grid": [0.0, 1.0], "dev_suite": "d", "dev_datasets": {"x": 3}, "dev_query_ids_sha256": "sha256:0",
        "first_stage_dev": {"weight": 0.0, "ndcg@10": 0.5}, "verifier_dev": {"weight": None, "ndcg@10": 0.4},
        "dev": [{"weight": 0.0, "ndcg@10": 0.5}], "chosen": 0.0, "evaluator": "ranx", "command": "cbench fuse",
    }
    with_fit = FusionConfig.model_validate({**base.config.model_dump(), "fit": fit})
    assert config_hash(with_fit) == config_hash(base.config)
    json.dumps(with_fit.model_dump(mode="json"), allow_nan=False)  # results record it: no inf / nan
