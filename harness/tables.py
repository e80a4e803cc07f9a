"""Results as pandas DataFrames, for notebooks.

``results_frame``: one tidy row per (submission, suite, dataset, metric); the suite-level numbers
come with ``dataset == "(mean)"`` (the results file's ``aggregate``), and ``is_main`` marks each
suite's main metric. ``leaderboard_frame``: the leaderboard table (the same columns as
leaderboard.csv, controls included with ``group == "control"``).

    >>> from harness import results_frame
    >>> df = results_frame("leaderboard/results")
    >>> df[df.is_main & (df.dataset == "(mean)")].pivot(index="submission", columns="suite", values="value")
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import CBenchError
from harness.results import read_results, results_files

if TYPE_CHECKING:
    import pandas as pd

MEAN = "(mean)"
COLUMNS = ["submission", "suite", "task", "dataset", "metric", "value", "is_main", "kind", "complete", "git_commit", "date"]


def results_frame(results_dir: str | Path = "leaderboard/results") -> pd.DataFrame:
    """Every results file under ``results_dir`` (``<submission>/<suite>.json``) as one long table.
    An unreadable file stops with the file's one-line error (CBenchError)."""
    import pandas as pd

    folder = Path(results_dir)
    if not folder.is_dir():
        raise CBenchError("no such results folder", source=folder)
    rows = []
    for path in results_files(folder):
        r = read_results(path)
        common = {
            "submission": r.submission,
            "suite": r.suite,
            "task": r.task,
            "kind": str(r.metadata.submission_config.get("kind", "")),
            "complete": r.complete,
            "git_commit": r.metadata.git_commit,
            "date": r.metadata.date,
        }
        for dataset, metrics in [*r.datasets.items(), (MEAN, r.aggregate)]:
            for metric, value in metrics.items():
                rows.append({**common, "dataset": dataset, "metric": metric, "value": float(value), "is_main": metric == r.main_metric})
    return pd.DataFrame(rows, columns=COLUMNS)


def main_scores(results_dir: str | Path = "leaderboard/results") -> dict[tuple[str, str], float]:
    """Each results file's main score by (submission, suite), complete results only: a run in
    progress (or killed) writes its file after each dataset, and its mean covers only those."""
    df = results_frame(results_dir)
    main = df[df.is_main & (df.dataset == MEAN) & df.complete]
    return {(r.submission, r.suite): float(r.value) for r in main.itertuples()}


def leaderboard_frame(results_dir: str | Path = "leaderboard/results", cost_dir: str | Path | None = None) -> pd.DataFrame:
    """The leaderboard table as leaderboard.csv has it (ranked rows, then controls); the cost
    columns from ``cost_dir`` (default: ``cost/`` beside ``results_dir``)."""
    import pandas as pd

    from harness.leaderboard.collect import build
    from harness.leaderboard.render import render_csv
    from harness.submissions import Registry

    board = build(Path(results_dir), Registry().all(), cost_dir=None if cost_dir is None else Path(cost_dir))
    return pd.read_csv(io.StringIO(render_csv(board)), keep_default_na=False, na_values=[""])


RUN_COLUMNS = ["dataset", "query", "doc", "rank", "score", "role"]


def runs_frame(submission: str, suite: str, results_dir: str | Path = "leaderboard/results") -> pd.DataFrame:
    """The ranked runs a retrieval results file keeps (``harness.runs``): one row per (dataset,
    query, document), ``role`` "run" (the submission's own ranking) or "first_stage" (a reranker's
    candidates as its first stage scored them); each file checked against the sha256 the results
    record. A CBenchError names the file when the results keep no runs (made before runs were
    kept). For ranx: ``ranx.Run(df[df.role == "run"]...)`` or ``harness.runs.read_kept_runs``."""
    import pandas as pd

    from harness.results import results_path
    from harness.runs import read_kept_runs

    path = results_path(Path(results_dir), submission, suite)
    r = read_results(path)
    rows = []
    for ds in r.datasets:
        kept = read_kept_runs(path, r.details, ds)
        for role, run in (("run", kept.run), ("first_stage", kept.first_stage)):
            for qid, docs in sorted((run or {}).items()):
                for i, (did, score) in enumerate(sorted(docs.items(), key=lambda kv: (-kv[1], kv[0])), start=1):
                    rows.append((ds, qid, did, i, score, role))
    return pd.DataFrame(rows, columns=RUN_COLUMNS)
