"""Near-miss records and readers.

Three record types:
- ``NearMissItem`` (nearmiss v2, the 2x2 design): anchor; pos_close (same meaning, minimal
  in-place change); pos_far (same meaning, restructured); neg_close (the category's minimal
  meaning-changing edit); neg_far (the same wrong meaning, restructured like pos_far). Each
  item gives four comparisons s(a, pos_x) > s(a, neg_y).
- ``Triplet``: anchor, positive (meaning-preserving rewrite), negative (near-miss), with
  category, split and id. SugarCrepe++ items are triplets with anchor = caption, positive =
  caption2 (a second positive) and ``two_positives`` set, which enables the TOT metric.
- ``Pair``: sentence1, sentence2, category and label (0 = near-miss, the default; 1 = meaning
  preserving), the layout of the reference experiment's CSV files.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.data.retrieval import read_jsonl
from harness.errors import CBenchError, validation_error
from harness.jsonfile import json_list


class Triplet(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1)
    category: str = Field(min_length=1)
    split: str | None = None
    anchor: str = Field(min_length=1)
    positive: str = Field(min_length=1)
    negative: str = Field(min_length=1)
    frame: str | None = Field(default=None, description="generator frame (generated suites only)")


class NearMissItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1)
    category: str = Field(min_length=1)
    split: str | None = None
    anchor: str = Field(min_length=1)
    pos_close: str = Field(min_length=1)
    pos_far: str = Field(min_length=1)
    neg_close: str = Field(min_length=1)
    neg_far: str = Field(min_length=1)
    domain: str | None = None
    style: Literal["statement", "question", "request"] | None = None
    frame: str | None = Field(default=None, description="generator frame (generated suites only)")

    def triplets(self) -> list[tuple[str, str, str]]:
        """The four (anchor, positive, negative) comparisons, cells in CELLS order."""
        return [(self.anchor, getattr(self, p), getattr(self, n)) for p, n in CELLS]


# The four comparisons of an item, named <positive>_<negative> by surface distance.
CELLS = (("pos_close", "neg_close"), ("pos_close", "neg_far"), ("pos_far", "neg_close"), ("pos_far", "neg_far"))
CELL_NAMES = ("close_close", "close_far", "far_close", "far_far")


def identity_triplets(records: list) -> list[tuple[str, str, str]]:
    """Training triplets from near-miss records, as in the reference experiment: every
    (anchor, positive, negative) comparison plus identity triplets (anchor, anchor, negative)
    for each distinct negative (without them a verifier can learn "near-identical token map =
    near-miss" and reject exact repeats)."""
    out: list[tuple[str, str, str]] = []
    for r in records:
        if isinstance(r, NearMissItem):
            out += r.triplets()
            out += [(r.anchor, r.anchor, r.neg_close), (r.anchor, r.anchor, r.neg_far)]
        elif isinstance(r, Triplet):
            out += [(r.anchor, r.positive, r.negative), (r.anchor, r.anchor, r.negative)]
    return out


class Pair(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    sentence1: str = Field(min_length=1)
    sentence2: str = Field(min_length=1)
    category: str = Field(default="all", min_length=1)
    label: Literal[0, 1] = 0
    split: str | None = None


class SugarCrepePPItem(BaseModel):
    """One item of a SugarCrepe++ data/*.json file."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: int
    filename: str
    caption: str = Field(min_length=1)
    caption2: str = Field(min_length=1)
    negative_caption: str = Field(min_length=1)


Format = Literal["items-jsonl", "triplets-jsonl", "pairs-csv", "pairs-jsonl", "sugarcrepe-pp"]


@dataclass
class NearMissData:
    name: str  # category or file stem
    triplets: list[Triplet]
    pairs: list[Pair]
    items: list[NearMissItem]
    two_positives: bool
    source: str
    revision: str | None


JSONL_RECORDS: dict[str, type[BaseModel]] = {"items-jsonl": NearMissItem, "triplets-jsonl": Triplet, "pairs-jsonl": Pair}
RECORD_TYPES: dict[str, type[BaseModel]] = {**JSONL_RECORDS, "pairs-csv": Pair, "sugarcrepe-pp": Triplet}  # format -> what read_records returns


def _decode(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise CBenchError(f"not valid UTF-8 (byte {e.start})", source=path) from None


def _validate(model: type[BaseModel], obj: object, path: Path, where: str) -> BaseModel:
    if not isinstance(obj, dict):
        raise CBenchError("expected an object", source=path, field=where)
    try:
        return model.model_validate(obj)
    except ValidationError as e:
        raise validation_error(e, path, within=where, root="") from None


def read_records(path: Path, fmt: Format) -> list[Triplet] | list[Pair] | list[NearMissItem]:
    if fmt in JSONL_RECORDS:
        return read_jsonl(path, JSONL_RECORDS[fmt])  # type: ignore[return-value]
    text = _decode(path)
    if fmt == "pairs-csv":
        reader = csv.DictReader(io.StringIO(text))
        missing = {"sentence1", "sentence2"} - set(reader.fieldnames or [])
        if missing:
            raise CBenchError(f"missing column(s) {', '.join(sorted(missing))}", source=path, field="header")
        out = []
        for n, row in enumerate(reader, start=2):
            row = {k: v for k, v in row.items() if k is not None and v not in (None, "")}
            if "label" in row:
                row["label"] = int(row["label"]) if row["label"].strip() in {"0", "1"} else row["label"]
            out.append(_validate(Pair, row, path, f"line {n}"))
        return out  # type: ignore[return-value]
    if fmt == "sugarcrepe-pp":
        items = json_list(text, path, "items")
        out = []
        for i, obj in enumerate(items):
            item = _validate(SugarCrepePPItem, obj, path, f"item {i}")
            out.append(
                Triplet(
                    id=f"{path.stem}-{item.id}",  # type: ignore[attr-defined]
                    category=path.stem,
                    anchor=item.caption,  # type: ignore[attr-defined]
                    positive=item.caption2,  # type: ignore[attr-defined]
                    negative=item.negative_caption,  # type: ignore[attr-defined]
                )
            )
        return out  # type: ignore[return-value]
    raise CBenchError(f"unknown format '{fmt}'", source=path, field="format")
