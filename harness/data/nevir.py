"""NevIR pairs (Weller et al., EACL 2024): two queries and two passages that differ by a negation.

One JSON object a line, the released fields only: ``{"id", "WorkerId", "q1", "q2", "doc1",
"doc2"}``; ``q1`` is answered by ``doc1`` only, ``q2`` by ``doc2`` only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from harness.data.retrieval import read_jsonl
from harness.errors import CBenchError


class NevIRPair(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1)
    WorkerId: int | str | None = Field(default=None, description="the crowd worker who wrote it (not used)")
    q1: str = Field(min_length=1, description="answered by doc1 only")
    q2: str = Field(min_length=1, description="answered by doc2 only")
    doc1: str = Field(min_length=1)
    doc2: str = Field(min_length=1)


@dataclass
class NevIRData:
    name: str
    pairs: list[NevIRPair]
    source: str
    revision: str | None


def read_nevir(path: Path) -> list[NevIRPair]:
    """The pairs of a NevIR JSONL file; one-line CBenchError (file, line, field) for a bad row,
    a repeated id (ids key the per-pair scores) or a file without pairs."""
    pairs: list[NevIRPair] = read_jsonl(path, NevIRPair)  # type: ignore[assignment]
    seen: set[str] = set()
    for p in pairs:
        if p.id in seen:
            raise CBenchError(f"id '{p.id}' appears more than once", source=path, field="id")
        seen.add(p.id)
    if not pairs:
        raise CBenchError("no pairs", source=path)
    return pairs
