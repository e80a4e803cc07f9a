"""The NevIR suite type: paired accuracy on a tiny file, query / document roles, per-pair scores,
the sha256 pin, bad rows, and the scorers that only score pairs (controls)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.errors import CBenchError
from harness.paths import SUBMISSIONS_DIR
from harness.run_context import RunContext
from harness.scorers.base import EmbeddingScorer, Scorer, SubmissionBase
from harness.suites.base import EvalOptions
from harness.suites.registry import load_suite_file, resolve_suite

# Three pairs. With StubEncoder's vectors and dot products (see VECTORS):
#   p-both: s11 = 1 > s12 = 0 and s22 = 1 > s21 = 0      -> paired 1, queries 2/2
#   p-one:  s11 = 2 > s12 = 1 but s22 = 1 < s21 = 2      -> paired 0, queries 1/2
#   p-tie:  s11 = s12 = 1 and s22 = s21 = 1 (two ties)   -> paired 0, queries 0/2
PAIRS = [
    {"id": "p-both", "WorkerId": 1, "q1": "who won", "q2": "who lost", "doc1": "A won.", "doc2": "A did not win."},
    {"id": "p-one", "WorkerId": 2, "q1": "is it safe", "q2": "is it unsafe", "doc1": "It is safe.", "doc2": "It is not safe."},
    {"id": "p-tie", "WorkerId": 3, "q1": "was it open", "q2": "was it shut", "doc1": "It was open.", "doc2": "It was not open."},
]
EXPECTED = {"paired_accuracy": 1 / 3, "query_accuracy": (1 + 0.5 + 0) / 3, "tie_rate": 2 / 6, "n": 3.0}
# (text, role) -> vector; a query encoded as a document, or a document as a query, has none (KeyError)
VECTORS = {
    ("who won", "query"): [1, 0], ("who lost", "query"): [0, 1], ("A won.", "document"): [1, 0], ("A did not win.", "document"): [0, 1],
    ("is it safe", "query"): [1, 0], ("is it unsafe", "query"): [1, 0], ("It is safe.", "document"): [2, 0], ("It is not safe.", "document"): [1, 0],
    ("was it open", "query"): [1, 1], ("was it shut", "query"): [1, 1], ("It was open.", "document"): [1, 0], ("It was not open.", "document"): [0, 1],
}


class StubEncoder(EmbeddingScorer):
    """An embedding kind whose vectors depend on the role; records the role of every text it encodes."""

    kind = "stub-encoder"
    Config = SubmissionBase
    similarity = "dot"

    def __init__(self):
        super().__init__(SubmissionBase(name="stub", kind="stub-encoder"), RunContext(use_cache=False))
        self.roles: dict[str, set[str]] = {}

    def cache_spec(self, role):
        return {"kind": "stub", "role": role}

    def encode_batch(self, texts, role):
        for t in texts:
            self.roles.setdefault(t, set()).add(role)
        return np.array([VECTORS[(t, role)] for t in texts], dtype=np.float32)


def write_nevir(folder: Path, pairs: list[dict] = PAIRS, *, sha256: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "nevir" / "test.jsonl"
    data.parent.mkdir(exist_ok=True)
    data.write_text("".join(json.dumps(p) + "\n" for p in pairs))
    pin = f"  sha256: '{sha256}'\n" if sha256 else ""
    suite = folder / "tiny-nevir.yaml"
    suite.write_text(f"name: tiny-nevir\ntype: nevir\ndataset: nevir\nfile:\n  path: nevir/test.jsonl\n{pin}")
    return suite


def evaluate(suite_path: Path, scorer):
    suite = load_suite_file(suite_path, None)
    return suite.evaluate(scorer, suite.load("nevir"), EvalOptions())


def test_paired_and_query_accuracy_by_hand(tmp_path):
    out = evaluate(write_nevir(tmp_path), StubEncoder())
    assert out.metrics == pytest.approx(EXPECTED)


def test_queries_in_the_query_role_passages_in_the_document_role(tmp_path):
    stub = StubEncoder()
    evaluate(write_nevir(tmp_path), stub)
    queries = {p[k] for p in PAIRS for k in ("q1", "q2")}
    docs = {p[k] for p in PAIRS for k in ("doc1", "doc2")}
    assert stub.roles == {**{q: {"query"} for q in queries}, **{d: {"document"} for d in docs}}


def test_per_pair_scores_are_the_sidecar_items(tmp_path):
    out = evaluate(write_nevir(tmp_path), StubEncoder())
    items = {it.id: it for it in out.items}
    assert list(items) == ["p-both", "p-one", "p-tie"]
    assert {k: v.metrics for k, v in items.items()} == {
        "p-both": {"paired_accuracy": 1.0, "query_accuracy": 1.0},
        "p-one": {"paired_accuracy": 0.0, "query_accuracy": 0.5},
        "p-tie": {"paired_accuracy": 0.0, "query_accuracy": 0.0},
    }
    one = {c.name: (c.positive, c.negative, c.correct) for c in items["p-one"].comparisons}
    assert one == {"q1": (2.0, 1.0, True), "q2": (1.0, 2.0, False)}  # q2: s(q2, doc2) vs s(q2, doc1)
    for name in EXPECTED.keys() - {"tie_rate", "n"}:  # the dataset's value is the mean over pairs
        assert np.mean([it.metrics[name] for it in out.items]) == pytest.approx(out.metrics[name])


def test_a_scorer_blind_to_the_query_gets_no_pair_right(tmp_path):
    """Whatever it prefers for q1 it also prefers for q2: paired accuracy is exactly 0 (the point of
    NevIR's metric), though half of the queries are right."""

    class DocOnly(Scorer):  # implements score_pairs only: score_query_docs falls back to it
        kind = "doc-only"
        Config = SubmissionBase

        def retrieve(self, queries, corpus, top_k):  # pragma: no cover - not used
            raise NotImplementedError

        def score_pairs(self, a, b):
            return np.array([len(x) for x in b], dtype=np.float64)

    out = evaluate(write_nevir(tmp_path), DocOnly(SubmissionBase(name="doc-only", kind="doc-only"), RunContext()))
    assert out.metrics["paired_accuracy"] == 0.0 and out.metrics["query_accuracy"] == 0.5


@pytest.mark.parametrize("control", ["control-bm25.yaml", "control-jaccard-neg.yaml", "control-blind-tfidf.yaml"])
def test_controls_run_on_the_suite(tmp_path, control):
    from harness.submissions.registry import build_submission_scorer, load_submission

    scorer = build_submission_scorer(load_submission(SUBMISSIONS_DIR / "controls" / control), RunContext(use_cache=False))
    out = evaluate(write_nevir(tmp_path), scorer)
    assert out.metrics["n"] == 3 and len(out.items) == 3
    if "blind" in control:
        assert out.metrics["paired_accuracy"] == 0.0


def test_sha256_mismatch_is_one_line(tmp_path):
    suite = load_suite_file(write_nevir(tmp_path, sha256="0" * 64), None)
    with pytest.raises(CBenchError) as e:
        suite.load("nevir")
    assert len(e.value.lines) == 1
    assert "sha256 mismatch" in e.value.line and "test.jsonl" in e.value.line and "file.sha256" in e.value.line


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({k: v for k, v in PAIRS[0].items() if k != "doc2"}, "doc2"),
        ({**PAIRS[0], "doc3": "x"}, "doc3"),
        ({**PAIRS[0], "q1": ""}, "q1"),
    ],
)
def test_a_malformed_row_names_the_file_line_and_field(tmp_path, row, field):
    suite = load_suite_file(write_nevir(tmp_path, [PAIRS[1], row]), None)
    with pytest.raises(CBenchError) as e:
        suite.load("nevir")
    assert len(e.value.lines) == 1
    line = e.value.line
    assert "test.jsonl" in line and "line 2" in line and field in line


