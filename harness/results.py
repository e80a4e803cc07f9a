"""The results file format (one JSON per submission x suite) and its atomic storage."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_serializer

from harness.atomic import atomic_write_text
from harness.errors import CBenchError, validation_error

SCHEMA_VERSION = 1


class Metadata(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cbench_version: str
    git_commit: str | None
    python: str
    platform: str
    packages: dict[str, str]
    submission_hash: str
    dependencies: dict[str, str] = Field(default_factory=dict, description="submissions this one builds on -> their hashes")
    fingerprints: dict[str, str] = Field(default_factory=dict, description="weights / checkpoints the scores depend on")
    submission_file: str | None
    submission_config: dict[str, Any]
    scorer: dict[str, Any] = Field(description="model revision, first stage, rerank depth, verifier, ...")
    suite_hash: str
    suite_file: str | None
    dataset_revisions: dict[str, str | None]
    dataset_sources: dict[str, str]
    device: str
    torch_threads: int
    timings: dict[str, dict[str, float]] = Field(description="dataset -> stage -> seconds")
    counters: dict[str, dict[str, int]] = Field(default_factory=dict, description="dataset -> counter -> n")
    limit_queries: int | None = None
    date: str
    command: str


def plural(unit: str) -> str:
    """query -> queries, frame -> frames (a resampling unit's name, for sentences)."""
    if unit.endswith("y") and unit[-2:-1] not in ("a", "e", "i", "o", "u"):
        return unit[:-1] + "ies"
    return unit if unit.endswith("s") else unit + "s"


class Recomputed(BaseModel):
    """Which cbench recomputed a results file's intervals from its stored per-item scores after the
    run (``cbench results refresh-intervals``); the rest of the file, ``metadata`` included, is the run's."""

    model_config = ConfigDict(extra="forbid")

    cbench_version: str
    git_commit: str | None


class IntervalMethod(BaseModel):
    """How ``ci95`` and ``main_score_ci95`` were computed (see ``stats.intervals``)."""

    model_config = ConfigDict(extra="forbid")

    method: Literal["percentile bootstrap"] = "percentile bootstrap"
    unit: str = Field(min_length=1, description="what is resampled: query, item, or a cluster of items such as a generator frame")
    units: int = Field(ge=0, description="resampling units behind main_score_ci95 (all datasets with an interval), each resampled within its dataset")
    resamples: int = Field(ge=1)
    confidence: float = Field(gt=0, lt=1)
    seed: int
    recomputed: Recomputed | None = Field(
        default=None,
        description="set when the intervals were recomputed from the per-item scores after the run (cbench results refresh-intervals), "
        "by this cbench; absent: computed by the run that scored (metadata)",
    )

    @model_serializer(mode="wrap")
    def _leave_out_unset_recomputed(self, handler):
        """``recomputed`` only when set: a run's results file reads as it did before the field existed."""
        data = handler(self)
        if isinstance(data, dict) and data.get("recomputed") is None:
            data.pop("recomputed", None)
        return data

    def basis(self) -> IntervalMethod:
        """The method without ``recomputed``: what decides the intervals' values (for comparing two)."""
        return self.model_copy(update={"recomputed": None})

    def describe(self) -> str:
        """e.g. 'percentile bootstrap over frames (255 units, within each dataset), 10000 resamples, seed 0'."""
        return f"{self.method} over {plural(self.unit)} ({self.units} units, within each dataset), {self.resamples} resamples, seed {self.seed}"


class Results(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    submission: str
    suite: str
    task: Literal["retrieval", "nearmiss"]
    main_metric: str
    main_score: float | None
    main_score_ci95: tuple[float, float] | None = Field(
        default=None,
        description="95% interval of main_score: percentile bootstrap over the suite's resampling units (queries, items, "
        "or clusters such as generator frames), resampled within each dataset (ci_method says which); null when not computed "
        "(results from before per-item scores, an incomplete suite, a main metric with no per-item value)",
    )
    ci_method: IntervalMethod | None = Field(
        default=None,
        description="how ci95 and main_score_ci95 were computed; null: no interval, or results from before it was recorded "
        "(then over queries / items, 1000 resamples, seed 0)",
    )
    complete: bool
    datasets: dict[str, dict[str, float]]
    aggregate: dict[str, float] = Field(default_factory=dict)
    ci95: dict[str, tuple[float, float]] = Field(
        default_factory=dict, description="dataset -> 95% interval of its main metric (bootstrap over its resampling units, ci_method)"
    )
    skipped: dict[str, str] = Field(default_factory=dict, description="dataset -> reason")
    details: dict[str, Any] = Field(default_factory=dict, description="suite-specific extras")
    metadata: Metadata

    @field_validator("datasets")
    @classmethod
    def _finite(cls, v: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        for ds, metrics in v.items():
            for k, x in metrics.items():
                if not math.isfinite(x):
                    raise ValueError(f"{ds}.{k} is not a finite number")
        return v


def results_path(results_dir: Path, submission: str, suite: str) -> Path:
    return results_dir / submission / f"{suite}.json"


def results_files(results_dir: Path, *, anywhere: bool = False) -> list[Path]:
    """Every ``<dir>/<submission>/<suite>.json`` (sorted, temporary and hidden files left out);
    ``anywhere``: every .json at any depth (to report misplaced ones)."""
    if not results_dir.is_dir():
        return []
    found = results_dir.rglob("*.json") if anywhere else results_dir.glob("*/*.json")
    return sorted(p for p in found if p.is_file() and not p.name.startswith("."))


def results_json(path: Path, results: Results) -> str:
    """The results file's text; refuses (CBenchError naming ``path``) a NaN/inf anywhere."""
    try:
        return json.dumps(results.model_dump(mode="json"), indent=2, sort_keys=False, allow_nan=False)
    except ValueError as e:  # NaN/inf somewhere (details, aggregate): refuse, nothing written
        raise CBenchError(f"refusing to write results: {e}", source=path) from None


def write_results(path: Path, results: Results) -> None:
    text = results_json(path, results)
    try:
        atomic_write_text(path, text + "\n")  # nothing half-written: a temporary file is renamed or removed
    except OSError as e:  # disk full, read-only, permission, a file in the way
        raise CBenchError(f"cannot write results: {os_reason(e)}", source=path) from None


def os_reason(e: OSError) -> str:
    """An OSError in a few words: the OS's message (``No space left on device``) or the exception."""
    return e.strerror or str(e) or type(e).__name__


def read_results(path: Path) -> Results:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise CBenchError(f"unreadable results file: {str(e).splitlines()[0]}", source=path) from None
    try:
        return Results.model_validate(data)
    except ValidationError as e:
        raise validation_error(e, path) from None
