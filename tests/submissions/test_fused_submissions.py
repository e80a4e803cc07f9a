"""The shipped fused rows (submissions/*-fused.yaml, written by `cbench fuse`): each weight follows
the development rule from its own recorded development points, and the development queries it
records are the ones offline-ir-dev gives here (disjoint from every test query)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cbench_testutil import SHARED_DATA
from harness.fusion.fit import RULE, dev_queries, evaluation_suites
from harness.submissions import Registry
from harness.suites.registry import resolve_suite

FUSED = sorted((s for s in Registry().all().values() if s.kind == "fusion"), key=lambda s: s.name)
ROOT = Path(__file__).resolve().parents[2]


def test_every_shipped_reranker_has_a_fused_row():
    subs = Registry().all()
    rerankers = {n for n, s in subs.items() if s.kind in {"verifier", "cross-encoder"} and s.path and s.path.parent.name == "submissions"}
    fused_of = {s.config.verifier for s in subs.values() if s.kind == "fusion"}
    # ms-marco-minilm-ce: a hub model, not available offline (its YAML is there for users with the hub).
    assert rerankers - fused_of == {"ms-marco-minilm-ce"}, rerankers - fused_of


@pytest.mark.parametrize("sub", FUSED, ids=lambda s: s.name)
def test_weight_follows_the_dev_rule(sub):
    cfg = sub.config
    fit = cfg.fit
    assert fit is not None and fit.rule == RULE and fit.dev_suite == "offline-ir-dev"
    assert cfg.weight == fit.chosen and fit.chosen in fit.grid and [p.weight for p in fit.dev] == fit.grid
    floor = fit.first_stage_dev.ndcg_at_10 - fit.budget
    assert fit.chosen == max(p.weight for p in fit.dev if p.ndcg_at_10 >= floor - 1e-12)
    assert fit.dev[0].weight == 0.0 and abs(fit.dev[0].ndcg_at_10 - fit.first_stage_dev.ndcg_at_10) < 1e-9  # w = 0 ranks as the first stage
    verifier = Registry().get(cfg.verifier).config
    assert cfg.first_stage == verifier.first_stage and cfg.rerank_depth == verifier.rerank_depth


@pytest.mark.skipif(not (SHARED_DATA / "beir" / "scifact").is_dir(), reason="the shared BEIR data is not here")
@pytest.mark.parametrize("sub", FUSED, ids=lambda s: s.name)
def test_recorded_dev_queries_are_the_disjoint_ones(sub):
    got = dev_queries(resolve_suite("offline-ir-dev", SHARED_DATA), SHARED_DATA, evaluation_suites(SHARED_DATA))
    fit = sub.config.fit
    assert fit.dev_query_ids_sha256 == got.ids_sha256 and fit.dev_datasets == got.counts and fit.dev_queries_excluded == got.excluded
