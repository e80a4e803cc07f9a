"""Every scorer kind ranks equal scores the same way: score descending, then document id ascending
(harness.search.rank). Identical documents get identical scores from any kind, so a corpus with
copies of one text under shuffled ids shows each kind's tie rule."""

from __future__ import annotations

import numpy as np
import pytest

from harness.run_context import RunContext
from harness.search import exact_search, rank, rank_row
from harness.submissions import Registry, build_submission_scorer

from .conftest import write_submission
from .test_static import make_static_model

TEXT = "Bees collect nectar from flowers to make honey."
# four copies of the best match, ids in no sorted order, and two other documents
CORPUS = {"d07": TEXT, "d02": "The cat sat on the warm mat.", "d10": TEXT, "d04": TEXT, "d05": "Volcanoes erupt molten lava and ash.", "d01": TEXT}
QUERIES = {"q1": TEXT}


def test_rank_rule():
    assert list(rank({"b": 1.0, "a": 1.0, "c": 2.0, "d": 0.5}, 3)) == ["c", "a", "b"]
    assert list(rank([("z", 0.0), ("y", 0.0)])) == ["y", "z"]
    assert list(rank_row(np.array([1.0, 3.0, 3.0, 3.0]), ["w", "x", "b", "a"], 2)) == ["a", "b"]
    assert list(rank_row(np.array([1.0, 3.0, 3.0, 3.0]), ["w", "x", "b", "a"], 2, candidates=np.array([0, 1]))) == ["x", "w"]
    assert rank_row(np.array([1.0]), ["a"], 0) == {}


def test_exact_search_ties_across_document_chunks():
    d = np.array([[1.0, 0.0]] * 5 + [[0.0, 1.0]], dtype=np.float32)
    ids = ["e", "c", "a", "d", "b", "f"]
    run = exact_search(np.array([[1.0, 0.0]], dtype=np.float32), d, ["q"], ids, 3, doc_chunk=2)
    assert list(run["q"]) == ["a", "b", "c"]


@pytest.fixture
def subs(tmp_path, tiny_colbert, tiny_cross_encoder):
    folder = tmp_path / "subs"
    static = make_static_model(tmp_path / "models" / "tiny-static")
    write_submission(folder, {"name": "t-bm25", "kind": "lexical", "stopwords": None})
    write_submission(folder, {"name": "t-static", "kind": "static", "model": str(static)})
    write_submission(folder, {"name": "t-colbert", "kind": "late-interaction", "model": str(tiny_colbert)})
    write_submission(folder, {"name": "t-colbert-voyager", "kind": "late-interaction", "model": str(tiny_colbert), "exact_max_docs": 1})
    write_submission(folder, {"name": "t-ce", "kind": "cross-encoder", "model": str(tiny_cross_encoder), "first_stage": "t-bm25"})
    return folder


@pytest.mark.parametrize(
    "name",
    ["t-bm25", "t-static", "t-colbert", "t-colbert-voyager", "t-ce", "all-MiniLM-L6-v2", "minilm-align", "minilm-mean"],
)
def test_every_kind_ranks_ties_by_id(subs, tmp_path, name):
    registry = Registry([subs])
    scorer = build_submission_scorer(registry.get(name), RunContext(cache_root=tmp_path / "cache"), registry)
    full = scorer.retrieve(QUERIES, CORPUS, len(CORPUS)).run["q1"]
    top2 = scorer.retrieve(QUERIES, CORPUS, 2).run["q1"]
    # float sums may differ by one ulp between copies (BLAS), but some copies tie exactly, and
    # where they do, the lower id ranks first, in the full ranking and at the top-2 cut
    assert len(set(full.values())) < len(full), (scorer.kind, full)
    assert list(full.items()) == list(rank(full).items()), (scorer.kind, full)
    assert list(top2.items()) == list(rank(full, 2).items()), (scorer.kind, top2, full)
