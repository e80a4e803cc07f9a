"""PAWS pairs (Zhang et al., NAACL 2019): the released tab-separated files.

Header ``id<TAB>sentence1<TAB>sentence2<TAB>label``, one pair a line, text tokenised as released
(quote characters are text: read with ``csv.QUOTE_NONE``); ``label`` 1 = paraphrase, 0 = not.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.errors import CBenchError, validation_error

HEADER = ["id", "sentence1", "sentence2", "label"]


class PawsPair(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1)
    sentence1: str = Field(min_length=1)
    sentence2: str = Field(min_length=1)
    label: Literal[0, 1] = Field(description="1 = paraphrase, 0 = not")


@dataclass
class PawsData:
    name: str
    test: list[PawsPair]
    dev: list[PawsPair]  # for choosing the accuracy threshold only
    source: str
    revision: str | None


def read_paws(path: Path) -> list[PawsPair]:
    """The pairs of a PAWS TSV file; one-line CBenchError (file, line, field) for a bad header or
    row, a repeated id, or a file without pairs of both labels."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise CBenchError(f"not valid UTF-8 (byte {e.start})", source=path) from None
    reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
    header = next(reader, None)
    if header != HEADER:
        raise CBenchError(f"header must be {'<TAB>'.join(HEADER)!r}, got {'<TAB>'.join(header or [])!r}", source=path, field="line 1")
    out: list[PawsPair] = []
    seen: set[str] = set()
    for row in reader:
        where = f"line {reader.line_num}"
        if not row:
            continue
        if len(row) != len(HEADER):
            raise CBenchError(f"expected {len(HEADER)} tab-separated columns, got {len(row)}", source=path, field=where)
        obj: dict[str, object] = dict(zip(HEADER, row, strict=True))
        obj["label"] = int(row[3]) if row[3] in {"0", "1"} else row[3]
        try:
            pair = PawsPair.model_validate(obj)
        except ValidationError as e:
            raise validation_error(e, path, within=where, root="(line)") from None
        if pair.id in seen:
            raise CBenchError(f"id '{pair.id}' appears more than once", source=path, field=f"{where}: id")
        seen.add(pair.id)
        out.append(pair)
    if len({p.label for p in out}) < 2:
        raise CBenchError(f"needs pairs of both labels (0 and 1); got {len(out)} pair(s), labels {sorted({p.label for p in out})}", source=path, field="label")
    return out
