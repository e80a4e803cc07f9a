"""The Ray executor: every (submission, suite, dataset) unit is a Ray task.

What runs where:

- the driver (the process running ``cbench run``) resolves submissions and suites, takes the lock of
  every results file it will fill (in path order, so two runs never wait on each other in a
  circle), reads the old files and decides what to compute (``SuiteRun``: the resume rule is the
  local one), submits one task per missing dataset and, as each task returns, writes both files
  atomically. It is the only writer of results files.
- a worker task loads the dataset, builds the submission's scorer (kept for the next task of the
  same submission in that worker process), scores, and returns the ``DatasetRecord`` (metrics, per
  item scores, timings, counters, data revision) with the scorer's info. It encodes through the
  embedding cache of its own node (``$CBENCH_CACHE`` there, default ``~/.cache/cbench``); nodes
  share no cache.

Resources: each task declares ``num_cpus`` (``--cpus-per-task``, default 1) and, with
``--device cuda``, one GPU (Ray then makes that GPU the task's ``cuda:0``). A retrieval unit of an
embedding kind that is sharded (``--shards N``) is a coordinator that declares no CPU (its actors
declare them; see ``harness/executors/sharded.py``).

Every node needs the same cbench installation and the data and model folders at the same paths
as the driver (a shared file system, or copies).
"""

from __future__ import annotations

import logging
import os
import socket
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import ray

from harness.errors import CBenchError, DataUnavailable
from harness.executors.base import RunRequest, SubmissionRun
from harness.executors.worker import WorkerSpec, worker_scorer
from harness.results import results_path
from harness.run_context import RunContext
from harness.runner import SuiteOutcome, SuiteRun, compute_dataset
from harness.scorers.base import EmbeddingScorer, Scorer
from harness.submissions import build_submission_scorer
from harness.suites.base import EvalOptions, Suite
from harness.ui import err_console

log = logging.getLogger("cbench")


def shardable(scorer: Scorer, suite: Suite) -> bool:
    """Sharded encoding applies to retrieval with one vector per text (dense and static kinds)."""
    return suite.task == "retrieval" and isinstance(scorer, EmbeddingScorer)


def compute_unit(spec: WorkerSpec, suite: Suite, name: str, opts: EvalOptions, shards: int | None, cpus: float, gpus: float) -> tuple:
    """One unit, on a worker: ("done", record, scorer info, host) | ("skipped", message) |
    ("error", CBenchError). Other exceptions propagate (a RayTaskError on the driver)."""
    try:
        ctx, scorer = worker_scorer(spec)
        used: Any = scorer
        if shards != 1 and shardable(scorer, suite):
            from harness.executors.sharded import ShardedRetrieval

            used = ShardedRetrieval(scorer, spec, shards, cpus, gpus)
        record = compute_dataset(spec.submission.name, used, suite, name, ctx, opts)
        return ("done", record, scorer.info(), socket.gethostname())
    except DataUnavailable as e:
        return ("skipped", e.message)
    except CBenchError as e:
        return ("error", e)


_compute_unit = ray.remote(max_retries=2)(compute_unit)  # a worker process that dies is retried (the driver writes only what returns)


def _init(address: str | None, quiet: bool) -> bool:
    """Connect to ``address`` (``auto``: the cluster ``ray start`` made here) or start a local
    cluster; True when this call started or connected it (and should shut it down)."""
    if ray.is_initialized():
        return False
    try:
        ray.init(address=address, logging_level=logging.ERROR if quiet else logging.WARNING, log_to_driver=not quiet, include_dashboard=False)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise CBenchError(f"cannot connect to a Ray cluster: {(str(e).splitlines() or [type(e).__name__])[0]}", source="--ray-address") from None
    return True


def run_ray(request: RunRequest, *, address: str | None = None, shards: int | None = None, cpus_per_task: float = 1.0) -> list[SubmissionRun]:
    if shards is not None and shards < 1:
        raise CBenchError(f"must be at least 1, got {shards}", source="--shards")
    started = _init(address, request.quiet)
    try:
        return _run(request, shards, cpus_per_task)
    finally:
        if started:
            ray.shutdown()


