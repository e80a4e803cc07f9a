"""`kind: lexical` - BM25 (bm25s), no neural model.

Tokenisation: bm25s' tokenizer (lower-cased, words of two or more word characters, the regex
``(?u)\\b\\w\\w+\\b``), English stopwords removed when ``stopwords: en``, no stemming (PyStemmer
is not a dependency). Query term frequency counts: a word twice in a query adds its score twice.

Retrieval: an index over the corpus; per query every document that contains at least one query
term is scored and the ``top_k`` best are kept, ties broken by document id (so runs are
identical whatever the corpus file order). Documents that share no term with the query are
never returned (their BM25 is 0, or a constant for bm25l/bm25+, and ordering them would be
arbitrary).

Pair scores (near-miss suite), precisely:

1. One index is built over the distinct texts of the pair set (all ``a`` and ``b`` together),
   so document frequencies / IDF and the average length come from that collection, and every
   token of every text is in the vocabulary. The result for a pair therefore depends on the
   whole pair set it is scored with (as BM25 always depends on its collection), but not on
   the order of the pairs.
2. raw(a, b) = BM25 score of text ``b`` as the document for text ``a`` as the query;
   floor(a) = the score ``a`` gives a document that shares none of its terms (0, except for
   bm25l / bm25+, whose non-occurrence term gives every document a constant);
   self(a) = raw(a, a).
3. s(a, b) = clip((raw(a, b) - floor(a)) / (self(a) - floor(a)), 0, 1); s = 0 when
   self(a) <= floor(a) (``a`` has no indexed term: empty, punctuation only, only stopwords).

Dividing by the query's own score puts every pair on one scale: 1 means "``b`` matches ``a``
as well as ``a`` matches itself", 0 means "no shared weighted term". The ratio can exceed 1
when ``b`` is shorter than ``a`` (BM25's length normalisation rewards short documents), e.g.
a = "a red car parked outside", b = "red car"; clipping maps every such ``b`` to 1. Negative
raw scores (``method: robertson``, whose IDF is negative for terms in more than half of the
texts) clip to 0. Identical texts score exactly 1. The computation is deterministic.

Query-document pair scores (``score_query_docs``, paired query-document suites such as NevIR):
the same pair-set index, ``q`` as the query and ``d`` as the document, s(q, d) = raw(q, d) -
floor(q): the retrieval score up to the query's constant floor, neither divided by self(q) nor
clipped (clipping would tie two documents that both match the query better than it matches itself).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field

from harness.run_context import RunContext
from harness.scorers.base import DocumentStore, Retrieval, Scorer, SubmissionBase, store_key
from harness.search import rank_row
from harness.ui import progress_bar


class LexicalConfig(SubmissionBase):
    kind: Literal["lexical"]
    k1: float = Field(default=1.2, ge=0, le=100, description="term-frequency saturation (Lucene / Elasticsearch default 1.2)")
    b: float = Field(default=0.75, ge=0, le=1, description="length normalisation")
    method: Literal["lucene", "robertson", "atire", "bm25l", "bm25+"] = "lucene"
    delta: float = Field(default=0.5, ge=0, le=10, description="bm25l / bm25+ only")
    stopwords: Literal["en"] | None = "en"
    stemmer: Literal[None] = Field(default=None, description="only null: no stemmer is shipped")


class Index:
    """A bm25s index over ``texts`` plus the tokenizer that made it."""

    def __init__(self, cfg: LexicalConfig, texts: list[str]):
        import bm25s
        from bm25s.tokenization import Tokenizer

        self.tokenizer = Tokenizer(lower=True, stopwords=cfg.stopwords or [], stemmer=None)
        self.tokens = self.tokenize(texts)
        self.n = len(texts)
        self.bm25 = bm25s.BM25(k1=cfg.k1, b=cfg.b, delta=cfg.delta, method=cfg.method, backend="numpy", csc_backend="numpy")
        self.empty = not any(self.tokens)  # bm25s cannot index a collection without a single token
        if not self.empty:
            self.bm25.index(self.tokens, show_progress=False)

    def tokenize(self, texts: list[str]) -> list[list[str]]:
        out = self.tokenizer.tokenize(list(texts), return_as="string", show_progress=False, update_vocab=True)
        return [[t for t in toks if t] for toks in out]  # bm25s returns [""] for a text without words

    def ids(self, tokens: list[str]) -> list[int]:
        return [] if self.empty else self.bm25.get_tokens_ids(tokens)

    def scores(self, ids: list[int]) -> np.ndarray:
        """BM25 of every indexed text for a query given as token ids."""
        if not ids:
            return np.zeros(self.n, dtype=np.float64)
        return np.asarray(self.bm25.get_scores_from_ids(ids), dtype=np.float64)

    def floor(self, ids: list[int]) -> float:
        """The score of a document that contains none of the query's terms."""
        extra = getattr(self.bm25, "nonoccurrence_array", None)
        if not ids or extra is None:
            return 0.0
        return float(np.asarray(extra)[np.asarray(ids)].sum())

    def matching(self, ids: list[int]) -> np.ndarray:
        """Indices of the texts that contain at least one of the token ids."""
        if not ids:
            return np.zeros(0, dtype=np.int64)
        indptr, indices = self.bm25.scores["indptr"], self.bm25.scores["indices"]
        parts = [indices[indptr[t] : indptr[t + 1]] for t in set(ids)]
        return np.unique(np.concatenate(parts)).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)


