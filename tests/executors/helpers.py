"""Comparing two results folders: the same files (results, per-item scores, kept runs), metrics and
scores within 1e-6, apart from timings and what names the run itself (date, command line)."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

RUN_FIELDS = {"timings", "date", "command"}  # differ between any two runs


def results_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))


def close(a, b, path: str = "") -> list[str]:
    """Where two JSON values differ: numbers beyond 1e-6, anything else at all."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return [f"{path}: keys {sorted(set(a) ^ set(b))}"]
        return [d for k in a for d in close(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: lengths {len(a)} != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in close(x, y, f"{path}[{i}]")]
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and math.isclose(a, b, rel_tol=0, abs_tol=1e-6):
            return []
        return [f"{path}: {a} != {b}"]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def load_comparable(path: Path):
    if path.name.endswith(".json"):
        data = json.loads(path.read_text())
        for k in RUN_FIELDS:
            data["metadata"].pop(k, None)
        return data
    if path.name.endswith(".trec.gz"):  # a kept run (harness.runs): query, document, rank, score per line
        with gzip.open(path, "rt") as f:
            return [[q, d, int(r), float(s), tag] for q, _q0, d, r, s, tag in (line.split() for line in f)]
    with gzip.open(path, "rt") as f:  # the per-item sidecar: header and one line per item
        return [json.loads(line) for line in f]


def differences(a: Path, b: Path) -> list[str]:
    files = results_files(a)
    if files != results_files(b):
        return [f"files differ: {files} vs {results_files(b)}"]
    return [d for rel in files for d in close(load_comparable(a / rel), load_comparable(b / rel), rel)]
