"""Executors: where the (submission, suite, dataset) units of one `cbench run` are computed.

``local`` (the default) computes them one after the other in this process, as cbench always did;
it never imports Ray. ``ray`` makes each unit a Ray task (``harness/executors/ray.py``) and can
shard a large corpus's encoding over an actor pool (``harness/executors/sharded.py``). Either way
the process that runs ``cbench run`` (the driver) is the only writer of results files: it holds
the lock of every results file it fills, writes after every dataset and resumes the same way
(``harness.runner.SuiteRun``).
"""

from __future__ import annotations

from typing import Any

from harness.executors.base import EXECUTORS, RunRequest, SubmissionRun, check_options

__all__ = ["EXECUTORS", "RunRequest", "SubmissionRun", "check_options", "execute"]


def execute(request: RunRequest, executor: str = "local", **options: Any) -> list[SubmissionRun]:
    """Run ``request`` with the named executor; ``options`` go to the Ray executor
    (``address``, ``shards``, ``cpus_per_task``)."""
    if executor == "ray":
        from harness.executors.ray import run_ray

        return run_ray(request, **options)
    from harness.executors.local import run_local

    return run_local(request)