class LexicalScorer(Scorer):
    kind = "lexical"
    Config = LexicalConfig
    colour = "#2ca02c"  # leaderboard plot
    mteb_model_type = "sparse"

    def __init__(self, config: LexicalConfig, ctx: RunContext, base_dir: Path | None = None, *, path: Path | None = None):
        super().__init__(config, ctx, base_dir, path=path)
        self.cfg = config

    def retrieve(self, queries: dict[str, str], corpus: dict[str, str], top_k: int) -> Retrieval:
        doc_ids = list(corpus)
        index: Index = self.corpus_index(corpus, doc_ids, lambda texts: Index(self.cfg, texts))
        q_ids = list(queries)
        q_tokens = index.tokenize([queries[q] for q in q_ids])
        run: dict[str, dict[str, float]] = {}
        with progress_bar(self.ctx.progress, "BM25 search", len(q_ids)) as advance:
            for qid, toks in zip(q_ids, q_tokens, strict=True):
                ids = index.ids(toks)
                run[qid] = rank_row(index.scores(ids), doc_ids, top_k, candidates=index.matching(ids))
                advance()
        return Retrieval(run)

    def index_documents(self, corpus: dict[str, str]) -> DocumentStore | None:
        """The BM25 index ``retrieve`` searches (``corpus_index``, kept by the scorer): bm25s's
        precomputed score of every (term, document) as a sparse matrix, its arrays' bytes (data,
        indices, indptr, and the non-occurrence array of bm25l / bm25+); the vocabulary (a Python
        dict) is not counted."""
        index: Index = self.corpus_index(corpus, list(corpus), lambda texts: Index(self.cfg, texts))
        arrays = [] if index.empty else [index.bm25.scores[k] for k in ("data", "indices", "indptr")]
        extra = getattr(index.bm25, "nonoccurrence_array", None)
        if extra is not None and not index.empty:
            arrays.append(np.asarray(extra))
        nbytes = sum(int(np.asarray(a).nbytes) for a in arrays)
        terms = 0 if index.empty else len(index.bm25.scores["indptr"]) - 1  # the matrix's terms (bm25s' vocabulary also holds "")
        dtype = arrays[0].dtype if arrays else np.dtype(np.float32)
        what = f"BM25 term-document scores, sparse {dtype} ({terms} terms; vocabulary not counted)"
        settings = self.cfg.model_dump(mode="json", exclude=set(SubmissionBase.model_fields) - {"kind"})
        return DocumentStore(what, nbytes, len(corpus), store_key("bm25", settings))

    def score_pairs(self, a: list[str], b: list[str]) -> np.ndarray:
        raw, own = self._pair_set_scores(a, b)
        ok = own > 0  # a text without an indexed term scores 0 with everything
        out = np.zeros(len(a), dtype=np.float64)
        out[ok] = np.clip(raw[ok] / own[ok], 0.0, 1.0)
        return out

    def score_query_docs(self, queries: list[str], docs: list[str]) -> np.ndarray:
        """raw(q, d) - floor(q) over the pair-set index (module docstring)."""
        return self._pair_set_scores(queries, docs)[0]

    def _pair_set_scores(self, a: list[str], b: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(raw(a[i], b[i]) - floor(a[i]), self(a[i]) - floor(a[i])) per pair, from one index over
        the distinct texts of the pair set (module docstring)."""
        if len(a) != len(b):
            raise ValueError(f"pair scores need lists of equal length, got {len(a)} and {len(b)}")
        raw, own = np.zeros(len(a), dtype=np.float64), np.zeros(len(a), dtype=np.float64)
        if not a:
            return raw, own
        texts = list(dict.fromkeys([*a, *b]))  # distinct, in first-seen order
        pos = {t: i for i, t in enumerate(texts)}
        index = Index(self.cfg, texts)
        by_query: dict[str, list[int]] = {}
        for i, text in enumerate(a):
            by_query.setdefault(text, []).append(i)
        for text, rows in by_query.items():
            ids = index.ids(index.tokens[pos[text]])
            scores, floor = index.scores(ids), index.floor(ids)
            for i in rows:
                raw[i] = scores[pos[b[i]]] - floor
                own[i] = scores[pos[text]] - floor
        self.ctx.count("texts_indexed", len(texts))
        return raw, own

    def info(self) -> dict[str, Any]:
        import bm25s

        return {
            "model": "bm25",
            "bm25s_version": getattr(bm25s, "__version__", None),
            "k1": self.cfg.k1,
            "b": self.cfg.b,
            "method": self.cfg.method,
            "delta": self.cfg.delta if self.cfg.method in ("bm25l", "bm25+") else None,
            "stopwords": self.cfg.stopwords,
            "stemmer": None,
            "pair_score": "clip((bm25(a->b) - floor(a)) / (bm25(a->a) - floor(a)), 0, 1), index over the pair texts",
        }
