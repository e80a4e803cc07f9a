"""Resume and integrity with the real MiniLM: SIGKILL mid-encode, a corrupt cache chunk, two
concurrent runs on the same results and cache folders. Tiny BEIR fixtures made per test."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.results import read_results

pytestmark = pytest.mark.slow
MODEL = "all-MiniLM-L6-v2"
TOPICS = ["heart", "kidney", "lung", "bone", "skin", "brain", "liver", "blood", "nerve", "muscle"]
runner = CliRunner()


def make_beir(folder: Path, n_docs: int, n_queries: int = 8, tag: str = "Note") -> Path:
    (folder / "qrels").mkdir(parents=True)
    with open(folder / "corpus.jsonl", "w") as f:
        for i in range(n_docs):
            t = TOPICS[i % len(TOPICS)]
            f.write(json.dumps({"_id": f"d{i}", "title": "" if i % 3 else f"On the {t}", "text": f"{tag} {i}: the {t} and case {i * 7 % 31}."}) + "\n")
    with open(folder / "queries.jsonl", "w") as f:
        for q in range(n_queries):
            f.write(json.dumps({"_id": f"q{q}", "text": f"{tag}: what about the {TOPICS[q % len(TOPICS)]} in case {q}"}) + "\n")
    with open(folder / "qrels" / "test.tsv", "w") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for q in range(n_queries):
            for i in range(q, n_docs, len(TOPICS) * 3)[:3]:
                f.write(f"q{q}\td{i}\t1\n")
    return folder


@pytest.fixture
def env(tmp_path, monkeypatch):
    values = {
        "CBENCH_CACHE": str(tmp_path / "cache"),
        "CBENCH_DATA_DIR": str(tmp_path),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "COLUMNS": "200",
    }
    for k, v in values.items():
        monkeypatch.setenv(k, v)
    return {**os.environ, **values}


def cbench_exe() -> str:
    return shutil.which("cbench") or str(Path(sys.executable).parent / "cbench")


def encoded(output: str) -> int:
    m = re.search(r"texts encoded this run: (\d+)", output)
    assert m, output
    return int(m.group(1))


def metrics(path: Path) -> dict:
    return read_results(path).datasets


def tmp_files(root: Path) -> list[Path]:
    return [p for p in root.rglob(".tmp-*")]


def test_sigkill_mid_encode_then_resume(tmp_path, env):
    folder = make_beir(tmp_path / "killme", n_docs=120)
    cache = tmp_path / "cache"
    args = ["run", "-m", MODEL, "-s", str(folder), "--results-dir", str(tmp_path / "r1")]
    proc = subprocess.Popen([cbench_exe(), *args], env={**env, "CBENCH_ENCODE_BLOCK": "8"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 90
    try:
        while not [p for p in cache.rglob("*.npz") if not p.name.startswith(".")]:
            assert proc.poll() is None, f"run ended before the first chunk: {proc.communicate()}"
            assert time.monotonic() < deadline, "no cache chunk after 90 s"
            time.sleep(0.02)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    assert not (tmp_path / "r1" / MODEL / "killme.json").exists()
    kept = len([p for p in cache.rglob("*.npz") if not p.name.startswith(".")])
    assert kept >= 1

    # re-run: completes, encodes only what the killed run did not store
    res = runner.invoke(app, args, env={"CBENCH_ENCODE_BLOCK": "8"})
    assert res.exit_code == 0, res.output
    n_resumed = encoded(res.output)
    assert n_resumed == 120 + 8 - 8 * kept, "the killed run's chunks were not reused"

    # an uninterrupted run with a fresh cache and results dir gives the same metrics
    fresh = runner.invoke(app, ["run", "-m", MODEL, "-s", str(folder), "--results-dir", str(tmp_path / "r2")], env={"CBENCH_CACHE": str(tmp_path / "cache2")})
    assert fresh.exit_code == 0, fresh.output
    assert encoded(fresh.output) == 120 + 8
    assert metrics(tmp_path / "r1" / MODEL / "killme.json") == metrics(tmp_path / "r2" / MODEL / "killme.json")
    assert tmp_files(tmp_path) == []


def test_corrupt_chunk_reported_once_and_recomputed(tmp_path, env):
    folder = make_beir(tmp_path / "damaged", n_docs=60)
    args = ["run", "-m", MODEL, "-s", str(folder), "--results-dir", str(tmp_path / "r")]
    first = runner.invoke(app, args, env={"CBENCH_ENCODE_BLOCK": "16"})
    assert first.exit_code == 0, first.output
    before = metrics(tmp_path / "r" / MODEL / "damaged.json")
    chunks = sorted((tmp_path / "cache").rglob("*.npz"), key=lambda p: p.stat().st_mtime_ns)
    victim = chunks[1]  # a document chunk (documents are encoded before queries)
    raw = bytearray(victim.read_bytes())
    mid = len(raw) // 2
    raw[mid : mid + 16] = bytes(b ^ 0x5A for b in raw[mid : mid + 16])
    victim.write_bytes(bytes(raw))

    second = runner.invoke(app, [*args, "--overwrite"], env={"CBENCH_ENCODE_BLOCK": "16"})
    assert second.exit_code == 0, second.output
    assert " ".join(second.output.split()).count("is corrupt") == 1, second.output
    assert encoded(second.output) == 16
    assert metrics(tmp_path / "r" / MODEL / "damaged.json") == before
    assert victim.with_suffix(".corrupt").exists()

    third = runner.invoke(app, [*args, "--overwrite"])
    assert third.exit_code == 0 and "is corrupt" not in third.output and encoded(third.output) == 0
    assert tmp_files(tmp_path) == []


def test_two_concurrent_runs_share_results_and_cache(tmp_path, env):
    make_beir(tmp_path / "beir" / "one", n_docs=24)
    make_beir(tmp_path / "beir" / "two", n_docs=16, n_queries=5, tag="Memo")  # texts differ from "one"
    suite = tmp_path / "pair.yaml"
    suite.write_text("name: pair\ntype: beir\ndatasets:\n  - {name: one, path: beir/one}\n  - {name: two, path: beir/two}\n")
    cmd = [cbench_exe(), "run", "-m", MODEL, "-s", str(suite), "--results-dir"]  # not -q: it hides the count
    # two runs on the same results file and cache, and a third on another results dir that
    # shares only the cache (so two processes write chunks into one cache namespace at once)
    dirs = [tmp_path / "r", tmp_path / "r", tmp_path / "r3"]
    env = {**env, "OMP_NUM_THREADS": "1"}  # three processes on a small machine: no oversubscription
    procs = [subprocess.Popen([*cmd, str(d)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for d in dirs]
    outs = [p.communicate(timeout=150) for p in procs]
    for p, (_out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
        assert "Traceback" not in err
    results = read_results(tmp_path / "r" / MODEL / "pair.json")  # valid JSON, valid schema
    assert results.complete and set(results.datasets) == {"one", "two"} and results.main_score is not None
    # the lock serialises the first two: the one that waited reused the results and encoded
    # nothing; between them the three processes encoded every text at least once (how the work
    # split between the first and the third depends on which wrote the shared cache first)
    counts = [encoded(err) for _, err in outs]
    assert min(counts[:2]) == 0 and max(counts) <= 24 + 8 + 16 + 5 <= sum(counts)
    assert metrics(tmp_path / "r3" / MODEL / "pair.json") == results.datasets
    assert tmp_files(tmp_path) == []
    # the cache the three left behind is whole: a fourth run encodes nothing
    again = runner.invoke(app, ["run", "-m", MODEL, "-s", str(suite), "--results-dir", str(tmp_path / "r4")])
    assert again.exit_code == 0 and encoded(again.output) == 0 and "corrupt" not in again.output, again.output
