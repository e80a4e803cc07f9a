"""NearMissEvaluator: equals `cbench run`'s main score; composes in a SequentialEvaluator."""

from __future__ import annotations

import json

import yaml

from .conftest import cbench


def test_equals_cbench_run_main_score(tiny_st, nearmiss_suite, tmp_path):
    from sentence_transformers import SentenceTransformer

    from harness import NearMissEvaluator

    sub = tmp_path / "subs" / "tiny.yaml"
    sub.parent.mkdir()
    sub.write_text(yaml.safe_dump({"name": "tiny", "kind": "encoder", "model": str(tiny_st)}))
    r = cbench("run", "--model", sub, "--suite", nearmiss_suite, "--results-dir", tmp_path / "res", "--quiet")
    assert r.exit_code == 0, r.stderr
    result = json.loads((tmp_path / "res" / "tiny" / "tinynm.json").read_text())

    ev = NearMissEvaluator.from_suite(str(nearmiss_suite))
    metrics = ev(SentenceTransformer(str(tiny_st), device="cpu"))
    assert ev.primary_metric == "tinynm_triplet_accuracy"
    assert abs(metrics[ev.primary_metric] - result["main_score"]) <= 1e-6
    for key in ("auroc", "false_accept@95", "triplet_accuracy"):
        assert abs(metrics[f"tinynm_{key}"] - result["aggregate"][key]) <= 1e-6, key
    assert set(result["datasets"]) == {"negation", "swap"}
    assert abs(metrics["tinynm_swap_triplet_accuracy"] - result["datasets"]["swap"]["triplet_accuracy"]) <= 1e-6


def test_sequential_with_information_retrieval(tiny_st, nearmiss_suite, tmp_path):
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.evaluation import SequentialEvaluator

    from cbench_testutil import write_beir
    from harness.finetune.evaluator import NearMissEvaluator, retrieval_evaluators

    beir = write_beir(
        tmp_path / "tinyir",
        {"d1": ("", "the cat is in the garden"), "d2": ("", "the dog sees the bird near the river"), "d3": ("", "the farmer is in the school")},
        {"q1": "the cat in the garden", "q2": "the dog near the river"},
        [("q1", "d1", 1), ("q2", "d2", 1)],
    )
    (ir,) = retrieval_evaluators(str(beir))  # a cbench retrieval suite (here a BEIR folder) as InformationRetrievalEvaluators
    nm = NearMissEvaluator(str(nearmiss_suite), name="nm")
    seq = SequentialEvaluator([nm, ir])
    out = seq(SentenceTransformer(str(tiny_st), device="cpu"))
    assert "nm_triplet_accuracy" in out and "nm_auroc" in out and "nm_false_accept@95" in out
    assert "tinyir_cosine_ndcg@10" in out and out["sequential_score"] == out[ir.primary_metric]
