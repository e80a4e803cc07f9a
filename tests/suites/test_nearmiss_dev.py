"""Audit of the dev split of the generated near-misses (suites/nearmiss/nearmiss-v2-dev.jsonl, suite
`nearmiss-dev`): development data for setting thresholds, which no shipped model trained on and
which is never an evaluation. Mirrors tests/suites/test_nearmiss_v2.py: byte-identical
regeneration, the five-field audit, breadth, and independence from the test and train splits
(frames, fillers, texts, near copies of anchors) and from the hand-written set. The surface
controls are held to chance on it by tests/suites/test_nearmiss_validity.py."""

from __future__ import annotations

import itertools
from collections import defaultdict
from difflib import SequenceMatcher
from pathlib import Path

import numpy as np
import pytest

from harness.data.nearmiss import NearMissItem, read_records
from harness.suites.registry import resolve_suite
from suites.nearmiss import generate as gen
from suites.nearmiss.frames import ALT, CATEGORIES, DEV, SPLITS, Pool, load_frames

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "suites" / "nearmiss" / "nearmiss-v2-dev.jsonl"
V2 = ROOT / "suites" / "nearmiss" / "nearmiss-v2.jsonl"
HAND = ROOT / "suites" / "nearmiss-hand" / "nearmiss-hand.jsonl"
FIELDS = ("anchor", "pos_close", "pos_far", "neg_close", "neg_far")
PER_CATEGORY, MIN_FRAMES = 200, 12
NEAR_COPY = 0.75  # difflib ratio, as test_nearmiss_v2.py holds train anchors to


@pytest.fixture(scope="module")
def items() -> list[NearMissItem]:
    return read_records(DATA, "items-jsonl")  # type: ignore[return-value]


@pytest.fixture(scope="module")
def v2_items() -> list[NearMissItem]:
    return read_records(V2, "items-jsonl")  # type: ignore[return-value]


def test_regeneration_is_byte_identical():
    assert gen.dumps(gen.generate(13, splits=(DEV,))) == DATA.read_text(encoding="utf-8")


def test_counts_frames_domains_and_styles(items):
    assert {r.split for r in items} == {DEV}
    by = defaultdict(list)
    for r in items:
        by[r.category].append(r)
    assert sorted(by) == sorted(CATEGORIES)
    for cat, rows in by.items():
        assert len(rows) == PER_CATEGORY, cat
        assert len({r.frame for r in rows}) >= MIN_FRAMES, cat
        assert len({r.domain for r in rows}) >= 6, cat
    asking = sum(r.style in ("question", "request") for r in items) / len(items)
    assert asking >= 0.30


def test_every_item_passes_the_five_field_audit(items):
    problems = gen.audit([r.model_dump() for r in items])
    assert not problems, f"{len(problems)} problems, e.g. {problems[:5]}"


def test_dev_frames_are_their_own(items, v2_items):
    _pools, frames = load_frames(gen.FRAMES_DIR, gen.POOLS)
    split_of = {fr.id: fr.split for _cat, fr, _fp in frames}
    dev = {r.frame for r in items}
    assert dev == {f for f, s in split_of.items() if s == DEV}  # every dev frame renders, and only dev frames
    assert not dev & {r.frame for r in v2_items}


def variants(filler: str) -> set[str]:
    """Every rendering of a filler (one option per [x|y] group), lower-cased."""
    groups = [g.split("|") for g in ALT.findall(filler)]
    out = set()
    for combo in itertools.product(*groups):
        options = iter(combo)
        out.add(" ".join(ALT.sub(lambda _m, options=options: next(options), filler).lower().split()))
    return out


def test_dev_fillers_are_disjoint_from_test_and_train():
    assert variants("[3|three] [big|large]  Cats") == {"3 big cats", "3 large cats", "three big cats", "three large cats"}
    pools, frames = load_frames(gen.FRAMES_DIR, gen.POOLS)
    fillers: dict[str, set[str]] = defaultdict(set)
    all_pools = list(pools.values()) + [p for _cat, _fr, fp in frames for p in fp.values()]
    for pool in all_pools:
        for split in (*SPLITS, DEV):
            for v in getattr(pool, split):
                fillers[split] |= variants(v)
    for _cat, fr, _fp in frames:
        for spec in fr.slots.values():
            if isinstance(spec, list):  # an inline list belongs to its frame's split
                for v in spec:
                    fillers[fr.split] |= variants(v)
    assert fillers[DEV]
    shared = fillers[DEV] & (fillers["test"] | fillers["train"])
    assert not shared, sorted(shared)[:10]


