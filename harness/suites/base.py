"""The suite interface: named datasets, a loader, an evaluator and a main score."""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from harness.errors import CBenchError, DataUnavailable
from harness.names import NAME_PATTERN
from harness.scorers.base import Scorer
from harness.sidecar import ItemScores


class LeaderboardFacts(BaseModel):
    """What the leaderboard needs to know about a suite (a suite YAML's ``leaderboard:`` block; a
    suite type may set other defaults in its class). Not part of the suite hash: it changes no score."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str | None = Field(default=None, description="name shown in headers (default: the suite name)")
    role: Literal["retrieval", "composition", "extra", "dev"] | None = Field(
        default=None,
        description="retrieval: may be the x axis; composition: may be the y axis (or the second composition column); "
        "extra: a column of its own; dev: development data (fusion weights, gate thresholds), never a column or an axis. "
        "Default: retrieval for retrieval suites, composition otherwise.",
    )
    dev_for: str | None = Field(
        default=None,
        description="role dev only: the evaluation suite whose gate threshold (composition suites) this suite's scores set",
    )
    preference: int = Field(default=100, description="among suites of one role, the lowest is the default axis / column and the first fallback")
    category_order: list[str] = Field(default_factory=list, description="order of the per-dataset columns (others follow in results order)")
    chance: float | None = Field(
        default=None,
        description="the main score of a scorer that ranks at random (e.g. 0.5 for an accuracy over two-way comparisons, "
        "0.25 for NevIR's paired accuracy, 0.5 for AUROC); null: none stated (retrieval suites)",
    )
    superseded_by: str | None = Field(
        default=None,
        description="the suite that replaces this one (kept to show a finding): the page still shows its column and heatmap, "
        "but leaves its texts out of the failure browser",
    )


@dataclass(frozen=True)
class SuiteFacts:
    """A suite's leaderboard facts with every default filled in."""

    name: str
    task: str
    label: str
    role: str
    preference: int
    category_order: tuple[str, ...]
    main_metric: str
    chance: float | None = None  # the main score at random ranking (LeaderboardFacts.chance)
    superseded_by: str | None = None  # LeaderboardFacts.superseded_by
    dev_for: str | None = None  # LeaderboardFacts.dev_for


