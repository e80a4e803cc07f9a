"""Marks of submissions that cannot be told apart from a better-placed one, per axis (paired tests
on the per-item scores by resampling unit, Holm-corrected over the page), in the four files."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from lb_helpers import five_text_items, nearmiss_results, query_items, retrieval_results, save, save_scored

from harness.leaderboard import significance
from harness.leaderboard.collect import build
from harness.leaderboard.render import write_all
from harness.leaderboard.scored import ScoredCache
from harness.results import IntervalMethod, read_results
from harness.sidecar import read_sidecar, sidecar_path, write_sidecar
from harness.submissions import Registry

IDS = {c: [f"{c}-{i:02d}" for i in range(40)] for c in ("negation", "spatial")}


def retrieval(values: np.ndarray) -> list:
    return query_items("cranfield", list(values[:30])) + query_items("medline", list(values[30:]))


def composition(scores: np.ndarray) -> list:
    return five_text_items("negation", IDS["negation"], [tuple(s) for s in scores[:40]]) + five_text_items(
        "spatial", IDS["spatial"], [tuple(s) for s in scores[40:]]
    )


@pytest.fixture
def scored_env(env):
    """alpha best; beta = alpha with two queries and two items a little worse (not significant);
    gamma = beta's retrieval exactly, composition far worse; delta: no per-item scores."""
    subs, results = env
    rng = np.random.default_rng(0)
    ret = rng.uniform(0.3, 1.0, 60)
    comp = rng.uniform(0.0, 1.0, (80, 4))
    comp[:, :2] += 0.6  # positives mostly above negatives
    ret_b = ret.copy()
    ret_b[[0, 31]] -= 0.2
    comp_b = comp.copy()
    comp_b[[3, 50], :2] -= 2.0  # two items: every comparison wrong
    comp_g = comp.copy()
    comp_g[:, :2] -= 2.0  # every item wrong
    for name, r_vals, c_vals in (("alpha", ret, comp), ("beta", ret_b, comp_b), ("gamma", ret_b, comp_g)):
        save_scored(results, retrieval_results(name, "classic-ir", {"cranfield": 0.0, "medline": 0.0}), retrieval(r_vals))
        save_scored(results, nearmiss_results(name, "nearmiss", 0.0, categories=["negation", "spatial"]), composition(c_vals))
    save(results, retrieval_results("delta", "classic-ir", {"cranfield": 0.2, "medline": 0.2}))
    save(results, nearmiss_results("delta", "nearmiss", 0.1, categories=["negation", "spatial"]))
    return subs, results


def test_marks_per_axis_and_on_both(scored_env, tmp_path):
    subs, results = scored_env
    lb = build(results, Registry([subs]).all())
    rows = {r.submission: r for r in lb.rows}
    assert [r.submission for r in lb.rows] == ["alpha", "beta", "gamma", "delta"]
    assert rows["beta"].indistinguishable_from == ["alpha"]
    assert (rows["beta"].same_retrieval_as, rows["beta"].same_composition_as) == (["alpha"], ["alpha"])
    assert rows["gamma"].indistinguishable_from == []  # retrieval: same as beta, composition: not
    assert (rows["gamma"].same_retrieval_as, rows["gamma"].same_composition_as) == (["alpha", "beta"], [])
    assert rows["alpha"].indistinguishable_from == rows["alpha"].same_retrieval_as == []  # nothing above it
    assert rows["delta"].untested is not None and "no per-item scores" in rows["delta"].untested
    assert lb.marks.tests == 6 and lb.marks.n_resamples == significance.N_PERMUTATIONS  # 3 pairs x 2 axes

    md, csv_text, html, _svg = (p.read_text() for p in write_all(lb, tmp_path / "out"))
    beta = next(line for line in md.splitlines() if line.startswith("| 2 | beta"))
    gamma = next(line for line in md.splitlines() if line.startswith("| 3 | gamma"))
    assert "| ≈ alpha (both axes) |" in beta and "| ≈ alpha, beta (retrieval) |" in gamma
    assert "Holm-corrected over the 6 tests on this page (both axes of every pair" in md
    assert "signs flipped per resampling unit: frames for nearmiss, pairs for NevIR, queries for retrieval, items otherwise" in md
    table = {r["submission"]: r for r in csv.DictReader(io.StringIO(csv_text))}
    names = ("alpha", "beta", "gamma", "delta")
    assert [table[n]["indistinguishable_from"] for n in names] == ["", "alpha", "", ""]
    assert [table[n]["indistinguishable_retrieval"] for n in names] == ["", "alpha", "alpha;beta", ""]
    assert [table[n]["indistinguishable_composition"] for n in names] == ["", "alpha", "", ""]
    assert "indistinguishable_from: not tested for ≈: classic-ir: no per-item scores" in table["delta"]["notes"]
    assert ">≈ alpha (both axes)<" in html and ">≈ alpha, beta (retrieval)<" in html and 'id="marks-rule"' in html


