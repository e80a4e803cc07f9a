"""Test helpers: submission YAMLs and complete results files (metadata filled in) in tmp_path."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from harness.results import Metadata, Results, results_path, write_results
from harness.sidecar import Comparison, ItemScores, SidecarHeader, sidecar_path, write_sidecar
from harness.submissions import load_submission

NEARMISS_CATEGORIES = ["negation", "role_swap", "attribute_binding", "spatial", "quantity", "comparative", "temporal_order"]


def write_submission(folder: Path, name: str, *, parameters: int | None = 1000, description: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    lines = [f"name: {name}", "kind: encoder", f"model: org/{name}", "license: apache-2.0", "url: https://example.org/model"]
    if parameters is not None:
        lines.append(f"parameters: {parameters}")
    if description:
        lines.append(f"description: {description}")
    path.write_text("\n".join(lines) + "\n")
    return path


def submission_hash(folder: Path, name: str) -> str:
    return load_submission(folder / f"{name}.yaml").hash


def metadata(submission: str, datasets: list[str], *, submission_hash: str = "0" * 16, kind: str = "encoder", limit_queries: int | None = None) -> Metadata:
    return Metadata(
        cbench_version="0.1.0",
        git_commit=None,
        python="3.11.0",
        platform="test",
        packages={},
        submission_hash=submission_hash,
        submission_file=None,
        submission_config={
            "name": submission, "kind": kind, "model": f"org/{submission}", "parameters": 1000, "license": "apache-2.0",
            "max_seq_length": 256, "similarity": "cosine",
        },
        scorer={"model": f"org/{submission}", "model_revision": "abc123", "similarity": "cosine", "max_seq_length": 256, "top_k": 100},
        suite_hash="1" * 16,
        suite_file=None,
        dataset_revisions={d: hashlib.sha1(d.encode()).hexdigest() for d in datasets},  # a commit-shaped revision
        dataset_sources={d: "test" for d in datasets},
        device="cpu",
        torch_threads=1,
        timings={d: {"load": 0.5, "retrieve": 1.0} for d in datasets},
        counters={},
        limit_queries=limit_queries,
        date="2025-01-01T00:00:00+00:00",
        command="cbench run",
    )


def retrieval_results(
    submission: str, suite: str, scores: dict[str, float], *, skipped: dict[str, str] | None = None, complete: bool | None = None, **meta
) -> Results:
    datasets = {d: {"ndcg@10": s, "mrr@10": s + 0.05, "recall@100": min(1.0, s + 0.3), "map@100": s - 0.05} for d, s in scores.items()}
    skipped = skipped or {}
    done = complete if complete is not None else not skipped
    agg = {k: sum(m[k] for m in datasets.values()) / len(datasets) for k in next(iter(datasets.values()))} if datasets else {}
    return Results(
        submission=submission,
        suite=suite,
        task="retrieval",
        main_metric="ndcg@10",
        main_score=agg.get("ndcg@10") if done else None,
        complete=done,
        datasets=datasets,
        aggregate=agg,
        skipped=skipped,
        metadata=metadata(submission, list(scores), **meta),
    )


def nearmiss_results(
    submission: str, suite: str, accuracy: float, *, categories: list[str] | None = None, skipped: dict[str, str] | None = None, **meta
) -> Results:
    main = "tot_accuracy" if suite == "sugarcrepe-pp" else "triplet_accuracy"
    cats = categories if categories is not None else NEARMISS_CATEGORIES
    datasets = {}
    for i, c in enumerate(cats):
        acc = accuracy + (i - len(cats) // 2) * 0.01
        m = {"triplet_accuracy": acc, "auroc": acc, "false_accept@95": 1 - acc, "mean_sim_positive": 0.8, "mean_sim_negative": 0.6, "sim_gap": 0.2}
        if main == "tot_accuracy":
            m["tot_accuracy"] = acc - 0.1
        datasets[c] = m
    skipped = skipped or {}
    agg = {k: sum(m[k] for m in datasets.values()) / len(datasets) for k in next(iter(datasets.values()))} if datasets else {}
    return Results(
        submission=submission,
        suite=suite,
        task="nearmiss",
        main_metric=main,
        main_score=None if skipped else agg.get(main),
        complete=not skipped,
        datasets=datasets,
        aggregate=agg,
        skipped=skipped,
        metadata=metadata(submission, cats, **meta),
    )


def save(results_dir: Path, r: Results) -> Path:
    path = results_path(results_dir, r.submission, r.suite)
    write_results(path, r)
    return path


# -- per-item scores (sidecars) ----------------------------------------------------------------


def query_items(dataset: str, values: list[float]) -> list[ItemScores]:
    """Retrieval: one query per value (ids q0, q1, ...), nDCG@10 = the value."""
    return [ItemScores(dataset=dataset, id=f"q{i}", metrics={"ndcg@10": v}) for i, v in enumerate(values)]


def triplet_items(dataset: str, ids: list[str], pos: list[float], neg: list[float]) -> list[ItemScores]:
    """Near-miss triplets: s(anchor, positive) and s(anchor, negative) per item."""
    return [
        ItemScores(
            dataset=dataset,
            id=i,
            metrics={"triplet_accuracy": float(p > n)},
            comparisons=[Comparison(name="anchor_negative", positive=p, negative=n, correct=p > n)],
        )
        for i, p, n in zip(ids, pos, neg, strict=True)
    ]


FIVE_TEXT = (("close_close", 0, 2), ("close_far", 0, 3), ("far_close", 1, 2), ("far_far", 1, 3))


def five_text_items(dataset: str, ids: list[str], scores: list[tuple[float, float, float, float]]) -> list[ItemScores]:
    """Five-text items: s(anchor, x) for x = pos_close, pos_far, neg_close, neg_far per item."""
    out = []
    for i, s in zip(ids, scores, strict=True):
        comps = [Comparison(name=name, positive=s[p], negative=s[n], correct=s[p] > s[n]) for name, p, n in FIVE_TEXT]
        out.append(ItemScores(dataset=dataset, id=i, metrics={"triplet_accuracy": sum(c.correct for c in comps) / 4}, comparisons=comps))
    return out


def with_items(r: Results, items: list[ItemScores]) -> Results:
    """``r`` with each dataset's main metric, the aggregate and the main score the means over ``items``."""
    by: dict[str, list[float]] = {}
    for it in items:
        by.setdefault(it.dataset, []).append(it.metrics[r.main_metric])
    datasets = {ds: {**r.datasets.get(ds, {}), r.main_metric: sum(v) / len(v)} for ds, v in by.items()}
    main = sum(m[r.main_metric] for m in datasets.values()) / len(datasets)
    revisions = {ds: r.metadata.dataset_revisions.get(ds, "test") for ds in datasets}
    meta = r.metadata.model_copy(update={"dataset_revisions": revisions})
    return r.model_copy(update={"datasets": datasets, "aggregate": {**r.aggregate, r.main_metric: main}, "main_score": main, "metadata": meta})


def save_scored(results_dir: Path, r: Results, items: list[ItemScores]) -> Path:
    """The results file (means from ``items``) and its per-item scores beside it."""
    r = with_items(r, items)
    path = save(results_dir, r)
    counts: dict[str, int] = {}
    for it in items:
        counts[it.dataset] = counts.get(it.dataset, 0) + 1
    write_sidecar(sidecar_path(path), SidecarHeader.from_results(r, counts), items)
    return path


def board_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A submissions dir with three encoders and an empty results dir.

    The project's own submissions/ folder and $CBENCH_SUBMISSIONS are switched off, so the tests
    see only these three (and names like "bm25" stay unregistered here).
    """
    monkeypatch.delenv("CBENCH_SUBMISSIONS", raising=False)
    monkeypatch.setattr("harness.paths.SUBMISSIONS_DIR", tmp_path / "no-project-submissions")
    subs, results = tmp_path / "subs", tmp_path / "results"
    for name in ("alpha", "beta", "gamma"):
        write_submission(subs, name, description=f"test model {name}")
    results.mkdir()
    return subs, results
