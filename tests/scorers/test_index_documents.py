"""The index hook (``Scorer.index_documents``, ``index_parts``) and `cbench cost`'s index and query
timing over it, on the tiny local models: what each kind stores per document and its bytes
(computed by hand), a verifier's timed query call encoding only the queries, a cross-encoder still
scoring every pair at query time, a fusion's index counting the shared first stage once."""

from __future__ import annotations

from collections import Counter

import pytest

from harness.costs.measure import MeasureContext, distinct_parts, index_cost, query_cost
from harness.costs.workload import Queries
from harness.submissions import Registry, build_submission_scorer

from .conftest import QUERIES, corpus_texts, write_submission

DIM = 32  # the tiny BERT's hidden size
MAX_LENGTH = 11  # the verifier's token limit here: the documents have 9 to 12 tokens, two are cut
DEPTH = 4


@pytest.fixture
def subs(tmp_path, tiny_bert, tiny_cross_encoder, tiny_colbert):
    folder = tmp_path / "subs"
    write_submission(folder, {"name": "t-enc", "kind": "encoder", "model": str(tiny_bert)})
    write_submission(
        folder,
        {"name": "t-maxsim", "kind": "verifier", "first_stage": "t-enc", "encoder": "t-enc", "arch": "maxsim", "max_length": MAX_LENGTH, "rerank_depth": DEPTH},
    )
    write_submission(folder, {"name": "t-ce", "kind": "cross-encoder", "model": str(tiny_cross_encoder), "first_stage": "t-enc", "rerank_depth": DEPTH})
    write_submission(folder, {"name": "t-ce-bm25", "kind": "cross-encoder", "model": str(tiny_cross_encoder), "first_stage": "bm25", "rerank_depth": DEPTH})
    write_submission(folder, {"name": "t-colbert", "kind": "late-interaction", "model": str(tiny_colbert)})
    fusion = {"kind": "fusion", "first_stage": "t-enc", "rerank_depth": DEPTH, "first_stage_norm": {"mean": 0.2, "scale": 0.05}}
    fusion["verifier_norm"] = {"mean": 0.4, "scale": 0.1}
    write_submission(folder, {"name": "t-fused", **fusion, "verifier": "t-maxsim", "weight": 0.7})
    write_submission(folder, {"name": "t-fused-ce", **fusion, "verifier": "t-ce-bm25", "weight": 2.0})
    return folder


def build(folder, name, ctx: MeasureContext | None = None):
    reg = Registry([folder])
    ctx = ctx if ctx is not None else MeasureContext()
    return build_submission_scorer(reg.get(name), ctx, reg), ctx


def workload() -> Queries:
    return Queries("tiny:beir", None, None, corpus_texts(), dict(QUERIES))


def tokens_by_hand(tiny_bert, max_length: int) -> int:
    """Tokens the verifier keeps per document, summed: [CLS] + word pieces + [SEP], cut at max_length."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(tiny_bert))
    return sum(len(ids) for ids in tok(list(corpus_texts().values()), truncation=True, max_length=max_length)["input_ids"])


def test_an_encoder_stores_one_float32_vector_per_document(subs):
    enc, ctx = build(subs, "t-enc")
    store = enc.index_documents(corpus_texts())
    assert store.nbytes == 10 * DIM * 4 and store.documents == 10 and store.stores == f"pooled vectors float32 ({DIM} dims)"
    assert ctx.counters["texts_encoded"] == 10
    enc.retrieve(QUERIES, corpus_texts(), 3)  # the search reads the stored vectors: only the queries are encoded
    assert ctx.counters["texts_encoded"] == 10 + len(QUERIES)


def test_a_verifier_index_is_its_first_stage_plus_float16_document_tokens(subs, tiny_bert):
    ver, ctx = build(subs, "t-maxsim")
    assert [p.config.name for p in distinct_parts(ver)] == ["t-enc", "t-maxsim"]
    tokens = tokens_by_hand(tiny_bert, MAX_LENGTH)
    assert tokens < 10 * MAX_LENGTH  # some documents are shorter than the limit, some are cut
    own = ver.index_documents(corpus_texts())
    assert own.nbytes == tokens * DIM * 2 and own.stores == f"document token embeddings float16 (mean {tokens / 10:.0f} tokens x {DIM} dims)"
    index = index_cost(ver, ctx, workload())
    assert [p.submission for p in index.parts] == ["t-enc", "t-maxsim"] and index.documents == 10
    assert index.bytes == 10 * DIM * 4 + tokens * DIM * 2 and index.bytes_per_doc == pytest.approx(index.bytes / 10, abs=0.01)
    assert index.stores == f"pooled vectors float32 ({DIM} dims) + document token embeddings float16 (mean {tokens / 10:.0f} tokens x {DIM} dims)"
    assert index.ms_per_doc == pytest.approx(sum(p.build.wall_ms[0] for p in index.parts) / 10, abs=1e-3) and index.ms_per_doc > 0


def test_a_verifier_timed_query_call_encodes_only_the_queries(subs, monkeypatch):
    """After the index is built, reranking encodes the query texts (every repeat: they are not
    pinned) and never a document; the documents' token embeddings come from the index."""
    import harness.simmap_nets.tokens as tokens_module

    seen: list[str] = []
    real = tokens_module.encode_tokens

    def counting(model, texts, *args, **kwargs):
        seen.extend(texts)
        return real(model, texts, *args, **kwargs)

    monkeypatch.setattr(tokens_module, "encode_tokens", counting)
    ver, ctx = build(subs, "t-maxsim")
    wl = workload()
    index_cost(ver, ctx, wl)
    docs = set(wl.corpus.values())
    assert Counter(seen) == Counter({d: 2 for d in docs})  # the index warm-up (every document: fewer than 16) and the build
    seen.clear()
    run = ver.first_stage.retrieve(wl.queries, wl.corpus, DEPTH).run
    qs = [wl.queries[q] for q, ds in run.items() for _ in ds]
    ds = [wl.corpus[d] for ds in run.values() for d in ds]
    before = ctx.counters.get("texts_encoded", 0)
    for _ in range(2):
        ctx.forget()
        ver.score_query_docs(qs, ds)
    assert Counter(seen) == Counter({q: 2 for q in wl.queries.values()}) and not docs & set(seen)
    assert ctx.counters["texts_encoded"] - before == 2 * len(wl.queries)
    # the whole query timing: the warm-up encodes the first query, each of the 2 repeats all 3; no document
    seen.clear()
    ver2, ctx2 = build(subs, "t-maxsim")
    _, q = query_cost(ver2, ctx2, wl, repeats=2)
    first = wl.queries[next(iter(wl.queries))]
    assert Counter(t for t in seen if t not in docs) == Counter({t: 2 + (t == first) for t in wl.queries.values()})
    assert Counter(t for t in seen if t in docs) == Counter({d: 2 for d in docs})  # index warm-up and build only
    assert q.rerank_depth == DEPTH and q.rerank_pairs == len(wl.queries) * DEPTH and q.rerank is not None and len(q.rerank.wall_ms) == 2


