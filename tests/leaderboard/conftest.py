"""Fixtures for the leaderboard tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from lb_helpers import write_submission


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A submissions dir with three encoders and an empty results dir.

    The project's own submissions/ folder and $CBENCH_SUBMISSIONS are switched off, so the tests
    see only these three (and names like "bm25" stay unregistered here).
    """
    monkeypatch.delenv("CBENCH_SUBMISSIONS", raising=False)
    monkeypatch.setattr("harness.paths.SUBMISSIONS_DIR", tmp_path / "no-project-submissions")
    subs, results = tmp_path / "subs", tmp_path / "results"
    for name in ("alpha", "beta", "gamma"):
        write_submission(subs, name, description=f"test model {name}")
    results.mkdir()
    return subs, results
