"""Datasets whose data is not here (harness.runner.SuiteRun.finish): a suite of which no dataset
could be loaded writes no results file (exit 3, one warning per dataset); one of which some loaded
keeps the partial results with ``skipped``, as before; finished datasets of an earlier run are kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cbench_testutil import TINY_DOCS, TINY_QRELS, TINY_QUERIES, write_beir
from harness.cli import app

runner = CliRunner()


@pytest.fixture
def pair(tmp_path) -> tuple[Path, Path]:
    """A suite of datasets a and b under a data dir that exists but holds neither (yet)."""
    data = tmp_path / "data"
    data.mkdir()
    suite = tmp_path / "pair.yaml"
    suite.write_text("name: pair\ntype: beir\ndatasets:\n  - {name: a, path: beir/a}\n  - {name: b, path: beir/b}\n")
    return suite, data


def run(suite: Path, data: Path, results: Path):
    args = ["run", "--model", "bm25", "--suite", str(suite), "--data-dir", str(data), "--results-dir", str(results)]
    return runner.invoke(app, args, catch_exceptions=False)


def test_no_dataset_loaded_writes_no_results_file(pair, tmp_path):
    suite, data = pair
    results = tmp_path / "results"
    r = run(suite, data, results)
    assert r.exit_code == 3 and "Traceback" not in r.output
    assert not list(results.rglob("*.json")) and not list(results.rglob("*.jsonl.gz"))
    warnings = [ln for ln in r.stderr.splitlines() if ln.startswith("WARNING")]
    assert [w.split(":")[0].split()[-1] for w in warnings] == ["pair/a", "pair/b"]  # one warning per dataset
    assert "no results file (no dataset loaded)" in r.stdout


def test_some_datasets_loaded_keeps_partial_results_with_skipped(pair, tmp_path):
    suite, data = pair
    write_beir(data / "beir" / "a", TINY_DOCS, TINY_QUERIES, TINY_QRELS)
    results = tmp_path / "results"
    r = run(suite, data, results)
    assert r.exit_code == 3
    out = json.loads((results / "bm25" / "pair.json").read_text())
    assert list(out["datasets"]) == ["a"] and list(out["skipped"]) == ["b"]
    assert not out["complete"] and out["main_score"] is None


def test_finished_datasets_of_an_earlier_run_are_kept_when_the_data_is_gone(pair, tmp_path):
    suite, data = pair
    write_beir(data / "beir" / "a", TINY_DOCS, TINY_QUERIES, TINY_QRELS)
    results = tmp_path / "results"
    run(suite, data, results)
    before = json.loads((results / "bm25" / "pair.json").read_text())
    empty = tmp_path / "empty"
    empty.mkdir()
    r = run(suite, empty, results)  # nothing loads now, but dataset a is kept from the first run
    assert r.exit_code == 3
    after = json.loads((results / "bm25" / "pair.json").read_text())
    assert after["datasets"] == before["datasets"] and list(after["skipped"]) == ["b"]