def _run(request: RunRequest, shards: int | None, cpus: float) -> list[SubmissionRun]:
    t_start = time.perf_counter()
    gpus = 1.0 if request.device.startswith("cuda") else 0.0
    have = ray.cluster_resources()
    if gpus and have.get("GPU", 0) < gpus:  # a task asking for a GPU the cluster lacks would wait forever
        raise CBenchError(f"the Ray cluster has no GPU (it has {have.get('CPU', 0):g} CPUs); use --device cpu or add GPU nodes", source="--device")
    if cpus > have.get("CPU", 0):
        raise CBenchError(f"{cpus:g} CPUs per task, but the Ray cluster has {have.get('CPU', 0):g} in all", source="--cpus-per-task")
    ctx = RunContext(device=request.device, use_cache=request.use_cache, trust_remote_code=request.trust_remote_code)
    subs, suites = request.submissions, request.suites
    scorers, deps = [], []
    for sub in subs:  # built here for fingerprints and errors before any task; models load lazily, on workers
        scorers.append(build_submission_scorer(sub, ctx, request.registry))
        deps.append(request.registry.dependencies(sub))
    if shards is not None and shards > 1:
        for sub, scorer in zip(subs, scorers, strict=True):
            if not isinstance(scorer, EmbeddingScorer):
                log.warning("--shards: %s (kind %s) is not one vector per text; its datasets run unsharded", sub.name, sub.kind)
    cwd = os.getcwd()
    dirs = tuple(Path(d).expanduser().resolve() for d in request.registry.dirs)
    out = [SubmissionRun(sub) for sub in subs]
    with ExitStack() as stack:
        runs: dict[tuple[int, int], SuiteRun] = {}
        order = sorted(
            ((i, j) for i in range(len(subs)) for j in range(len(suites))),
            key=lambda ij: str(results_path(request.results_dir, subs[ij[0]].name, suites[ij[1]].name)),
        )
        for i, j in order:  # locks in path order
            runs[(i, j)] = stack.enter_context(
                SuiteRun(subs[i], scorers[i], suites[j], ctx, request.results_dir, request.opts, overwrite=request.overwrite, dependencies=deps[i])
            )
        spec_refs = [ray.put(WorkerSpec(sub, dirs, request.device, request.use_cache, request.trust_remote_code, cwd)) for sub in subs]
        suite_refs = [ray.put(s) for s in suites]
        pending: dict[Any, tuple[int, int, str]] = {}
        for (i, j), run in sorted(runs.items()):
            coordinator = shards is not None and shards > 1 and shardable(scorers[i], suites[j])
            for name in run.pending:
                ref = _compute_unit.options(
                    num_cpus=0 if coordinator else cpus, num_gpus=gpus, name=f"cbench {subs[i].name}/{suites[j].name}/{name}"
                ).remote(spec_refs[i], suite_refs[j], name, request.opts, shards, cpus, gpus)
                pending[ref] = (i, j, name)
        remaining = {key: len(run.pending) for key, run in runs.items()}
        outcomes: dict[tuple[int, int], tuple[SuiteOutcome, float]] = {}
        for key, run in runs.items():
            if remaining[key] == 0:
                outcomes[key] = (run.finish(), time.perf_counter() - t_start)
        total, done = len(pending), 0
        try:
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                i, j, name = pending.pop(ready[0])
                where = f"{subs[i].name}/{suites[j].name}/{name}"
                try:
                    res = ray.get(ready[0])
                except ray.exceptions.RayError as e:
                    raise CBenchError(f"the Ray task failed: {(str(e).strip().splitlines() or [type(e).__name__])[-1]}", source=where) from None
                if res[0] == "error":
                    raise res[1]
                run = runs[(i, j)]
                if res[0] == "skipped":
                    run.skip(name, res[1])
                else:
                    _, record, info, host = res
                    run.record(name, record, info)
                    out[i].texts_encoded += (record.counters or {}).get("texts_encoded", 0)
                done += 1
                if not request.quiet:
                    err_console.print(f"[{done}/{total}] {where}: {res[0]}" + (f" on {res[3]}" if res[0] == "done" else ""), highlight=False, markup=False)
                remaining[(i, j)] -= 1
                if remaining[(i, j)] == 0:
                    outcomes[(i, j)] = (run.finish(), time.perf_counter() - t_start)
        finally:
            for ref in pending:  # an error: what is still running is not wanted (what finished is written)
                ray.cancel(ref)
    for (i, j) in sorted(outcomes):
        out[i].outcomes.append(outcomes[(i, j)])
    return out
