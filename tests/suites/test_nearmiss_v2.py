"""Audit of the committed nearmiss-v2 file (suites/nearmiss/nearmiss-v2.jsonl): schema, the five
fields' edit rules, breadth, split disjointness, independence from the hand-written set, and
byte-identical regeneration from the frames."""

from __future__ import annotations

from collections import defaultdict
from difflib import SequenceMatcher
from pathlib import Path

import pytest

from harness.data.nearmiss import NearMissItem, read_records
from suites.nearmiss import generate as gen
from suites.nearmiss.frames import CATEGORIES, FrameError, load_frames

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "suites" / "nearmiss" / "nearmiss-v2.jsonl"
HAND = ROOT / "suites" / "nearmiss-hand" / "nearmiss-hand.jsonl"
FIELDS = ("anchor", "pos_close", "pos_far", "neg_close", "neg_far")


@pytest.fixture(scope="module")
def items() -> list[NearMissItem]:
    return read_records(DATA, "items-jsonl")  # type: ignore[return-value]


def test_counts_frames_domains_and_styles(items):
    by = defaultdict(list)
    for r in items:
        by[(r.split, r.category)].append(r)
    for cat in CATEGORIES:
        test, train = by[("test", cat)], by[("train", cat)]
        assert len(test) >= 500 and len(train) >= 1000, cat
        for split, rows in (("test", test), ("train", train)):
            assert len({r.frame for r in rows}) >= 30, (cat, split)
        assert len({r.domain for r in test}) >= 6, cat
    test = [r for r in items if r.split == "test"]
    asking = sum(r.style in ("question", "request") for r in test) / len(test)
    assert asking >= 0.30


def test_every_item_passes_the_five_field_audit(items):
    rows = [r.model_dump() for r in items]
    problems = gen.audit(rows)
    assert not problems, f"{len(problems)} problems, e.g. {problems[:5]}"


def test_splits_share_no_frame_and_no_text(items):
    frames = {s: {r.frame for r in items if r.split == s} for s in ("test", "train")}
    assert not frames["test"] & frames["train"]
    texts = {s: {getattr(r, f) for r in items if r.split == s for f in FIELDS} for s in ("test", "train")}
    assert not texts["test"] & texts["train"]
    anchors = [r.anchor for r in items]
    assert len(anchors) == len(set(anchors))


# Hand-written items whose anchor has a near copy (difflib ratio >= 0.75, case-insensitive) among
# the train anchors. Until this test was fixed it compared every anchor with an empty string (the
# matcher's second sequence was never set) and passed vacuously; fixed, it finds these 7 of the 175
# hand-written items (44 train anchors). The trained verifiers do not score better on them than on
# the other 168 (docs/validity.md), and the train split is what the committed verifiers were trained
# on, so it stays as it is; the test keeps the set from growing.
KNOWN_NEAR_COPIES = {
    "hand-comparative-12", "hand-quantity-14", "hand-quantity-15", "hand-spatial-24",
    "hand-temporal_order-10", "hand-temporal_order-12", "hand-temporal_order-20",
}  # fmt: skip


def near_copies(anchors: list[str], others: list[str], at: float = 0.75) -> list[tuple[int, str]]:
    """(index in ``anchors``, the other text) for every pair at difflib ratio >= ``at`` (lower-cased)."""
    out = []
    for i, h in enumerate(anchors):
        sm = SequenceMatcher(None, "", h.lower(), autojunk=False)  # seq2 = h, cached; seq1 set per candidate
        for t in others:
            sm.set_seq1(t.lower())
            if sm.real_quick_ratio() >= at and sm.quick_ratio() >= at and sm.ratio() >= at:
                out.append((i, t))
    return out


def test_near_copy_check_sees_a_near_copy():
    assert near_copies(["Can I bring a lighter on the flight?"], ["can i bring a lighter on this flight?", "Unrelated text entirely."]) == [
        (0, "can i bring a lighter on this flight?")
    ]


@pytest.mark.slow  # about a minute: 175 x 7,000 difflib comparisons
@pytest.mark.skipif(not HAND.is_file(), reason="hand-written set absent")
def test_train_anchors_near_copy_no_more_hand_written_anchors_than_known(items):
    hand = list(read_records(HAND, "items-jsonl"))  # type: ignore[arg-type]
    train = [r.anchor for r in items if r.split == "train"]
    close = {hand[i].id for i, _t in near_copies([r.anchor for r in hand], train)}  # type: ignore[union-attr]
    assert close == KNOWN_NEAR_COPIES, sorted(close ^ KNOWN_NEAR_COPIES)


def test_frame_files_reject_bad_records_with_file_and_field(tmp_path):
    (tmp_path / "frames").mkdir()
    (tmp_path / "pools.yaml").write_text("pools: {}\n")
    (tmp_path / "frames" / "negation.yaml").write_text(
        "category: negation\nframes:\n  - id: bad-frame\n    split: test\n    domain: x_y\n    style: statement\n"
        "    sides:\n      - {text: 'It is safe.', far: 'Safe, it is.'}\n      - {text: 'It is [not|never] safe.', far: 'Not safe, it is.'}\n"
    )
    with pytest.raises(FrameError, match=r"negation.yaml: frames\.0.*alternation"):
        load_frames(tmp_path / "frames", tmp_path / "pools.yaml")


@pytest.mark.slow
def test_regeneration_is_byte_identical():
    assert gen.dumps(gen.generate(13)) == DATA.read_text(encoding="utf-8")


def examples_in(markdown: str) -> list[tuple[str, ...]]:
    """Rows of the five-text examples tables in a README (category + the five fields)."""
    rows = []
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.strip().startswith("| ") and len(cells) == 6 and cells[0] in CATEGORIES:
            rows.append(tuple(cells))
    return rows


@pytest.mark.parametrize("readme", ["suites/nearmiss/README.md", "docs/suites.md"])
def test_readme_examples_are_test_items_verbatim(items, readme):
    text = (ROOT / readme).read_text(encoding="utf-8")
    examples = examples_in(text)
    assert len(examples) == 2 * len(CATEGORIES)
    assert sorted({e[0] for e in examples}) == sorted(CATEGORIES)
    have = {(r.category, *(getattr(r, f) for f in FIELDS)) for r in items if r.split == "test"}
    missing = [e[1] for e in examples if e not in have]
    assert missing == []
