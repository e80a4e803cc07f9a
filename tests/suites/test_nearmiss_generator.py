"""Audit of the committed near-miss suite (suites/nearmiss/nearmiss-v1.jsonl).

Every item is checked: schema, category-specific edit between anchor and negative,
content preservation of the positive, uniqueness, split disjointness, counts, and
byte-identical regeneration.  A bag-of-words scorer must not solve the
word-order categories.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from difflib import SequenceMatcher
from pathlib import Path

import pytest

from suites.nearmiss import generate as gen
from suites.nearmiss import lexicon as lx

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "suites" / "nearmiss" / "nearmiss-v1.jsonl"

CATEGORIES = (
    "negation", "role_swap", "attribute_binding", "spatial", "quantity", "comparative", "temporal_order",
)
KEYS = ["id", "category", "split", "anchor", "positive", "negative"]
MIN_PER_CELL = 300

_TOKEN = re.compile(r"[a-z0-9]+(?:['\-][a-z0-9]+)*")


def toks(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def changed_spans(a: str, b: str) -> list[tuple[list[str], list[str]]]:
    ta, tb = toks(a), toks(b)
    sm = SequenceMatcher(None, ta, tb, autojunk=False)
    return [(ta[i1:i2], tb[j1:j2]) for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != "equal"]


def is_permutation(a: str, b: str) -> bool:
    return sorted(toks(a)) == sorted(toks(b)) and toks(a) != toks(b)


# ---------------------------------------------------------------------------
# negation: the only allowed edits (exactly one of them, in either direction)
#   1. insert "not" or "never"                      (is -> is not, has -> has never)
#   2. insert "do not"                              (they support -> they do not support)
#   3. a / an / some / any  ->  "no"                (there is a pharmacy -> there is no pharmacy)
#   4. V-s / V-ed  ->  does / did + not + V         (fixes -> does not fix), forms from lexicon.VERB_FORMS
# ---------------------------------------------------------------------------


def _negates(plain: list[str], negated: list[str]) -> bool:
    if not plain and negated in (["not"], ["never"], ["do", "not"]):
        return True
    if len(plain) == 1 and negated == ["no"] and plain[0] in lx.NO_ALTERNANTS:
        return True
    if len(plain) == 1 and len(negated) == 3 and negated[0] in ("does", "did") and negated[1] == "not":
        forms = lx.VERB_FORMS.get(negated[2])
        return forms is not None and forms[negated[0]] == plain[0]
    return False


def negation_edit_ok(anchor: str, negative: str) -> bool:
    spans = changed_spans(anchor, negative)
    if len(spans) != 1:
        return False
    old, new = spans[0]
    return _negates(old, new) or _negates(new, old)


NEG_MARKERS = {"not", "never", "no", "none"}


def negated(text: str) -> bool:
    return any(t in NEG_MARKERS or t.endswith("n't") for t in toks(text))


VOCAB = {
    "spatial": lx.SPATIAL_VOCAB,
    "quantity": lx.QUANTITY_VOCAB,
    "comparative": lx.COMPARATIVE_VOCAB,
    "temporal_order": lx.TEMPORAL_VOCAB,
}


def vocab_edit_ok(category: str, anchor: str, negative: str) -> bool:
    spans = changed_spans(anchor, negative)
    changed = [t for old, new in spans for t in old + new]
    if changed and all(t in VOCAB[category] or t.isdigit() for t in changed):
        return True
    # entity swap ("A is faster than B" -> "B is faster than A"; "X preceded Y" -> "Y preceded X")
    return category in ("comparative", "temporal_order") and is_permutation(anchor, negative)


# ---------------------------------------------------------------------------
# content nouns: every lexicon noun/name in the anchor must survive in the positive
# (as itself or as its listed synonym)
# ---------------------------------------------------------------------------


_RAW_TOKEN = re.compile(r"[A-Za-z0-9&]+(?:['\-][A-Za-z0-9&]+)*")


def ngrams(text: str, lower: bool, n_max: int = 5) -> set[str]:
    """All 1..n_max-grams of the text's tokens (case kept unless ``lower``)."""
    words = _RAW_TOKEN.findall(text.lower() if lower else text)
    return {" ".join(words[i:i + n]) for n in range(1, n_max + 1) for i in range(len(words) - n + 1)}


def _norm_form(form: str, lower: bool) -> str:
    return " ".join(_RAW_TOKEN.findall(form.lower() if lower else form))


def _noun_index() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """form -> accepted forms in the positive; common nouns (lower-cased) and proper nouns (cased)."""
    common: dict[str, set[str]] = {}
    proper: dict[str, set[str]] = {}
    for n in lx.all_nouns():
        accepted = {_norm_form(f, True) for f in n.forms() + n.syn_forms()}
        for f in n.forms():
            if n.proper or f[:1].isupper():
                proper.setdefault(_norm_form(f, False), set()).update(accepted)
            else:
                common.setdefault(_norm_form(f, True), set()).update(accepted)
    return common, proper


COMMON, PROPER = _noun_index()


