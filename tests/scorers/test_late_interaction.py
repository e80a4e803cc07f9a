"""kind: late-interaction (pylate ColBERT): end to end, exact vs Voyager search, cache, pair scores, offline."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from harness.paths import SUBMISSIONS_DIR
from harness.run_context import RunContext
from harness.scorers.late_interaction import LateInteractionConfig, LateInteractionScorer, maxsim

from .conftest import QUERIES, assert_one_line_error, corpus_texts, ndcg_at_10, read_result, run_submission, write_submission


def scorer(model, ctx=None, **kw) -> LateInteractionScorer:
    cfg = LateInteractionConfig(name="t-colbert", kind="late-interaction", model=str(model), **kw)
    return LateInteractionScorer(cfg, ctx or RunContext())


def test_maxsim_matches_brute_force():
    g = torch.Generator().manual_seed(0)
    qs = [torch.nn.functional.normalize(torch.randn(n, 8, generator=g), dim=1) for n in (4, 4, 6)]
    ds = [torch.nn.functional.normalize(torch.randn(n, 8, generator=g), dim=1) for n in (1, 7, 3, 12, 5)]
    got = maxsim(qs, ds)
    want = torch.tensor([[float((q @ d.T).max(dim=1).values.sum()) for d in ds] for q in qs])
    assert torch.allclose(got, want, atol=1e-5)  # padding never wins, even against negative cosines


def test_cli_end_to_end_and_cache(tiny_colbert, beir_dir, tmp_path):
    subs = tmp_path / "subs"
    write_submission(subs, {"name": "t-colbert", "kind": "late-interaction", "model": str(tiny_colbert), "document_length": 64})
    res = run_submission("t-colbert", beir_dir, tmp_path / "results", subs)
    assert res.exit_code == 0, res.output
    out = read_result(tmp_path / "results", "t-colbert")
    run = scorer(tiny_colbert, RunContext(), document_length=64).retrieve(QUERIES, corpus_texts(), 5).run  # the run's cache
    assert out["datasets"]["tinybeir"]["ndcg@10"] == pytest.approx(ndcg_at_10(run))
    info = out["metadata"]["scorer"]
    assert info["search"] == "exact" and info["document_length"] == 64 and info["query_length"] == 32
    assert out["metadata"]["counters"]["tinybeir"]["texts_encoded"] == 13

    again = run_submission("t-colbert", beir_dir, tmp_path / "results", subs, "--overwrite")
    assert again.exit_code == 0, again.output
    assert "texts_encoded" not in read_result(tmp_path / "results", "t-colbert")["metadata"]["counters"].get("tinybeir", {})


def test_second_call_encodes_nothing(tiny_colbert, tmp_path):
    ctx = RunContext(cache_root=tmp_path / "cache")
    sc = scorer(tiny_colbert, ctx)
    run1 = sc.retrieve(QUERIES, corpus_texts(), 5).run
    first = ctx.counters["texts_encoded"]
    assert first == 13
    fresh = scorer(tiny_colbert, RunContext(cache_root=tmp_path / "cache"))  # new process, same cache
    run2 = fresh.retrieve(QUERIES, corpus_texts(), 5).run
    assert fresh.ctx.counters.get("texts_encoded", 0) == 0
    assert fresh._model is None  # everything came from the cache: the model was never loaded
    assert run1.keys() == run2.keys()
    for q in run1:
        assert list(run1[q]) == list(run2[q])
        assert np.allclose(list(run1[q].values()), list(run2[q].values()), atol=1e-4)


def test_voyager_agrees_with_exact(tiny_colbert, tmp_path):
    exact = scorer(tiny_colbert, RunContext(cache_root=tmp_path))
    ann = scorer(tiny_colbert, RunContext(cache_root=tmp_path), exact_max_docs=5)
    r_exact = exact.retrieve(QUERIES, corpus_texts(), 3).run
    r_ann = ann.retrieve(QUERIES, corpus_texts(), 3).run
    assert ann.info()["search"] == "voyager" and exact.info()["search"] == "exact"
    for q in QUERIES:  # k_token covers every document token here, so the candidates are all documents
        assert list(r_ann[q]) == list(r_exact[q])
        assert np.allclose(list(r_ann[q].values()), list(r_exact[q].values()), atol=1e-4)


def test_pair_scores(tiny_colbert):
    sc = scorer(tiny_colbert, RunContext(use_cache=False))
    a = ["bees collect nectar", "the red car", "volcanoes erupt lava"]
    b = ["bees collect nectar", "a blue bicycle", "lava volcanoes erupt"]
    s = sc.score_pairs(a, b)
    assert s.shape == (3,) and np.all(np.abs(s) <= 1 + 1e-5)
    again = scorer(tiny_colbert, RunContext(use_cache=False)).score_pairs(a, b)
    assert np.allclose(s, again, atol=1e-6)  # deterministic
    assert sc.score_pairs([], []).shape == (0,)


def test_hub_only_model_offline_is_one_line(beir_dir, tmp_path):
    res = run_submission(str(SUBMISSIONS_DIR / "gte-moderncolbert.yaml"), beir_dir, tmp_path / "results")
    assert_one_line_error(res, "lightonai/GTE-ModernColBERT-v1", "HF_HUB_OFFLINE", "gte-moderncolbert.yaml")
