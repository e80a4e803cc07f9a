"""scripts/ab_interaction.py: (B1 - A1) - (B2 - A2) from per-item scores, on BM25 variants scored
here on the tiny retrieval suite (no model)."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from cbench_testutil import write_lexical, write_tiny_suites
from harness.cli import app
from harness.compare import compare
from harness.errors import CBenchError
from scripts.ab_interaction import interaction


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    root = tmp_path_factory.mktemp("interaction")
    suites = write_tiny_suites(root / "data")
    res = root / "res"
    variants = {"flat": {"b": 0.0}, "k-low": {"k1": 0.3}, "k-high": {"k1": 3.0}}
    models = ["bm25", *(str(write_lexical(root / "subs", name, **fields)) for name, fields in variants.items())]
    for model in models:
        r = CliRunner().invoke(app, ["run", "--model", model, "--suite", str(suites["tiny-ir"]), "--results-dir", str(res), "-q"], catch_exceptions=False)
        assert r.exit_code == 0, r.output
    return res


def test_the_difference_of_differences_is_that_of_the_results_files_and_of_cbench_compare(scored):
    r = interaction(scored, "flat", "bm25", "k-high", "k-low", "tiny-ir")
    one = compare(scored, "flat", "bm25", "tiny-ir").suite_row
    two = compare(scored, "k-high", "k-low", "tiny-ir").suite_row
    assert r["first"] == pytest.approx(one.difference) and r["second"] == pytest.approx(two.difference)
    assert r["difference"] == pytest.approx(one.difference - two.difference)
    assert r["difference"] != 0  # the variants rank differently, or the test shows nothing
    lo, hi = r["ci95"]
    assert lo <= r["difference"] <= hi
    # the same pair twice: no difference, and the test finds none
    same = interaction(scored, "flat", "bm25", "flat", "bm25", "tiny-ir")
    assert same["difference"] == 0 and same["p"] == 1.0
    # swapping the pairs flips the sign and keeps the p-value
    swapped = interaction(scored, "k-high", "k-low", "flat", "bm25", "tiny-ir")
    assert swapped["difference"] == pytest.approx(-r["difference"]) and swapped["p"] == pytest.approx(r["p"])


def test_a_missing_results_file_is_a_one_line_error(scored):
    with pytest.raises(CBenchError, match="no results file"):
        interaction(scored, "flat", "bm25", "k-high", "nobody", "tiny-ir")


def test_the_second_pair_can_come_from_another_results_folder(scored, tmp_path):
    other = tmp_path / "other"
    for name in ("k-high", "k-low"):
        shutil.copytree(scored / name, other / name)
    same = interaction(scored, "flat", "bm25", "k-high", "k-low", "tiny-ir")
    apart = interaction(scored, "flat", "bm25", "k-high", "k-low", "tiny-ir", second_results=other)
    assert apart["difference"] == same["difference"] and apart["p"] == same["p"]
    # another experiment's runs under the first pair's names (each backbone's ft-b-s14, ft-a-s14)
    twin = tmp_path / "twin"
    suites = write_tiny_suites(tmp_path / "data")
    for name, fields in (("flat", {"k1": 3.0}), ("bm25", {"k1": 0.3})):  # k-high's and k-low's settings
        sub = write_lexical(tmp_path / "subs", name, **fields)
        r = CliRunner().invoke(app, ["run", "--model", str(sub), "--suite", str(suites["tiny-ir"]), "--results-dir", str(twin), "-q"], catch_exceptions=False)
        assert r.exit_code == 0, r.output
    named_alike = interaction(scored, "flat", "bm25", "flat", "bm25", "tiny-ir", second_results=twin)
    assert named_alike["difference"] == pytest.approx(same["difference"]) and named_alike["difference"] != 0
    assert named_alike["p"] == pytest.approx(same["p"])
    shutil.rmtree(other / "k-low")
    with pytest.raises(CBenchError, match="no results file"):  # read from the second folder, not the first
        interaction(scored, "flat", "bm25", "k-high", "k-low", "tiny-ir", second_results=other)


def test_an_incomplete_result_is_a_one_line_error_not_a_partial_mean(scored, tmp_path):
    other = tmp_path / "other"
    for name in ("k-high", "k-low"):
        shutil.copytree(scored / name, other / name)
    path = other / "k-low" / "tiny-ir.json"
    data = json.loads(path.read_text())
    data["complete"], data["main_score"] = False, None  # as a run killed before its last dataset leaves it
    path.write_text(json.dumps(data))
    with pytest.raises(CBenchError, match="k-low's results are incomplete"):
        interaction(scored, "flat", "bm25", "k-high", "k-low", "tiny-ir", second_results=other)
