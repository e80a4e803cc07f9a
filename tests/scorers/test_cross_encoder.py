"""kind: cross-encoder: reranking a first stage, pair scores, cache, first_stage errors, offline."""

from __future__ import annotations

import numpy as np
import pytest

from harness.paths import SUBMISSIONS_DIR
from harness.run_context import RunContext
from harness.submissions import Registry, build_submission_scorer

from .conftest import QUERIES, assert_one_line_error, corpus_texts, ndcg_at_10, read_result, run_submission, write_submission
from .test_static import make_static_model


@pytest.fixture
def subs(tmp_path, tiny_cross_encoder):
    folder = tmp_path / "subs"
    write_submission(folder, {"name": "t-ce-bm25", "kind": "lexical", "stopwords": None})
    write_submission(
        folder,
        {"name": "t-ce", "kind": "cross-encoder", "model": str(tiny_cross_encoder), "first_stage": "t-ce-bm25", "rerank_depth": 3},
    )
    return folder


def build(subs, name: str, tmp_path):
    registry = Registry([subs])
    ctx = RunContext(cache_root=tmp_path / "cache")
    return build_submission_scorer(registry.get(name), ctx, registry), ctx


def test_cli_end_to_end(subs, beir_dir, tmp_path):
    res = run_submission("t-ce", beir_dir, tmp_path / "results", subs)
    assert res.exit_code == 0, res.output
    out = read_result(tmp_path / "results", "t-ce")
    registry = Registry([subs])
    ce = build_submission_scorer(registry.get("t-ce"), RunContext(), registry)  # the run's cache: its scores
    assert out["datasets"]["tinybeir"]["ndcg@10"] == pytest.approx(ndcg_at_10(ce.retrieve(QUERIES, corpus_texts(), 5).run))
    info = out["metadata"]["scorer"]
    assert info["first_stage"] == "t-ce-bm25" and info["rerank_depth"] == 3 and info["model_source"] == "local"
    assert info["first_stage_info"]["model"] == "bm25"
    assert out["metadata"]["counters"]["tinybeir"]["pairs_scored"] == 3  # BM25 finds one document per query


def test_cli_end_to_end_over_a_dense_first_stage(subs, beir_dir, tmp_path, tiny_cross_encoder):
    """BM25 above finds one document per query (nDCG 1 whatever the reranker does); a static
    first stage ranks every document, so here the reranker's order decides the score."""
    static = make_static_model(tmp_path / "models" / "tiny-static")
    write_submission(subs, {"name": "t-ce-static", "kind": "static", "model": str(static)})
    write_submission(subs, {"name": "t-ce2", "kind": "cross-encoder", "model": str(tiny_cross_encoder), "first_stage": "t-ce-static", "rerank_depth": 3})
    res = run_submission("t-ce2", beir_dir, tmp_path / "results", subs)
    assert res.exit_code == 0, res.output
    registry = Registry([subs])
    ce = build_submission_scorer(registry.get("t-ce2"), RunContext(), registry)  # the run's cache: its scores
    out = ce.retrieve(QUERIES, corpus_texts(), 5)
    run = out.run
    assert all(len(docs) == 3 for docs in run.values())
    result = read_result(tmp_path / "results", "t-ce2")
    assert result["datasets"]["tinybeir"]["ndcg@10"] == pytest.approx(ndcg_at_10(run))
    # the first stage's run the reranker returns: what the results report as before / the change
    details = result["details"]["tinybeir"]
    assert details["first_stage"]["ndcg@10"] == pytest.approx(ndcg_at_10(out.first_stage_run))
    assert details["change_vs_first_stage"]["ndcg@10"] == pytest.approx(ndcg_at_10(run) - ndcg_at_10(out.first_stage_run))


