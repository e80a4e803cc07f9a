"""Training data for `cbench finetune`: triplet files, near-miss records, and the refusal of
evaluation data.

Rows are tuples of texts: (anchor, positive) pairs (in-batch negatives only) or (anchor,
positive, negative) triplets, the inputs of sentence-transformers' MultipleNegativesRankingLoss.

Accepted ``--train`` files (optionally gzip-compressed, ``.gz``):
- CSV with columns anchor, positive and optionally negative (other columns are ignored);
- JSONL whose lines are objects with anchor, positive[, negative]; objects {"query", "pos",
  "neg"} (MS MARCO style: pos[0] and neg[0] when lists); or JSON lists of 2 or 3 strings
  (sentence-transformers' NQ-train_pairs.jsonl.gz: [query, answer]);
- JSON: one list of such rows.
Every row of one file must have the same number of texts. Rows that carry ``split: test``
(evaluation data) or ``split: dev`` (development data: it sets the gate thresholds) are refused,
and so is any file identical to a file of an evaluation-only suite.

``--structural`` files are cbench near-miss records (five-text items, triplets, or sentence1 /
sentence2 pairs with label 0); each becomes identity triplets (anchor, anchor, negative), as the
reference turned its structural pairs (sentence1, sentence2) into (sentence1, sentence1, sentence2).
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import CBenchError
from harness.jsonfile import json_lines, json_list
from harness.paths import portable

Row = tuple[str, ...]

# Near-miss suites that are evaluation only: no file of theirs may be used for training.
EVAL_ONLY_SUITES = ("nearmiss-hand", "sugarcrepe-pp")


def recorded_path(path: Path) -> str:
    """A data file as provenance records it: relative to the project or the data dir when it lies
    there (no machine paths in a shareable submission file), else as given."""
    return portable(path) or str(path)


@dataclass
class TrainFile:
    """Rows read from one file, with what provenance needs."""

    path: str
    sha256: str
    rows: list[Row]
    role: str  # "train" | "structural" | "suite-train"
    note: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def arity(self) -> int:
        return len(self.rows[0]) if self.rows else 0

    def provenance(self) -> dict:
        return {"path": self.path, "sha256": self.sha256, "rows": len(self.rows), "role": self.role, **({"note": self.note} if self.note else {}), **self.extra}


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _text(path: Path) -> str:
    if not path.is_file():
        raise CBenchError("file not found", source=path)
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as e:
            raise CBenchError(f"not a valid gzip file: {e}", source=path) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CBenchError(f"not valid UTF-8 (byte {e.start})", source=path) from None


def _stem_suffix(path: Path) -> str:
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    return Path(name).suffix.lower()


# Splits never trained on: test (evaluation) and dev (sets the gate thresholds: nearmiss-dev).
NOT_FOR_TRAINING = {"test": "evaluation data", "dev": "development data (it sets thresholds)"}


def _refuse_test(obj: object, path: Path, where: str) -> None:
    split = obj.get("split") if isinstance(obj, dict) else None
    if split in NOT_FOR_TRAINING:
        raise CBenchError(f"a '{split}' split record: {NOT_FOR_TRAINING[split]} is never used for training", source=path, field=f"{where}: split")


def _row_from(obj: object, path: Path, where: str) -> Row:
    """One training row from a JSON value (object or list)."""
    if isinstance(obj, list):
        if len(obj) not in (2, 3):
            raise CBenchError(f"expected a list of 2 or 3 texts, got {len(obj)}", source=path, field=where)
        names = ("anchor", "positive", "negative")
        return tuple(_check_text(v, path, f"{where}: [{i}] ({names[i]})") for i, v in enumerate(obj))
    if not isinstance(obj, dict):
        raise CBenchError("expected an object or a list of texts", source=path, field=where)
    _refuse_test(obj, path, where)
    if "anchor" in obj or "positive" in obj:
        keys = ("anchor", "positive", "negative") if "negative" in obj else ("anchor", "positive")
    elif "query" in obj and "pos" in obj:
        keys = ("query", "pos", "neg") if "neg" in obj else ("query", "pos")
    else:
        raise CBenchError("missing; rows need anchor, positive [, negative] (or query, pos [, neg])", source=path, field=f"{where}: anchor")
    out = []
    for k in keys:
        if k not in obj:
            raise CBenchError("missing", source=path, field=f"{where}: {k}")
        v = obj[k]
        if k in ("pos", "neg") and isinstance(v, list):
            if not v:
                raise CBenchError("empty list", source=path, field=f"{where}: {k}")
            v = v[0]
        out.append(_check_text(v, path, f"{where}: {k}"))
    return tuple(out)


def _check_text(v: object, path: Path, where: str) -> str:
    if not isinstance(v, str):
        raise CBenchError(f"expected a string, got {type(v).__name__}", source=path, field=where)
    if not v.strip():
        raise CBenchError("empty text", source=path, field=where)
    return v


def read_train_file(path: Path) -> TrainFile:
    """Rows of a ``--train`` file (formats: see the module docstring)."""
    path = Path(path)
    text = _text(path)
    suffix = _stem_suffix(path)
    rows: list[Row] = []
    wheres: list[str] = []
    if suffix in {".csv", ".tsv"}:
        reader = csv.DictReader(io.StringIO(text), delimiter="\t" if suffix == ".tsv" else ",")
        cols = set(reader.fieldnames or [])
        missing = {"anchor", "positive"} - cols
        if missing:
            raise CBenchError(f"missing column(s) {', '.join(sorted(missing))}", source=path, field="header")
        keys = ("anchor", "positive", "negative") if "negative" in cols else ("anchor", "positive")
        for n, rec in enumerate(reader, start=2):
            where = f"line {n}"
            _refuse_test(rec, path, where)
            rows.append(tuple(_check_text(rec.get(k), path, f"{where}: {k}") for k in keys))
            wheres.append(where)
    elif suffix == ".jsonl":
        for n, obj in json_lines(text, path):
            rows.append(_row_from(obj, path, f"line {n}"))
            wheres.append(f"line {n}")
    elif suffix == ".json":
        for i, obj in enumerate(json_list(text, path, "rows")):
            rows.append(_row_from(obj, path, f"row {i}"))
            wheres.append(f"row {i}")
    else:
        raise CBenchError(f"unknown file type '{suffix or path.name}'; use .csv, .tsv, .jsonl or .json (optionally .gz)", source=path)
    if not rows:
        raise CBenchError("no rows", source=path)
    first = len(rows[0])
    for r, where in zip(rows, wheres, strict=True):
        if len(r) != first:
            raise CBenchError(f"{len(r)} texts where earlier rows have {first}; one file must be all pairs or all triplets", source=path, field=where)
    digest = sha256_file(path)
    refuse_evaluation_file(path, digest)
    return TrainFile(recorded_path(path), digest, rows, "train")


def _structural_format(path: Path, text: str) -> str:
    suffix = _stem_suffix(path)
    if suffix == ".csv":
        return "pairs-csv"
    if suffix != ".jsonl":
        raise CBenchError(f"unknown file type '{suffix or path.name}'; near-miss records are .jsonl (items, triplets, pairs) or .csv (pairs)", source=path)
    for n, obj in json_lines(text, path):
        if not isinstance(obj, dict):
            raise CBenchError("expected a JSON object", source=path, field=f"line {n}")
        if "pos_close" in obj:
            return "items-jsonl"
        if "sentence1" in obj:
            return "pairs-jsonl"
        return "triplets-jsonl"
    raise CBenchError("no records", source=path)


def identity_rows(records: list) -> list[Row]:
    """(anchor, anchor, negative) for every near-miss of every record: items give two (neg_close,
    neg_far), triplets one, labelled-0 pairs one (sentence1, sentence1, sentence2). Unlike the
    verifier's ``identity_triplets`` no (anchor, positive, negative) comparisons are added: this is
    the reference's Model B conversion."""
    from harness.data.nearmiss import NearMissItem, Pair, Triplet

    out: list[Row] = []
    for r in records:
        if isinstance(r, NearMissItem):
            out += [(r.anchor, r.anchor, r.neg_close), (r.anchor, r.anchor, r.neg_far)]
        elif isinstance(r, Triplet):
            out.append((r.anchor, r.anchor, r.negative))
        elif isinstance(r, Pair) and r.label == 0:
            out.append((r.sentence1, r.sentence1, r.sentence2))
    return out


