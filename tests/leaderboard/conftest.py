"""Fixtures for the leaderboard tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from lb_helpers import board_env


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """board_env for one test."""
    return board_env(tmp_path, monkeypatch)
