"""Timing a submission's scorer on the fixed workload (``harness.costs.workload``): three numbers,
as a deployment pays them (``harness.costs.record``).

Every timing follows a warm-up (the model loaded, first calls made) and is repeated; the figures
are medians, in wall-clock ms (what a caller waits) and in this process's CPU ms (what it costs;
less disturbed by other load on the machine: compare the two with the load averages). Nothing is
read from the embedding / score cache on disk: the scorer runs in a ``MeasureContext``, whose
caches live in memory.

* pairs: ``score_pairs`` on the workload's near-miss pairs in one call, every cache emptied
  before each repeat; ms per pair.
* index (every kind with retrieval): the submission's index, built once for the whole collection
  and timed: ``Scorer.index_documents`` of each of its ``index_parts`` (a first stage's pooled
  vectors or BM25 / TF-IDF matrices, a verifier's document token embeddings, a late-interaction
  model's; a cross-encoder stores nothing; a store two parts share is built and counted once);
  ms per document (wall and CPU) and bytes per document at the precision stored. What the build
  leaves in the context's caches is then pinned (and the BM25 / TF-IDF index stays in its scorer,
  ``Scorer.corpus_index``): the timed query calls below find the documents' representations
  there. ``cbench cost`` with several ``--model`` keeps every store it built (``indexes``), so
  rerankers over one first stage, or verifiers over one encoder, build it once; each file records
  that build's timing and, in ``built_for``, which submission it was built for.
* queries, with the index built (pinned) and nothing else kept between repeats (the queries'
  own encodings are paid every repeat):
  - a first stage (every kind with retrieval and no first stage): ``retrieve`` of all the
    workload's queries and of the first one alone; ms per query is the difference over
    (queries - 1), so what every call pays once whatever its queries (normalising the document
    matrix, ...) is left out;
  - a reranker (a kind with ``first_stage``; a fusion too): its first stage's ms per query as
    above, plus ``score_query_docs`` over the first stage's top ``rerank_depth`` for every query
    (what its ``retrieve`` scores), per query. A verifier then encodes only the query texts and
    computes the maps and its network; a cross-encoder, which stores nothing, scores every pair
    (its score cache is never pinned); a fusion pays both parts' ``score_query_docs``.
* controls: pairs only (they have no retrieval).
"""

from __future__ import annotations

import gc
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from harness.cache import EmbeddingCache, namespace_id
from harness.costs.machine import cpu_model, load_average, torch_threads
from harness.costs.record import CostRecord, IndexCost, IndexPart, Machine, PairCost, QueryCost, Timing
from harness.costs.workload import PAIRS_RULE, TOP_K, WARMUP_DOCS, Pairs, Queries, collection_queries, digest, near_miss_pairs
from harness.provenance import environment, now
from harness.run_context import RunContext
from harness.scorers.base import DocumentStore, Scorer
from harness.search import rank
from harness.submissions import Registry, Submission, build_submission_scorer

Chunks = list[tuple[list[bytes], list[np.ndarray]]]


class _MemoryCache(EmbeddingCache):
    """An embedding cache that never touches the disk and remembers what was put in it."""

    def __init__(self, spec: dict):
        super().__init__(Path(), spec, enabled=False)
        self.stored: Chunks = []

    def put_many(self, keys, rows) -> None:
        super().put_many(keys, rows)
        self.stored.append((list(keys), list(rows)))


@dataclass(frozen=True)
class Clock:
    wall: float  # ms
    cpu: float  # ms of this process's CPU time (all its threads)


@dataclass(frozen=True)
class BuiltStore:
    """A store built in this process: its timing, what it is, and the submission it was built for."""

    clock: Clock
    store: DocumentStore
    built_for: str


