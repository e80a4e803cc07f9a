"""Scorer.score_query_docs per kind: a query against a document scores as retrieval scores it (the
query in the query role, the document in the document role), unlike score_pairs where a kind has roles."""

from __future__ import annotations

import numpy as np
import pytest

from harness.run_context import RunContext
from harness.scorers.cross_encoder import CrossEncoderConfig, CrossEncoderScorer
from harness.scorers.late_interaction import LateInteractionConfig, LateInteractionScorer
from harness.scorers.lexical import LexicalConfig, LexicalScorer

from .conftest import encoder_scorer

# words of the tiny models' vocabulary (tests/scorers/conftest.py), so that prompts change the tokens
QUERY = "the red car"
DOCS = {"d1": "a red car is on the bicycle", "d2": "the blue bicycle is in a car"}


def as_retrieved(scorer, query: str = QUERY) -> np.ndarray:
    run = scorer.retrieve({"q": query}, DOCS, 10).run["q"]
    return np.array([run[d] for d in DOCS])


def test_encoder_uses_the_query_and_document_prompts(tiny_bert):
    sc = encoder_scorer(tiny_bert, "torch", query_prompt="bicycle bicycle ", document_prompt="blue blue ")
    s = sc.score_query_docs([QUERY, QUERY], list(DOCS.values()))
    assert s == pytest.approx(as_retrieved(sc), abs=1e-6)
    assert not np.allclose(s, sc.score_pairs([QUERY, QUERY], list(DOCS.values())), atol=1e-6)  # pairs: both in the query role


def test_late_interaction_scores_as_retrieval_per_query_token(tiny_colbert):
    sc = LateInteractionScorer(LateInteractionConfig(name="t-li", kind="late-interaction", model=str(tiny_colbert)), RunContext(use_cache=False))
    s = sc.score_query_docs([QUERY, QUERY], list(DOCS.values()))
    # retrieval sums the best cosines over the (expanded) query tokens, pairs take their mean
    assert s * sc.length("query") == pytest.approx(as_retrieved(sc), rel=1e-4)


def test_cross_encoder_scores_query_then_document_as_when_reranking(tiny_cross_encoder):
    first = LexicalScorer(LexicalConfig(name="t-bm25", kind="lexical"), RunContext(use_cache=False))
    cfg = CrossEncoderConfig(name="t-ce", kind="cross-encoder", model=str(tiny_cross_encoder), first_stage="t-bm25", activation="none")
    sc = CrossEncoderScorer(cfg, RunContext(use_cache=False), first_stage=first)
    s = sc.score_query_docs([QUERY, QUERY], list(DOCS.values()))
    assert s == pytest.approx(as_retrieved(sc), rel=1e-6)


    class Recorder:  # the model's input, in order: (query, document) as when reranking
        seen: list = []

        def predict(self, pairs, **kw):
            self.seen += list(pairs)
            return np.zeros(len(pairs))

    sc._model = Recorder()
    sc.score_query_docs([QUERY], [DOCS["d1"]])
    assert Recorder.seen == [(QUERY, DOCS["d1"])]


def test_lexical_gives_the_unclipped_bm25_of_the_pair_set():
    """score_pairs is clip(raw / self, 0, 1); score_query_docs is raw itself, so two documents that
    both match the query better than it matches itself stay ordered instead of tying at 1."""
    sc = LexicalScorer(LexicalConfig(name="t-bm25", kind="lexical"), RunContext(use_cache=False))
    q = "red car"
    docs = ["red red car car", "red red car", q]  # more of the query's terms than the query itself
    raw = sc.score_query_docs([q] * 3, docs)
    pairs = sc.score_pairs([q] * 3, docs)
    assert pairs.tolist()[:2] == [1.0, 1.0] and raw[0] != raw[1]
    assert pairs == pytest.approx(np.clip(raw / raw[2], 0, 1))


@pytest.mark.slow
def test_verifier_scores_query_against_document_as_it_reranks():
    from harness.submissions import Registry, build_submission_scorer

    reg = Registry()
    sc = build_submission_scorer(reg.get("minilm-maxsim"), RunContext(use_cache=False), reg)
    s = sc.score_query_docs([QUERY, QUERY], list(DOCS.values()))
    assert s == pytest.approx(as_retrieved(sc), abs=1e-6)
