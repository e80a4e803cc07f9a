"""The suite interface: named datasets, a loader, an evaluator and a main score."""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from harness.scorers.base import Scorer

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"


class SuiteConfig(BaseModel):
    """Fields every suite YAML has; each type adds its own."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=NAME_PATTERN)
    type: str
    description: str = ""


@dataclass
class EvalOptions:
    top_k: int = 100
    limit_queries: int | None = None


@dataclass
class DatasetOutcome:
    metrics: dict[str, float]
    timings: dict[str, float] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)


class Suite(ABC):
    type: ClassVar[str]
    task: ClassVar[str]  # "retrieval" | "nearmiss"
    Config: ClassVar[type[SuiteConfig]]

    def __init__(self, config: SuiteConfig, path: Path | None, data_dir: Path | None):
        self.config = config
        self.path = path
        self.data_dir = data_dir

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def hash(self) -> str:
        blob = json.dumps(self.config.model_dump(mode="json", exclude={"description"}), sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

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

    def revision(self, data: Any) -> str | None:
        return getattr(data, "revision", None)

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
