"""`--recipe paper-ab`: the reference experiment's Model A vs Model B (arXiv 2604.16351, Experiment 1;
``train.py`` and ``run_experiments.sh`` of github.com/radoslavralev/limitations-text-retrieval), on cbench data.

- Model A: meaning-preserving pairs only, from the near-miss suite's TRAIN split: (anchor,
  pos_close) and (anchor, pos_far) for five-text items ((anchor, positive) for triplets), with
  in-batch negatives. ``--train FILE`` replaces them (e.g. the reference's NQ triplets).
- Model B: the same data plus structural negatives as identity triplets (anchor, anchor,
  neg_close) and (anchor, anchor, neg_far) from the same TRAIN split.
Both arms: identical settings and step counts, for every seed; last-step weights. The test split
and evaluation-only suites are never read for training (see harness.finetune.data).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.finetune.data import TrainFile, identity_rows, meaning_pairs, suite_train_records
from harness.finetune.train import BaseModel, Settings, finetune

ARMS = {"a": "model-a-baseline", "b": "model-b-structured"}


def _derived(files: list[TrainFile], rows: list, note: str) -> TrainFile:
    digest = files[0].sha256 if len(files) == 1 else hashlib.sha256("".join(f.sha256 for f in files).encode()).hexdigest()
    return TrainFile(", ".join(f.path for f in files), digest, rows, "suite-train", note=note)


def paper_ab_data(data_suite: str, train_file: TrainFile | None) -> tuple[list[TrainFile], list[TrainFile]]:
    """(Model A's data, Model B's data)."""
    records, files = suite_train_records(data_suite)
    structural = _derived(files, identity_rows(records), f"suite {data_suite} train split: identity triplets (anchor, anchor, near-miss)")
    if train_file is not None:
        a = [train_file]
    else:
        from harness.data.nearmiss import NearMissItem

        what = (
            "pairs (anchor, pos_close), (anchor, pos_far)"
            if all(isinstance(r, NearMissItem) for r in records)
            else "pairs (anchor, pos_close|pos_far|positive)"
        )
        a = [_derived(files, meaning_pairs(records), f"suite {data_suite} train split: {what}")]
    return a, [*a, structural]


def run_paper_ab(
    base: BaseModel,
    out: Path,
    settings: Settings,
    seeds: list[int],
    *,
    data_suite: str = "nearmiss",
    train_file: TrainFile | None = None,
    make_evaluator: Any = None,
    prefix: str | None = None,
    overwrite: bool = False,
    quiet: bool = False,
    on_done: Any = None,
    keep_checkpoints: bool = False,
    arms: list[str] | None = None,
) -> dict:
    """Train A and B (or only ``arms``) for every seed into ``out/model-a-baseline/seed_S`` and
    ``out/model-b-structured/seed_S``; finished runs are kept (resumable as a whole). The summary
    ``out/paper-ab.json`` keeps the runs of other processes (one per arm, in parallel)."""

    data_a, data_b = paper_ab_data(data_suite, train_file)
    prefix = prefix or f"ft-{base.submission}"
    summary: dict = {"recipe": "paper-ab", "base": base.provenance(), "seeds": seeds, "steps": settings.steps, "data_suite": data_suite, "runs": {}}
    arms = arms or ["a", "b"]
    for seed in seeds:
        for arm, data in (("a", data_a), ("b", data_b)):
            if arm not in arms:
                continue
            run_dir = out / ARMS[arm] / f"seed_{seed}"
            name = f"{prefix}-{arm}-s{seed}"
            sub = run_dir / f"{name}.yaml"
            key = f"{ARMS[arm]}/seed_{seed}"
            if sub.exists() and not overwrite:
                import yaml

                summary["runs"][key] = {"submission": str(sub), "status": "done before", **(yaml.safe_load(sub.read_text()).get("provenance") or {})}
                continue
            t0 = time.perf_counter()
            prov = finetune(
                base,
                data,
                run_dir,
                replace(settings, seed=seed),
                name=name,
                evaluator=make_evaluator() if make_evaluator else None,
                overwrite=overwrite,
                quiet=quiet,
                extra_provenance={"recipe": "paper-ab", "arm": ARMS[arm]},
                keep_checkpoints=keep_checkpoints,
            )
            summary["runs"][key] = {"submission": str(sub), "status": "trained", "wall_seconds": round(time.perf_counter() - t0, 1), **prov}
            if on_done:
                on_done(key, sub, prov)
            base.scorer._model = None  # the next run starts again from the base weights  # noqa: SLF001
            _write_summary(out, summary)
    _write_summary(out, summary)
    return summary


def _write_summary(out: Path, summary: dict) -> None:
    """Write ``out/paper-ab.json`` with this process's runs over those another one wrote there
    (same recipe settings; an unreadable or foreign file is replaced)."""
    from harness.atomic import atomic_write_text

    merged = summary
    path = out / "paper-ab.json"
    try:
        old = json.loads(path.read_text())
        same = all(old.get(k) == summary.get(k) for k in ("recipe", "base", "steps", "data_suite"))
    except (OSError, ValueError):
        old, same = {}, False
    if same:
        merged = {**summary, "seeds": sorted(set(old.get("seeds", [])) | set(summary["seeds"])), "runs": {**old.get("runs", {}), **summary["runs"]}}
    atomic_write_text(path, json.dumps(merged, indent=2) + "\n")
