"""The cost file: one JSON per submission (``<cost dir>/<submission>.json``), written atomically.

Every time is in milliseconds, measured by ``cbench cost`` (``harness.costs.measure``) on the
machine the file describes; nothing in it is a path of that machine.

Schema 2 (``COST_SCHEMA_VERSION``) holds three numbers apart, as a deployment pays them:

* ``index``: what the submission stores per document (``Scorer.index_documents`` of each of its
  ``index_parts``: a first stage's vectors or BM25 matrix, a verifier's document token
  embeddings, ...), built once for the whole collection: ms per document (wall and CPU), bytes
  per document at the precision stored, and a one-line ``stores``;
* ``queries``: ms per query with that index built (the first stage's search, plus a reranker's
  scoring of its candidates with the documents' stored representations read from the index;
  only what is computed per query is timed: the queries' encodings, the maps, the network, a
  cross-encoder's every pair);
* ``pairs``: ms per near-miss pair, nothing cached (unchanged from schema 1).

Schema-1 files (before the index was measured apart) are still read: ``read_cost`` validates them
against the schema-1 models (``CostRecordV1``) and converts them (``from_schema_1``) into a
``CostRecord`` with ``schema_version`` 1 (never written back): ``pairs`` as they were; ``index``
null (not measured: the schema-1 ``queries.index``, the first search over the corpus, included
a query and left a reranker's own store out; it is dropped); ``queries`` as they were. Their
query time is the cost with the index built for a first stage (its search ran against the built
index) and for a cross-encoder (it stores nothing; it scored every pair in both schemas), but not
for the other rerankers, which re-encoded their candidates' documents for every query
(``CostRecord.documents_reencoded``): the leaderboard leaves those cells blank with that reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from harness.atomic import atomic_write_text
from harness.errors import CBenchError, validation_error
from harness.names import NAME_PATTERN
from harness.paths import LEADERBOARD_DIR

COST_SCHEMA_VERSION = 2
DEFAULT_COST_DIR = LEADERBOARD_DIR / "cost"
# Schema-1 query times of rerankers that store documents: measured with the documents re-encoded.
SCHEMA_1_REENCODED = "measured with documents re-encoded per query (schema-1 cost file)"


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


class IndexPart(_Strict):
    """One submission's own per-document store (``Scorer.index_documents``), built once."""

    submission: str = Field(description="whose store: the submission itself or one it builds on (its first stage)")
    kind: str
    stores: str = Field(description="what is stored per document, at what precision")
    bytes: int = Field(ge=0, description="bytes stored for all the documents, at the stored precision")
    build: Timing = Field(description="the build, once: wall and CPU ms")
    built_for: str | None = Field(
        default=None, description="set when another submission timed in the same process built it (the same store): its build was reused, not repeated"
    )


class IndexCost(_Strict):
    """Everything the submission stores per document at index time, for the whole collection:
    its first stage's index and a reranker's own store (a store two parts share counted once)."""

    collection: str = Field(description="suite:dataset")
    documents: int = Field(ge=1, description="documents indexed: the whole collection")
    ms_per_doc: float = Field(ge=0, description="the parts' builds, wall time / documents")
    cpu_ms_per_doc: float = Field(ge=0, description="the same in CPU time")
    bytes: int = Field(ge=0, description="bytes stored, all parts")
    bytes_per_doc: float = Field(ge=0, description="bytes / documents")
    stores: str = Field(description="what is stored per document, the parts joined by ' + '")
    parts: list[IndexPart]