def test_differing_on_retrieval_only_is_marked_on_composition_only(scored_env, tmp_path):
    """gamma: alpha's near-miss scores exactly, retrieval far worse: not ≈ anyone on retrieval, ≈ alpha
    and beta on composition (beta: two items a little worse than alpha, not significant)."""
    subs, results = scored_env
    alpha = read_sidecar(sidecar_path(results / "alpha" / "nearmiss.json")).items
    save_scored(results, nearmiss_results("gamma", "nearmiss", 0.0, categories=["negation", "spatial"]), alpha)
    worse = [it.metrics["ndcg@10"] - 0.25 for it in read_sidecar(sidecar_path(results / "alpha" / "classic-ir.json")).items]
    save_scored(results, retrieval_results("gamma", "classic-ir", {"cranfield": 0.0, "medline": 0.0}), retrieval(np.array(worse)))
    lb = build(results, Registry([subs]).all())
    rows = {r.submission: r for r in lb.rows}
    assert [r.submission for r in lb.rows][:3] == ["alpha", "beta", "gamma"]
    assert rows["gamma"].same_retrieval_as == [] and rows["gamma"].same_composition_as == ["alpha", "beta"]
    assert rows["gamma"].indistinguishable_from == []
    assert rows["gamma"].marks_text == "≈ alpha, beta (composition)"
    assert rows["beta"].marks_text == "≈ alpha (both axes)"
    md, csv_text, _html, _svg = (p.read_text() for p in write_all(lb, tmp_path / "out"))
    assert "| ≈ alpha, beta (composition) |" in next(line for line in md.splitlines() if line.startswith("| 3 | gamma"))
    table = {r["submission"]: r for r in csv.DictReader(io.StringIO(csv_text))}
    gamma = table["gamma"]
    assert (gamma["indistinguishable_from"], gamma["indistinguishable_retrieval"], gamma["indistinguishable_composition"]) == ("", "", "alpha;beta")


def test_holm_correction_over_every_test_on_the_page(scored_env, monkeypatch):
    """p-values replaced: pairs (alpha, beta), (alpha, gamma), (beta, gamma); retrieval then composition.
    Holm over six: only 0.001 (x6) is rejected, so 0.03 (beta vs gamma, composition) is not."""
    subs, results = scored_env
    fake = iter([np.array([0.001, 0.02, 0.9]), np.array([0.04, 0.5, 0.03])])
    monkeypatch.setattr(significance, "sign_flip_p_values", lambda *a, **k: next(fake))
    marks = significance.mark(["alpha", "beta", "gamma"], "classic-ir", "nearmiss", ScoredCache(results))
    assert marks.indistinguishable == {"gamma": ["alpha", "beta"]}
    assert marks.same == {"retrieval": {"gamma": ["alpha", "beta"]}, "composition": {"beta": ["alpha"], "gamma": ["alpha", "beta"]}}
    assert marks.tests == 6


def test_items_that_differ_are_not_paired(scored_env):
    subs, results = scored_env
    cache = ScoredCache(results)
    save_scored(results, retrieval_results("gamma", "classic-ir", {"cranfield": 0.0}), query_items("cranfield", [0.5] * 30))  # medline left out
    values = significance.axis_values(["alpha", "beta", "gamma", "delta"], "classic-ir", cache)
    assert sorted(values.vectors) == ["alpha", "beta"] and values.group_sizes == [30, 30]
    assert values.untested["gamma"] == "classic-ir: scored on other datasets or items than alpha (e.g. another --limit-queries)"
    assert values.untested["delta"].startswith("classic-ir: no per-item scores")