def read_structural_file(path: Path) -> TrainFile:
    """Identity triplets from a file of near-miss records; test-split records are refused."""
    from harness.data.nearmiss import read_records

    path = Path(path)
    text = _text(path)
    fmt = _structural_format(path, text)
    if path.name.endswith(".gz"):
        raise CBenchError("compressed near-miss files are not supported; gunzip it first", source=path)
    records = read_records(path, fmt)  # type: ignore[arg-type]
    for i, r in enumerate(records):
        split = getattr(r, "split", None)
        if split in NOT_FOR_TRAINING:
            rid = getattr(r, "id", None) or f"record {i + 1}"
            raise CBenchError(f"a '{split}' split record: {NOT_FOR_TRAINING[split]} is never used for training", source=path, field=f"{rid}: split")
    rows = identity_rows(records)
    if not rows:
        raise CBenchError("no near-miss records (pairs need label 0)", source=path)
    digest = sha256_file(path)
    refuse_evaluation_file(path, digest)
    return TrainFile(recorded_path(path), digest, rows, "structural", note=f"{fmt}: identity triplets (anchor, anchor, negative)")


def evaluation_digests() -> dict[str, str]:
    """sha256 -> suite name of files that are evaluation only: every file of the EVAL_ONLY_SUITES
    that is present here, every sha256 pinned in a shipped near-miss suite without train split
    (SugarCrepe++), and the pins a suite declares evaluation only (``Suite.evaluation_only_sha256``:
    NevIR, PAWS)."""
    from harness.errors import DataUnavailable
    from harness.paths import data_dir
    from harness.suites.nearmiss import NearMissSuite
    from harness.suites.registry import load_suite_file, suite_files

    out: dict[str, str] = {}
    for name, yaml_path in suite_files().items():
        try:
            suite = load_suite_file(yaml_path, data_dir())
        except CBenchError:
            continue
        out.update({digest: name for digest in suite.evaluation_only_sha256()})
        if not isinstance(suite, NearMissSuite):
            continue
        for f in suite.config.files:
            if f.sha256 and suite.config.format == "sugarcrepe-pp":
                out[f.sha256] = name
            if name in EVAL_ONLY_SUITES:
                try:
                    out[sha256_file(suite._locate(f))] = name  # noqa: SLF001 - the suite's own lookup
                except (DataUnavailable, OSError):
                    pass
    return out


