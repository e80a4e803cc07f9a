"""Ranked runs kept beside a retrieval results file, as TREC run files (gzip).

Layout: ``<results>/<submission>/<suite>.runs/<dataset>.trec.gz`` (the submission's ranked run,
each query's top ``top_k``) and, for a reranker, ``<dataset>.first_stage.trec.gz`` (the first
stage's run that it reordered, ``rerank_depth`` per query). One line per ranked document, in the
standard TREC run format that trec_eval, ranx (``Run.from_file(..., kind="trec")`` after gunzip)
and ir_datasets read::

    <query id> Q0 <document id> <rank> <score> <tag>

Queries in id order, documents in the harness's order (score descending, id ascending), ranks from
1. A run whose scores are all float32 values (what the embedding and network kinds compute) is
written with the shortest text that gives each float32 back, any other run with Python's shortest
round-trip text of each float64; the results file records which (``scores``), so a run read back
through it holds exactly the scores the results were computed from (fusion and curves recomputed
from the files equal the run's own numbers; other readers get them to float32 precision). gzip
without timestamp or name: the same run gives the same bytes. Each file's sha256 and score type are
recorded in the results file (``details[dataset]["runs"][role]``), so a reader can tell a run that
belongs to the results from a stale one.
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from harness.atomic import atomic_write_bytes
from harness.errors import CBenchError
from harness.search import rank

RUNS_SUFFIX = ".runs"
RUN_FILE = "{dataset}.trec.gz"
ROLE_SUFFIX = {"run": ".trec.gz", "first_stage": ".first_stage.trec.gz"}
Run = dict[str, dict[str, float]]


def runs_dir(results_path: Path) -> Path:
    """``<dir>/<submission>/<suite>.json`` -> ``<dir>/<submission>/<suite>.runs``."""
    return results_path.with_name(results_path.stem + RUNS_SUFFIX)


def run_path(results_path: Path, dataset: str, role: str = "run") -> Path:
    if role not in ROLE_SUFFIX:
        raise ValueError(f"unknown run role {role!r}; known: {', '.join(ROLE_SUFFIX)}")
    return runs_dir(results_path) / f"{dataset}{ROLE_SUFFIX[role]}"


ScoreType = Literal["float32", "float64"]


def score_type(run: Mapping[str, Mapping[str, float]]) -> ScoreType:
    """float32 when every score is exactly a float32 value, else float64."""
    for docs in run.values():
        for x in docs.values():
            if float(np.float32(x)) != x:
                return "float64"
    return "float32"


def score_text(x: float, scores: ScoreType) -> str:
    """The shortest text that reads back as exactly ``x`` in ``scores``' type."""
    return str(np.float32(x)) if scores == "float32" else repr(float(x))


def parse_score(text: str, scores: ScoreType) -> float:
    return float(np.float32(text)) if scores == "float32" else float(text)


@dataclass(frozen=True)
class EncodedRun:
    data: bytes  # gzip bytes of the TREC run
    scores: ScoreType

    @property
    def sha256(self) -> str:
        return sha256(self.data)

    def record(self) -> dict[str, str]:
        """What the results file records of it."""
        return {"sha256": self.sha256, "scores": self.scores}


