"""A suite's resampling unit (``resample_by``): what intervals and paired tests resample. Declared in
the suite YAML, left out of the suite hash, checked against the records' fields, and carried by
each near-miss item's per-item scores (``ItemScores.unit``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cbench_testutil import ITEM_FRAMES, TRIPLET_FRAMES, write_tiny_suites
from harness.errors import CBenchError
from harness.run_context import RunContext
from harness.scorers.base import Scorer, SubmissionBase
from harness.suites.base import EvalOptions
from harness.suites.registry import load_suite_file, resolve_suite


class LengthScorer(Scorer):
    kind = "length"
    Config = SubmissionBase

    def retrieve(self, queries, corpus, top_k):  # pragma: no cover - not used
        raise NotImplementedError

    def score_pairs(self, a, b):
        return np.array([-abs(len(x) - len(y)) + 0.001 * i for i, (x, y) in enumerate(zip(a, b, strict=True))])


def test_shipped_suites_declare_their_unit():
    units = {name: resolve_suite(name, None).resampling_unit for name in ("nearmiss", "nearmiss-hand", "sugarcrepe-pp", "offline-ir", "nanobeir")}
    assert units == {"nearmiss": "frame", "nearmiss-hand": "item", "sugarcrepe-pp": "item", "offline-ir": "query", "nanobeir": "query"}
    assert resolve_suite("nearmiss", None).cluster_field == "frame" and resolve_suite("nearmiss-hand", None).cluster_field is None


def test_the_declaration_leaves_the_suite_hash_alone():
    suite = resolve_suite("nearmiss", None)
    without = type(suite)(suite.config.model_copy(update={"resample_by": None}), suite.path, None)
    assert suite.hash == without.hash
    assert without.resampling_unit == "item"


def test_generated_nearmiss_items_cluster_in_frames():
    suite = resolve_suite("nearmiss", None)
    per = {name: suite.units(name) for name in suite.dataset_names()}
    assert sum(len(u) for u in per.values()) == 3500
    frames = {(name, f) for name, u in per.items() for f in u.values()}
    assert len(frames) == 255  # ~14 items per frame: the numbers
    assert per["negation"] == {r.id: r.frame for r in suite.load("negation").items}


def test_units_of_tiny_suites_and_their_per_item_scores(tmp_path):
    suites = write_tiny_suites(tmp_path)
    scorer = LengthScorer(SubmissionBase(name="len", kind="length"), RunContext())
    frames = load_suite_file(suites["tiny-frames"], None)
    data = frames.load("negation")
    assert frames.units("negation") == dict(zip([r.id for r in data.items], ITEM_FRAMES[:4], strict=True))
    items = frames.evaluate(scorer, data, EvalOptions()).items
    assert [it.unit for it in items] == ITEM_FRAMES[:4]
    triplets = load_suite_file(suites["tiny-triplet-frames"], None)
    items = triplets.evaluate(scorer, triplets.load("role_swap"), EvalOptions()).items
    assert [it.unit for it in items] == TRIPLET_FRAMES[5:]
    plain = load_suite_file(suites["tiny-items"], None)  # the same file, no resample_by: each item alone
    assert plain.units("negation") is None
    assert all(it.unit is None for it in plain.evaluate(scorer, plain.load("negation"), EvalOptions()).items)


@pytest.mark.parametrize(
    ("suite", "line", "message"),
    [
        ("tiny-items", "resample_by: colour", "unknown resampling unit 'colour'; known: item, pair, triplet, anchor, category"),
        ("tiny-ir", "resample_by: frame", "unknown resampling unit 'frame'; known: query"),
    ],
)
def test_an_unknown_unit_is_one_line_naming_the_field(tmp_path, suite, line, message):
    path = write_tiny_suites(tmp_path)[suite]
    path.write_text(path.read_text() + line + "\n")
    with pytest.raises(CBenchError) as e:
        load_suite_file(path, None)
    assert e.value.field == "resample_by" and e.value.message.startswith(message) and "\n" not in e.value.line


def test_records_without_the_field_are_refused(tmp_path):
    suites = write_tiny_suites(tmp_path)
    items = tmp_path / "items.jsonl"
    rows = [json.loads(line) for line in items.read_text().splitlines()]
    del rows[2]["frame"]
    items.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(CBenchError) as e:
        load_suite_file(suites["tiny-frames"], None).dataset_names()
    assert e.value.message == "1 record(s) have no frame to resample by, e.g. it-2" and e.value.field == "resample_by"
    assert load_suite_file(suites["tiny-items"], None).dataset_names() == ["negation", "role_swap"]  # not asked: fine