def test_no_text_occurs_in_two_splits(items, v2_items):
    dev = {getattr(r, f) for r in items for f in FIELDS}
    other = {getattr(r, f) for r in v2_items for f in FIELDS}
    assert not dev & other, sorted(dev & other)[:5]
    anchors = [r.anchor for r in items]
    assert len(anchors) == len(set(anchors))


def near_copies(texts: list[str], others: list[str]) -> list[tuple[str, str]]:
    """Pairs (text, other) with difflib ratio >= NEAR_COPY. Exact: the shared-character bound
    (difflib's quick_ratio, an upper bound of ratio) is computed for all pairs at once with numpy,
    and ratio only where the bound reaches the limit."""
    chars = {c: i for i, c in enumerate(sorted(set("".join(texts + others))))}

    def counts(xs: list[str]) -> np.ndarray:
        m = np.zeros((len(xs), len(chars)), dtype=np.int32)
        for row, x in enumerate(xs):
            for c in x:
                m[row, chars[c]] += 1
        return m

    a, b = counts(texts), counts(others)
    la, lb = a.sum(axis=1), b.sum(axis=1)
    close = []
    sm = SequenceMatcher(autojunk=False)
    for i, text in enumerate(texts):
        bound = 2 * np.minimum(a[i], b).sum(axis=1) >= NEAR_COPY * (la[i] + lb)
        sm.set_seq2(text)
        for j in np.flatnonzero(bound):
            sm.set_seq1(others[j])
            if sm.ratio() >= NEAR_COPY:
                close.append((text, others[j]))
    return close


def test_near_copies_finds_a_near_copy():
    assert near_copies(["is the cafe open on sundays?"], ["is the café open on sundays?", "when does the bank close?"]) == [
        ("is the cafe open on sundays?", "is the café open on sundays?")
    ]


@pytest.mark.skipif(not HAND.is_file(), reason="hand-written set absent")
def test_no_dev_anchor_is_a_near_copy_of_a_hand_written_anchor(items):
    hand = sorted({r.anchor.lower() for r in read_records(HAND, "items-jsonl")})  # type: ignore[union-attr]
    close = [dev for dev, _hand in near_copies(sorted({r.anchor.lower() for r in items}), hand)]
    assert not close, close[:3]  # the dev side only: frames are written without reading the hand-written set


@pytest.mark.slow
def test_no_dev_anchor_is_a_near_copy_of_a_test_or_train_anchor(items, v2_items):
    """Category by category (a near copy of a frame is one of its own category); about a minute."""
    close = []
    for cat in CATEGORIES:
        dev = sorted({r.anchor.lower() for r in items if r.category == cat})
        other = sorted({r.anchor.lower() for r in v2_items if r.category == cat})
        close += near_copies(dev, other)
    assert not close, close[:3]


def test_the_suite_loads_the_dev_split_by_category():
    suite = resolve_suite("nearmiss-dev", None)
    assert sorted(suite.dataset_names()) == sorted(CATEGORIES)
    for cat in CATEGORIES:
        data = suite.load(cat)
        assert len(data.items) == PER_CATEGORY and {r.split for r in data.items} == {DEV}, cat
    facts = suite.facts()
    assert (facts.role, facts.dev_for, facts.label, facts.main_metric) == ("dev", "nearmiss", "nearmiss dev", "triplet_accuracy")
    assert suite.resampling_unit == "frame"


def test_the_generator_keeps_the_files_apart(tmp_path):
    with pytest.raises(SystemExit):  # the dev split never goes into nearmiss-v2.jsonl
        gen.main(["--split", "dev", "--out", str(tmp_path / "nearmiss-v2.jsonl")])
    with pytest.raises(SystemExit):  # one file's splits only
        gen.main(["--split", "dev", "--split", "test", "--out", str(tmp_path / "mixed.jsonl")])
    assert not list(tmp_path.iterdir())


def test_pools_hold_disjoint_dev_fillers():
    assert Pool(dev=["a", "b"]).test == []  # a pool for dev frames only
    assert Pool(test=["a", "b"], train=["c", "d"], dev=["e", "f"]).dev == ["e", "f"]
    for bad in ({"test": ["a", "b"]}, {"test": ["a", "b"], "train": ["c", "d"], "dev": ["A", "e"]}, {"dev": ["a"]}):
        with pytest.raises(ValueError):
            Pool(**bad)