def test_marks_are_the_same_on_rerun(scored_env, tmp_path):
    subs, results = scored_env
    one = [p.read_bytes() for p in write_all(build(results, Registry([subs]).all()), tmp_path / "one")]
    two = [p.read_bytes() for p in write_all(build(results, Registry([subs]).all()), tmp_path / "two")]
    assert one == two


def test_composition_tested_by_frame_when_the_items_carry_frames(scored_env):
    """The same scores with the 80 near-miss items in 4 generator frames of 20 (the units their
    per-item scores carry): signs are flipped per frame, 16 patterns, so no p-value goes below
    2 / 16 and gamma, far worse item by item, can no longer be told apart on composition."""
    subs, results = scored_env
    before = significance.mark(["alpha", "beta", "gamma"], "classic-ir", "nearmiss", ScoredCache(results))
    assert before.indistinguishable == {"beta": ["alpha"]}
    assert before.units == {"retrieval": "60 queries", "composition": "80 items"}
    for name in ("alpha", "beta", "gamma"):
        path = results / name / "nearmiss.json"
        sc = read_sidecar(sidecar_path(path))
        framed = [it.model_copy(update={"unit": f"{it.dataset}-{int(it.id.rsplit('-', 1)[1]) // 20}"}) for it in sc.items]
        write_sidecar(sidecar_path(path), sc.header, framed)
        r = read_results(path)
        save(results, r.model_copy(update={"ci_method": IntervalMethod(unit="frame", units=4, resamples=10_000, confidence=0.95, seed=0)}))
    marks = significance.mark(["alpha", "beta", "gamma"], "classic-ir", "nearmiss", ScoredCache(results))
    assert marks.indistinguishable == {"beta": ["alpha"], "gamma": ["alpha", "beta"]}
    assert marks.units == {"retrieval": "60 queries", "composition": "4 frames"}
    assert "items otherwise (retrieval: 60 queries; composition: 4 frames)" in marks.line


def test_units_from_the_suite_data_when_the_per_item_scores_carry_none(scored_env, tmp_path):
    """Per-item scores kept before units were (no ``unit`` on any line): the composition suite's own
    frames are read from its data, while the data is at the revision the results record; else the
    items are tested alone."""
    from cbench_testutil import write_tiny_suites
    from harness.suites.registry import load_suite_file

    subs, results = scored_env
    yaml = write_tiny_suites(tmp_path / "data")["tiny-frames"]
    suite = load_suite_file(yaml, None)
    ids = {"negation": [f"it-{i}" for i in range(4)], "role_swap": [f"it-{i}" for i in range(4, 8)]}
    rng = np.random.default_rng(1)

    def save_framed(revisions: dict[str, str]) -> None:
        for name in ("alpha", "beta"):
            r = nearmiss_results(name, "tiny-frames", 0.0, categories=list(ids))
            r = r.model_copy(update={"metadata": r.metadata.model_copy(update={"suite_file": str(yaml), "dataset_revisions": revisions})})
            items = [it for ds, i in ids.items() for it in five_text_items(ds, i, [tuple(s) for s in rng.uniform(0, 1, (4, 4))])]
            save_scored(results, r, items)

    save_framed({ds: suite.dataset_revision(ds) for ds in ids})
    assert all(it.unit is None for it in read_sidecar(sidecar_path(results / "alpha" / "tiny-frames.json")).items)
    lb = build(results, Registry([subs]).all(), composition="tiny-frames")
    assert lb.marks.units == {"retrieval": "60 queries", "composition": "4 frames"}
    save_framed({ds: "sha256:other-data" for ds in ids})
    lb = build(results, Registry([subs]).all(), composition="tiny-frames")
    assert lb.marks.units == {"retrieval": "60 queries", "composition": "8 items"}