def encode_run(run: Mapping[str, Mapping[str, float]], tag: str) -> EncodedRun:
    """``run`` as a gzip TREC run (module docstring); deterministic."""
    if not tag or any(c.isspace() for c in tag):
        raise ValueError(f"a run tag is one word, got {tag!r}")
    scores = score_type(run)
    lines: list[str] = []
    for qid in sorted(run):
        for i, (did, score) in enumerate(rank(run[qid]).items(), start=1):
            if any(c.isspace() for c in qid + did):
                raise ValueError(f"query or document id with white space cannot be written to a TREC run: {qid!r} / {did!r}")
            lines.append(f"{qid} Q0 {did} {i} {score_text(score, scores)} {tag}")
    data = gzip.compress(("\n".join(lines) + ("\n" if lines else "")).encode("utf-8"), compresslevel=6, mtime=0)
    return EncodedRun(data, scores)


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def decode_run(data: bytes, source: Path | str, scores: ScoreType = "float64") -> Run:
    """A TREC run's {query id: {document id: score}} from its (gzip) bytes, scores read as
    ``scores``' type; one error line naming ``source`` and the line for anything malformed."""
    try:
        text = gzip.decompress(data).decode("utf-8") if data[:2] == b"\x1f\x8b" else data.decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError) as e:
        raise CBenchError(f"unreadable run file: {e}", source=source) from None
    run: Run = {}
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 6:
            raise CBenchError(f"line {n}: a TREC run line has 6 fields (qid Q0 docid rank score tag), got {len(parts)}", source=source)
        qid, _q0, did, _rank, score, _tag = parts
        try:
            value = parse_score(score, scores)
        except ValueError:
            raise CBenchError(f"line {n}: score {score!r} is not a number", source=source) from None
        if not np.isfinite(value):
            raise CBenchError(f"line {n}: score {score!r} is not finite", source=source)
        docs = run.setdefault(qid, {})
        if did in docs:
            raise CBenchError(f"line {n}: document {did!r} ranked twice for query {qid!r}", source=source)
        docs[did] = value
    return run


def read_run(path: Path, record: Mapping[str, str] | None = None) -> Run:
    """A run file; with its ``record`` in a results file (``EncodedRun.record``), refused when its
    sha256 differs, and its scores read in the recorded type."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise CBenchError(f"cannot read the run file: {e.strerror or e}", source=path) from None
    expected = (record or {}).get("sha256")
    if expected is not None and sha256(data) != expected:
        raise CBenchError(
            f"does not belong to its results file (sha256 {sha256(data)[7:19]}..., the results record {expected[7:19]}...); rerun the submission",
            source=path,
        )
    scores = (record or {}).get("scores", "float64")
    if scores not in ("float32", "float64"):
        raise CBenchError(f"the results record score type {scores!r} for it (float32 or float64)", source=path)
    return decode_run(data, path, scores)  # type: ignore[arg-type]


def write_run(path: Path, data: bytes) -> None:
    """``data`` (``EncodedRun.data``) to ``path`` atomically; a disk fault is one error naming it."""
    from harness.results import os_reason

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)
    except OSError as e:
        raise CBenchError(f"cannot write results (a kept run): {os_reason(e)}", source=e.filename or path) from None


@dataclass(frozen=True)
class KeptRuns:
    """The runs a results file keeps for one dataset (``details[dataset]["runs"]``)."""

    run: Run
    first_stage: Run | None


def recorded_runs(details: Mapping | None) -> dict[str, dict[str, str]]:
    """role -> {sha256, scores}, as a results file's ``details[dataset]`` records them (empty: none kept)."""
    runs = (details or {}).get("runs") or {}
    return {role: rec for role, rec in runs.items() if role in ROLE_SUFFIX and isinstance(rec, dict) and "sha256" in rec}


def read_kept_runs(results_path: Path, details: Mapping[str, Mapping], dataset: str) -> KeptRuns:
    """The runs kept for ``dataset`` beside ``results_path`` (``details``: the results' details),
    each checked against its recorded sha256; one error line when none were kept or one is stale."""
    recorded = recorded_runs(details.get(dataset))
    if "run" not in recorded:
        raise CBenchError(
            f"keeps no ranked run for dataset {dataset} (made before runs were kept, or not a retrieval result); rerun it with --overwrite",
            source=results_path,
        )
    run = read_run(run_path(results_path, dataset, "run"), recorded["run"])
    first = read_run(run_path(results_path, dataset, "first_stage"), recorded["first_stage"]) if "first_stage" in recorded else None
    return KeptRuns(run, first)


def stale_run_files(results_path: Path, keep: set[str]) -> list[Path]:
    """Run files beside ``results_path`` of datasets not in ``keep`` (recomputed, or gone)."""
    folder = runs_dir(results_path)
    if not folder.is_dir():
        return []
    out = []
    for p in sorted(folder.iterdir()):
        dataset = next((p.name[: -len(suffix)] for suffix in sorted(ROLE_SUFFIX.values(), key=len, reverse=True) if p.name.endswith(suffix)), None)
        if dataset is None or dataset not in keep:
            out.append(p)
    return out
