"""Shared fixtures: offline environment, temporary cache, tiny BEIR folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from cbench_testutil import TINY_DOCS, TINY_QRELS, TINY_QUERIES, write_beir  # noqa: E402

# The files that run longest, longest first. `make test` runs two workers that take whole files
# (--dist loadfile) in collection order, two each to start with: put first, these start at once,
# side by side, and the short files fill in around them instead of waiting behind them.
LONGEST_FIRST = [
    "tests/suites/test_nearmiss_validity.py",  # the blind MiniLM control encodes the nearmiss train split
    "tests/suites/test_nearmiss_v2.py",  # regenerates the v2 file
    "tests/test_end_to_end_medline.py",
    "tests/leaderboard/test_lb_page_browser.py",
    "tests/scorers/test_encoder_openvino.py",
    "tests/test_resume.py",
    "tests/executors/test_ray_executor.py",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))  # stable: the rest keep their order


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own embedding cache unless it sets CBENCH_CACHE itself."""
    monkeypatch.setenv("CBENCH_CACHE", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def tiny_beir(tmp_path) -> Path:
    return write_beir(tmp_path / "tiny", TINY_DOCS, TINY_QUERIES, TINY_QRELS)
