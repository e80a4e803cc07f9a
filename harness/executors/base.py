"""What an executor is given and gives back; option checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import CBenchError

if TYPE_CHECKING:
    from harness.runner import SuiteOutcome
    from harness.submissions import Registry, Submission
    from harness.suites.base import EvalOptions, Suite

EXECUTORS = ("local", "ray")


@dataclass
class RunRequest:
    """One `cbench run`: which submissions on which suites, and how."""

    submissions: list[Submission]
    suites: list[Suite]
    registry: Registry
    results_dir: Path
    opts: EvalOptions
    device: str = "cpu"
    use_cache: bool = True
    trust_remote_code: bool = False
    overwrite: bool = False
    progress: bool = False  # progress bars (an interactive terminal)
    quiet: bool = False


@dataclass
class SubmissionRun:
    """What one submission's part of a run gives: per suite its outcome and seconds, and the
    texts encoded for it in this run."""

    submission: Submission
    outcomes: list[tuple[SuiteOutcome, float]] = field(default_factory=list)
    texts_encoded: int = 0


def check_options(executor: str, shards: int | None, ray_address: str | None) -> None:
    """Options that only the Ray executor understands are refused, in one line, elsewhere."""
    if executor not in EXECUTORS:
        raise CBenchError(f"unknown executor '{executor}'; known: {', '.join(EXECUTORS)}", source="--executor")
    if executor != "ray" and shards is not None and shards > 1:
        raise CBenchError("sharded encoding runs on Ray: add --executor ray", source="--shards")
    if executor != "ray" and ray_address:
        raise CBenchError("only used with --executor ray", source="--ray-address")
