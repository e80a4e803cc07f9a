"""Ctrl-C (SIGINT) and SIGTERM during `cbench run`, sent for real to a `cbench run` subprocess once
its first dataset is written: one line saying what was kept and that a rerun resumes, exit 130 /
143, no results lock left behind, the finished datasets kept."""

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
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert lines == [
        f"{word}: every dataset finished before it is kept in {results} (results are written after each one); "
        "run the same command again to resume from there"
    ]
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert sorted(p.name for p in (results / "bm25").iterdir()) == ["many.items.jsonl.gz", "many.json"]  # no lock, no temp file
    kept = read_results(results / "bm25" / "many.json")
    assert 1 <= len(kept.datasets) < N_DATASETS and not kept.complete