class QueryCost(_Strict):
    """Per query with the index built: a first stage's marginal search, plus, for a reranker,
    scoring its ``rerank_depth`` candidates with their stored representations read from the index."""

    collection: str = Field(description="suite:dataset")
    source: str | None = Field(description="its folder, as $CBENCH_DATA_DIR/... or relative to the project")
    revision: str | None
    corpus_docs: int = Field(ge=1)
    queries: int = Field(ge=2, description="queries timed per repeat (the first by id), in one call")
    sha256: str = Field(description="sha256 of the query texts, in order")
    ms_per_query: float = Field(description="with the index built: search_ms_per_query, plus rerank_ms_per_query for a reranker (wall time)")
    cpu_ms_per_query: float = Field(description="the same in CPU time")
    first_stage: str = Field(description="the submission that searched: this one, or a reranker's first stage")
    top_k: int = Field(ge=1)
    search_ms_per_query: float = Field(
        description="median over repeats of (t(all queries) - t(first query)) / (queries - 1), against the built index; wall time"
    )
    search_cpu_ms_per_query: float = Field(description="the same in CPU time")
    search_all: Timing = Field(description="the search of all the queries")
    search_one: Timing = Field(description="the search of the first query alone")
    rerank_depth: int | None = None
    rerank_pairs: int | None = Field(default=None, description="(query, candidate) pairs of the first stage's run, scored per repeat")
    rerank_ms_per_query: float | None = Field(
        default=None,
        description="median wall time / queries: score_query_docs over the candidates, the documents' stored representations "
        "read from the index, everything computed per query (the queries' encodings, a cross-encoder's pairs) paid",
    )
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
    schema_version: Literal[1, 2] = Field(
        default=COST_SCHEMA_VERSION, description="2; 1 only in memory, for a schema-1 file read and converted (module docstring)"
    )
    submission: str = Field(pattern=NAME_PATTERN)
    kind: str
    submission_hash: str = Field(description="hash of the submission YAML measured (as results record it)")
    batch_sizes: dict[str, int] = Field(description="submission (this one and those it builds on) -> its batch_size, for the kinds that have one")
    fingerprints: dict[str, str] = Field(description="weights / checkpoints timed (as results record them)")
    repeats: int = Field(ge=1, description="timed repeats after one warm-up; each figure is their median")
    pairs: PairCost
    index: IndexCost | None = Field(description="null for kinds without retrieval (controls), and in a converted schema-1 record (not measured)")
    queries: QueryCost | None = Field(description="null for kinds without retrieval (controls)")
    machine: Machine
    cbench_version: str
    git_commit: str | None
    python: str
    platform: str
    packages: dict[str, str]
    date: str
    command: str

    @model_validator(mode="after")
    def _index_with_queries(self):
        if self.schema_version == COST_SCHEMA_VERSION and (self.index is None) != (self.queries is None):
            raise ValueError("index and queries are both measured (kinds with retrieval) or both null (controls)")
        if self.schema_version != COST_SCHEMA_VERSION and self.index is not None:
            raise ValueError(f"a schema-{self.schema_version} record has no index")
        return self

    @property
    def documents_reencoded(self) -> bool:
        """Whether ``queries.ms_per_query`` was measured with the candidates' documents re-encoded
        per query (a schema-1 file of a reranker other than a cross-encoder), not with the index built."""
        q = self.queries
        return self.schema_version == 1 and q is not None and q.rerank_depth is not None and self.kind != "cross-encoder"


# -- schema 1, read only -------------------------------------------------------------------------


class QueryCostV1(_Strict):
    """Schema 1's query cost: ``index`` was the first search over the corpus (one query outside
    the workload), and a reranker's ``score_query_docs`` ran with every cache emptied (its
    documents encoded again for every query)."""

    collection: str
    source: str | None
    revision: str | None
    corpus_docs: int = Field(ge=1)
    queries: int = Field(ge=2)
    sha256: str
    ms_per_query: float
    cpu_ms_per_query: float
    first_stage: str
    top_k: int = Field(ge=1)
    index: Timing
    search_ms_per_query: float
    search_cpu_ms_per_query: float
    search_all: Timing
    search_one: Timing
    rerank_depth: int | None = None
    rerank_pairs: int | None = None
    rerank_ms_per_query: float | None = None
    rerank_cpu_ms_per_query: float | None = None
    rerank: Timing | None = None


class CostRecordV1(_Strict):
    schema_version: Literal[1]
    submission: str = Field(pattern=NAME_PATTERN)
    kind: str
    submission_hash: str
    batch_sizes: dict[str, int]
    fingerprints: dict[str, str]
    repeats: int = Field(ge=1)
    pairs: PairCost
    queries: QueryCostV1 | None
    machine: Machine
    cbench_version: str
    git_commit: str | None
    python: str
    platform: str
    packages: dict[str, str]
    date: str
    command: str


def from_schema_1(old: CostRecordV1) -> CostRecord:
    """A schema-1 record as a ``CostRecord`` of ``schema_version`` 1 (module docstring): no index,
    the query cost without its ``index`` timing."""
    data = old.model_dump(exclude={"queries"})
    queries = None if old.queries is None else QueryCost.model_validate(old.queries.model_dump(exclude={"index"}))
    return CostRecord.model_validate({**data, "index": None, "queries": queries})


def cost_path(cost_dir: Path, submission: str) -> Path:
    return cost_dir / f"{submission}.json"


def write_cost(path: Path, record: CostRecord) -> None:
    """The file, atomically (a temporary file renamed); a disk fault is one CBenchError naming it."""
    from harness.results import os_reason

    if record.schema_version != COST_SCHEMA_VERSION:
        raise CBenchError(f"refusing to write a cost file of schema {record.schema_version} (read from an older file; rerun cbench cost)", source=path)
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
        if isinstance(data, dict) and data.get("schema_version") == 1:
            record = from_schema_1(CostRecordV1.model_validate(data))
        else:
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
