"""Sharded corpus encoding with Ray Data, for retrieval with one vector per text.

A coordinator (the unit's Ray task) encodes the queries, cuts the corpus into blocks of
``harness.search.DOC_CHUNK`` documents (50,000) and hands them to ``map_batches`` over an actor pool of ``N`` encoders
(``ActorPoolStrategy(size=N)``; each actor builds the submission's scorer once). An actor encodes a block
through its node's embedding cache, runs ``harness.search.exact_search`` of every query against
the block and returns that block's top-k per query. The coordinator merges blocks as they stream
back, keeping per query the best k under the harness's one tie rule (``harness.search``: score
descending, then document id ascending).

Why the merge is exact: that rule is a total order (document ids are unique), and the best k of a
union are among the best k of each part, so merging the blocks' top-k gives the unsharded top-k,
ties included. The scores are the same numbers too: the blocks start at the offsets where
``exact_search`` cuts its own document chunks, so each block's scores come from the very matrix
product (same shapes, same query chunks) the unsharded search computes. (A matrix product's last
bit can depend on its shape: a block of one document goes through another BLAS kernel than 50,000;
cutting elsewhere broke ties differently in the tests.) This assumes the same BLAS on every node.
A corpus of at most one chunk is one block: one encoder works, the others idle.

Memory: an actor holds one block's texts, embeddings and (queries x block) scores at a time; the
coordinator holds the corpus texts (it loaded the dataset), the query vectors and k results per
query. Without ``--shards``, a corpus of ``AUTO_SHARD_DOCS`` documents or more is sharded over the
CPUs (GPUs with ``--device cuda``) free in the cluster at that moment, when that is at least two.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import numpy as np
import ray

from harness import search
from harness.scorers.base import Retrieval
from harness.search import exact_search, rank

if TYPE_CHECKING:
    from harness.executors.worker import WorkerSpec
    from harness.scorers.base import EmbeddingScorer

log = logging.getLogger("cbench")

AUTO_SHARD_DOCS = 250_000  # documents from which a retrieval dataset is sharded without --shards


def auto_shards(n_docs: int, cpus: float, gpus: float) -> int:
    """Shards for a corpus when --shards is not given: 1 below AUTO_SHARD_DOCS, else the number
    of encoders the cluster's free CPUs (or GPUs) hold now (1 when fewer than two)."""
    if n_docs < AUTO_SHARD_DOCS:
        return 1
    free = ray.available_resources()
    n = int(free.get("GPU", 0) // gpus) if gpus else int(free.get("CPU", 0) // max(cpus, 1e-9))
    if n < 2:
        log.info("corpus of %d documents: fewer than two free encoders in the cluster; not sharded", n_docs)
        return 1
    return n


class ShardedRetrieval:
    """An embedding scorer whose ``retrieve`` shards the corpus; everything else is the scorer's."""

    def __init__(self, inner: EmbeddingScorer, spec: WorkerSpec, shards: int | None, cpus: float, gpus: float):
        self._inner, self._spec, self._shards, self._cpus, self._gpus = inner, spec, shards, cpus, gpus

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def retrieve(self, queries: dict[str, str], corpus: dict[str, str], top_k: int) -> Retrieval:
        n = self._shards if self._shards is not None else auto_shards(len(corpus), self._cpus, self._gpus)
        if n < 2 or not queries or not corpus:
            return self._inner.retrieve(queries, corpus, top_k)
        inner = self._inner
        q_ids, doc_ids = list(queries), list(corpus)
        q = inner.embed([queries[i] for i in q_ids], "query")
        run, encoded = sharded_search(
            self._spec, q, doc_ids, [corpus[i] for i in doc_ids], top_k, n, cosine=inner.similarity == "cosine", cpus=self._cpus, gpus=self._gpus
        )
        inner.ctx.count("texts_encoded", encoded)
        return Retrieval({q_ids[i]: run[i] for i in range(len(q_ids))})


class ShardSearcher:
    """The Ray Data UDF: one encoder (the submission's scorer, built once per actor)."""

    def __init__(self, spec: WorkerSpec, q: np.ndarray, top_k: int, cosine: bool):
        from harness.executors.worker import worker_scorer

        self.ctx, self.scorer = worker_scorer(spec)
        self.q = np.array(q, dtype=np.float32)  # a writable copy (what arrives from the object store is read-only)
        self.q_ids = [str(i) for i in range(self.q.shape[0])]
        self.top_k, self.cosine = top_k, cosine

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        ids = [str(x) for x in batch["id"]]
        before = self.ctx.counters.get("texts_encoded", 0)
        d = self.scorer.embed([str(t) for t in batch["text"]], "document")
        run = exact_search(self.q, d, self.q_ids, ids, self.top_k, cosine=self.cosine)
        qs, docs, scores = [], [], []
        for qi, hits in run.items():
            for doc, s in hits.items():
                qs.append(int(qi))
                docs.append(doc)
                scores.append(s)
        encoded = np.zeros(len(qs), dtype=np.int64)
        if len(qs):
            encoded[0] = self.ctx.counters.get("texts_encoded", 0) - before  # once per block
        return {
            "query": np.asarray(qs, dtype=np.int64),
            "doc": np.asarray(docs, dtype=object),
            "score": np.asarray(scores, dtype=np.float64),
            "encoded": encoded,
        }


def sharded_search(
    spec: WorkerSpec, q: np.ndarray, doc_ids: list[str], texts: list[str], top_k: int, shards: int, *, cosine: bool, cpus: float, gpus: float
) -> tuple[list[dict[str, float]], int]:
    """Per query (by index) its exact top-k over the corpus, and the texts the actors encoded."""
    import pyarrow as pa

    data_ctx = ray.data.DataContext.get_current()
    data_ctx.enable_progress_bars = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)  # no per-dataset execution plans in the driver's log
    block = search.DOC_CHUNK  # exact_search's own chunk offsets (see the module docstring)
    table = pa.table({"id": doc_ids, "text": texts})
    ds = ray.data.from_arrow([table.slice(s, block) for s in range(0, len(doc_ids), block)])
    k = min(top_k, len(doc_ids))
    out = ds.map_batches(
        ShardSearcher,
        fn_constructor_kwargs={"spec": spec, "q": q, "top_k": k, "cosine": cosine},
        batch_size=block,
        batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=shards),  # a fixed pool of N encoders (Ray >= 2.51: compute, not concurrency)
        num_cpus=cpus,
        num_gpus=gpus,
    )
    best: list[dict[str, float]] = [{} for _ in range(q.shape[0])]
    encoded = 0
    for b in out.iter_batches(batch_format="numpy", batch_size=None):
        encoded += int(b["encoded"].sum())
        new: dict[int, list[tuple[str, float]]] = {}
        for qi, doc, s in zip(b["query"].tolist(), b["doc"].tolist(), b["score"].tolist(), strict=True):
            new.setdefault(qi, []).append((str(doc), float(s)))
        for qi, hits in new.items():
            best[qi] = rank([*best[qi].items(), *hits], k)
    return best, encoded
