"""The gate columns (harness/leaderboard/gate.py): one threshold per model, set on development pairs."""

from __future__ import annotations

import numpy as np
import pytest
from lb_helpers import board_env, five_text_items, nearmiss_results, retrieval_results, save, save_scored, submission_hash

from harness.leaderboard.collect import build
from harness.leaderboard.gate import gate, pairs, threshold
from harness.leaderboard.render import render_csv, render_markdown
from harness.sidecar import ItemScores, PairScore
from harness.submissions import Registry


def test_threshold_accepts_at_least_the_rate():
    pos = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
    t = threshold(pos, 0.9)
    assert t == 0.2 and np.mean(pos >= t) == 0.9
    assert threshold(np.array([0.5, 0.5, 0.1]), 0.5) == 0.5  # ties: more than the rate


def test_pairs_of_five_text_triplet_and_pair_items():
    items = five_text_items("c", ["i"], [(0.9, 0.8, 0.7, 0.2)])
    pos, neg = pairs(items)
    assert sorted(pos) == [0.8, 0.9] and sorted(neg) == [0.2, 0.7]
    pair = [ItemScores(dataset="p", id="1", pair=PairScore(score=0.3, label=1)), ItemScores(dataset="p", id="2", pair=PairScore(score=0.4, label=0))]
    assert pairs(pair)[0].tolist() == [0.3] and pairs(pair)[1].tolist() == [0.4]


def test_gate_on_test_uses_the_dev_threshold_and_shows_the_calibration_cost():
    rng = np.random.default_rng(0)
    dev = [ItemScores(dataset="d", id=str(i), pair=PairScore(score=float(s), label=1)) for i, s in enumerate(rng.normal(0.8, 0.05, 200))]
    dev += [ItemScores(dataset="d", id=f"n{i}", pair=PairScore(score=0.1, label=0)) for i in range(5)]
    # test positives drift lower: the development threshold now rejects more of them
    test = [ItemScores(dataset="t", id=str(i), pair=PairScore(score=float(s), label=1)) for i, s in enumerate(rng.normal(0.7, 0.05, 200))]
    test += [ItemScores(dataset="t", id=f"n{i}", pair=PairScore(score=float(s), label=0)) for i, s in enumerate(rng.normal(0.6, 0.05, 200))]
    g = gate("paws", "paws-dev", dev, test)
    assert g is not None and g.dev_true_accept >= 0.9
    pos = np.array([it.pair.score for it in test if it.pair.label == 1])
    neg = np.array([it.pair.score for it in test if it.pair.label == 0])
    assert g.true_accept == pytest.approx(np.mean(pos >= g.threshold)) and g.true_accept < 0.9
    assert g.false_accept == pytest.approx(np.mean(neg >= g.threshold))
    assert g.false_accept_test == pytest.approx(np.mean(neg >= threshold(pos))) and g.false_accept_test > g.false_accept


def test_board_gate_columns_from_the_dev_suite(tmp_path, monkeypatch):
    """A dev suite (role dev, dev_for nearmiss) sets each model's threshold; its results are never a
    column; a model not run on it gets an empty gate cell with the reason."""
    subs, results = board_env(tmp_path, monkeypatch)
    import shutil

    import harness.suites.registry as registry

    suites = tmp_path / "suites"
    shutil.copytree(registry.SUITES_DIR, suites)  # the shipped suites, and a development one
    monkeypatch.setattr(registry, "SUITES_DIR", suites)
    (suites / "nm-dev.yaml").write_text(
        "name: nm-dev\ntype: nearmiss\nformat: items-jsonl\nleaderboard: {role: dev, dev_for: nearmiss}\nfiles: [{name: f, path: x.jsonl}]\n"
    )
    items = five_text_items("negation", [f"i{k}" for k in range(20)], [(0.9, 0.8 + k / 100, 0.85, 0.3) for k in range(20)])
    dev_items = five_text_items("negation", [f"d{k}" for k in range(20)], [(0.95, 0.9, 0.5, 0.3) for _k in range(20)])
    for name in ("alpha", "beta"):
        h = submission_hash(subs, name)
        save(results, retrieval_results(name, "offline-ir", {"scifact": 0.5}, submission_hash=h))
        save_scored(results, nearmiss_results(name, "nearmiss", 0.6, categories=["negation"], submission_hash=h), items)
    save_scored(results, nearmiss_results("alpha", "nm-dev", 0.6, categories=["negation"], submission_hash=submission_hash(subs, "alpha")), dev_items)
    lb = build(results, Registry([subs]).all())
    assert lb.gate_suites == {"nearmiss": "nm-dev"}
    assert "nm-dev" not in {s for _n, s in lb.results} and "nm-dev" not in lb.extra_suites
    alpha = next(r for r in lb.rows if r.submission == "alpha")
    beta = next(r for r in lb.rows if r.submission == "beta")
    g = alpha.gates["nearmiss"]
    assert g.threshold == 0.9  # 90% of the 40 dev positives (0.95 x 20, 0.9 x 20) are >= 0.9
    assert g.false_accept == 0.0 and g.true_accept == pytest.approx(np.mean([0.9] * 20 + [0.8 + k / 100 for k in range(20)] >= np.float64(0.9)))
    assert beta.gates["nearmiss"].value is None and "not run on" in beta.gates["nearmiss"].note
    md = render_markdown(lb)
    assert "## Gate: one threshold per model" in md and "FA @dev t" in md
    assert "gate:nearmiss:false_accept" in render_csv(lb).splitlines()[0]


def test_a_threshold_from_other_weights_is_no_gate(tmp_path, monkeypatch):
    """The threshold must come from the same model as the test scores: development results made with
    other weights (another fingerprint) give an empty cell with the reason."""
    import shutil

    import harness.suites.registry as registry

    subs, results = board_env(tmp_path, monkeypatch)
    suites = tmp_path / "suites"
    shutil.copytree(registry.SUITES_DIR, suites)
    monkeypatch.setattr(registry, "SUITES_DIR", suites)
    (suites / "nm-dev.yaml").write_text(
        "name: nm-dev\ntype: nearmiss\nformat: items-jsonl\nleaderboard: {role: dev, dev_for: nearmiss}\nfiles: [{name: f, path: x.jsonl}]\n"
    )
    items = five_text_items("negation", [f"i{k}" for k in range(8)], [(0.9, 0.8, 0.85, 0.3)] * 8)
    h = submission_hash(subs, "alpha")
    save(results, retrieval_results("alpha", "offline-ir", {"scifact": 0.5}, submission_hash=h))
    test = nearmiss_results("alpha", "nearmiss", 0.6, categories=["negation"], submission_hash=h)
    save_scored(results, test, items)
    dev = nearmiss_results("alpha", "nm-dev", 0.6, categories=["negation"], submission_hash=h)
    dev = dev.model_copy(update={"metadata": dev.metadata.model_copy(update={"fingerprints": {"model": "retrained"}})})
    save_scored(results, dev, items)
    lb = build(results, Registry([subs]).all())
    cell = lb.rows[0].gates["nearmiss"]
    assert cell.value is None and "other weights" in cell.note
