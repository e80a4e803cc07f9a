"""kind: lexical (BM25 via bm25s): end to end through the CLI, ranking, pair-score normalisation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.errors import CBenchError
from harness.paths import SUBMISSIONS_DIR
from harness.run_context import RunContext
from harness.scorers.lexical import LexicalConfig, LexicalScorer
from harness.submissions import load_submission

from .conftest import QRELS, QUERIES, cbench, corpus_texts, ndcg_at_10, read_result, run_submission, write_submission


def scorer(**kw) -> LexicalScorer:
    return LexicalScorer(LexicalConfig(name="t-bm25", kind="lexical", **kw), RunContext(use_cache=False))


def test_cli_end_to_end(beir_dir, tmp_path):
    subs = tmp_path / "subs"
    write_submission(subs, {"name": "t-bm25", "kind": "lexical", "k1": 1.2, "b": 0.75})
    res = run_submission("t-bm25", beir_dir, tmp_path / "results", subs)
    assert res.exit_code == 0, res.output
    out = read_result(tmp_path / "results", "t-bm25")
    assert out["datasets"]["tinybeir"]["ndcg@10"] == pytest.approx(1.0)
    assert out["metadata"]["scorer"]["method"] == "lucene"
    assert out["metadata"]["scorer"]["top_k"] == 5


def test_hand_ndcg_helper():
    """conftest.ndcg_at_10, which the other kinds' end-to-end tests compare with, on known runs."""
    assert ndcg_at_10({q: {d: 1.0} for q, d in QRELS.items()}) == 1.0
    third = {q: {"x1": 3.0, "x2": 2.0, d: 1.0} for q, d in QRELS.items()}
    assert ndcg_at_10(third) == pytest.approx(0.5)  # rank 3: 1 / log2(4)
    ties = {"q1": {"d99": 1.0, "d04": 1.0}, "q2": {"d01": 1.0, "d06": 1.0}}  # trec_eval: ties by id descending
    assert ndcg_at_10(ties) == pytest.approx((1 / np.log2(3) + 1.0 + 0.0) / 3)  # q3 not in the run: 0
    eleventh = {"q1": {**{f"x{i:02d}": 2.0 for i in range(10)}, "d04": 1.0}}
    assert ndcg_at_10(eleventh) == 0.0


def test_exact_term_document_ranks_first():
    run = scorer().retrieve(QUERIES, corpus_texts(), 3).run
    for qid, relevant in QRELS.items():
        assert next(iter(run[qid])) == relevant
        assert len(run[qid]) <= 3


def test_only_matching_documents_and_deterministic_ties():
    corpus = {"b": "red apple", "a": "red apple", "c": "green pear"}
    run = scorer().retrieve({"q": "red", "none": "the of"}, corpus, 10).run
    assert list(run["q"]) == ["a", "b"]  # tie broken by document id, 'c' shares no term
    assert run["none"] == {}  # only stopwords: nothing matches


@pytest.mark.parametrize("method", ["lucene", "robertson", "atire", "bm25l", "bm25+"])
def test_pair_scores_normalised(method):
    a = ["a red car parked outside", "a red car parked outside", "the of and", "red car", "blue bicycle", ""]
    b = ["a red car parked outside", "red car", "the of and", "a red car parked outside", "green tree", "x"]
    s = scorer(method=method).score_pairs(a, b)
    # Every term occurs once. The pair set's 7 distinct texts have 10 tokens ("x" is too short, "a",
    # "the", "of", "and" are stopwords): avgdl 10/7; 'red' and 'car' are in 2 texts, 'parked' and
    # 'outside' in 1. raw - floor sums idf(term) * tf_part(dl) over the terms b shares with a.
    assert s.tolist() == pytest.approx(
        [
            1.0,  # identical texts
            (2 * bm25_idf(method, 2)) * bm25_tf_part(method, 2) / ((2 * bm25_idf(method, 2) + 2 * bm25_idf(method, 1)) * bm25_tf_part(method, 4)),
            0.0,  # a has no indexed term (stopwords only)
            bm25_tf_part(method, 4) / bm25_tf_part(method, 2),  # b holds all of a's terms, at twice its length
            0.0,  # no shared term
            0.0,  # a is empty
        ],
        rel=1e-6,  # bm25s scores in float32
    )


K1, B, DELTA, N_TEXTS, AVGDL = 1.2, 0.75, 0.5, 7, 10 / 7  # the defaults and test_pair_scores_normalised's pair set


def bm25_idf(method: str, df: int) -> float:
    """bm25s' IDF for each method (n texts, df of them hold the term)."""
    n = N_TEXTS
    return {
        "lucene": math.log(1 + (n - df + 0.5) / (df + 0.5)),
        "robertson": math.log((n - df + 0.5) / (df + 0.5)),
        "atire": math.log(n / df),
        "bm25l": math.log((n + 1) / (df + 0.5)),
        "bm25+": math.log((n + 1) / df),
    }[method]


def bm25_tf_part(method: str, dl: int) -> float:
    """A term occurring once in a text of dl tokens, less what it scores in a text without it, over (k1 + 1)."""
    norm = 1 - B + B * dl / AVGDL
    if method == "bm25l":
        c = 1 / norm
        return (c + DELTA) / (K1 + c + DELTA) - DELTA / (K1 + DELTA)
    return 1 / (1 + K1 * norm)


def test_pair_scores_deterministic_and_order_independent():
    a = ["the cat sat on the mat", "dogs bark at night", "the cat sat on the mat"]
    b = ["the mat sat on the cat", "cats bark at night", "a cat on a mat"]
    s1 = scorer().score_pairs(a, b)
    s2 = scorer().score_pairs(a, b)
    perm = [2, 0, 1]
    s3 = scorer().score_pairs([a[i] for i in perm], [b[i] for i in perm])
    assert np.array_equal(s1, s2)
    assert np.allclose(s3, s1[perm])
    assert s1[0] == pytest.approx(1.0)  # same bag of words


def test_score_pairs_length_mismatch():
    with pytest.raises(ValueError):
        scorer().score_pairs(["a"], [])


def test_shipped_submission_valid():
    sub = load_submission(SUBMISSIONS_DIR / "bm25.yaml")
    assert sub.kind == "lexical" and sub.name == "bm25"
    assert cbench("submissions", "validate", str(SUBMISSIONS_DIR / "bm25.yaml")).exit_code == 0


def test_bad_config_is_one_line(tmp_path):
    path = write_submission(tmp_path, {"name": "t-bad", "kind": "lexical", "method": "okapi", "stemmer": "porter"})
    res = cbench("submissions", "validate", str(path))
    assert res.exit_code == 2
    assert "Traceback" not in res.output
    with pytest.raises(CBenchError):
        load_submission(path)
