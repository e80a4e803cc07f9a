"""Collecting results files into leaderboard rows: axes, fallback, reasons for empty cells."""

from __future__ import annotations

import pytest
from lb_helpers import nearmiss_results, retrieval_results, save, submission_hash

from harness.errors import CBenchError
from harness.leaderboard.collect import build
from harness.submissions import Registry


def _build(subs, results, **kw):
    return build(results, Registry([subs]).all(), **kw)


def test_rows_cells_and_reasons(env):
    subs, results = env
    h = {n: submission_hash(subs, n) for n in ("alpha", "beta", "gamma")}
    save(results, retrieval_results("alpha", "nanobeir", {"ArguAna": 0.5, "SciFact": 0.7}, submission_hash=h["alpha"]))
    save(results, nearmiss_results("alpha", "nearmiss", 0.6, submission_hash=h["alpha"]))
    save(results, nearmiss_results("alpha", "sugarcrepe-pp", 0.8, categories=["swap_att", "replace_rel"], submission_hash=h["alpha"]))
    save(results, retrieval_results("beta", "nanobeir", {"ArguAna": 0.4}, skipped={"SciFact": "no local copy"}, submission_hash=h["beta"]))
    save(results, nearmiss_results("beta", "nearmiss", 0.7, skipped={"spatial": "file missing"}, categories=["negation"], submission_hash=h["beta"]))
    save(results, retrieval_results("gamma", "nanobeir", {"ArguAna": 0.3}, complete=False, submission_hash=h["gamma"]))
    lb = _build(subs, results, retrieval="nanobeir")  # the default axis is offline-ir

    assert lb.retrieval_suite == "nanobeir" and lb.axis_notes == []
    assert lb.composition_suite == "nearmiss" and lb.second_suite == "sugarcrepe-pp"
    assert lb.retrieval_datasets == ["ArguAna", "SciFact"]
    assert lb.categories[:3] == ["negation", "role_swap", "attribute_binding"]
    assert len(lb.files) == 6 and "Generated from 6 results files" in lb.meta_line
    rows = {r.submission: r for r in lb.rows}
    assert [r.submission for r in lb.rows][0] == "alpha"

    a = rows["alpha"]
    assert a.retrieval.value == pytest.approx(0.6) and a.composition.value == pytest.approx(0.6)
    assert a.pareto and a.layer == 1 and a.rank == 1
    assert a.second.value == pytest.approx(0.8 - 0.1 - 0.005)  # tot_accuracy mean of the two categories
    assert a.false_accept.value == pytest.approx(0.4)
    assert a.retrieval_datasets["SciFact"].value == pytest.approx(0.7)
    assert a.kind == "encoder" and a.parameters == 1000 and a.registered and a.notes == []
    assert a.reproduce == f"cbench run --model alpha --suite nanobeir --suite nearmiss --suite sugarcrepe-pp --submissions-dir {subs} --results-dir {results}"

    b = rows["beta"]
    assert b.retrieval.value is None and b.retrieval.note == "data unavailable: SciFact: no local copy"
    assert b.retrieval_datasets["ArguAna"].value == pytest.approx(0.4)
    assert b.retrieval_datasets["SciFact"].note == "data unavailable: no local copy"
    assert b.composition.note == "data unavailable: spatial: file missing"
    assert b.categories["spatial"].note == "data unavailable: file missing"
    assert b.categories["role_swap"].note == "incomplete"
    assert b.false_accept.value is None and b.false_accept.note.startswith("data unavailable")
    assert b.second.value is None and b.second.note == "not run"
    assert b.layer is None and not b.pareto

    g = rows["gamma"]
    assert g.retrieval.note == "incomplete (1 datasets done)"
    assert g.composition.note == "not run"
    assert g.categories["negation"].note == "not run"
    # rows missing an axis come after complete rows, by name
    assert [r.submission for r in lb.rows] == ["alpha", "beta", "gamma"]


def test_fallback_to_classic_ir_is_said(env):
    subs, results = env
    save(results, retrieval_results("alpha", "classic-ir", {"cranfield": 0.3}))
    save(results, retrieval_results("beta", "classic-ir", {"cranfield": 0.4}))
    save(results, retrieval_results("alpha", "medline", {"medline": 0.9}))
    save(results, nearmiss_results("alpha", "nearmiss", 0.6))
    lb = _build(subs, results)
    assert lb.retrieval_suite == "classic-ir"
    assert lb.axis_notes == ["The retrieval axis is classic-ir, the retrieval suite with the most complete results (offline-ir results: none)."]
    assert next(r for r in lb.rows if r.submission == "alpha").reproduce.startswith("cbench run --model alpha --suite classic-ir")