def refuse_evaluation_file(path: Path, digest: str, known: dict[str, str] | None = None) -> None:
    """A one-line error when the file is evaluation data (``known``: evaluation_digests(), computed
    once by a caller that checks several files)."""
    suite = (evaluation_digests() if known is None else known).get(digest)
    if suite:
        raise CBenchError(f"this file is the evaluation data of suite '{suite}'; it is never used for training", source=path)


def suite_train_records(suite_ref: str) -> tuple[list, list[TrainFile]]:
    """The ``train`` split records of a near-miss suite's files (the suite's own ``split`` is its
    evaluation split and is ignored here), with one TrainFile (rows empty) per file for provenance."""
    from harness.data.nearmiss import NearMissItem, Triplet, read_records
    from harness.paths import data_dir
    from harness.suites.nearmiss import NearMissSuite
    from harness.suites.registry import resolve_suite

    suite = resolve_suite(suite_ref, data_dir())
    if suite.name in EVAL_ONLY_SUITES or suite.evaluation_only_sha256():
        raise CBenchError(f"suite '{suite.name}' is evaluation only; it is never used for training", source="--data-suite")
    if not isinstance(suite, NearMissSuite):
        raise CBenchError(f"'{suite_ref}' is not a near-miss suite", source="--data-suite")
    records: list = []
    files: list[TrainFile] = []
    evaluation = evaluation_digests()
    for f in suite.config.files:
        path = suite._locate(f)  # noqa: SLF001 - the suite's own lookup rules
        digest = sha256_file(path)
        refuse_evaluation_file(path, digest, evaluation)  # e.g. a suite YAML of another name over an evaluation file
        recs = [r for r in read_records(path, suite.config.format) if isinstance(r, (NearMissItem, Triplet)) and r.split == "train"]
        records += recs
        files.append(TrainFile(recorded_path(path), digest, [], "suite-train", note=f"suite {suite.name}, split train, {len(recs)} records"))
    if not records:
        raise CBenchError("no 'train' split records (five-text items or triplets)", source=", ".join(t.path for t in files) or suite_ref)
    return records, files


def meaning_pairs(records: list) -> list[Row]:
    """(anchor, positive) pairs: items give (anchor, pos_close) and (anchor, pos_far); triplets
    (anchor, positive). The model sees only in-batch negatives (Model A of the paper-ab recipe)."""
    from harness.data.nearmiss import NearMissItem

    out: list[Row] = []
    for r in records:
        if isinstance(r, NearMissItem):
            out += [(r.anchor, r.pos_close), (r.anchor, r.pos_far)]
        else:
            out.append((r.anchor, r.positive))
    return out
