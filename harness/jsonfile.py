"""Reading JSON and JSON Lines input with one-line errors naming the file and line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.errors import CBenchError


def loads_line(line: str, source: Path, n: int) -> Any:
    """One JSON Lines record; ``invalid JSON: <why>`` at ``line n``."""
    try:
        return json.loads(line)
    except json.JSONDecodeError as e:
        raise CBenchError(f"invalid JSON: {e.msg}", source=source, field=f"line {n}") from None


def json_lines(text: str, source: Path) -> Iterator[tuple[int, Any]]:
    """(line number, record) for every non-blank line."""
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield n, loads_line(line, source, n)


def json_list(text: str, source: Path, what: str) -> list[Any]:
    """A whole-file JSON list (``expected a JSON list of <what>`` otherwise)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise CBenchError(f"invalid JSON: {e.msg}", source=source, field=f"line {e.lineno}") from None
    if not isinstance(data, list):
        raise CBenchError(f"expected a JSON list of {what}", source=source, field="(root)")
    return data