@dataclass
class MeasureContext(RunContext):
    """A run context whose caches are in memory only (the disk cache is neither read nor written).
    ``pin`` keeps what they hold now (the index); ``forget`` empties them down to that; ``reset``
    empties them and unpins. ``pool`` keeps every index store built in this process (cache
    namespace -> its spec and entries) and ``indexes`` their builds (``DocumentStore.key`` and
    documents -> ``BuiltStore``), across the submissions timed in one process."""

    _memory: dict[str, _MemoryCache] = field(default_factory=dict, repr=False)
    _pinned: dict[str, Chunks] = field(default_factory=dict, repr=False)
    pool: dict[str, tuple[dict, Chunks]] = field(default_factory=dict, repr=False)
    indexes: dict[tuple[str, str], BuiltStore] = field(default_factory=dict, repr=False)

    def cache(self, spec: dict) -> EmbeddingCache:
        key = namespace_id(spec)
        if key not in self._memory:
            self._memory[key] = self._fresh(key, spec)
        return self._memory[key]

    def _fresh(self, key: str, spec: dict) -> _MemoryCache:
        c = _MemoryCache(spec)
        for keys, rows in self._pinned.get(key, []):
            c.put_many(keys, rows)
        return c

    def pin(self) -> None:
        self._pinned = {k: list(c.stored) for k, c in self._memory.items()}

    def forget(self) -> None:
        self._memory = {k: self._fresh(k, c.spec) for k, c in self._memory.items() if k in self._pinned}

    def reset(self) -> None:
        self._pinned, self._memory = {}, {}

    def load_pool(self) -> None:
        """Put every store built earlier in this process into the caches (not pinned yet)."""
        for key, (spec, chunks) in self.pool.items():
            c = self._memory.setdefault(key, _MemoryCache(spec))
            for keys, rows in chunks:
                c.put_many(keys, rows)

    def keep_in_pool(self) -> None:
        """Add what the caches hold now (an index just built, with the pool it started from) to the pool."""
        self.pool = {k: (c.spec, list(c.stored)) for k, c in self._memory.items()}


def timed(fn: Callable[[], object]) -> Clock:
    """Wall and CPU time of ``fn()``, after a garbage collection (so none runs inside)."""
    gc.collect()
    wall, cpu = time.perf_counter_ns(), time.process_time_ns()
    fn()
    return Clock((time.perf_counter_ns() - wall) / 1e6, (time.process_time_ns() - cpu) / 1e6)


def timed_result(fn: Callable[[], object]) -> tuple[Clock, object]:
    out: list[object] = []
    clock = timed(lambda: out.append(fn()))
    return clock, out[0]


def _ms(x: float) -> float:
    return round(x, 4)


def timing(clocks: list[Clock]) -> Timing:
    return Timing(wall_ms=[_ms(c.wall) for c in clocks], cpu_ms=[_ms(c.cpu) for c in clocks])


def per(clocks: list[Clock], n: int) -> Clock:
    """Median wall and CPU time over the repeats, divided by ``n``."""
    return Clock(_ms(statistics.median(c.wall for c in clocks) / n), _ms(statistics.median(c.cpu for c in clocks) / n))


def is_reranker(scorer: Scorer) -> bool:
    return "first_stage" in type(scorer).parts


def pair_cost(scorer: Scorer, ctx: MeasureContext, pairs: Pairs, repeats: int) -> PairCost:
    ctx.reset()
    scorer.score_pairs(pairs.a, pairs.b)  # warm-up
    clocks = []
    for _ in range(repeats):
        ctx.forget()
        clocks.append(timed(lambda: scorer.score_pairs(pairs.a, pairs.b)))
    ctx.reset()
    n = len(pairs.a)
    each = per(clocks, n)
    return PairCost(
        suite=pairs.suite,
        suite_file=pairs.suite_file,
        split=pairs.split,
        pairs=n,
        rule=PAIRS_RULE,
        sha256=digest([pairs.a, pairs.b]),
        ms_per_pair=each.wall,
        cpu_ms_per_pair=each.cpu,
        timing=timing(clocks),
    )


def distinct_parts(scorer: Scorer) -> list[Scorer]:
    """``scorer.index_parts()`` with each scorer once (first place kept)."""
    seen: set[int] = set()
    out = []
    for part in scorer.index_parts():
        if id(part) not in seen:
            seen.add(id(part))
            out.append(part)
    return out


