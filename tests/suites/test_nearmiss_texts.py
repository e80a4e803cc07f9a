"""What the leaderboard's failure browser reads from a near-miss suite: the texts behind each
comparison of the per-item scores, only for data kept beside the suite file."""

from __future__ import annotations

import numpy as np

from cbench_testutil import write_tiny_suites
from harness.run_context import RunContext
from harness.scorers.base import Scorer, SubmissionBase
from harness.suites.base import EvalOptions
from harness.suites.nearmiss import COMPARISON_TEXTS
from harness.suites.registry import load_suite_file, shipped_suites


class LengthScorer(Scorer):
    """A distinct, reproducible score per text pair: their lengths."""

    kind = "lengths"
    Config = SubmissionBase

    def retrieve(self, queries, corpus, top_k):  # pragma: no cover - not used
        raise NotImplementedError

    def score_pairs(self, a, b):
        return np.array([len(x) * 1000 + len(y) for x, y in zip(a, b, strict=True)], dtype=np.float64)


def test_comparison_texts_name_the_texts_each_score_compares(tmp_path):
    suites = write_tiny_suites(tmp_path)
    scorer = LengthScorer(SubmissionBase(name="len", kind="lengths"), RunContext())
    tot = tmp_path / "tot.yaml"  # triplets with a second positive: two comparisons per item
    tot.write_text("name: tot\ntype: nearmiss\nformat: triplets-jsonl\ntwo_positives: true\nfiles:\n  - {name: triplets, path: triplets.jsonl}\n")
    for suite in (load_suite_file(suites["tiny-items"], None), load_suite_file(tot, None)):
        data = suite.load(suite.dataset_names()[0])
        records = {r.id: r for r in [*data.items, *data.triplets]}
        outcome = suite.evaluate(scorer, data, EvalOptions())
        names = set()
        for item in outcome.items:
            rec = records[item.id]
            for c in item.comparisons:
                (pl, pr), (nl, nr) = COMPARISON_TEXTS[c.name]
                assert c.positive == len(getattr(rec, pl)) * 1000 + len(getattr(rec, pr))
                assert c.negative == len(getattr(rec, nl)) * 1000 + len(getattr(rec, nr))
                names.add(c.name)
        assert names in ({"close_close", "close_far", "far_close", "far_far"}, {"anchor_negative", "positive_negative"})


def test_shipped_data_only_for_files_beside_the_suite(tmp_path, monkeypatch):
    suites = write_tiny_suites(tmp_path / "here")
    data = load_suite_file(suites["tiny-items"], None).shipped_data()
    assert data is not None and sorted(data) == ["negation", "role_swap"] and len(data["negation"].items) == 4
    elsewhere = tmp_path / "elsewhere.yaml"  # the same data, named from outside the suite's folder
    elsewhere.write_text("name: far\ntype: nearmiss\nformat: items-jsonl\nfiles:\n  - {name: items, path: here/items.jsonl}\n")
    (tmp_path / "sub").mkdir()
    outside = tmp_path / "sub" / "outside.yaml"
    outside.write_text("name: out\ntype: nearmiss\nformat: items-jsonl\nfiles:\n  - {name: items, path: ../here/items.jsonl}\n")
    assert load_suite_file(elsewhere, None).shipped_data() is not None  # here/ is inside tmp_path
    assert load_suite_file(outside, tmp_path / "here").shipped_data() is None  # ../ leaves the suite's folder
    monkeypatch.setattr("urllib.request.urlopen", lambda *a, **k: (_ for _ in ()).throw(AssertionError("no download")))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    shipped = shipped_suites()
    assert shipped["sugarcrepe-pp"].shipped_data() is None  # its data lives under $CBENCH_DATA_DIR
    hand = shipped["nearmiss-hand"].shipped_data()
    assert hand is not None and sum(len(d.items) for d in hand.values()) == 175