def test_a_cross_encoder_stores_nothing_and_scores_every_pair_at_query_time(subs):
    ce, ctx = build(subs, "t-ce")
    assert ce.index_documents(corpus_texts()) is None and "pairs_scored" not in ctx.counters  # nothing scored at index time
    wl = workload()
    index, q = query_cost(ce, ctx, wl, repeats=2)
    assert [p.submission for p in index.parts] == ["t-enc"] and index.bytes == 10 * DIM * 4  # its first stage's index only
    assert q.rerank_pairs == len(wl.queries) * DEPTH
    # the warm-up scores the first query's candidates; each repeat scores every pair again
    assert ctx.counters["pairs_scored"] == DEPTH + 2 * q.rerank_pairs


def test_a_fusion_counts_the_first_stage_once_and_adds_the_verifiers_own_store(subs, tiny_bert):
    fused, ctx = build(subs, "t-fused")
    index, q = query_cost(fused, ctx, workload(), repeats=1)
    tokens = tokens_by_hand(tiny_bert, MAX_LENGTH)
    assert [p.submission for p in index.parts] == ["t-enc", "t-maxsim"] and index.bytes == 10 * DIM * 4 + tokens * DIM * 2
    assert q.rerank_pairs == len(QUERIES) * DEPTH and q.ms_per_query == pytest.approx(q.search_ms_per_query + q.rerank_ms_per_query, abs=1e-3)
    # a verifier reranking another first stage (bm25): neither its first stage's index nor anything of its own
    other, ctx = build(subs, "t-fused-ce")
    index = index_cost(other, ctx, workload())
    assert [p.submission for p in index.parts] == ["t-enc"] and index.bytes == 10 * DIM * 4


def test_late_interaction_stores_float16_document_tokens(subs):
    li, ctx = build(subs, "t-colbert")
    store = li.index_documents(corpus_texts())
    rows = li.embed(list(corpus_texts().values()), "document")  # found in the cache the hook filled
    assert ctx.counters["texts_encoded"] == 10
    tokens = sum(r.shape[0] for r in rows)
    assert store.nbytes == tokens * 16 * 2 and store.stores == f"document token embeddings float16 (mean {tokens / 10:.0f} tokens x 16 dims)"


@pytest.mark.parametrize("name", ["bm25", "tfidf"])
def test_lexical_kinds_store_their_sparse_index(name):
    """BM25: bm25s's (term, document) scores, csc float32 + int32 indices + int64 indptr per term;
    TF-IDF: the documents' csc float64 matrix + int32 indices and indptr per document, + the IDF
    array; retrieve then searches that index (the documents are not indexed again)."""
    reg = Registry()
    s = build_submission_scorer(reg.get(name), MeasureContext(), reg)
    corpus = corpus_texts()
    store = s.index_documents(corpus)
    assert s.ctx.counters["texts_indexed"] == 10 and store.documents == 10
    index = s._corpus_index[1]
    if name == "bm25":
        pairs = sum(len(set(toks)) for toks in index.tokens)  # (term, document) pairs with a score
        terms = len({t for toks in index.tokens for t in toks})
        assert store.nbytes == pairs * (4 + 4) + (terms + 1) * 8
        assert store.stores == f"BM25 term-document scores, sparse float32 ({terms} terms; vocabulary not counted)"
    else:
        vectorizer, docs_t = index
        terms = len(vectorizer.idf_)
        assert store.nbytes == docs_t.nnz * (8 + 4) + (10 + 1) * 4 + terms * 8 and store.stores.startswith("TF-IDF document vectors, sparse float64")
    s.retrieve(QUERIES, corpus, 3)
    assert s.ctx.counters["texts_indexed"] == 10
