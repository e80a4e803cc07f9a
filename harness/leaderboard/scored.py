"""Per-item scores for the leaderboard: each results file's sidecar, read and checked once per build.

The marks of indistinguishable submissions and the explorer both need them; ``cbench compare``'s
``load_scored`` reads them (the sidecar checked against its results file, the rule of
``cbench leaderboard --check``), and this keeps what it read, or why it could not.
"""

from __future__ import annotations

from pathlib import Path

from harness.compare import load_scored
from harness.errors import CBenchError
from harness.results import Results
from harness.sidecar import ItemScores

Scored = tuple[Results, dict[str, list[ItemScores]]]


class ScoredCache:
    def __init__(self, results_dir: Path) -> None:
        self.results_dir = results_dir
        self._got: dict[tuple[str, str], Scored | CBenchError] = {}

    def get(self, submission: str, suite: str) -> Scored | CBenchError:
        """The results file and its per-item scores by dataset, or the error saying why not."""
        key = (submission, suite)
        if key not in self._got:
            try:
                self._got[key] = load_scored(self.results_dir, submission, suite)
            except CBenchError as e:
                self._got[key] = e
        return self._got[key]
