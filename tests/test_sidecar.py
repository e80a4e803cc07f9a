"""The per-item scores file format (harness/sidecar.py): schema, bytes, and the consistency rule
against its results file. The results and sidecar come from one BM25 run on tiny triplets."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from cbench_testutil import write_tiny_suites
from harness.cli import app
from harness.errors import CBenchError
from harness.results import read_results
from harness.sidecar import Comparison, ItemScores, SidecarHeader, encode, read_sidecar, results_path_of, sidecar_path, sidecar_problems


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("scored")
    suites = write_tiny_suites(root / "data")
    r = CliRunner().invoke(
        app, ["run", "--model", "bm25", "--suite", str(suites["tiny-triplets"]), "--results-dir", str(root / "res"), "-q"], catch_exceptions=False
    )
    assert r.exit_code == 0, r.output
    path = root / "res" / "bm25" / "tiny-triplets.json"
    return path, sidecar_path(path)


def lines(spath: Path) -> list[dict]:
    return [json.loads(x) for x in gzip.decompress(spath.read_bytes()).decode().splitlines()]


def rewrite(spath: Path, rows: list[dict], target: Path) -> Path:
    target.write_bytes(gzip.compress(("\n".join(json.dumps(r) for r in rows) + "\n").encode(), mtime=0))
    return target


def test_paths():
    p = Path("res/m/nearmiss.json")
    assert sidecar_path(p) == Path("res/m/nearmiss.items.jsonl.gz")
    assert results_path_of(sidecar_path(p)) == p


def test_roundtrip_is_byte_identical(scored):
    _, spath = scored
    sc = read_sidecar(spath)
    assert encode(sc.header, sc.items) == spath.read_bytes()
    first = lines(spath)[1]
    assert set(first) == {"dataset", "id", "metrics", "comparisons"}  # defaults (pair: null) left out


def test_comparison_outcome_must_match_its_scores():
    Comparison(name="anchor_negative", positive=0.9, negative=0.1, correct=True)
    with pytest.raises(ValidationError, match="correct is False"):
        Comparison(name="anchor_negative", positive=0.9, negative=0.1, correct=False)
    with pytest.raises(ValidationError):  # ties are failures (strict >)
        Comparison(name="anchor_negative", positive=0.5, negative=0.5, correct=True)
    with pytest.raises(ValidationError):
        ItemScores(dataset="d", id="x", metrics={"triplet_accuracy": float("nan")})


@pytest.mark.parametrize(
    ("edit", "field", "message"),
    [
        (lambda rows: rows[1].update(extra=1), "line 2: extra", "Extra inputs are not permitted"),
        (lambda rows: rows[2]["comparisons"][0].update(correct=not rows[2]["comparisons"][0]["correct"]), "line 3: comparisons.0", "correct is"),
        (lambda rows: rows[0].pop("suite"), "line 1: suite", "Field required"),
        (lambda rows: rows[3].update(id=""), "line 4: id", "at least 1 character"),
    ],
)
def test_schema_errors_are_one_line_naming_file_and_line(scored, tmp_path, edit, field, message):
    _, spath = scored
    rows = lines(spath)
    edit(rows)
    bad = rewrite(spath, rows, tmp_path / "x.items.jsonl.gz")
    with pytest.raises(CBenchError) as e:
        read_sidecar(bad)
    assert e.value.source == str(bad) and e.value.field == field and message in e.value.message
    assert "\n" not in e.value.line


def test_unreadable_and_empty(tmp_path):
    (tmp_path / "a.items.jsonl.gz").write_bytes(b"plain text")
    with pytest.raises(CBenchError, match="unreadable per-item scores"):
        read_sidecar(tmp_path / "a.items.jsonl.gz")
    (tmp_path / "b.items.jsonl.gz").write_bytes(gzip.compress(b"", mtime=0))
    with pytest.raises(CBenchError, match="empty file"):
        read_sidecar(tmp_path / "b.items.jsonl.gz")


def test_consistent_sidecar_has_no_problems(scored):
    path, spath = scored
    results, sc = read_results(path), read_sidecar(spath)
    assert sidecar_problems(sc, results) == []
    assert sc.header.matches(SidecarHeader.from_results(results))
    assert sc.header.items == {"negation": 5, "role_swap": 5}


def problems_after(scored, tmp_path, edit) -> list[tuple[str, str]]:
    path, spath = scored
    rows = lines(spath)
    edit(rows)
    return sidecar_problems(read_sidecar(rewrite(spath, rows, tmp_path / "x.items.jsonl.gz")), read_results(path))


def test_a_changed_item_breaks_the_mean(scored, tmp_path):
    def edit(rows):
        rows[1]["metrics"]["triplet_accuracy"] = 1.0 - rows[1]["metrics"]["triplet_accuracy"]

    (problem,) = problems_after(scored, tmp_path, edit)
    assert problem[0] == "dataset negation" and "mean triplet_accuracy over 5 items is" in problem[1]


def test_duplicate_ids_missing_lines_and_header_changes(scored, tmp_path):
    def dup(rows):
        rows[2]["id"] = rows[1]["id"]

    assert ("dataset negation", "1 id(s) appear more than once, e.g. 'tr-0'") in problems_after(scored, tmp_path, dup)

    def drop(rows):
        del rows[-1]

    got = problems_after(scored, tmp_path, drop)
    assert got[0] == ("header.items.role_swap", "5 but the file has 4 item lines for this dataset")

    def other_run(rows):
        rows[0]["submission_hash"] = "0" * 16

    real = read_results(scored[0]).metadata.submission_hash
    assert problems_after(scored, tmp_path, other_run) == [("header.submission_hash", f"'0000000000000000' but the results file has '{real}'")]

    def extra_dataset(rows):
        rows.append({**rows[1], "dataset": "ghost"})

    assert ("dataset ghost", "per-item scores for a dataset the results file does not have") in problems_after(scored, tmp_path, extra_dataset)


def test_unit_round_trip_and_old_lines_without_it(scored, tmp_path):
    """``unit`` (the item's resampling unit) is written only when set; a line without it (every
    sidecar written before units) reads as the item being its own unit."""
    _, spath = scored
    sc = read_sidecar(spath)
    assert all(it.unit is None for it in sc.items)  # tiny-triplets declares no resample_by
    framed = [it.model_copy(update={"unit": f"frame-{i % 3}"}) for i, it in enumerate(sc.items)]
    path = tmp_path / "framed.items.jsonl.gz"
    path.write_bytes(encode(sc.header, framed))
    again = read_sidecar(path)
    assert [it.unit for it in again.items] == [f"frame-{i % 3}" for i in range(len(sc.items))]
    assert again.items == framed and encode(again.header, again.items) == path.read_bytes()
    assert lines(path)[1]["unit"] == "frame-0"
    assert "unit" not in lines(spath)[1]
    mixed = lines(path)
    del mixed[1]["unit"]  # old and new lines in one file: the old one stands alone
    assert read_sidecar(rewrite(path, mixed, tmp_path / "mixed.items.jsonl.gz")).items[0].unit is None
    mixed[2]["unit"] = ""
    with pytest.raises(CBenchError) as e:
        read_sidecar(rewrite(path, mixed, tmp_path / "bad.items.jsonl.gz"))
    assert e.value.field == "line 3: unit"
