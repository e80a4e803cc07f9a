"""Shared fixtures: offline environment, temporary cache, tiny BEIR folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from cbench_testutil import TINY_DOCS, TINY_QRELS, TINY_QUERIES, write_beir  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own embedding cache unless it sets CBENCH_CACHE itself."""
    monkeypatch.setenv("CBENCH_CACHE", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def tiny_beir(tmp_path) -> Path:
    return write_beir(tmp_path / "tiny", TINY_DOCS, TINY_QUERIES, TINY_QRELS)
