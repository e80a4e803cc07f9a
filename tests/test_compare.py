"""`cbench compare A B --suite S` end to end: tiny suites made here, BM25 variants and a surface
control as the two submissions (no model). The printed difference is the difference of the two
results files' scores; the tests are McNemar's exact test on near-miss outcomes and the paired
permutation test on nDCG@10 per query and on five-text items."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from cbench_testutil import write_lexical, write_tiny_suites
from typer.testing import CliRunner

from harness.cli import app
from harness.compare import CompareReport
from harness.results import read_results
from harness.sidecar import main_values, read_sidecar
from harness.stats.paired import discordant, mcnemar_p

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """Results + sidecars: bm25 and bm25-flat (b = 0) on tiny-ir, bm25 and control-jaccard on the
    near-miss suites."""
    root = tmp_path_factory.mktemp("compare")
    suites = write_tiny_suites(root / "data")
    flat = write_lexical(root / "subs", "bm25-flat", b=0.0)
    res = root / "res"
    for model, names in (("bm25", ["tiny-ir", "tiny-items", "tiny-triplets"]), (str(flat), ["tiny-ir"]), ("control-jaccard", ["tiny-items", "tiny-triplets"])):
        args = ["run", "--model", model, "--results-dir", str(res), "-q"]
        for n in names:
            args += ["--suite", str(suites[n])]
        r = invoke(*args)
        assert r.exit_code == 0, r.output
    return res, suites


def report(res, a, b, suite) -> CompareReport:
    r = invoke("compare", a, b, "--suite", suite, "--results-dir", str(res), "--format", "json")
    assert r.exit_code == 0, r.output
    return CompareReport.model_validate_json(r.stdout)


def test_retrieval_difference_equals_the_results_files(scored):
    res, _ = scored
    a, b = read_results(res / "bm25-flat" / "tiny-ir.json"), read_results(res / "bm25" / "tiny-ir.json")
    rep = report(res, "bm25-flat", "bm25", "tiny-ir")
    assert rep.main_metric == "ndcg@10" and [r.dataset for r in rep.datasets] == ["one", "two"]
    assert rep.suite_row.difference == a.main_score - b.main_score != 0  # b = 0 ranks query r6 better
    for row in rep.datasets:
        assert row.difference == a.datasets[row.dataset]["ndcg@10"] - b.datasets[row.dataset]["ndcg@10"]
        assert row.test == "paired-permutation" and row.discordant is None
        low, high = row.ci95
        assert low <= row.difference <= high
    assert rep.suite_row.test == "stratified-paired-permutation" and rep.suite_row.n == 3 + 6
    # one query differs (r6): of the 2^6 sign patterns, every one is as extreme -> p = 1
    assert rep.datasets[1].p_value == 1.0
    # the table: the same numbers, formatted
    r = invoke("compare", "bm25-flat", "bm25", "--suite", "tiny-ir", "--results-dir", str(res))
    assert r.exit_code == 0, r.output
    assert f"{a.main_score - b.main_score:+.4f}" in r.stdout and "(suite)" in r.stdout and "bm25-flat" in r.stdout


def test_triplets_use_mcnemar_on_the_outcomes(scored):
    res, _ = scored
    rep = report(res, "bm25", "control-jaccard", "tiny-triplets")
    items_a = read_sidecar(res / "bm25" / "tiny-triplets.items.jsonl.gz").by_dataset()
    items_b = read_sidecar(res / "control-jaccard" / "tiny-triplets.items.jsonl.gz").by_dataset()
    for row in rep.datasets:
        va = main_values(items_a[row.dataset], "triplet_accuracy")
        vb = main_values(items_b[row.dataset], "triplet_accuracy")  # same item order (same file)
        assert row.test == "mcnemar-exact"
        assert tuple(row.discordant) == discordant(va, vb)
        assert row.p_value == mcnemar_p(*row.discordant)
        assert row.difference == pytest.approx(np.mean(va) - np.mean(vb), abs=1e-12)
    a, b = read_results(res / "bm25" / "tiny-triplets.json"), read_results(res / "control-jaccard" / "tiny-triplets.json")
    assert rep.suite_row.difference == a.main_score - b.main_score


def test_five_text_items_keep_their_four_comparisons_together(scored):
    res, _ = scored
    rep = report(res, "bm25", "control-jaccard", "tiny-items")
    assert {r.test for r in rep.datasets} == {"paired-permutation"}  # per-item shares 0, .25, ..., 1
    a, b = read_results(res / "bm25" / "tiny-items.json"), read_results(res / "control-jaccard" / "tiny-items.json")
    assert rep.suite_row.difference == a.main_score - b.main_score
    assert report(res, "bm25", "control-jaccard", "tiny-items") == rep  # seeded: identical reports


def test_missing_sidecar_is_one_line_asking_for_overwrite(scored, tmp_path):
    res, _ = scored
    copy = tmp_path / "res"
    shutil.copytree(res, copy)
    gone = copy / "control-jaccard" / "tiny-triplets.items.jsonl.gz"
    gone.unlink()
    r = invoke("compare", "bm25", "control-jaccard", "--suite", "tiny-triplets", "--results-dir", str(copy))
    assert r.exit_code == 2 and "Traceback" not in r.output
    (line,) = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert line == (
        f"error: {gone}: no per-item scores (results made before cbench kept them); "
        "rerun: cbench run --model control-jaccard --suite tiny-triplets --overwrite"
    )
    r = invoke("compare", "bm25", "nobody", "--suite", "tiny-triplets", "--results-dir", str(copy))
    assert r.exit_code == 2 and "no results file; run: cbench run --model nobody --suite tiny-triplets" in r.stderr


def test_different_items_are_refused(scored, tmp_path):
    res, suites = scored
    other = tmp_path / "res"
    r = invoke("run", "--model", "bm25", "--suite", str(suites["tiny-ir"]), "--results-dir", str(other), "-q", "--limit-queries", "2")
    assert r.exit_code == 0, r.output
    shutil.copytree(res / "bm25-flat", other / "bm25-flat")
    r = invoke("compare", "bm25", "bm25-flat", "--suite", "tiny-ir", "--results-dir", str(other))
    assert r.exit_code == 2
    assert "dataset one: bm25 and bm25-flat were scored on different items (2 and 3, 2 in common)" in " ".join(r.stderr.split())


def test_json_is_the_report_schema(scored):
    res, _ = scored
    r = invoke("compare", "bm25", "control-jaccard", "--suite", "tiny-triplets", "--results-dir", str(res), "--format", "json")
    data = json.loads(r.stdout)
    assert set(data) == set(CompareReport.model_fields)
    assert data["seed"] == 0 and data["bootstrap_resamples"] == 1000 and data["confidence"] == 0.95
