"""Filesystem faults while running: results dir a file, full disk, unwritable cache, read-only data.

Each fault is one line naming the path and the OS error, exit 2, nothing half-written and no lock
left behind; or, for the cache (an optimisation), one warning and the run completes. The tmpfs
variants need mount rights (root); they skip with the reason otherwise, and the monkeypatched
variants test the same logic anywhere.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cbench_testutil import enospc_open, fill_up, mount_tmpfs, remount_readonly, unmount
from harness.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]


def invoke(*args):
    return runner.invoke(app, list(args), catch_exceptions=False)  # an escaping exception fails the test


def leftovers(folder: Path) -> list[str]:
    """Temporary files and lock files anywhere under folder."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob(".*") if p.name.startswith((".tmp-", ".")) and p.is_file())


@pytest.fixture
def tmpfs(tmp_path):
    mounted: list[Path] = []

    def make(name: str, size: str = "16k", readonly: bool = False) -> Path:
        folder = mount_tmpfs(tmp_path / name, size, readonly=readonly)
        mounted.append(folder)
        return folder

    yield make
    for folder in reversed(mounted):
        unmount(folder)


def one_error_line(r, *needles: str) -> str:
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, lines
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


# -- results dir is a file ---------------------------------------------------------------------
def test_results_dir_that_is_a_file_is_one_line(tmp_path, tiny_beir):
    blocker = tmp_path / "results"
    blocker.write_text("not a folder")
    r = invoke("run", "--model", "bm25", "--suite", str(tiny_beir), "--results-dir", str(blocker), "--quiet")
    one_error_line(r, str(blocker), "Not a directory")
    assert blocker.read_text() == "not a folder"


