"""The worker side shared by Ray tasks and shard actors: building a submission's scorer as the
driver would, once per worker process. No Ray import here."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from harness.run_context import RunContext
from harness.scorers.base import Scorer
from harness.submissions import Registry, Submission, build_submission_scorer


@dataclass(frozen=True)
class WorkerSpec:
    """What a worker needs to build a submission's scorer as the driver would."""

    submission: Submission
    registry_dirs: tuple[Path, ...]
    device: str
    use_cache: bool
    trust_remote_code: bool
    cwd: str  # relative paths in submissions and suites mean what they mean on the driver

    def key(self) -> tuple:
        return (self.submission.name, self.submission.hash, self.registry_dirs, self.device, self.use_cache, self.trust_remote_code)


_BUILT: dict[tuple, tuple[RunContext, Scorer]] = {}  # per worker process: the last submission's scorer


def worker_device(device: str) -> str:
    """Ray hands a GPU task exactly its GPU(s), numbered from 0: ``cuda:N`` becomes ``cuda``."""
    return "cuda" if device.startswith("cuda") else device


def worker_scorer(spec: WorkerSpec) -> tuple[RunContext, Scorer]:
    """The scorer of ``spec`` in this worker process, built once and reused by its later tasks
    (only the last submission's is kept, so a worker holds one model)."""
    if spec.cwd and os.path.isdir(spec.cwd) and os.getcwd() != spec.cwd:
        os.chdir(spec.cwd)
    key = spec.key()
    if key not in _BUILT:
        _BUILT.clear()
        registry = Registry()
        registry.dirs = list(spec.registry_dirs)
        ctx = RunContext(device=worker_device(spec.device), use_cache=spec.use_cache, trust_remote_code=spec.trust_remote_code)
        _BUILT[key] = (ctx, build_submission_scorer(spec.submission, ctx, registry))
    return _BUILT[key]
