"""Timing a submission's scorer on the fixed workload (``harness.costs.workload``).

Every timing follows a warm-up (the model loaded, first calls made) and is repeated; the figures
are medians, in wall-clock ms (what a caller waits) and in this process's CPU ms (what it costs;
less disturbed by other load on the machine: compare the two with the load averages). Nothing is
read from the embedding / score cache: the scorer runs in a ``MeasureContext``, whose caches live
in memory and are emptied before every timed call, except a first stage's index, which is built
once, timed apart, and kept (for every submission timed in the same process: `cbench cost` with
several ``--model`` builds all-MiniLM-L6-v2's Medline index once for all its rerankers, and each
of their files records that build's timing).

* pairs: ``score_pairs`` on the workload's near-miss pairs in one call; ms per pair.
* queries, a first stage (every kind with retrieval and no first stage): ``retrieve`` of all the
  workload's queries and of the first one alone, against the built index (embedding kinds: the
  documents' vectors, kept in the context; BM25 / TF-IDF: the index the scorer keeps,
  ``Scorer.corpus_index``); ms per query is the difference over (queries - 1), so what every call
  pays once whatever its queries (normalising the document matrix, ...) is left out. The first
  search over the corpus (``index``: it builds the index) is recorded apart.
* queries, a reranker (a kind with ``first_stage``): its first stage's ms per query as above, plus
  ``score_query_docs`` over the first stage's top ``rerank_depth`` for every query (what its
  ``retrieve`` scores), per query.
* controls: pairs only (they have no retrieval).
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from harness.cache import EmbeddingCache, namespace_id
from harness.costs.machine import cpu_model, load_average, torch_threads
from harness.costs.record import CostRecord, Machine, PairCost, QueryCost, Timing
from harness.costs.workload import INDEX_QUERY, PAIRS_RULE, TOP_K, WARMUP_DOCS, Pairs, Queries, collection_queries, digest, near_miss_pairs
from harness.provenance import environment, now
from harness.run_context import RunContext
from harness.scorers.base import Scorer
from harness.search import rank
from harness.submissions import Registry, Submission, build_submission_scorer


class _MemoryCache(EmbeddingCache):
    """An embedding cache that never touches the disk and remembers what was put in it."""

    def __init__(self, spec: dict):
        super().__init__(Path(), spec, enabled=False)
        self.stored: list[tuple[list[bytes], list[np.ndarray]]] = []

    def put_many(self, keys, rows) -> None:
        super().put_many(keys, rows)
        self.stored.append((list(keys), list(rows)))


@dataclass
class MeasureContext(RunContext):
    """A run context whose caches are in memory only (the disk cache is neither read nor written).
    ``pin`` keeps what they hold now (a first stage's index); ``forget`` empties them down to that;
    ``reset`` empties them and unpins."""

    _memory: dict[str, _MemoryCache] = field(default_factory=dict, repr=False)
    _pinned: dict[str, list[tuple[list[bytes], list[np.ndarray]]]] = field(default_factory=dict, repr=False)
    # first stage -> its index (pinned caches) and the timing of its build, kept across the
    # submissions timed in one process: rerankers over one first stage build its index once
    indexes: dict[str, tuple[dict, Clock]] = field(default_factory=dict, repr=False)

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


@dataclass(frozen=True)
class Clock:
    wall: float  # ms
    cpu: float  # ms of this process's CPU time (all its threads)


def timed(fn: Callable[[], object]) -> Clock:
    """Wall and CPU time of ``fn()``, after a garbage collection (so none runs inside)."""
    gc.collect()
    wall, cpu = time.perf_counter_ns(), time.process_time_ns()
    fn()
    return Clock((time.perf_counter_ns() - wall) / 1e6, (time.process_time_ns() - cpu) / 1e6)


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


@dataclass
class _Search:
    index: Clock
    all: list[Clock]
    one: list[Clock]
    per_query: Clock


def first_stage_key(first: Scorer) -> str:
    return json.dumps(first.config.model_dump(mode="json"), sort_keys=True)


def search_cost(first: Scorer, ctx: MeasureContext, wl: Queries, top_k: int, repeats: int) -> _Search:
    """``first.retrieve``: warm-up on a few documents, the index built (timed) and pinned, then
    per repeat all the queries and the first alone. An embedding index already built in this
    process for the same first stage (``ctx.indexes``) is reused, with the timing of its build."""
    queries, corpus = wl.queries, wl.corpus
    one = dict([next(iter(queries.items()))])
    ctx.reset()
    first.retrieve(queries, {d: corpus[d] for d in sorted(corpus)[:WARMUP_DOCS]}, top_k)  # warm-up
    ctx.reset()
    key = first_stage_key(first)
    if key in ctx.indexes:
        pinned, index = ctx.indexes[key]
        ctx._pinned = {k: list(v) for k, v in pinned.items()}
    else:
        index = timed(lambda: first.retrieve({"index": INDEX_QUERY}, corpus, top_k))
        ctx.pin()
        if any(ctx._pinned.values()):  # embedding kinds: the documents' vectors (lexical kinds keep theirs in the scorer)
            ctx.indexes[key] = ({k: list(v) for k, v in ctx._pinned.items()}, index)
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
    return _Search(index, all_, one_, marginal)


def query_cost(scorer: Scorer, ctx: MeasureContext, wl: Queries, repeats: int) -> QueryCost:
    reranker = is_reranker(scorer)
    first: Scorer = scorer.first_stage if reranker else scorer  # type: ignore[attr-defined]
    depth = int(scorer.config.rerank_depth) if reranker else None  # type: ignore[attr-defined]
    search = search_cost(first, ctx, wl, depth or TOP_K, repeats)
    common = dict(
        collection=wl.name,
        source=wl.source,
        revision=wl.revision,
        corpus_docs=len(wl.corpus),
        queries=len(wl.queries),
        sha256=digest(list(wl.queries.values())),
        first_stage=first.config.name,
        top_k=depth or TOP_K,
        index=timing([search.index]),
        search_ms_per_query=search.per_query.wall,
        search_cpu_ms_per_query=search.per_query.cpu,
        search_all=timing(search.all),
        search_one=timing(search.one),
    )
    if not reranker:
        ctx.reset()
        return QueryCost(ms_per_query=search.per_query.wall, cpu_ms_per_query=search.per_query.cpu, **common)
    ctx.forget()  # the index stays
    run = first.retrieve(wl.queries, wl.corpus, depth).run  # the candidates (not timed)
    qs: list[str] = []
    ds: list[str] = []
    first_n = 0
    for i, (qid, text) in enumerate(wl.queries.items()):
        for did in rank(run.get(qid, {}), depth):
            qs.append(text)
            ds.append(wl.corpus[did])
        if i == 0:
            first_n = len(qs)
    ctx.reset()
    scorer.score_query_docs(qs[: max(first_n, 1)], ds[: max(first_n, 1)])  # warm-up
    clocks = []
    for _ in range(repeats):
        ctx.reset()
        clocks.append(timed(lambda: scorer.score_query_docs(qs, ds)))
    ctx.reset()
    rerank = per(clocks, len(wl.queries))
    return QueryCost(
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
    several submissions in a process: a first stage's index is then built once."""
    ctx = ctx if ctx is not None else MeasureContext(device=device, use_cache=False, trust_remote_code=trust_remote_code)
    scorer = build_submission_scorer(sub, ctx, registry)
    fingerprints = scorer.fingerprints()  # resolves the weights: a missing model stops here
    pair_wl = near_miss_pairs(pairs, data_dir)
    query_wl = None if scorer.is_control else collection_queries(queries, data_dir)
    if announce is not None:
        what = f"{len(pair_wl.a)} pairs" + ("" if query_wl is None else f", {len(query_wl.queries)} {query_wl.name} queries")
        announce(f"timing {sub.name} ({sub.kind}): {what}, {repeats} repeats after a warm-up")
    load_start = load_average()
    pc = pair_cost(scorer, ctx, pair_wl, repeats)
    qc = query_cost(scorer, ctx, query_wl, repeats) if query_wl is not None else None
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
        queries=qc,
        machine=machine,
        **environment(),  # type: ignore[arg-type]
        date=now(),
        command=command,
    )