def index_cost(scorer: Scorer, ctx: MeasureContext, wl: Queries) -> IndexCost:
    """Build the submission's index over the whole collection, part by part, timed; pin it. First
    a warm-up on a few documents (models loaded, first calls made; what the caches hold already,
    e.g. the search warm-up's document vectors, is used); then the caches are emptied. A store built
    earlier in this process (same key, same documents) is found in the pool: its build is then near
    free here and the earlier build's timing is recorded."""
    corpus = wl.corpus
    docs = digest(sorted(corpus.items()))
    parts = distinct_parts(scorer)
    warm = {d: corpus[d] for d in sorted(corpus)[:WARMUP_DOCS]}
    for part in parts:
        part.index_documents(warm)
    ctx.reset()
    ctx.load_pool()
    out: list[IndexPart] = []
    keys: set[str] = set()
    for part in parts:
        clock, store = timed_result(lambda part=part: part.index_documents(corpus))
        if not isinstance(store, DocumentStore) or store.key in keys:
            continue
        keys.add(store.key)
        built = ctx.indexes.setdefault((store.key, docs), BuiltStore(clock, store, scorer.config.name))
        out.append(
            IndexPart(
                submission=part.config.name,
                kind=part.kind,
                stores=store.stores,
                bytes=store.nbytes,
                build=timing([built.clock]),
                built_for=None if built.built_for == scorer.config.name else built.built_for,
            )
        )
    ctx.keep_in_pool()
    ctx.pin()
    n = len(corpus)
    total = sum(p.bytes for p in out)
    return IndexCost(
        collection=wl.name,
        documents=n,
        ms_per_doc=_ms(sum(p.build.wall_ms[0] for p in out) / n),
        cpu_ms_per_doc=_ms(sum(p.build.cpu_ms[0] for p in out) / n),
        bytes=total,
        bytes_per_doc=round(total / n, 2),
        stores=" + ".join(p.stores for p in out) or "nothing per document",
        parts=out,
    )


@dataclass
class _Search:
    all: list[Clock]
    one: list[Clock]
    per_query: Clock


def search_cost(first: Scorer, ctx: MeasureContext, wl: Queries, top_k: int, repeats: int) -> _Search:
    """``first.retrieve`` against the pinned index: per repeat all the queries and the first alone."""
    queries, corpus = wl.queries, wl.corpus
    one = dict([next(iter(queries.items()))])
    all_, one_ = [], []
    for _ in range(repeats):
        ctx.forget()
        all_.append(timed(lambda: first.retrieve(queries, corpus, top_k)))
        ctx.forget()
        one_.append(timed(lambda: first.retrieve(one, corpus, top_k)))
    extra = len(queries) - 1
    marginal = Clock(
        _ms(statistics.median((a.wall - o.wall) / extra for a, o in zip(all_, one_, strict=True))),
        _ms(statistics.median((a.cpu - o.cpu) / extra for a, o in zip(all_, one_, strict=True))),
    )
    return _Search(all_, one_, marginal)


