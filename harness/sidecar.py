"""Per-query / per-item scores beside a results file: ``<submission>/<suite>.items.jsonl.gz``.

Line 1 is a :class:`SidecarHeader` (which results the items belong to: the submission and suite
hashes, weights fingerprints, ``--limit-queries``, top-k, and each dataset's metrics exactly as the
results file holds them); every further line is one :class:`ItemScores` (one query of a retrieval
dataset, one item of a near-miss dataset). gzip without timestamp or file name, so identical scores
give identical bytes. The runner writes the sidecar with the results file (sidecar first, both
atomically) and reuses a dataset only when both hold it; ``sidecar_problems`` is the consistency
rule that ``cbench leaderboard --check`` and ``cbench compare`` apply.
"""

from __future__ import annotations

import gzip
import json
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, FiniteFloat, ValidationError, model_validator

from harness.atomic import atomic_write_bytes
from harness.errors import CBenchError
from harness.results import Results, os_reason

SIDECAR_VERSION = 1
SUFFIX = ".items.jsonl.gz"
MEAN_TOLERANCE = 1e-6


class Comparison(BaseModel):
    """One near-miss comparison: the score that should be higher, the one that should be lower."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(
        min_length=1,
        description="anchor_negative / positive_negative (triplets); close_close, close_far, far_close, far_far (five-text items); "
        "q1 / q2 (NevIR pairs: a query, its own passage, the other passage)",
    )
    positive: FiniteFloat = Field(description="s(anchor, positive); NevIR: s(query, its own passage)")
    negative: FiniteFloat = Field(description="s(anchor, negative), or s(positive, negative) for positive_negative; NevIR: s(query, the other passage)")
    correct: bool = Field(description="positive > negative (strict)")

    @model_validator(mode="after")
    def _outcome_matches_scores(self) -> Comparison:
        if self.correct != (self.positive > self.negative):
            raise ValueError(f"correct is {self.correct} but positive {self.positive!r} vs negative {self.negative!r} says otherwise")
        return self


class PairScore(BaseModel):
    """A pair of a pair suite (no per-item metric: its statistics are not means over pairs)."""

    model_config = ConfigDict(extra="forbid")

    score: FiniteFloat
    label: Literal[0, 1] = Field(description="0 = near-miss, 1 = meaning preserving")


class ItemScores(BaseModel):
    """One query (retrieval) or one item (near-miss) of one dataset."""

    model_config = ConfigDict(extra="forbid")

    dataset: str = Field(min_length=1)
    id: str = Field(min_length=1, description="query id, item id, or the pair's position in its dataset")
    metrics: dict[str, FiniteFloat] = Field(default_factory=dict, description="this query's / item's value of each metric that is a mean over queries / items")
    comparisons: list[Comparison] = Field(default_factory=list)
    pair: PairScore | None = None
    unit: str | None = Field(
        default=None,
        min_length=1,
        description="its resampling unit within the dataset (e.g. its generator frame): items of one unit are resampled together; "
        "absent: the item is its own unit (and in sidecars written before units existed)",
    )


class SidecarHeader(BaseModel):
    """Which results the items belong to; built from the results file by :meth:`from_results`."""

    model_config = ConfigDict(extra="forbid")

    sidecar_version: Literal[1] = SIDECAR_VERSION
    submission: str
    suite: str
    task: Literal["retrieval", "nearmiss"]
    main_metric: str
    submission_hash: str
    dependencies: dict[str, str]
    fingerprints: dict[str, str]
    suite_hash: str
    limit_queries: int | None
    top_k: int | None = Field(description="retrieval: documents kept per query; null for near-miss suites")
    datasets: dict[str, dict[str, float]] = Field(description="dataset -> its metrics exactly as the results file holds them")
    items: dict[str, int] = Field(description="dataset -> number of item lines (0: its suite type keeps none)")

    @classmethod
    def from_results(cls, r: Results, items: dict[str, int] | None = None) -> SidecarHeader:
        m = r.metadata
        return cls(
            submission=r.submission,
            suite=r.suite,
            task=r.task,
            main_metric=r.main_metric,
            submission_hash=m.submission_hash,
            dependencies=m.dependencies,
            fingerprints=m.fingerprints,
            suite_hash=m.suite_hash,
            limit_queries=m.limit_queries,
            top_k=m.scorer.get("top_k") if r.task == "retrieval" else None,
            datasets=r.datasets,
            items=items or {},
        )

    def matches(self, other: SidecarHeader) -> bool:
        """Same results identity (every field but ``datasets`` and ``items``, which are per dataset)."""
        skip = {"datasets", "items"}
        return self.model_dump(exclude=skip) == other.model_dump(exclude=skip)


@dataclass
class Sidecar:
    header: SidecarHeader
    items: list[ItemScores]

    def by_dataset(self) -> dict[str, list[ItemScores]]:
        out: dict[str, list[ItemScores]] = {}
        for it in self.items:
            out.setdefault(it.dataset, []).append(it)
        return out


def sidecar_path(results_path: Path) -> Path:
    """``<dir>/<submission>/<suite>.json`` -> ``<dir>/<submission>/<suite>.items.jsonl.gz``."""
    return results_path.with_name(results_path.stem + SUFFIX)


def results_path_of(sidecar: Path) -> Path:
    return sidecar.with_name(sidecar.name[: -len(SUFFIX)] + ".json")


def encode(header: SidecarHeader, items: list[ItemScores]) -> bytes:
    """The file's bytes: deterministic (key order of the models, no gzip timestamp or name)."""
    lines = [json.dumps(header.model_dump(mode="json"), separators=(",", ":"), allow_nan=False)]
    lines += [json.dumps(it.model_dump(mode="json", exclude_defaults=True), separators=(",", ":"), allow_nan=False) for it in items]
    return gzip.compress(("\n".join(lines) + "\n").encode("utf-8"), compresslevel=6, mtime=0)