def test_fallback_prefers_most_submissions_then_classic_ir(env):
    subs, results = env
    save(results, retrieval_results("alpha", "classic-ir", {"cranfield": 0.3}))
    save(results, retrieval_results("alpha", "aaa", {"x": 0.3}))
    assert _build(subs, results).retrieval_suite == "classic-ir"  # tie -> classic-ir, not alphabetical
    save(results, retrieval_results("beta", "medline", {"medline": 0.3}))
    save(results, retrieval_results("gamma", "medline", {"medline": 0.2}))
    lb = _build(subs, results)
    assert lb.retrieval_suite == "medline"
    assert lb.axis_notes[0] == "The retrieval axis is medline, the retrieval suite with the most complete results (offline-ir results: none)."


def test_incomplete_default_axis_counts_as_none(env):
    subs, results = env
    save(results, retrieval_results("alpha", "offline-ir", {}, skipped={"scifact": "offline"}))
    save(results, retrieval_results("alpha", "classic-ir", {"cranfield": 0.3}))
    lb = _build(subs, results)
    assert lb.axis_notes[0] == "The retrieval axis is classic-ir, the retrieval suite with the most complete results (offline-ir results: none complete)."


def test_explicit_retrieval_suite_and_no_results(env):
    subs, results = env
    save(results, retrieval_results("alpha", "classic-ir", {"cranfield": 0.3}))
    save(results, retrieval_results("beta", "nanobeir", {"NQ": 0.3}))
    assert _build(subs, results, retrieval="classic-ir").retrieval_suite == "classic-ir"
    empty = _build(subs, results.parent / "nothing")
    assert empty.rows == [] and empty.retrieval_suite is None
    assert "offline-ir results: none" in empty.axis_notes[0] and "nearmiss results: none" in empty.axis_notes[1]


def test_wrong_task_for_an_axis_is_a_user_error(env):
    subs, results = env
    save(results, nearmiss_results("alpha", "nearmiss", 0.6))
    save(results, retrieval_results("alpha", "classic-ir", {"cranfield": 0.3}))
    with pytest.raises(CBenchError, match="not a retrieval suite"):
        _build(subs, results, retrieval="nearmiss")
    with pytest.raises(CBenchError, match="not a near-miss suite"):
        _build(subs, results, composition="classic-ir")


def test_unregistered_stale_limited_and_unreadable(env):
    subs, results = env
    save(results, retrieval_results("bm25", "nanobeir", {"NQ": 0.3}, kind="lexical"))
    save(results, retrieval_results("alpha", "nanobeir", {"NQ": 0.3}, submission_hash="stale", limit_queries=5))
    (results / "broken").mkdir()
    (results / "broken" / "nanobeir.json").write_text("{not json")
    lb = _build(subs, results)
    rows = {r.submission: r for r in lb.rows}
    assert rows["bm25"].kind == "lexical" and not rows["bm25"].registered
    assert "not a registered submission" in rows["bm25"].notes[0]
    assert "hash differs" in rows["alpha"].notes[0]
    assert rows["alpha"].retrieval.value == pytest.approx(0.3) and "--limit-queries 5" in rows["alpha"].retrieval.note
    assert rows["alpha"].reproduce.endswith("--limit-queries 5")
    assert len(lb.files) == 2 and len(lb.warnings) == 1 and "broken/nanobeir.json" in lb.warnings[0]


def test_a_reproduce_command_names_only_the_suites_its_row_has(env):
    subs, results = env
    save(results, retrieval_results("alpha", "nanobeir", {"NQ": 0.5}))
    save(results, nearmiss_results("alpha", "nearmiss", 0.6))  # no sugarcrepe-pp, the second column: not named
    save(results, nearmiss_results("beta", "nearmiss", 0.7))  # no retrieval either
    save(results, nearmiss_results("beta", "nearmiss-hand", 0.7))  # an extra suite: its column, not the command of a ranked row
    save(results, nearmiss_results("gamma", "nearmiss-hand", 0.5))  # an extra suite alone: that one
    lb = _build(subs, results, retrieval="nanobeir")
    assert lb.second_suite == "sugarcrepe-pp"
    commands = {r.submission: r.reproduce.split(" --submissions-dir")[0] for r in lb.rows}
    assert commands == {
        "alpha": "cbench run --model alpha --suite nanobeir --suite nearmiss",
        "beta": "cbench run --model beta --suite nearmiss",
        "gamma": "cbench run --model gamma --suite nearmiss-hand",
    }
