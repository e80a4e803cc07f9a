"""`cbench fusion-curves`: a fused reranker's test curve from the parts' kept runs and per-item
scores, its ends equal to the parts' own results, its chosen point to the fused row's."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from harness.fusion.curves import composition_curve, item_value
from harness.scorers.fusion import FusionConfig
from harness.sidecar import Comparison, ItemScores, PairScore
from scorers.conftest import cbench, write_submission

CFG = FusionConfig.model_validate(
    {"name": "f", "kind": "fusion", "first_stage": "a", "verifier": "b", "weight": 1.0,
     "first_stage_norm": {"mean": 0.5, "scale": 0.1}, "verifier_norm": {"mean": 0.0, "scale": 2.0}}
)
CELLS = (("close_close", 0, 2), ("close_far", 0, 3), ("far_close", 1, 2), ("far_far", 1, 3))


def five(ds: str, i: str, s: tuple[float, float, float, float]) -> ItemScores:
    comps = [Comparison(name=n, positive=s[p], negative=s[q], correct=s[p] > s[q]) for n, p, q in CELLS]
    return ItemScores(dataset=ds, id=i, metrics={"triplet_accuracy": sum(c.correct for c in comps) / 4}, comparisons=comps)


def test_item_values_from_comparisons():
    assert item_value("triplet_accuracy", {"close_close": True, "close_far": False, "far_close": True, "far_far": True}) == 0.75
    assert item_value("triplet_accuracy", {"anchor_negative": False}) == 0.0
    assert item_value("tot_accuracy", {"anchor_negative": True, "positive_negative": False}) == 0.0
    assert item_value("paired_accuracy", {"q1": True, "q2": True}) == 1.0
    assert item_value("auroc", {"q1": True}) is None


def test_composition_curve_ends_and_a_hand_computed_point():
    first = [five("x", "1", (0.9, 0.55, 0.6, 0.5)), five("y", "2", (0.5, 0.4, 0.45, 0.65))]
    second = [five("x", "1", (-1.0, 1.0, 2.0, -2.0)), five("y", "2", (1.0, 1.0, -1.0, -1.0))]
    values, own1, own2 = composition_curve(first, second, "triplet_accuracy", CFG, [0.0, 1.0])
    assert values[0.0] == own1 == np.mean([0.75, 0.25])  # x: all but far_close (0.55 < 0.6); y: only close_close (0.5 > 0.45)
    assert values[None] == own2 == np.mean([0.5, 1.0])
    # w = 1: z1 = (s - 0.5) / 0.1, z2 = s / 2. x: pos_close 4 - 0.5 = 3.5, pos_far 0.5 + 0.5 = 1, neg_close 1 + 1 = 2,
    # neg_far 0 - 1 = -1: 3 of 4. y: 0 + 0.5, -1 + 0.5, -0.5 - 0.5, 1.5 - 0.5: close_close and far_close only
    assert values[1.0] == pytest.approx(np.mean([0.75, 0.5]))


def test_auroc_curve_is_the_fused_pair_scores():
    y = [1, 0, 1, 0, 1, 0]
    s1 = [0.9, 0.8, 0.4, 0.5, 0.7, 0.2]
    s2 = [0.1, 0.3, 0.9, -0.5, 0.2, 0.0]
    a = [ItemScores(dataset="p", id=str(i), pair=PairScore(score=s, label=lab)) for i, (s, lab) in enumerate(zip(s1, y, strict=True))]
    b = [ItemScores(dataset="p", id=str(i), pair=PairScore(score=s, label=lab)) for i, (s, lab) in enumerate(zip(s2, y, strict=True))]
    values, own1, own2 = composition_curve(a, b, "auroc", CFG, [0.0, 0.5])
    fused = (np.array(s1) - 0.5) / 0.1 + 0.5 * np.array(s2) / 2.0
    assert values[0.5] == pytest.approx(roc_auc_score(y, fused)) and own1 == roc_auc_score(y, s1) and own2 == values[None] == roc_auc_score(y, s2)


def test_curve_file_from_runs_equals_the_rows(tmp_path, tiny_bert, beir_dir):
    subs = tmp_path / "subs"
    write_submission(subs, {"name": "t-enc", "kind": "encoder", "model": str(tiny_bert)})
    write_submission(subs, {"name": "t-maxsim", "kind": "verifier", "first_stage": "t-enc", "encoder": "t-enc", "arch": "maxsim", "rerank_depth": 6})
    write_submission(subs, {"name": "t-fused", "kind": "fusion", "first_stage": "t-enc", "verifier": "t-maxsim", "rerank_depth": 6, "weight": 0.5,
                            "first_stage_norm": {"mean": 0.3, "scale": 0.1}, "verifier_norm": {"mean": 0.5, "scale": 0.2}})
    results = tmp_path / "r"
    r = cbench("run", "--model", "t-enc", "--model", "t-maxsim", "--model", "t-fused", "--suite", str(beir_dir), "--results-dir", str(results),
               "--top-k", "6", "--submissions-dir", str(subs), "--quiet")
    assert r.exit_code == 0, r.output
    out = tmp_path / "fusion"
    r = cbench("fusion-curves", "--model", "t-fused", "--results-dir", str(results), "--retrieval", str(beir_dir), "--out", str(out),
               "--submissions-dir", str(subs), "--quiet")
    assert r.exit_code == 0, r.output
    c = json.loads((out / "t-fused.json").read_text())
    main = {n: json.loads((results / n / "tinybeir.json").read_text())["main_score"] for n in ("t-enc", "t-maxsim", "t-fused")}
    by_w = {p["weight"]: p["retrieval"] for p in c["points"]}
    assert by_w[0.0] == pytest.approx(main["t-enc"], abs=1e-12)
    assert by_w[None] == pytest.approx(main["t-maxsim"], abs=1e-12)
    assert by_w[0.5] == pytest.approx(main["t-fused"], abs=1e-12)
    assert c["points"][0]["weight"] == 0.0 and c["points"][-1]["weight"] is None and "tinybeir" not in c["left_out"]
