"""A local Ray cluster (2 CPUs) shared by the module's tests, and tiny suites."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory):
    """Started once per module with its own embedding cache (workers inherit the environment the
    cluster starts with: this cache is the node's), shut down after."""
    ray = pytest.importorskip("ray")
    cache = tmp_path_factory.mktemp("ray-node-cache")
    old = os.environ.get("CBENCH_CACHE")
    os.environ["CBENCH_CACHE"] = str(cache)
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    finally:
        if old is None:
            os.environ.pop("CBENCH_CACHE", None)
        else:
            os.environ["CBENCH_CACHE"] = old
    yield cache
    ray.shutdown()


@pytest.fixture(scope="module")
def suites(tmp_path_factory) -> dict[str, Path]:
    from cbench_testutil import write_tiny_suites

    return write_tiny_suites(tmp_path_factory.mktemp("suites"))