def write_sidecar(path: Path, header: SidecarHeader, items: list[ItemScores]) -> None:
    try:
        payload = encode(header, items)
    except ValueError as e:  # a NaN/inf that slipped past validation: refuse, nothing written
        raise CBenchError(f"refusing to write per-item scores: {e}", source=path) from None
    try:
        atomic_write_bytes(path, payload)
    except OSError as e:
        raise CBenchError(f"cannot write results (per-item scores): {os_reason(e)}", source=path) from None


def read_sidecar(path: Path) -> Sidecar:
    """The sidecar, validated line by line; one CBenchError naming the file (and line) otherwise."""
    try:
        text = gzip.decompress(path.read_bytes()).decode("utf-8")
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as e:
        raise CBenchError(f"unreadable per-item scores: {str(e).splitlines()[0] if str(e) else type(e).__name__}", source=path) from None
    lines = text.splitlines()
    if not lines:
        raise CBenchError("empty file (expected a header line)", source=path, field="line 1")
    header = _parse(SidecarHeader, lines[0], path, 1)
    items = [_parse(ItemScores, line, path, n) for n, line in enumerate(lines[1:], start=2)]
    return Sidecar(header, items)  # type: ignore[arg-type]


def _parse(model: type[BaseModel], line: str, path: Path, n: int) -> BaseModel:
    try:
        return model.model_validate_json(line)  # fast (about 3x); a line it refuses is read again below to say why
    except ValidationError:
        pass
    try:
        obj = json.loads(line)
    except ValueError as e:
        raise CBenchError(f"invalid JSON: {e}", source=path, field=f"line {n}") from None
    if not isinstance(obj, dict):
        raise CBenchError("expected a JSON object", source=path, field=f"line {n}")
    try:
        return model.model_validate(obj)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(root)"
        raise CBenchError(err["msg"], source=path, field=f"line {n}: {where}") from None


def main_values(items: list[ItemScores], metric: str) -> list[float] | None:
    """Each item's value of ``metric`` in file order; None when the metric has no per-item value
    (e.g. AUROC, the main metric of a pair suite) on some item, or there are no items."""
    if not items or any(metric not in it.metrics for it in items):
        return None
    return [it.metrics[metric] for it in items]


def item_units(items: list[ItemScores]) -> list[str | None] | None:
    """Each item's resampling unit in file order (None: its own unit); None when no item has one."""
    units = [it.unit for it in items]
    return units if any(u is not None for u in units) else None


def sidecar_problems(sc: Sidecar, r: Results) -> list[tuple[str, str]]:
    """(field, message) for every way the sidecar disagrees with its results file: header fields,
    datasets covered, duplicate ids, and each dataset's mean of the main metric (within 1e-6)."""
    problems: list[tuple[str, str]] = []
    want = SidecarHeader.from_results(r)
    for name in SidecarHeader.model_fields:
        if name in ("datasets", "items"):
            continue
        got, expected = getattr(sc.header, name), getattr(want, name)
        if got != expected:
            problems.append((f"header.{name}", f"{got!r} but the results file has {expected!r}"))
    by = sc.by_dataset()
    for ds in sorted({*by, *sc.header.datasets, *sc.header.items} - set(r.datasets)):
        problems.append((f"dataset {ds}", "per-item scores for a dataset the results file does not have"))
    for ds, metrics in r.datasets.items():
        items = by.get(ds, [])
        if sc.header.datasets.get(ds) != metrics:
            problems.append((f"header.datasets.{ds}", "missing or differs from the results file's metrics for this dataset"))
        if sc.header.items.get(ds) != len(items):
            problems.append((f"header.items.{ds}", f"{sc.header.items.get(ds)} but the file has {len(items)} item lines for this dataset"))
        if not items:  # a suite type that keeps no per-item scores
            continue
        seen: dict[str, int] = {}
        for it in items:
            seen[it.id] = seen.get(it.id, 0) + 1
        dupes = sorted(i for i, k in seen.items() if k > 1)
        if dupes:
            problems.append((f"dataset {ds}", f"{len(dupes)} id(s) appear more than once, e.g. '{dupes[0]}'"))
        values = main_values(items, r.main_metric)
        if values is None:
            if any(r.main_metric in it.metrics for it in items):
                problems.append((f"dataset {ds}", f"{r.main_metric} is missing on some items"))
            continue
        mean = sum(values) / len(values)
        if r.main_metric in metrics and abs(mean - metrics[r.main_metric]) > MEAN_TOLERANCE:
            problems.append(
                (f"dataset {ds}", f"mean {r.main_metric} over {len(values)} items is {mean:.6f} but the results file has {metrics[r.main_metric]:.6f}")
            )
    return problems
