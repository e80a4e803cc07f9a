"""Ctrl-C (SIGINT) and SIGTERM during `cbench run`, sent for real to a `cbench run` subprocess once
its first dataset is written: one line saying what was kept (which datasets, in which file) and that
a rerun resumes, exit 130 / 143, no results lock left behind, the finished datasets kept. In this
process: Ctrl-C before any dataset finished says that nothing is kept."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cbench_testutil import TINY_DOCS, TINY_QRELS, TINY_QUERIES, write_beir
from harness.paths import PROJECT_ROOT
from harness.results import read_results

N_DATASETS = 40  # tiny BEIR datasets, each scored and written in turn: the run lasts well past the first


@pytest.fixture
def many(tmp_path) -> Path:
    queries = {q: t for q, t in TINY_QUERIES.items() if any(q == j for j, _d, _s in TINY_QRELS)}
    for i in range(N_DATASETS):
        write_beir(tmp_path / "beir" / f"d{i}", TINY_DOCS, queries, TINY_QRELS)
    suite = tmp_path / "many.yaml"
    suite.write_text("name: many\ntype: beir\ndatasets:\n" + "".join(f"  - {{name: d{i}, path: beir/d{i}}}\n" for i in range(N_DATASETS)))
    return suite


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a shell's background job may have inherited SIG_IGN


def run_and_signal(suite: Path, results: Path, sig: signal.Signals) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "harness.cli", "run", "--model", "bm25", "--suite", str(suite), "--results-dir", str(results), "--quiet"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PROJECT_ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=PROJECT_ROOT, env=env, preexec_fn=_default_sigint)
    written = results / "bm25" / "many.json"
    deadline = time.monotonic() + 120
    while not written.exists():  # the lock is held and one dataset is done: the run is under way
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"the run ended or stalled before its first dataset was written: rc={proc.returncode}\n{err}")
        time.sleep(0.02)
    assert (results / "bm25" / ".many.json.lock").exists()
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


@pytest.mark.parametrize(("sig", "code", "word"), [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_a_signal_during_run_says_what_was_kept_and_leaves_no_lock(many, tmp_path, sig, code, word):
    results = tmp_path / "results"
    done = run_and_signal(many, results, sig)
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    kept = read_results(results / "bm25" / "many.json")
    assert 1 <= len(kept.datasets) < N_DATASETS and not kept.complete
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert lines == [
        f"{word}: the finished datasets are kept in {results / 'bm25' / 'many.json'} ({', '.join(kept.datasets)}); "
        "run the same command again to resume from there"
    ]
    names = sorted(p.name for p in (results / "bm25").iterdir())
    assert names == ["many.items.jsonl.gz", "many.json", "many.runs"]  # no lock, no temp file (many.runs: the ranked runs)


# -- the line itself, in this process: Ctrl-C while the first or the second dataset is scored ----


def interrupt_at(monkeypatch, call: int) -> None:
    """Ctrl-C (KeyboardInterrupt) as dataset number ``call`` (1-based) starts to be scored."""
    import harness.runner

    real = harness.runner.compute_dataset
    calls = []

    def compute(*args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(harness.runner, "compute_dataset", compute)


@pytest.fixture
def three(tmp_path) -> Path:
    """A BEIR suite of three tiny datasets, a, b and c."""
    for name in "abc":
        write_beir(tmp_path / "beir" / name, TINY_DOCS, TINY_QUERIES, TINY_QRELS)
    suite = tmp_path / "three.yaml"
    suite.write_text("name: three\ntype: beir\ndatasets:\n" + "".join(f"  - {{name: {n}, path: beir/{n}}}\n" for n in "abc"))
    return suite


def run_in_process(suite: Path, results: Path):
    from typer.testing import CliRunner

    from harness.cli import app

    return CliRunner().invoke(app, ["run", "--model", "bm25", "--suite", str(suite), "--results-dir", str(results), "--quiet"], catch_exceptions=False)


def test_interrupted_before_any_dataset_finished_says_nothing_is_kept(three, tmp_path, monkeypatch):
    interrupt_at(monkeypatch, 1)
    results = tmp_path / "results"
    r = run_in_process(three, results)
    assert r.exit_code == 130 and "Traceback" not in r.output
    assert [ln for ln in r.stderr.splitlines() if ln.strip()] == [
        f"interrupted before any dataset finished: nothing is kept in {results}; run the same command again to start over"
    ]
    assert not list(results.rglob("*.json"))


def test_interrupted_after_one_dataset_names_what_is_kept_and_where(three, tmp_path, monkeypatch):
    interrupt_at(monkeypatch, 2)
    results = tmp_path / "results"
    r = run_in_process(three, results)
    assert r.exit_code == 130 and "Traceback" not in r.output
    path = results / "bm25" / "three.json"
    assert [ln for ln in r.stderr.splitlines() if ln.strip()] == [
        f"interrupted: the finished datasets are kept in {path} (a); run the same command again to resume from there"
    ]
    assert list(read_results(path).datasets) == ["a"]