class SuiteConfig(BaseModel):
    """Fields every suite YAML has; each type adds its own."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=NAME_PATTERN)
    type: str
    description: str = ""
    leaderboard: LeaderboardFacts | None = None
    resample_by: str | None = Field(
        default=None,
        min_length=1,
        description="the resampling unit of intervals and paired tests: the suite type's name for one item (query; item, pair, "
        "triplet), each item alone (the default), or a field of its records (e.g. frame) whose value groups items that are "
        "resampled together. Not part of the suite hash: it changes no score.",
    )


# Config fields that change no score: left out of the suite hash. ``frozen_sha256`` (near-miss
# suites) only checks a file's bytes; results record each dataset's data checksum anyway.
UNHASHED_FIELDS = {"description", "leaderboard", "resample_by", "frozen_sha256"}


@dataclass
class EvalOptions:
    top_k: int = 100
    limit_queries: int | None = None


@dataclass
class DatasetOutcome:
    metrics: dict[str, float]
    timings: dict[str, float] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    items: list[ItemScores] | None = None  # per query / item, kept beside the results file (None: the type keeps none)
    # retrieval: the ranked runs kept beside the results file (harness.runs): "run" and, for a
    # reranker, "first_stage"; None: the type keeps none
    runs: dict[str, dict[str, dict[str, float]]] | None = None


class Suite(ABC):
    type: ClassVar[str]
    task: ClassVar[str]  # "retrieval" | "nearmiss"
    Config: ClassVar[type[SuiteConfig]]
    # The type's leaderboard facts; a suite YAML's ``leaderboard:`` block replaces them.
    leaderboard: ClassVar[LeaderboardFacts] = LeaderboardFacts()
    # Names of one item of this type (``resample_by`` values meaning "each item alone"; the first is the default).
    item_units: ClassVar[tuple[str, ...]] = ("item",)

    def __init__(self, config: SuiteConfig, path: Path | None, data_dir: Path | None):
        self.config = config
        self.path = path
        self.data_dir = data_dir
        field = self.cluster_field
        if field is not None and field not in self.record_fields():
            known = ", ".join([*self.item_units, *sorted(self.record_fields())])
            raise CBenchError(f"unknown resampling unit '{field}'; known: {known}", source=path, field="resample_by")

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def hash(self) -> str:
        blob = json.dumps(self.config.model_dump(mode="json", exclude=UNHASHED_FIELDS), sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    @property
    def resampling_unit(self) -> str:
        """What intervals and paired tests resample: query, item, or a cluster such as frame."""
        return self.config.resample_by or self.item_units[0]

    @property
    def cluster_field(self) -> str | None:
        """The record field whose value names each item's resampling unit; None: each item alone."""
        unit = self.config.resample_by
        return None if unit is None or unit in self.item_units else unit

    def record_fields(self) -> set[str]:
        """The fields of this suite's records that ``resample_by`` may name (none by default)."""
        return set()

    def units(self, name: str) -> dict[str, str] | None:
        """Item id -> its resampling unit in dataset ``name``, from the data (nothing scored), for
        per-item scores written before units were kept; None when each item is its own unit.
        Raises DataUnavailable as ``load`` does."""
        return None

    def units_at(self, name: str, revision: str | None) -> dict[str, str] | None:
        """``units(name)`` for per-item scores computed from dataset ``name`` at ``revision`` (their
        results file's ``dataset_revisions``); None when each item is its own unit (nothing loaded).
        Raises DataUnavailable when the data is not here, or has changed since (other items, other units)."""
        if self.cluster_field is None:
            return None
        current = self.dataset_revision(name)
        if current != revision:
            raise DataUnavailable(f"the data of dataset {name} changed since it was scored ({revision}, now {current})", source=f"suite {self.name}")
        return self.units(name)

    def facts(self) -> SuiteFacts:
        """Label, axis role, column order and main metric, as the leaderboard shows this suite."""
        f = self.config.leaderboard or self.leaderboard
        role = f.role or ("retrieval" if self.task == "retrieval" else "composition")
        return SuiteFacts(
            self.name, self.task, f.label or self.name, role, f.preference, tuple(f.category_order), self.main_metric, f.chance, f.superseded_by, f.dev_for
        )

    def candidates(self, ref: str) -> list[Path]:
        """Where a data path named in the suite may be: as given when absolute, else relative to
        the suite file, then to the data dir (in that order)."""
        rel = Path(ref).expanduser()
        if rel.is_absolute():
            return [rel]
        roots = [r for r in (self.path.parent if self.path is not None else None, self.data_dir) if r is not None]
        return [root / rel for root in roots]

    @abstractmethod
    def dataset_names(self) -> list[str]: ...

    @abstractmethod
    def load(self, name: str) -> Any:
        """The dataset; raises DataUnavailable when its data cannot be had here."""

    @abstractmethod
    def evaluate(self, scorer: Scorer, data: Any, opts: EvalOptions) -> DatasetOutcome: ...

    @property
    @abstractmethod
    def main_metric(self) -> str: ...

    def evaluation_only_sha256(self) -> list[str]:
        """sha256 pins of the suite's files that are evaluation data only: ``cbench finetune``
        refuses to train on them. None by default (near-miss suites are handled there)."""
        return []

    def revision(self, data: Any) -> str | None:
        return getattr(data, "revision", None)

    def dataset_revision(self, name: str) -> str | None:
        """The revision ``load(name)`` records (a data checksum or a pinned commit), for deciding
        whether a finished dataset may be reused. By default it loads the dataset; a suite type
        overrides it when the checksum is cheaper. Raises DataUnavailable as ``load`` does."""
        return self.revision(self.load(name))

    def source(self, data: Any) -> str:
        return str(getattr(data, "source", ""))

    def aggregate(self, datasets: dict[str, dict[str, float]]) -> dict[str, float]:
        """Unweighted mean of every metric over datasets (only metrics all datasets have)."""
        if not datasets:
            return {}
        keys = set.intersection(*(set(m) for m in datasets.values()))
        return {k: sum(m[k] for m in datasets.values()) / len(datasets) for k in sorted(keys)}

    def main_score(self, datasets: dict[str, dict[str, float]], aggregate: dict[str, float]) -> float | None:
        return aggregate.get(self.main_metric)


def check_finite(scores: np.ndarray, name: str, scorer: Scorer) -> None:
    """One-line CBenchError when a scorer returned NaN or inf on dataset ``name``."""
    bad = int(np.sum(~np.isfinite(scores)))
    if bad:
        raise CBenchError(f"returned {bad} non-finite scores (NaN or inf) on dataset {name}", source=f"submission {scorer.config.name}", field="score")