def test_rerank_only_reorders_first_stage(subs, tmp_path):
    ce, ctx = build(subs, "t-ce", tmp_path)
    corpus = {**corpus_texts(), "d11": "honey and bees and photosynthesis", "d12": "lava honey"}
    first_stage = ce.first_stage.retrieve(QUERIES, corpus, 3)
    first = first_stage.run
    assert first_stage.first_stage_run is None  # not a reranker
    out = ce.retrieve(QUERIES, corpus, 2)
    run = out.run
    assert out.first_stage_run == first  # the run it reordered, returned with its own
    for q in QUERIES:
        assert set(run[q]) <= set(first[q])  # nothing outside the first stage's top rerank_depth
        assert len(run[q]) == min(2, len(first[q]))
        scores = list(run[q].values())
        assert scores == sorted(scores, reverse=True)
    deep = ce.retrieve(QUERIES, corpus, 10).run  # top_k above rerank_depth: only the reranked ones
    for q in QUERIES:
        assert set(deep[q]) == set(first[q])
        pairs = [(QUERIES[q], corpus[d]) for d in deep[q]]
        assert np.allclose(list(deep[q].values()), ce.model.predict(pairs), atol=1e-5)


def test_score_pairs_and_cache(subs, tmp_path):
    ce, ctx = build(subs, "t-ce", tmp_path)
    a = ["bees collect nectar", "the red car", "volcanoes erupt lava"]
    b = ["honey bees", "a blue bicycle", "lava volcanoes erupt"]
    s = ce.score_pairs(a, b)
    assert s.shape == (3,) and np.all((s >= 0) & (s <= 1))  # sigmoid
    assert np.allclose(s, ce.model.predict(list(zip(a, b, strict=True))), atol=1e-6)
    assert ctx.counters["pairs_scored"] == 3
    again, ctx2 = build(subs, "t-ce", tmp_path)  # same cache folder, fresh scorer
    assert np.allclose(again.score_pairs(a, b), s, atol=1e-6)
    assert ctx2.counters.get("pairs_scored", 0) == 0 and again._model is None


def test_activation_none_gives_logits(subs, tmp_path, tiny_cross_encoder):
    write_submission(subs, {"name": "t-ce-raw", "kind": "cross-encoder", "model": str(tiny_cross_encoder), "first_stage": "t-ce-bm25", "activation": "none"})
    sig, _ = build(subs, "t-ce", tmp_path)
    raw, _ = build(subs, "t-ce-raw", tmp_path)
    a, b = ["bees collect nectar", "the red car"], ["honey bees", "a blue bicycle"]
    assert np.allclose(1 / (1 + np.exp(-raw.score_pairs(a, b))), sig.score_pairs(a, b), atol=1e-5)


def test_unknown_first_stage_is_one_line(subs, beir_dir, tmp_path, tiny_cross_encoder):
    path = write_submission(subs, {"name": "t-ce-lost", "kind": "cross-encoder", "model": str(tiny_cross_encoder), "first_stage": "nope"})
    res = run_submission("t-ce-lost", beir_dir, tmp_path / "results", subs)
    assert_one_line_error(res, str(path), "first_stage", "nope")


@pytest.mark.parametrize("loop", [["t-self"], ["t-a", "t-b"]])
def test_first_stage_cycle_is_one_line(subs, beir_dir, tmp_path, tiny_cross_encoder, loop):
    for i, name in enumerate(loop):
        write_submission(subs, {"name": name, "kind": "cross-encoder", "model": str(tiny_cross_encoder), "first_stage": loop[(i + 1) % len(loop)]})
    res = run_submission(loop[0], beir_dir, tmp_path / "results", subs)
    line = assert_one_line_error(res, "first_stage", "reranks itself")
    assert " -> ".join([*loop, loop[0]]) in line


def test_hub_only_model_offline_is_one_line(beir_dir, tmp_path):
    res = run_submission(str(SUBMISSIONS_DIR / "ms-marco-minilm-ce.yaml"), beir_dir, tmp_path / "results")
    assert_one_line_error(res, "cross-encoder/ms-marco-MiniLM-L6-v2", "HF_HUB_OFFLINE", "ms-marco-minilm-ce.yaml")