def missing_content(anchor: str, positive: str) -> list[str]:
    """Lexicon nouns/names of the anchor that appear in the positive neither as such nor as a synonym."""
    pos = ngrams(positive, lower=True)
    found = [(f, COMMON[f]) for f in ngrams(anchor, lower=True) & COMMON.keys()]
    found += [(f, PROPER[f]) for f in ngrams(anchor, lower=False) & PROPER.keys()]
    return sorted(f for f, accepted in found if not accepted & pos)


# ---------------------------------------------------------------------------
# fixtures
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def raw_text() -> str:
    return DATA.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def rows(raw_text) -> list[dict]:
    return [json.loads(line) for line in raw_text.splitlines()]


def _fail(bad, what):
    assert not bad, f"{len(bad)} items fail {what}; first: {bad[:3]}"


# ---------------------------------------------------------------------------
# determinism / file format
# ---------------------------------------------------------------------------


def test_regenerate_byte_identical(tmp_path):
    out = tmp_path / "nearmiss.jsonl"
    gen.write(out)
    assert out.read_bytes() == DATA.read_bytes()


def test_cli_and_hash_seed_independence(tmp_path):
    out = tmp_path / "cli.jsonl"
    env = dict(os.environ, PYTHONHASHSEED="4242", PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-m", "suites.nearmiss.generate", "--out", str(out), "--seed", "13"],
                   cwd=ROOT, env=env, check=True, capture_output=True)
    assert out.read_bytes() == DATA.read_bytes()


def test_seed_matters():
    def cell(seed):
        return [(r["anchor"], r["negative"]) for r in gen._generate_cell(seed, "test", "spatial", 30, set())]

    assert cell(13) == cell(13)
    assert cell(13) != cell(14)


def test_file_format(raw_text, rows):
    assert raw_text.endswith("\n") and not raw_text.endswith("\n\n")
    for line, row in zip(raw_text.splitlines(), rows):
        assert list(row) == KEYS
        assert line == json.dumps(row, ensure_ascii=False)
    order = [(r["split"], r["category"], r["id"]) for r in rows]
    assert order == sorted(order)
    assert gen.VERSION == "1" and tuple(gen.CATEGORIES) == CATEGORIES


# ---------------------------------------------------------------------------
# schema, counts, uniqueness, splits
# ---------------------------------------------------------------------------


def test_schema(rows):
    id_re = re.compile(r"^nm-(test|train)-([a-z_]+)-(\d{4})$")
    for r in rows:
        assert all(isinstance(r[k], str) and r[k] for k in KEYS), r
        assert r["category"] in CATEGORIES, r
        assert r["split"] in ("train", "test"), r
        m = id_re.match(r["id"])
        assert m and m.group(1) == r["split"] and m.group(2) == r["category"], r
        for k in ("anchor", "positive", "negative"):
            s = r[k]
            assert s == s.strip() and "  " not in s and s[0].isupper() and s.endswith("."), (k, s)
    assert len({r["id"] for r in rows}) == len(rows)


def test_counts_balanced(rows):
    cells = Counter((r["split"], r["category"]) for r in rows)
    for split in ("test", "train"):
        counts = {c: cells[(split, c)] for c in CATEGORIES}
        assert min(counts.values()) >= MIN_PER_CELL, counts
        assert len(set(counts.values())) == 1, counts


def test_lengths(rows):
    bad = [r["anchor"] for r in rows if not 6 <= len(toks(r["anchor"])) <= 30]
    _fail(bad, "anchor length 6..30 words")
    bad = [r for r in rows if not all(5 <= len(toks(r[k])) <= 34 for k in ("positive", "negative"))]
    _fail(bad, "positive/negative length")


def test_distinct_texts(rows):
    bad = [r for r in rows if len({" ".join(toks(r[k])) for k in ("anchor", "positive", "negative")}) != 3]
    _fail(bad, "anchor != positive != negative")


def test_no_duplicates(rows):
    anchors = Counter(r["anchor"].lower() for r in rows)
    assert not [a for a, n in anchors.items() if n > 1]
    pairs = Counter((r["anchor"].lower(), r["negative"].lower()) for r in rows)
    assert not [p for p, n in pairs.items() if n > 1]


def test_splits_disjoint(rows):
    by_split = {s: {r["anchor"].lower() for r in rows if r["split"] == s} for s in ("test", "train")}
    assert not by_split["test"] & by_split["train"]


def test_frames_differ_between_splits():
    for cat in CATEGORIES:
        test_frames = gen.FRAMES[(cat, "test")]
        train_frames = gen.FRAMES[(cat, "train")]
        assert len(test_frames) >= 6 and len(train_frames) >= 6, cat
        assert not set(test_frames) & set(train_frames)


def test_lexicon_halves_disjoint():
    assert not lx.entry_keys("test") & lx.entry_keys("train")


