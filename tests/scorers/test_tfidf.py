"""kind: tfidf: tokens, pair scores by hand (pair-set and per-pair IDF), NevIR's per-pair fit,
retrieval, the shipped submission, and the paper's 2.0% on the real NevIR test set."""

from __future__ import annotations

import json
import math

import pytest

from cbench_testutil import SHARED_DATA
from harness.metrics.pairs import paired_metrics
from harness.paths import SUBMISSIONS_DIR
from harness.run_context import RunContext
from harness.scorers.registry import SCORERS
from harness.scorers.tfidf import TfidfConfig, TfidfScorer, strip_punctuation_tokens
from harness.submissions import load_submission

from .conftest import QRELS, QUERIES, cbench, corpus_texts

NEVIR = SHARED_DATA / "nevir" / "test.jsonl"


def scorer(**kw) -> TfidfScorer:
    return TfidfScorer(TfidfConfig(name="t-tfidf", kind="tfidf", **kw), RunContext(use_cache=False))


def test_tokens_as_nevir_makes_them():
    # lower-casing is the vectorizer's; ASCII punctuation goes, non-ASCII quotes are tokens of their own
    assert strip_punctuation_tokens("it’s a “well-known” fact, (really)!") == ["it", "’", "s", "a", "“", "wellknown", "”", "fact", "really"]


def test_pair_set_idf_by_hand():
    """Distinct texts {red car, red bus, blue car, Red, CAR!}: df(red) = df(car) = 3, df(bus) =
    df(blue) = 1, so with smooth IDF (n = 4) i3 = ln(5/4) + 1 and i1 = ln(5/2) + 1;
    cos(red car, red bus) = i3^2 / (sqrt(2) i3 * sqrt(i3^2 + i1^2)), the same for (red car, blue car),
    and "Red, CAR!" has the tokens of "red car"."""
    i3, i1 = math.log(5 / 4) + 1, math.log(5 / 2) + 1
    expected = i3 / (math.sqrt(2) * math.sqrt(i3**2 + i1**2))
    s = scorer().score_pairs(["red car", "red car", "red car"], ["red bus", "blue car", "Red, CAR!"])
    assert s == pytest.approx([expected, expected, 1.0], rel=1e-12)


def test_per_pair_idf_by_hand():
    """Each pair alone (n = 2): idf 1 for a shared term, k = 1 + ln(3/2) otherwise: cos = 1 / (1 + k^2)."""
    k = 1 + math.log(1.5)
    s = scorer(idf_from="pair").score_pairs(["red car", "red car"], ["red bus", "red car"])
    assert s == pytest.approx([1 / (1 + k**2), 1.0], rel=1e-12)


def test_per_pair_idf_equals_fitting_a_vectorizer_on_each_pair():
    """NevIR's own procedure: TfidfVectorizer(tokenizer, stop_words='english') fitted on [a, b]."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    a = ["Is the food not safe to eat?", "who won the race", "the the the", "Cats chase mice; mice flee cats.", "x"]
    b = ["The food is safe to eat, and it is safe.", "The race was won by nobody.", "a cat", "mice, mice and more mice", "x y"]
    for sublinear in (False, True):
        ours = scorer(idf_from="pair", sublinear_tf=sublinear).score_pairs(a, b)
        ref = []
        for x, y in zip(a, b, strict=True):
            v = TfidfVectorizer(tokenizer=strip_punctuation_tokens, token_pattern=None, stop_words="english", sublinear_tf=sublinear)
            try:
                m = v.fit_transform([x, y])
                ref.append((m @ m.T).toarray()[0, 1])
            except ValueError:  # nothing but stop words in both
                ref.append(0.0)
        assert ours == pytest.approx(ref, abs=1e-12)


def test_a_negation_alone_leaves_the_vector_unchanged():
    """'not' is an English stop word: a passage and its negation tie, whoever asks (why TF-IDF
    scores about 2% on NevIR)."""
    s = scorer().score_query_docs(["is the food safe"] * 2, ["The food is safe.", "The food is not safe."])
    assert s[0] == s[1] == pytest.approx(1.0)  # both are "food safe", as the query is


def test_no_weighted_term_scores_zero_and_the_order_does_not_matter():
    assert scorer().score_pairs(["the of", "and"], ["of the", "the"]).tolist() == [0.0, 0.0]  # empty vocabulary
    a, b = ["red car", "blue bus", "the of", "green tree"], ["red bus", "blue bus", "red car", "tree"]
    s = scorer().score_pairs(a, b)
    perm = [3, 1, 0, 2]
    assert scorer().score_pairs([a[i] for i in perm], [b[i] for i in perm]).tolist() == s[perm].tolist()
    assert s[2] == 0.0 and s[1] == pytest.approx(1.0)
    assert scorer().score_pairs([], []).shape == (0,)
    with pytest.raises(ValueError):
        scorer().score_pairs(["a"], [])


def test_retrieval_ranks_by_cosine_and_returns_only_matching_documents():
    run = scorer().retrieve(QUERIES, corpus_texts(), 3).run
    for qid, relevant in QRELS.items():
        assert next(iter(run[qid])) == relevant and len(run[qid]) <= 3
    run = scorer().retrieve({"q": "red", "none": "the of"}, {"b": "red apple", "a": "red apple", "c": "green pear"}, 10).run
    assert list(run["q"]) == ["a", "b"] and run["none"] == {}  # tie broken by id; 'c' shares no term
    # a cosine: 'red' and 'apple' (each in 2 of 3 documents) weigh the same in the document, the query has 'red' only
    assert run["q"]["a"] == pytest.approx(1 / math.sqrt(2))


def test_shipped_submission_and_registration():
    sub = load_submission(SUBMISSIONS_DIR / "tfidf.yaml")
    assert sub.kind == "tfidf" and SCORERS["tfidf"] is TfidfScorer
    assert sub.config == TfidfConfig(name="tfidf", kind="tfidf", description=sub.config.description, authors=sub.config.authors,
                                     url=sub.config.url, license=sub.config.license, parameters=0)  # the YAML spells out the defaults
    assert cbench("submissions", "validate", str(SUBMISSIONS_DIR / "tfidf.yaml")).exit_code == 0


@pytest.mark.skipif(not NEVIR.is_file(), reason=f"no nevir/test.jsonl under {SHARED_DATA} (CBENCH_DATA_DIR)")
@pytest.mark.parametrize("idf_from", ["pair-set", "pair"])
def test_nevir_paired_accuracy_is_the_papers_two_percent(idf_from):
    rows = [json.loads(line) for line in NEVIR.read_text().splitlines()]
    q1, q2, d1, d2 = ([r[k] for r in rows] for k in ("q1", "q2", "doc1", "doc2"))
    s = scorer(idf_from=idf_from).score_query_docs(q1 + q1 + q2 + q2, d1 + d2 + d1 + d2)
    n = len(rows)
    acc = paired_metrics(s[:n], s[n : 2 * n], s[2 * n : 3 * n], s[3 * n :])["paired_accuracy"]
    assert n == 1383 and abs(100 * acc - 2.0) <= 1.0, acc
