"""The cost file: one JSON per submission (``<cost dir>/<submission>.json``), written atomically.

Every time is in milliseconds, measured by ``cbench cost`` (``harness.costs.measure``) on the
machine the file describes; nothing in it is a path of that machine.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.atomic import atomic_write_text
from harness.errors import CBenchError, validation_error
from harness.names import NAME_PATTERN
from harness.paths import LEADERBOARD_DIR

COST_SCHEMA_VERSION = 1
DEFAULT_COST_DIR = LEADERBOARD_DIR / "cost"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Timing(_Strict):
    """One timed call per repeat: wall-clock ms and this process's CPU ms (all its threads)."""

    wall_ms: list[float] = Field(min_length=1)
    cpu_ms: list[float] = Field(min_length=1)


class PairCost(_Strict):
    """``score_pairs`` (what the near-miss suites call) on a fixed set of near-miss pairs, in one
    call, nothing cached."""

    suite: str = Field(description="near-miss suite the pairs come from")
    suite_file: str | None = Field(description="its YAML, relative to the project")
    split: str | None
    pairs: int = Field(ge=1, description="(anchor, candidate) pairs scored per repeat")
    rule: str = Field(description="which items and pairs")
    sha256: str = Field(description="sha256 of the pair texts, in order")
    ms_per_pair: float = Field(ge=0, description="median wall time / pairs")
    cpu_ms_per_pair: float = Field(ge=0, description="median CPU time / pairs")
    timing: Timing


class QueryCost(_Strict):
    """A first stage's marginal cost per query against its built index, plus, for a reranker,
    scoring its ``rerank_depth`` candidates per query."""

    collection: str = Field(description="suite:dataset")
    source: str | None = Field(description="its folder, as $CBENCH_DATA_DIR/... or relative to the project")
    revision: str | None
    corpus_docs: int = Field(ge=1)
    queries: int = Field(ge=2, description="queries timed per repeat (the first by id), in one call")
    sha256: str = Field(description="sha256 of the query texts, in order")
    ms_per_query: float = Field(description="search_ms_per_query, plus rerank_ms_per_query for a reranker (wall time)")
    cpu_ms_per_query: float = Field(description="the same in CPU time")
    first_stage: str = Field(description="the submission that searched: this one, or a reranker's first stage")
    top_k: int = Field(ge=1)
    index: Timing = Field(description="the first search over the corpus (one query outside the workload), once: builds the index or encodes every document")
    search_ms_per_query: float = Field(
        description="median over repeats of (t(all queries) - t(first query)) / (queries - 1), the index built "
        "(embedding kinds keep the documents' vectors); wall time"
    )
    search_cpu_ms_per_query: float = Field(description="the same in CPU time")
    search_all: Timing = Field(description="the search of all the queries")
    search_one: Timing = Field(description="the search of the first query alone")
    rerank_depth: int | None = None
    rerank_pairs: int | None = Field(default=None, description="(query, candidate) pairs of the first stage's run, scored per repeat")
    rerank_ms_per_query: float | None = Field(default=None, description="median wall time / queries: score_query_docs over the candidates, nothing cached")
    rerank_cpu_ms_per_query: float | None = None
    rerank: Timing | None = None


class Machine(_Strict):
    cpu: str = Field(description="CPU model (/proc/cpuinfo)")
    logical_cpus: int | None
    torch_threads: int
    device: str
    load_average_start: tuple[float, float, float] = Field(description="1, 5 and 15 minute load averages before the first timing")
    load_average_end: tuple[float, float, float]


class CostRecord(_Strict):
    schema_version: int = COST_SCHEMA_VERSION
    submission: str = Field(pattern=NAME_PATTERN)
    kind: str
    submission_hash: str = Field(description="hash of the submission YAML measured (as results record it)")
    batch_sizes: dict[str, int] = Field(description="submission (this one and those it builds on) -> its batch_size, for the kinds that have one")
    fingerprints: dict[str, str] = Field(description="weights / checkpoints timed (as results record them)")
    repeats: int = Field(ge=1, description="timed repeats after one warm-up; each figure is their median")
    pairs: PairCost
    queries: QueryCost | None = Field(description="null for kinds without retrieval (controls)")
    machine: Machine
    cbench_version: str
    git_commit: str | None
    python: str
    platform: str
    packages: dict[str, str]
    date: str
    command: str


def cost_path(cost_dir: Path, submission: str) -> Path:
    return cost_dir / f"{submission}.json"


def write_cost(path: Path, record: CostRecord) -> None:
    """The file, atomically (a temporary file renamed); a disk fault is one CBenchError naming it."""
    from harness.results import os_reason

    try:
        text = json.dumps(record.model_dump(mode="json"), indent=2, allow_nan=False)
    except ValueError as e:
        raise CBenchError(f"refusing to write a cost file: {e}", source=path) from None
    try:
        atomic_write_text(path, text + "\n")
    except OSError as e:
        raise CBenchError(f"cannot write the cost file: {os_reason(e)}", source=path) from None


def read_cost(path: Path) -> CostRecord:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise CBenchError(f"unreadable cost file: {str(e).splitlines()[0]}", source=path) from None
    try:
        record = CostRecord.model_validate(data)
    except ValidationError as e:
        raise validation_error(e, path) from None
    if path.stem != record.submission:
        raise CBenchError(f"holds the cost of '{record.submission}'; the file must be named {record.submission}.json", source=path, field="submission")
    return record


def read_costs(cost_dir: Path) -> tuple[dict[str, CostRecord], list[str]]:
    """Every ``<cost_dir>/*.json`` (hidden and temporary files left out): submission -> record, and
    one warning line per file left out. A missing folder is no costs."""
    found: dict[str, CostRecord] = {}
    warnings: list[str] = []
    if not cost_dir.is_dir():
        return found, warnings
    for path in sorted(p for p in cost_dir.glob("*.json") if p.is_file() and not p.name.startswith(".")):
        try:
            record = read_cost(path)
        except CBenchError as e:
            warnings.append(f"{e.line} (left out)")
            continue
        found[record.submission] = record
    return found, warnings
