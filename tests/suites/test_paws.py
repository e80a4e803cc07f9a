"""The PAWS suite type: AUROC / AP / dev-threshold accuracy on tiny files, the threshold taken from
dev only, the TSV reader (QUOTE_NONE, bad rows), the sha256 pin, and controls."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from cbench_testutil import SHARED_DATA
from harness.cli import app
from harness.data.paws import read_paws
from harness.errors import CBenchError
from harness.metrics.pairs import choose_threshold
from harness.paths import SUBMISSIONS_DIR
from harness.run_context import RunContext
from harness.scorers.base import Scorer, SubmissionBase
from harness.suites.base import EvalOptions
from harness.suites.registry import load_suite_file, resolve_suite

# (score, label); NumberScorer scores a pair by the number that ends sentence2.
TEST = [(0.9, 1), (0.8, 0), (0.7, 1), (0.6, 1), (0.4, 0), (0.2, 0)]
DEV = [(0.95, 1), (0.85, 1), (0.8, 1), (0.7, 0), (0.3, 0), (0.1, 0)]
# By hand. AUROC: of the 9 (positive, negative) pairs, 0.9 beats 3 negatives, 0.7 and 0.6 two each: 7/9.
# AP: positives at ranks 1, 3, 4: (1/1 + 2/3 + 3/4) / 3 = 29/36.
# Dev separates perfectly between 0.7 and 0.8: threshold 0.75, dev accuracy 1. On test, "s > 0.75"
# calls 0.9 (label 1, right) and 0.8 (0, wrong) paraphrases, 0.7 and 0.6 (1, wrong) and 0.4, 0.2 (0,
# right) not: 3/6. The best threshold for test would be 0.5 (5/6), which the suite must not pick.
EXPECTED = {"auroc": 7 / 9, "average_precision": 29 / 36, "accuracy": 3 / 6, "dev_threshold": 0.75, "dev_accuracy": 1.0, "n": 6.0}


class NumberScorer(Scorer):
    kind = "number"
    Config = SubmissionBase

    def __init__(self):
        super().__init__(SubmissionBase(name="number", kind="number"), RunContext())
        self.calls: list[int] = []

    def retrieve(self, queries, corpus, top_k):  # pragma: no cover - not used
        raise NotImplementedError

    def score_pairs(self, a, b):
        self.calls.append(len(a))
        return np.array([float(x.split()[-1]) for x in b])


def tsv(rows: list[tuple[float, int]], prefix: str) -> str:
    lines = ["id\tsentence1\tsentence2\tlabel"]
    lines += [f"{prefix}{i}\tThe \" quoted \" town of A lies near B .\tscore {s}\t{y}" for i, (s, y) in enumerate(rows, start=1)]
    return "\n".join(lines) + "\n"


def write_paws(folder: Path, test: str | None = None, dev: str | None = None, *, test_sha: str | None = None) -> Path:
    (folder / "paws").mkdir(parents=True, exist_ok=True)
    (folder / "paws" / "test.tsv").write_text(test if test is not None else tsv(TEST, "t"))
    (folder / "paws" / "dev.tsv").write_text(dev if dev is not None else tsv(DEV, "d"))
    pin = f"  sha256: '{test_sha}'\n" if test_sha else ""
    suite = folder / "tiny-paws.yaml"
    suite.write_text(f"name: tiny-paws\ntype: paws\ndataset: paws\ntest:\n  path: paws/test.tsv\n{pin}dev:\n  path: paws/dev.tsv\n")
    return suite


def evaluate(suite_path: Path, scorer):
    suite = load_suite_file(suite_path, None)
    return suite.evaluate(scorer, suite.load("paws"), EvalOptions())


def test_metrics_by_hand(tmp_path):
    scorer = NumberScorer()
    out = evaluate(write_paws(tmp_path), scorer)
    assert {k: out.metrics[k] for k in EXPECTED} == pytest.approx(EXPECTED)
    assert scorer.calls == [6, 6]  # test and dev scored separately


def test_the_threshold_comes_from_dev_not_test(tmp_path):
    """Swapping dev for a copy of test moves the threshold to test's best (0.5, accuracy 5/6):
    the test labels alone would have chosen it; the suite, given the real dev, does not."""
    with_dev = evaluate(write_paws(tmp_path / "a"), NumberScorer()).metrics
    test_as_dev = evaluate(write_paws(tmp_path / "b", dev=tsv(TEST, "d")), NumberScorer()).metrics
    assert test_as_dev["dev_threshold"] == pytest.approx(0.5) and test_as_dev["accuracy"] == pytest.approx(5 / 6)
    assert with_dev["dev_threshold"] == pytest.approx(0.75) and with_dev["accuracy"] == pytest.approx(3 / 6)
    flipped_test = evaluate(write_paws(tmp_path / "c", test=tsv([(s, 1 - y) for s, y in TEST], "t")), NumberScorer()).metrics
    assert flipped_test["dev_threshold"] == with_dev["dev_threshold"]  # test labels change nothing about it


def test_per_pair_items(tmp_path):
    out = evaluate(write_paws(tmp_path), NumberScorer())
    assert [it.id for it in out.items] == [f"t{i}" for i in range(1, 7)]
    assert [(it.pair.score, it.pair.label) for it in out.items] == TEST
    assert [it.metrics["accuracy"] for it in out.items] == [1.0, 0.0, 0.0, 0.0, 1.0, 1.0]


@pytest.mark.parametrize(
    ("scores", "labels", "threshold", "accuracy"),
    [
        ([0.1, 0.2, 0.3], [1, 1, 1], np.nextafter(0.1, -np.inf), 1.0),  # all positive: just below the lowest
        ([0.1, 0.2, 0.3], [0, 0, 0], 0.3, 1.0),  # all negative: the highest score
        ([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1], 0.15, 0.75),  # 0.15 and 0.35 both give 3/4: the lowest
        ([0.5, 0.5, 0.9, 0.9], [0, 0, 1, 1], 0.7, 1.0),  # equal scores stay on one side
    ],
)
def test_choose_threshold(scores, labels, threshold, accuracy):
    t, acc = choose_threshold(np.array(scores), np.array(labels))
    assert t == pytest.approx(threshold, rel=1e-12) and acc == accuracy
    assert np.mean((np.array(scores) > t) == (np.array(labels) == 1)) == acc  # the threshold gives that accuracy


def test_reader_keeps_quotes_as_text_and_counts_rows(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text("id\tsentence1\tsentence2\tlabel\n1\tHe said \" yes .\tHe said `` no '' .\t0\n2\tA\tB\t1\n")
    pairs = read_paws(path)
    assert [p.sentence1 for p in pairs] == ['He said " yes .', "A"] and pairs[0].sentence2 == "He said `` no '' ."


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("1\tA\tB\t2\n", "line 2: label"),
        ("1\tA\tB\n", "line 2: expected 4 tab-separated columns, got 3"),
        ("1\t\tB\t1\n", "line 2: sentence1"),
        ("1\tA\tB\t1\n1\tC\tD\t0\n", "line 3: id: id '1' appears more than once"),
        ("1\tA\tB\t1\n2\tC\tD\t1\n", "label: needs pairs of both labels"),
    ],
)
def test_a_malformed_file_names_the_file_line_and_field(tmp_path, body, needle):
    path = tmp_path / "bad.tsv"
    path.write_text("id\tsentence1\tsentence2\tlabel\n" + body)
    with pytest.raises(CBenchError) as e:
        read_paws(path)
    assert len(e.value.lines) == 1 and str(path) in e.value.line and needle in e.value.line, e.value.line


def test_a_wrong_header_is_one_line(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text("sentence1\tsentence2\tlabel\nA\tB\t1\n")
    with pytest.raises(CBenchError, match="line 1: header must be"):
        read_paws(path)


def test_sha256_mismatch_is_one_line(tmp_path):
    suite = load_suite_file(write_paws(tmp_path, test_sha="ab" * 32), None)
    with pytest.raises(CBenchError) as e:
        suite.load("paws")
    assert len(e.value.lines) == 1
    assert "sha256 mismatch" in e.value.line and "test.tsv" in e.value.line and "test.sha256" in e.value.line


@pytest.mark.parametrize("control", ["control-bm25.yaml", "control-length.yaml", "control-blind-tfidf.yaml"])
def test_controls_run_on_the_suite(tmp_path, control):
    from harness.submissions.registry import build_submission_scorer, load_submission

    scorer = build_submission_scorer(load_submission(SUBMISSIONS_DIR / "controls" / control), RunContext(use_cache=False))
    out = evaluate(write_paws(tmp_path), scorer)
    assert 0.0 <= out.metrics["auroc"] <= 1.0 and len(out.items) == 6


def test_through_the_cli(tmp_path, monkeypatch):
    monkeypatch.setenv("CBENCH_DATA_DIR", str(tmp_path))
    suite = write_paws(tmp_path)
    res = tmp_path / "results"
    r = CliRunner().invoke(app, ["run", "--model", "tfidf", "--suite", str(suite), "--results-dir", str(res), "-q"])
    assert r.exit_code == 0, r.output
    out = json.loads((res / "tfidf" / "tiny-paws.json").read_text())
    assert out["main_metric"] == "auroc" and out["main_score"] == out["datasets"]["paws"]["auroc"]
    assert {"average_precision", "accuracy", "dev_threshold", "dev_accuracy"} <= set(out["datasets"]["paws"])


def test_shipped_suite_facts_and_pins():
    from harness.finetune.data import evaluation_digests

    suite = resolve_suite("paws", None)
    facts = suite.facts()
    assert (facts.label, facts.role, facts.chance, facts.main_metric) == ("PAWS", "extra", 0.5, "auroc")
    digests = evaluation_digests()
    assert digests["da26f2c41c2bca65438360c4f4ad4b752bdf298faee41d746df6ed5a277f5eb8"] == "paws"
    assert digests["ea2ac6cfbd1eec4788504576a710856d713e9fa244f108f49755453a40acebdb"] == "paws"


def test_chance_levels_of_the_shipped_suites():
    chance = {
        name: resolve_suite(name, None).facts().chance
        for name in ("nearmiss", "nearmiss-hand", "nearmiss-v1", "sugarcrepe-pp", "nevir", "paws", "classic-ir", "nanobeir")
    }
    assert chance == {
        "nearmiss": 0.5, "nearmiss-hand": 0.5, "nearmiss-v1": 0.5, "sugarcrepe-pp": pytest.approx(1 / 3),
        "nevir": 0.25, "paws": 0.5, "classic-ir": None, "nanobeir": None,
    }


@pytest.mark.skipif(not (SHARED_DATA / "paws_wiki" / "test.tsv").is_file(), reason=f"no paws_wiki/ under {SHARED_DATA} (CBENCH_DATA_DIR)")
def test_the_real_files_read_as_released():
    suite = resolve_suite("paws", Path(os.environ.get("CBENCH_DATA_DIR", SHARED_DATA)))
    data = suite.load("paws-wiki")  # checks both sha256 pins
    assert (len(data.test), sum(p.label for p in data.test)) == (8000, 3536)
    assert (len(data.dev), sum(p.label for p in data.dev)) == (8000, 3539)


def test_a_suite_without_dev_pairs_scores_test_only(tmp_path):
    """A development suite (paws-dev: the dev file as its test, no dev): one scoring call, no
    thresholded accuracy, every pair kept with its score and label (the gate reads them)."""
    suite = write_paws(tmp_path)
    suite.write_text("name: tiny-paws\ntype: paws\ndataset: paws\nleaderboard: {role: dev, dev_for: paws}\ntest:\n  path: paws/dev.tsv\n")
    scorer = NumberScorer()
    out = evaluate(suite, scorer)
    assert scorer.calls == [6]
    assert "accuracy" not in out.metrics and "dev_threshold" not in out.metrics and out.metrics["n"] == 6.0
    assert [(it.pair.score, it.pair.label) for it in out.items] == DEV and all(not it.metrics for it in out.items)


def test_the_shipped_dev_suite_is_the_paws_dev_file():
    suite = resolve_suite("paws-dev", SHARED_DATA)
    paws = resolve_suite("paws", SHARED_DATA)
    assert suite.config.test.sha256 == paws.config.dev.sha256 and suite.config.dev is None
    assert suite.facts().role == "dev" and suite.facts().dev_for == "paws"
