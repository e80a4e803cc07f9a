"""The local executor: every unit in this process, one after the other (the default; no Ray)."""

from __future__ import annotations

import time

from harness.executors.base import RunRequest, SubmissionRun
from harness.run_context import RunContext
from harness.runner import run_suite
from harness.submissions import build_submission_scorer
from harness.ui import Progress


def run_local(request: RunRequest) -> list[SubmissionRun]:
    """Submission by submission, suite by suite, dataset by dataset. One run context for the whole
    command, so a first stage or encoder shared by several submissions is built once."""
    out: list[SubmissionRun] = []
    with Progress(enabled=request.progress) as progress:
        ctx = RunContext(device=request.device, use_cache=request.use_cache, trust_remote_code=request.trust_remote_code, progress=progress)
        for sub in request.submissions:
            scorer = build_submission_scorer(sub, ctx, request.registry)
            deps = request.registry.dependencies(sub)
            done = SubmissionRun(sub)
            out.append(done)
            before = ctx.counters.get("texts_encoded", 0)
            for s in request.suites:
                t0 = time.perf_counter()
                outcome = run_suite(sub, scorer, s, ctx, request.results_dir, request.opts, overwrite=request.overwrite, dependencies=deps)
                done.outcomes.append((outcome, time.perf_counter() - t0))
            done.texts_encoded = ctx.counters.get("texts_encoded", 0) - before
    return out