def test_results_dir_that_is_a_file_through_the_real_command(tmp_path, tiny_beir):
    """The installed entry point (main), not CliRunner: exit 2 and no traceback on stderr."""
    blocker = tmp_path / "results"
    blocker.write_text("x")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run(
        [sys.executable, "-c", "from harness.cli import main; main()", "run", "--model", "bm25", "--suite", str(tiny_beir),
         "--results-dir", str(blocker), "--quiet"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert [ln for ln in r.stderr.splitlines() if ln.strip()] == [f"error: {blocker}/bm25: cannot write results here: Not a directory"]


# -- full disk while writing results -----------------------------------------------------------
def _assert_nothing_half_written(res: Path) -> None:
    assert not list(res.rglob("*.json")), "no results file"
    assert leftovers(res) == [], "no temporary file, no lock"


def test_full_disk_during_results_write(tmp_path, tiny_beir, tmpfs):
    res = tmpfs("results")
    (res / "bm25").mkdir()
    fill_up(res)
    r = invoke("run", "--model", "bm25", "--suite", str(tiny_beir), "--results-dir", str(res), "--quiet")
    one_error_line(r, str(res / "bm25"), "cannot write results", "No space left on device")
    (res / "filler").unlink()
    _assert_nothing_half_written(res)


def test_enospc_during_results_write_simulated(tmp_path, tiny_beir, monkeypatch):
    """The same without a tmpfs: the results file's write fails half-way with ENOSPC."""
    res = tmp_path / "results"
    monkeypatch.setattr("harness.atomic.open", enospc_open(after_bytes=200, match="tiny.json"), raising=False)
    r = invoke("run", "--model", "bm25", "--suite", str(tiny_beir), "--results-dir", str(res), "--quiet")
    line = one_error_line(r, "cannot write results", "No space left on device")
    assert str(res / "bm25") in line
    _assert_nothing_half_written(res)


def test_existing_results_survive_a_failed_rewrite(tmp_path, tiny_beir, monkeypatch):
    res = tmp_path / "results"
    assert invoke("run", "--model", "bm25", "--suite", str(tiny_beir), "--results-dir", str(res), "--quiet").exit_code == 0
    before = (res / "bm25" / "tiny.json").read_bytes()
    monkeypatch.setattr("harness.atomic.open", enospc_open(after_bytes=200, match="tiny.json"), raising=False)
    r = invoke("run", "--model", "bm25", "--suite", str(tiny_beir), "--results-dir", str(res), "--quiet", "--overwrite")
    one_error_line(r, "No space left on device")
    assert (res / "bm25" / "tiny.json").read_bytes() == before
    assert leftovers(res) == []


# -- the cache cannot be written: warn once, complete the run ----------------------------------
def _run_minilm(tiny_beir: Path, res: Path, *extra: str):
    return invoke("run", "--model", "all-MiniLM-L6-v2", "--suite", str(tiny_beir), "--results-dir", str(res), *extra)


def _assert_completed_with_one_cache_warning(r, res: Path) -> None:
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output
    warnings = [ln for ln in r.stderr.splitlines() if "cache: cannot write" in ln]
    assert len(warnings) == 1, r.stderr
    out = json.loads((res / "all-MiniLM-L6-v2" / "tiny.json").read_text())
    assert out["complete"] and out["datasets"]["tiny"]["ndcg@10"] == 1.0  # each query's relevant document first


@pytest.mark.slow
def test_full_disk_during_cache_write_completes_with_a_warning(tmp_path, tiny_beir, tmpfs, monkeypatch):
    cache = tmpfs("cache")
    fill_up(cache)
    monkeypatch.setenv("CBENCH_CACHE", str(cache))
    monkeypatch.setenv("CBENCH_ENCODE_BLOCK", "2")  # several chunks: still one warning
    res = tmp_path / "results"
    r = _run_minilm(tiny_beir, res)
    _assert_completed_with_one_cache_warning(r, res)
    assert "No space left on device" in r.stderr
    (cache / "filler").unlink()
    assert not list(cache.rglob("*.npz")) and leftovers(cache) == []
    assert leftovers(res) == []


@pytest.mark.slow
def test_enospc_during_cache_write_simulated(tmp_path, tiny_beir, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("CBENCH_CACHE", str(cache))
    monkeypatch.setenv("CBENCH_ENCODE_BLOCK", "2")
    monkeypatch.setattr("harness.cache.open", enospc_open(after_bytes=100), raising=False)
    res = tmp_path / "results"
    r = _run_minilm(tiny_beir, res)
    _assert_completed_with_one_cache_warning(r, res)
    assert "No space left on device" in r.stderr
    assert not list(cache.rglob("*.npz")) and not list(cache.rglob(".tmp-*"))


@pytest.mark.slow
def test_cache_dir_that_is_a_file_completes_with_a_warning(tmp_path, tiny_beir, monkeypatch):
    blocker = tmp_path / "cache"
    blocker.write_text("x")
    monkeypatch.setenv("CBENCH_CACHE", str(blocker))
    res = tmp_path / "results"
    r = _run_minilm(tiny_beir, res)
    _assert_completed_with_one_cache_warning(r, res)
    flat = "".join(r.stderr.split())  # the log wraps long lines (a long tmp path under pytest-xdist)
    assert str(blocker) in flat and "Notadirectory" in flat
    other = tmp_path / "cache2"  # a fresh folder: the warning is once per folder and process
    other.write_text("x")
    monkeypatch.setenv("CBENCH_CACHE", str(other))
    r = _run_minilm(tiny_beir, res, "--quiet", "--overwrite")  # a warning, not an error: quiet hides it
    assert r.exit_code == 0 and "Traceback" not in r.output and r.stderr == ""


@pytest.mark.slow
def test_readonly_cache_dir_completes_with_a_warning(tmp_path, tiny_beir, tmpfs, monkeypatch):
    cache = tmpfs("cache", readonly=True)
    monkeypatch.setenv("CBENCH_CACHE", str(cache))
    res = tmp_path / "results"
    r = _run_minilm(tiny_beir, res)
    _assert_completed_with_one_cache_warning(r, res)
    assert "Read-only file system" in r.stderr


@pytest.mark.slow
def test_permission_denied_cache_simulated(tmp_path, tiny_beir, monkeypatch):
    """As root, chmod does not stop writes: the permission error is simulated."""

    def denied(file, mode="r", *a, **k):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(file))

    monkeypatch.setenv("CBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr("harness.cache.open", denied, raising=False)
    res = tmp_path / "results"
    r = _run_minilm(tiny_beir, res)
    _assert_completed_with_one_cache_warning(r, res)
    assert "Permission denied" in r.stderr


# -- unwritable results dir, read-only data dir ------------------------------------------------
def test_readonly_results_dir_is_one_line(tmp_path, tiny_beir, tmpfs):
    res = tmpfs("results", readonly=True)
    r = invoke("run", "--model", "bm25", "--suite", str(tiny_beir), "--results-dir", str(res), "--quiet")
    one_error_line(r, str(res / "bm25"), "Read-only file system")


def test_permission_denied_results_simulated(tmp_path, tiny_beir, monkeypatch):
    def denied(file, mode="r", *a, **k):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(file))

    res = tmp_path / "results"
    monkeypatch.setattr("harness.atomic.open", denied, raising=False)
    r = invoke("run", "--model", "bm25", "--suite", str(tiny_beir), "--results-dir", str(res), "--quiet")
    one_error_line(r, "Permission denied", str(res / "bm25"))
    _assert_nothing_half_written(res)


def test_readonly_data_dir_is_only_read(tmp_path, tiny_beir, tmpfs):
    data = tmpfs("data", size="1m")
    shutil.copytree(tiny_beir, data / "tiny")
    remount_readonly(data)
    res = tmp_path / "results"
    r = invoke("run", "--model", "bm25", "--suite", str(data / "tiny"), "--results-dir", str(res), "--data-dir", str(data), "--quiet")
    assert r.exit_code == 0, r.output
    assert json.loads((res / "bm25" / "tiny.json").read_text())["complete"]


def test_data_pull_into_a_readonly_dir_is_one_line(tmp_path, tmpfs, monkeypatch):
    import huggingface_hub

    def snapshot_download(repo_id, repo_type, revision, allow_patterns, local_dir):
        Path(local_dir).mkdir(parents=True)  # what the real one does first
        raise AssertionError("not reached")

    to = tmpfs("data", readonly=True)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    r = invoke("data", "pull", "nanobeir", "--to", str(to))
    one_error_line(r, "Read-only file system", str(to / "nanobeir"))
