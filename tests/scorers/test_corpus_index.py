"""Kinds that index the corpus inside retrieve (BM25, TF-IDF) keep the index for the next retrieve
over the same documents (``Scorer.corpus_index``): the same run as a fresh index, built once."""

from __future__ import annotations

import pytest

from harness.run_context import RunContext
from harness.scorers.lexical import LexicalConfig, LexicalScorer
from harness.scorers.tfidf import TfidfConfig, TfidfScorer

from .conftest import QUERIES, corpus_texts

MORE = {"q4": "the cat and the dog", "q5": "market stock oven"}


def _lexical() -> LexicalScorer:
    return LexicalScorer(LexicalConfig(name="t-bm25", kind="lexical"), RunContext(use_cache=False))


def _tfidf() -> TfidfScorer:
    return TfidfScorer(TfidfConfig(name="t-tfidf", kind="tfidf"), RunContext(use_cache=False))


@pytest.mark.parametrize("make", [_lexical, _tfidf])
def test_a_corpus_searched_again_is_not_indexed_again(make):
    corpus = corpus_texts()
    s = make()
    first = s.retrieve(MORE, corpus, 5)  # other queries first: nothing they leave behind changes later runs
    again = s.retrieve(QUERIES, corpus, 5)
    assert s.ctx.counters["texts_indexed"] == len(corpus)  # indexed once for both
    fresh = make()
    assert again == fresh.retrieve(QUERIES, corpus, 5) and first == fresh.retrieve(MORE, corpus, 5)
    # another corpus (a text changed, or fewer documents) is indexed anew
    changed = {**corpus, "d01": "Photosynthesis in a cat."}
    assert s.retrieve(QUERIES, changed, 5) == make().retrieve(QUERIES, changed, 5)
    fewer = dict(list(corpus.items())[:4])
    assert s.retrieve(QUERIES, fewer, 5) == make().retrieve(QUERIES, fewer, 5)
    assert s.ctx.counters["texts_indexed"] == 2 * len(corpus) + 4
