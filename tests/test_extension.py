"""A new suite type and a new scorer kind need only their own code and one registration line each:
here both live in this file, are registered with one line each, run through `cbench run`, and show
on the leaderboard (a column with the suite's label, the kind's colour) and in the MTEB export,
with no edit to harness/leaderboard/, the runner or the CLI."""

from __future__ import annotations

import json
from typing import Literal

import numpy as np
import pytest
from pydantic import Field
from typer.testing import CliRunner

from harness.cli import app
from harness.scorers.base import Retrieval, Scorer, SubmissionBase
from harness.scorers.registry import SCORERS
from harness.suites.base import DatasetOutcome, EvalOptions, LeaderboardFacts, Suite, SuiteConfig
from harness.suites.registry import SUITE_TYPES

# -- the toy scorer kind: its own file in real life ---------------------------------------------


class ToyConfig(SubmissionBase):
    kind: Literal["toy-kind"]
    bias: float = 0.0


class ToyScorer(Scorer):
    """s(a, b) = share of a's words found in b, plus ``bias``."""

    kind = "toy-kind"
    Config = ToyConfig
    colour = "#123456"
    mteb_model_type = "toy"

    def retrieve(self, queries, corpus, top_k):
        return Retrieval({q: {} for q in queries})

    def score_pairs(self, a, b):
        return np.array([len(set(x.split()) & set(y.split())) / len(x.split()) + self.config.bias for x, y in zip(a, b, strict=True)])


# -- the toy suite type: its own file in real life ----------------------------------------------


class ToySuiteConfig(SuiteConfig):
    type: Literal["toy"]
    pairs: list[tuple[str, str]] = Field(min_length=1)


class ToySuite(Suite):
    """One dataset; toy_accuracy = share of pairs scored above 0.5."""

    type = "toy"
    task = "nearmiss"
    Config = ToySuiteConfig
    leaderboard = LeaderboardFacts(label="Toy Suite", role="extra")

    @property
    def main_metric(self) -> str:
        return "toy_accuracy"

    def dataset_names(self):
        return ["pairs"]

    def load(self, name):
        return self.config.pairs

    def evaluate(self, scorer, data, opts: EvalOptions) -> DatasetOutcome:
        s = scorer.score_pairs([a for a, _ in data], [b for _, b in data])
        return DatasetOutcome(metrics={"toy_accuracy": float(np.mean(s > 0.5))})


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(SCORERS, ToyScorer.kind, ToyScorer)  # the one registration line of the kind
    monkeypatch.setitem(SUITE_TYPES, ToySuite.type, ToySuite)  # the one registration line of the suite type


def test_toy_suite_and_toy_kind_run_and_show_on_the_leaderboard(registered, tmp_path):
    from harness.export_mteb import model_meta
    from harness.leaderboard.collect import build
    from harness.leaderboard.plot import kind_colour
    from harness.leaderboard.render import main_cells, main_columns, render_markdown
    from harness.results import read_results

    subs, results = tmp_path / "subs", tmp_path / "results"
    subs.mkdir()
    (subs / "toy-sub.yaml").write_text("name: toy-sub\nkind: toy-kind\nbias: 0.0\n")
    suite = tmp_path / "toy.yaml"
    suite.write_text("name: toy\ntype: toy\npairs: [[a b, a b c], [a b, c d], [x y, x z], [p, p q]]\n")
    r = CliRunner().invoke(app, ["run", "--model", "toy-sub", "--suite", str(suite), "--results-dir", str(results), "--submissions-dir", str(subs), "-q"])
    assert r.exit_code == 0, r.output
    out = json.loads((results / "toy-sub" / "toy.json").read_text())
    assert out["main_metric"] == "toy_accuracy" and out["main_score"] == 0.5 and out["datasets"] == {"pairs": {"toy_accuracy": 0.5}}

    from harness.submissions import Registry

    lb = build(results, Registry([subs]).all())
    assert lb.extra_suites == {"toy": "toy_accuracy"}
    row = lb.rows[0]
    assert row.submission == "toy-sub" and row.kind == "toy-kind" and row.extras["toy"].value == 0.5
    headers = [c.header for c in main_columns(lb)]
    assert "Toy Suite toy_accuracy" in headers
    assert main_cells(row)[headers.index("Toy Suite toy_accuracy")].text == "0.5000"
    assert "Toy Suite toy_accuracy" in render_markdown(lb)
    assert kind_colour("toy-kind") == "#123456"
    meta = model_meta(read_results(results / "toy-sub" / "toy.json"), "no_revision_available")
    assert meta["model_type"] == ["toy"] and meta["framework"] == []