def _leaks(rows, anchor_split: str, pool_split: str) -> list[tuple[str, str]]:
    """Nouns/names of ``pool_split``'s lexicon half occurring anywhere in ``anchor_split`` anchors."""
    common, proper = set(), set()
    for name, kind in lx.POOL_KINDS.items():
        if kind in ("noun", "proper"):
            for n in lx.pool(name, pool_split):
                for f in n.forms():
                    if kind == "proper" or f[:1].isupper():
                        proper.add(_norm_form(f, False))
                    else:
                        common.add(_norm_form(f, True))
    out = []
    for r in rows:
        if r["split"] == anchor_split:
            hits = (ngrams(r["anchor"], lower=True) & common) | (ngrams(r["anchor"], lower=False) & proper)
            out.extend((h, r["anchor"]) for h in sorted(hits))
    return out


def test_train_nouns_absent_from_test_anchors(rows):
    _fail(_leaks(rows, "test", "train"), "train slot nouns/names inside test anchors")


def test_test_nouns_absent_from_train_anchors(rows):
    _fail(_leaks(rows, "train", "test"), "test slot nouns/names inside train anchors")


# ---------------------------------------------------------------------------
# per-category edit checks
# ---------------------------------------------------------------------------


def test_negation_edits(rows):
    items = [r for r in rows if r["category"] == "negation"]
    _fail([r for r in items if not negation_edit_ok(r["anchor"], r["negative"])], "negation edit")
    _fail([r for r in items if negated(r["anchor"]) != negated(r["positive"])], "positive keeps polarity")
    _fail([r for r in items if negated(r["anchor"]) == negated(r["negative"])], "negative flips polarity")
    both = Counter(negated(r["anchor"]) for r in items)
    assert min(both.values()) >= len(items) // 3, both  # negation is both added and removed


def test_negation_rule_examples():
    assert negation_edit_ok("The bridge is safe for trucks.", "The bridge is not safe for trucks.")
    assert negation_edit_ok("The app does not fix the bug.", "The app fixes the bug.")
    assert negation_edit_ok("There is a bank here now.", "There is no bank here now.")
    assert negation_edit_ok("Tom has visited Oslo.", "Tom has never visited Oslo.")
    assert not negation_edit_ok("The bridge is safe for trucks.", "The bridge is not safe for cars.")
    assert not negation_edit_ok("The app fixes the bug.", "The app does not break the bug.")
    assert not negation_edit_ok("The bridge is safe.", "The bridge is unsafe.")


@pytest.mark.parametrize("category", ["role_swap", "attribute_binding"])
def test_word_order_negatives_are_permutations(rows, category):
    items = [r for r in rows if r["category"] == category]
    _fail([r for r in items if not is_permutation(r["anchor"], r["negative"])], f"{category} permutation")


@pytest.mark.parametrize("category", ["spatial", "quantity", "comparative", "temporal_order"])
def test_vocab_edits(rows, category):
    items = [r for r in rows if r["category"] == category]
    _fail([r for r in items if not vocab_edit_ok(category, r["anchor"], r["negative"])], f"{category} edit")


def test_vocab_rule_examples():
    assert vocab_edit_ok("spatial", "The lamp is in front of the sofa.", "The lamp is behind the sofa.")
    assert not vocab_edit_ok("spatial", "The lamp is in front of the sofa.", "The vase is behind the sofa.")
    assert vocab_edit_ok("quantity", "Most staff came to the party.", "Few staff came to the party.")
    assert vocab_edit_ok("comparative", "A is faster than B here.", "B is faster than A here.")
    assert not vocab_edit_ok("temporal_order", "She left before noon today.", "She arrived before noon today.")


def test_positive_keeps_content_nouns(rows):
    bad = [(r["id"], m, r["anchor"], r["positive"]) for r in rows if (m := missing_content(r["anchor"], r["positive"]))]
    _fail(bad, "content nouns kept in positive")


def test_quantity_positive_keeps_numbers(rows):
    nums = set(lx.NUMBER_WORDS)
    bad = []
    for r in rows:
        if r["category"] != "quantity":
            continue
        want = Counter(t for t in toks(r["anchor"]) if t in nums or t.isdigit())
        have = Counter(toks(r["positive"]))
        if any(have[t] < n for t, n in want.items()):
            bad.append(r)
    _fail(bad, "numbers kept in positive")


# ---------------------------------------------------------------------------
# bag-of-words sanity
# ---------------------------------------------------------------------------


def jaccard(a: str, b: str) -> float:
    sa, sb = set(toks(a)), set(toks(b))
    return len(sa & sb) / len(sa | sb)


@pytest.mark.parametrize("category", ["role_swap", "attribute_binding"])
def test_bag_of_words_cannot_solve_word_order(rows, category):
    items = [r for r in rows if r["split"] == "test" and r["category"] == category]
    wins = sum(jaccard(r["anchor"], r["positive"]) > jaccard(r["anchor"], r["negative"]) for r in items)
    assert wins / len(items) <= 0.5


def test_readme_examples_are_in_the_file(raw_text):
    readme = (DATA.parent / "README-v1.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```jsonl\n(.*?)```", readme, flags=re.S)
    examples = [line for block in blocks for line in block.splitlines() if line.strip()]
    assert len(examples) == 2 * len(CATEGORIES)
    data_lines = set(raw_text.splitlines())
    assert all(line in data_lines for line in examples)
    assert {json.loads(line)["category"] for line in examples} == set(CATEGORIES)
