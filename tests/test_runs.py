"""Runs kept beside retrieval results (harness.runs): TREC format, exact scores, stale files."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from harness.errors import CBenchError
from harness.runs import decode_run, encode_run, read_kept_runs, read_run, run_path, score_type, stale_run_files, write_run


def test_float32_scores_round_trip_exactly_and_compactly():
    run = {"q2": {"b": float(np.float32(0.1)), "a": float(np.float32(1 / 3))}, "q1": {"c": float(np.float32(-2.5))}}
    enc = encode_run(run, "sub")
    assert enc.scores == "float32"
    text = gzip.decompress(enc.data).decode()
    assert text.splitlines() == ["q1 Q0 c 1 -2.5 sub", "q2 Q0 a 1 0.33333334 sub", "q2 Q0 b 2 0.1 sub"]
    assert decode_run(enc.data, "x", "float32") == run  # bit for bit


def test_float64_scores_round_trip_exactly():
    run = {"q": {"a": 0.1, "b": 1 / 3, "c": 1e-300}}
    enc = encode_run(run, "sub")
    assert enc.scores == "float64" and score_type(run) == "float64"
    assert decode_run(enc.data, "x", "float64") == run


def test_same_run_same_bytes_and_ties_by_id():
    run = {"q": {"b": 1.0, "a": 1.0, "c": 2.0}}
    assert encode_run(run, "t").data == encode_run(dict(run), "t").data
    assert [ln.split()[2] for ln in gzip.decompress(encode_run(run, "t").data).decode().splitlines()] == ["c", "a", "b"]


@pytest.mark.parametrize("tag", ["", "two words"])
def test_tag_is_one_word(tag):
    with pytest.raises(ValueError):
        encode_run({"q": {"a": 1.0}}, tag)


def test_malformed_lines_are_one_error(tmp_path):
    bad = tmp_path / "r.trec.gz"
    bad.write_bytes(gzip.compress(b"q Q0 a 1 0.5 t\nq Q0 b 2 nope t\n"))
    with pytest.raises(CBenchError, match="line 2: score 'nope'"):
        read_run(bad)
    bad.write_bytes(gzip.compress(b"q Q0 a 1 0.5\n"))
    with pytest.raises(CBenchError, match="6 fields"):
        read_run(bad)


def test_a_run_that_is_not_the_recorded_one_is_refused(tmp_path):
    results = tmp_path / "sub" / "suite.json"
    enc = encode_run({"q": {"a": 0.5}}, "t")
    write_run(run_path(results, "ds"), enc.data)
    details = {"ds": {"runs": {"run": enc.record()}}}
    assert read_kept_runs(results, details, "ds").run == {"q": {"a": 0.5}}
    write_run(run_path(results, "ds"), encode_run({"q": {"a": 0.7}}, "t").data)
    with pytest.raises(CBenchError, match="does not belong to its results file"):
        read_kept_runs(results, details, "ds")
    with pytest.raises(CBenchError, match="keeps no ranked run for dataset other"):
        read_kept_runs(results, details, "other")


def test_stale_files_are_those_of_other_datasets(tmp_path):
    results = tmp_path / "sub" / "suite.json"
    for ds, role in [("a", "run"), ("a", "first_stage"), ("b", "run")]:
        write_run(run_path(results, ds, role), encode_run({"q": {"d": 1.0}}, "t").data)
    (run_path(results, "a").parent / "junk.txt").write_text("x")
    assert sorted(p.name for p in stale_run_files(results, {"a"})) == ["b.trec.gz", "junk.txt"]


def test_runner_keeps_runs_that_reproduce_the_metrics(tmp_path, monkeypatch):
    """A retrieval run through the CLI writes <suite>.runs/<dataset>.trec.gz, recorded in the results
    with its sha256; trec_eval on the file gives the results' nDCG@10; a rerun with --overwrite of
    another dataset set leaves no stale file."""
    from typer.testing import CliRunner

    from cbench_testutil import TINY_DOCS, TINY_QRELS, TINY_QUERIES, write_beir
    from harness.cli import app
    from harness.metrics.retrieval import evaluate

    monkeypatch.setenv("CBENCH_CACHE", str(tmp_path / "cache"))
    beir = write_beir(tmp_path / "tiny", TINY_DOCS, TINY_QUERIES, TINY_QRELS)
    res = CliRunner().invoke(app, ["run", "--model", "bm25", "--suite", str(beir), "--results-dir", str(tmp_path / "r"), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    path = tmp_path / "r" / "bm25" / "tiny.json"
    results = json.loads(path.read_text())
    kept = read_kept_runs(path, results["details"], "tiny")
    assert kept.first_stage is None and set(kept.run) <= {"q1", "q2", "q3"}  # judged queries; one without a match has no line
    qrels: dict[str, dict[str, int]] = {}
    for q, d, s in TINY_QRELS:
        qrels.setdefault(q, {})[d] = s
    assert evaluate(qrels, kept.run)["ndcg@10"] == pytest.approx(results["datasets"]["tiny"]["ndcg@10"], abs=1e-12)
    assert results["details"]["tiny"]["runs"]["run"]["sha256"].startswith("sha256:")


def test_runs_frame_for_notebooks(tmp_path, monkeypatch):
    """harness.runs_frame: the kept runs as a DataFrame, ranks in the harness's order."""
    from typer.testing import CliRunner

    import harness
    from cbench_testutil import TINY_DOCS, TINY_QRELS, TINY_QUERIES, write_beir
    from harness.cli import app

    monkeypatch.setenv("CBENCH_CACHE", str(tmp_path / "cache"))
    beir = write_beir(tmp_path / "tiny", TINY_DOCS, TINY_QUERIES, TINY_QRELS)
    res = CliRunner().invoke(app, ["run", "--model", "tfidf", "--suite", str(beir), "--results-dir", str(tmp_path / "r"), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    df = harness.runs_frame("tfidf", "tiny", tmp_path / "r")
    assert list(df.columns) == ["dataset", "query", "doc", "rank", "score", "role"] and set(df.role) == {"run"} and len(df)
    for _q, g in df.groupby("query"):
        assert list(g["rank"]) == list(range(1, len(g) + 1)) and list(g["score"]) == sorted(g["score"], reverse=True)


def test_committed_runs_stay_under_30_mb():
    """The runs the repository commits (docs/deployment.md says which) stay under 30 MB together."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    listed = subprocess.run(["git", "ls-files", "leaderboard/results"], cwd=root, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    runs = [root / f for f in listed.stdout.splitlines() if ".runs/" in f]
    assert not [f for f in runs if "-fused/" in str(f) or "/classic-ir.runs/" in str(f)]  # .gitignore keeps these out
    total = sum(f.stat().st_size for f in runs if f.is_file())
    assert total < 30e6, f"{total / 1e6:.1f} MB of committed runs"