def query_cost(scorer: Scorer, ctx: MeasureContext, wl: Queries, repeats: int) -> tuple[IndexCost, QueryCost]:
    """The index built (``index_cost``), then the query timings against it (module docstring)."""
    reranker = is_reranker(scorer)
    first: Scorer = scorer.first_stage if reranker else scorer  # type: ignore[attr-defined]
    depth = int(scorer.config.rerank_depth) if reranker else None  # type: ignore[attr-defined]
    queries, corpus = wl.queries, wl.corpus
    ctx.reset()
    first.retrieve(queries, {d: corpus[d] for d in sorted(corpus)[:WARMUP_DOCS]}, depth or TOP_K)  # warm-up: the query side
    index = index_cost(scorer, ctx, wl)  # resets, builds, pins
    search = search_cost(first, ctx, wl, depth or TOP_K, repeats)
    common = dict(
        collection=wl.name,
        source=wl.source,
        revision=wl.revision,
        corpus_docs=len(corpus),
        queries=len(queries),
        sha256=digest(list(queries.values())),
        first_stage=first.config.name,
        top_k=depth or TOP_K,
        search_ms_per_query=search.per_query.wall,
        search_cpu_ms_per_query=search.per_query.cpu,
        search_all=timing(search.all),
        search_one=timing(search.one),
    )
    if not reranker:
        ctx.reset()
        return index, QueryCost(ms_per_query=search.per_query.wall, cpu_ms_per_query=search.per_query.cpu, **common)
    ctx.forget()  # the index stays
    run = first.retrieve(queries, corpus, depth).run  # the candidates (not timed)
    qs: list[str] = []
    ds: list[str] = []
    first_n = 0
    for i, (qid, text) in enumerate(queries.items()):
        for did in rank(run.get(qid, {}), depth):
            qs.append(text)
            ds.append(corpus[did])
        if i == 0:
            first_n = len(qs)
    ctx.forget()
    scorer.score_query_docs(qs[: max(first_n, 1)], ds[: max(first_n, 1)])  # warm-up
    clocks = []
    for _ in range(repeats):
        ctx.forget()  # the index stays; the queries' encodings (and a cross-encoder's scores) go
        clocks.append(timed(lambda: scorer.score_query_docs(qs, ds)))
    ctx.reset()
    rerank = per(clocks, len(queries))
    return index, QueryCost(
        ms_per_query=_ms(search.per_query.wall + rerank.wall),
        cpu_ms_per_query=_ms(search.per_query.cpu + rerank.cpu),
        rerank_depth=depth,
        rerank_pairs=len(qs),
        rerank_ms_per_query=rerank.wall,
        rerank_cpu_ms_per_query=rerank.cpu,
        rerank=timing(clocks),
        **common,
    )


def batch_sizes(sub: Submission, registry: Registry) -> dict[str, int]:
    """The ``batch_size`` of the submission and of every submission it builds on that has one."""
    subs = [sub, *(registry.get(name) for name in registry.dependencies(sub))]
    return {s.name: s.config.batch_size for s in subs if isinstance(getattr(s.config, "batch_size", None), int)}  # type: ignore[attr-defined]


def measure(
    sub: Submission,
    registry: Registry,
    *,
    pairs: int,
    queries: int,
    repeats: int,
    data_dir: Path | None,
    device: str = "cpu",
    trust_remote_code: bool = False,
    command: str,
    announce: Callable[[str], None] | None = None,
    ctx: MeasureContext | None = None,
) -> CostRecord:
    """Time ``sub`` on the workload (module docstring) and return its cost record. ``announce``
    hears one line when the workload is loaded and the timing starts. Pass one ``ctx`` to time
    several submissions in a process: a store they share (a first stage's index, a verifier
    encoder's document tokens) is then built once."""
    ctx = ctx if ctx is not None else MeasureContext(device=device, use_cache=False, trust_remote_code=trust_remote_code)
    scorer = build_submission_scorer(sub, ctx, registry)
    fingerprints = scorer.fingerprints()  # resolves the weights: a missing model stops here
    pair_wl = near_miss_pairs(pairs, data_dir)
    query_wl = None if scorer.is_control else collection_queries(queries, data_dir)
    if announce is not None:
        what = f"{len(pair_wl.a)} pairs"
        if query_wl is not None:
            what += f", its index of {query_wl.name} ({len(query_wl.corpus)} documents), {len(query_wl.queries)} queries"
        announce(f"timing {sub.name} ({sub.kind}): {what}, {repeats} repeats after a warm-up")
    load_start = load_average()
    pc = pair_cost(scorer, ctx, pair_wl, repeats)
    ic, qc = query_cost(scorer, ctx, query_wl, repeats) if query_wl is not None else (None, None)
    machine = Machine(
        cpu=cpu_model(),
        logical_cpus=os.cpu_count(),
        torch_threads=torch_threads(),
        device=device,
        load_average_start=load_start,
        load_average_end=load_average(),
    )
    return CostRecord(
        submission=sub.name,
        kind=sub.kind,
        submission_hash=sub.hash,
        batch_sizes=batch_sizes(sub, registry),
        fingerprints=fingerprints,
        repeats=repeats,
        pairs=pc,
        index=ic,
        queries=qc,
        machine=machine,
        **environment(),  # type: ignore[arg-type]
        date=now(),
        command=command,
    )