def test_a_repeated_id_is_refused(tmp_path):
    suite = load_suite_file(write_nevir(tmp_path, [PAIRS[0], PAIRS[0]]), None)
    with pytest.raises(CBenchError, match="p-both' appears more than once"):
        suite.load("nevir")


def test_through_the_cli_with_the_sidecar_and_compare(tmp_path, monkeypatch):
    monkeypatch.setenv("CBENCH_DATA_DIR", str(tmp_path))
    suite = write_nevir(tmp_path)
    res = tmp_path / "results"
    for model in ("tfidf", "bm25"):
        r = CliRunner().invoke(app, ["run", "--model", model, "--suite", str(suite), "--results-dir", str(res), "-q"])
        assert r.exit_code == 0, r.output
    out = json.loads((res / "tfidf" / "tiny-nevir.json").read_text())
    assert out["main_metric"] == "paired_accuracy" and out["task"] == "nearmiss"
    assert set(out["datasets"]["nevir"]) == {"paired_accuracy", "query_accuracy", "tie_rate", "n"}
    lines = gzip.decompress((res / "tfidf" / "tiny-nevir.items.jsonl.gz").read_bytes()).decode().splitlines()
    assert [json.loads(x)["id"] for x in lines[1:]] == ["p-both", "p-one", "p-tie"]
    r = CliRunner().invoke(app, ["compare", "tfidf", "bm25", "--suite", "tiny-nevir", "--results-dir", str(res), "--format", "json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["datasets"][0]["n"] == 3 and report["datasets"][0]["test"] == "mcnemar-exact"


def test_shipped_suite_facts_and_pins():
    from harness.finetune.data import evaluation_digests

    suite = resolve_suite("nevir", None)
    facts = suite.facts()
    assert (facts.label, facts.role, facts.chance, facts.main_metric) == ("NevIR", "extra", 0.25, "paired_accuracy")
    assert suite.config.file.sha256 == "4af4ac274c4f5725a25bcf162729b6f4deb33399761ab0e39fd1afb24b2f108d"
    assert evaluation_digests()[suite.config.file.sha256] == "nevir"  # cbench finetune refuses it

