"""The control kind: surface features by hand, negation, blind classifiers see only the candidate."""

import json

import numpy as np
import pytest

from harness.errors import CBenchError
from harness.run_context import RunContext
from harness.scorers.control import ControlConfig, ControlScorer
from harness.surface import char3, jaccard, length, prefix, seqratio, words


def scorer(tmp_path=None, **kw) -> ControlScorer:
    return ControlScorer(ControlConfig(name="c", kind="control", **kw), RunContext(), tmp_path)


def test_surface_features_by_hand():
    a, b = "The dog bit the man.", "The man bit the dog!"
    assert words("Doesn't it, 3 times?") == ["doesn't", "it", "3", "times"]
    assert jaccard(a, b) == 1.0  # same word set
    # difflib takes the first longest block, "the dog" (a[0:2] = b[3:5]); nothing matches in order around it
    assert seqratio(a, b) == pytest.approx(2 * 2 / 10)
    assert prefix(a, b) == 1.0
    assert length(a, "the dog") == -3.0
    assert char3("abcd", "abce") == pytest.approx(1 / 3)  # {abc, bcd} vs {abc, bce}


def test_negate_flips_the_preference():
    a, p, n = ["the red car"] * 2, "the red car parked", "a blue bike"
    plain = scorer(feature="jaccard").score_pairs(a, [p, n])
    neg = scorer(feature="jaccard", negate=True).score_pairs(a, [p, n])
    assert plain[0] > plain[1] and neg[0] < neg[1]
    np.testing.assert_allclose(neg, -plain, rtol=0, atol=1e-8)  # up to the tie-breaking jitter


def test_bm25_control_equals_the_lexical_kind():
    from harness.scorers.lexical import LexicalConfig, LexicalScorer

    a = ["the dog bit the man", "stocks fell sharply", "the dog bit the man"]
    b = ["the man bit the dog", "stocks rose sharply", "a cat slept"]
    lex = LexicalScorer(LexicalConfig(name="bm25", kind="lexical"), RunContext()).score_pairs(a, b)
    np.testing.assert_array_equal(scorer(feature="bm25", tie_break=False).score_pairs(a, b), lex)
    np.testing.assert_allclose(scorer(feature="bm25").score_pairs(a, b), lex, rtol=0, atol=1e-9)


def test_blind_tfidf_never_reads_the_anchor(tmp_path):
    rows = []
    for i in range(20):  # the word "good" marks positives in training
        rows.append(
            {
                "id": f"x{i}", "category": "c", "split": "train", "anchor": f"anchor {i}",
                "pos_close": f"good text {i}", "pos_far": f"good other {i}", "neg_close": f"bad text {i}", "neg_far": f"bad other {i}",
            }
        )
    rows.append({"id": "t", "category": "c", "split": "test", "anchor": "a", "pos_close": "bad", "pos_far": "bad", "neg_close": "good", "neg_far": "good"})
    (tmp_path / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    s = scorer(tmp_path, feature="blind-tfidf", train_file="d.jsonl")
    x = s.score_pairs(["first anchor", "something else entirely"], ["good thing", "good thing"])
    assert x[0] == x[1]  # the anchor does not matter
    assert s.score_pairs(["a"], ["good"])[0] > s.score_pairs(["a"], ["bad"])[0]
    assert s.info()["train_texts"] == 80  # train split only: 20 items x 4 candidates
    assert set(s.fingerprints()) == {"train_data"}


def test_controls_have_no_retrieval_and_blind_needs_data():
    with pytest.raises(CBenchError, match="near-miss pairs only"):
        scorer(feature="prefix").retrieve({"q": "x"}, {"d": "x"}, 1)
    with pytest.raises(ValueError, match="needs train_file"):
        ControlConfig(name="c", kind="control", feature="blind-tfidf")
    with pytest.raises(ValueError, match="surface features only"):
        ControlConfig(name="c", kind="control", feature="blind-tfidf", train_file="x", negate=True)


def test_ties_become_coin_flips_that_ignore_the_anchor():
    # "length" ties whenever the two candidates have the same number of words
    anchors = [f"anchor number {i}" for i in range(400)]
    pos = [f"positive text {i}" for i in range(400)]
    neg = [f"negative text {i}" for i in range(400)]
    strict = scorer(feature="length", tie_break=False)
    assert (strict.score_pairs(anchors, pos) > strict.score_pairs(anchors, neg)).mean() == 0.0  # every tie fails
    broken = scorer(feature="length")
    wins = (broken.score_pairs(anchors, pos) > broken.score_pairs(anchors, neg)).mean()
    assert 0.43 < wins < 0.57  # a coin flip per pair
    assert np.array_equal(broken.score_pairs(anchors, pos), broken.score_pairs(anchors[::-1], pos))  # blind to the anchor
    assert np.array_equal(broken.score_pairs(anchors[:3], pos[:3]), broken.score_pairs(anchors, pos)[:3])  # batch-independent
    # a real difference is never reordered: the jitter is below 1e-9
    assert broken.score_pairs(["a b"], ["a b"])[0] > broken.score_pairs(["a b"], ["a"])[0]
