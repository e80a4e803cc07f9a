"""Fitting a fused reranker on development queries (``cbench fuse``).

1. **Development queries** (``dev_queries``): each dataset of the development suite (a BEIR suite,
   e.g. ``offline-ir-dev``: SciFact ``train``, NFCorpus ``dev``) is compared with every evaluation
   split of the same folder that a shipped retrieval suite uses (role other than ``dev``). A query
   id in both, or a development split that an evaluation suite scores, stops the command (one line,
   exit 2): weights and thresholds are never set on test queries. A development query whose TEXT
   equals a test query's (same question under another id) is left out and counted.
2. **Runs**: the verifier submission (a reranker over the first stage) runs on the development
   suite through the ordinary runner (results, per-query scores and the kept runs in
   ``--results-dir``; a rerun reuses them). Its kept runs hold both parts: the first stage's top
   ``rerank_depth`` and the verifier's score of each.
3. **Constants** (``fit``): each part's mean and standard deviation over every (development query,
   candidate) pair are its global affine map z. For each weight w of the grid the fused run
   z1(s1) + w * z2(s2) is made and evaluated with ranx (``fuse`` with ``wsum`` and no per-query
   normalisation; ``evaluate`` nDCG@10), per dataset, then averaged over the datasets (the suite's
   main score). Rule: the largest w whose development nDCG@10 is at most ``budget`` below the first
   stage's own.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from harness.data.retrieval import QueryRecord, read_jsonl, read_qrels_tsv
from harness.errors import CBenchError, DataUnavailable
from harness.run_context import RunContext
from harness.runner import run_suite
from harness.runs import read_kept_runs
from harness.scorers.fusion import Affine, DevPoint
from harness.submissions import Registry, Submission, build_submission_scorer
from harness.suites.base import EvalOptions, Suite
from harness.suites.registry import load_suite_file, suite_files
from harness.suites.retrieval import BeirSuite
from harness.ui import Progress

Run = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]

DEFAULT_GRID: tuple[float, ...] = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 5.0, 10.0)
DEFAULT_BUDGET = 0.01
DEFAULT_DEV_SUITE = "offline-ir-dev"
METRIC = "ndcg@10"
RULE = (
    "the largest weight of the grid whose development nDCG@10 (mean over the development datasets) is at most `budget` below "
    "the first stage's; z = (s - mean) / scale per part, mean and scale (standard deviation) over every development (query, candidate) pair"
)


@dataclass
class DevQueries:
    """The development queries a fit may use, per dataset, and what they were checked against."""

    suite: BeirSuite
    qrels: dict[str, Qrels]  # dataset -> qrels of the kept queries
    excluded: dict[str, int] = field(default_factory=dict)  # dataset -> queries left out (text of a test query)
    checked: list[str] = field(default_factory=list)  # "suite/dataset (split)" compared with
    not_checked: list[str] = field(default_factory=list)  # evaluation suites whose queries could not be compared, and why

    @property
    def ids_sha256(self) -> str:
        lines = sorted(f"{ds}/{q}" for ds, qrels in self.qrels.items() for q in qrels)
        return "sha256:" + hashlib.sha256("\n".join(lines).encode()).hexdigest()

    @property
    def counts(self) -> dict[str, int]:
        return {ds: len(q) for ds, q in self.qrels.items()}


def _queries(folder: Path, split: str) -> tuple[Qrels, dict[str, str]]:
    """A BEIR folder's qrels of ``split`` and the texts of its queries (no corpus read)."""
    qrels: Qrels = {}
    for r in read_qrels_tsv(folder / "qrels" / f"{split}.tsv"):
        qrels.setdefault(r.query_id, {})[r.corpus_id] = r.score
    texts = {r.id: r.text for r in read_jsonl(folder / "queries.jsonl", QueryRecord) if r.id in qrels}  # type: ignore[attr-defined]
    return qrels, texts


def evaluation_suites(data_dir: Path | None) -> list[Suite]:
    """Every shipped retrieval suite that is not development data (role other than ``dev``)."""
    out = []
    for path in suite_files().values():
        try:
            suite = load_suite_file(path, data_dir)
        except CBenchError:
            continue
        if suite.task == "retrieval" and suite.facts().role != "dev":
            out.append(suite)
    return sorted(out, key=lambda s: s.name)


def dev_queries(dev: Suite, data_dir: Path | None, against: list[Suite] | None = None) -> DevQueries:
    """The development queries of ``dev`` (module docstring, step 1), checked against ``against``
    (default: ``evaluation_suites``). One error line, naming both files, when a development query
    id is also an evaluation query, or a development split is scored by an evaluation suite."""
    if not isinstance(dev, BeirSuite):
        raise CBenchError(f"'{dev.name}' is a {dev.type} suite; development queries come from a BEIR suite (type beir)", source="--dev-suite")
    if dev.facts().role != "dev":
        raise CBenchError(
            f"'{dev.name}' is an evaluation suite (leaderboard role {dev.facts().role}); fit on a suite with role dev (e.g. {DEFAULT_DEV_SUITE})",
            source=dev.path or dev.name,
            field="leaderboard.role",
        )
    against = evaluation_suites(data_dir) if against is None else against
    out = DevQueries(dev, {})
    for ds in dev.config.datasets:
        folder = dev.folder(ds)  # DataUnavailable: one line, exit 3
        qrels, texts = _queries(folder, ds.split)
        dev_file = folder / "qrels" / f"{ds.split}.tsv"
        test_texts: set[str] = set()
        for suite in against:
            if not isinstance(suite, BeirSuite):
                out.not_checked.append(f"{suite.name} (type {suite.type}: its queries are not read here)")
                continue
            for e in suite.config.datasets:
                try:
                    e_folder = suite.folder(e)
                except DataUnavailable:
                    out.not_checked.append(f"{suite.name}/{e.name} (its data is not here)")
                    continue
                if e_folder.resolve() != folder.resolve():
                    continue
                where = f"{suite.name}/{e.name} ({e.split})"
                if e.split == ds.split:
                    raise CBenchError(
                        f"development split '{ds.split}' of {ds.name} is scored by the evaluation suite {where}; weights are never set on evaluation queries",
                        source=dev_file,
                    )
                e_qrels, e_texts = _queries(e_folder, e.split)
                shared = sorted(set(qrels) & set(e_qrels))
                if shared:
                    raise CBenchError(
                        f"{len(shared)} development quer{'y' if len(shared) == 1 else 'ies'} of {ds.name} "
                        f"(e.g. '{shared[0]}') also in {e_folder / 'qrels' / f'{e.split}.tsv'}, scored by {where}; "
                        "weights are never set on test queries",
                        source=dev_file,
                    )
                test_texts |= set(e_texts.values())
                out.checked.append(where)
        dupes = {q for q, t in texts.items() if t in test_texts}
        if dupes:
            out.excluded[ds.name] = len(dupes)
        out.qrels[ds.name] = {q: r for q, r in qrels.items() if q not in dupes}
        if not out.qrels[ds.name]:
            raise CBenchError(f"no development query of {ds.name} left to fit on", source=dev_file)
    out.not_checked = sorted(set(out.not_checked))
    return out


# -- fitting ---------------------------------------------------------------------------------


@dataclass
class Fit:
    first_stage_norm: Affine
    verifier_norm: Affine
    first_stage_dev: DevPoint
    verifier_dev: DevPoint
    points: list[DevPoint]
    chosen: float
    budget: float
    grid: list[float]

    @property
    def chosen_point(self) -> DevPoint:
        return next(p for p in self.points if p.weight == self.chosen)


def affine(values: np.ndarray, what: str) -> Affine:
    values = np.asarray(values, dtype=np.float64)
    scale = float(values.std())
    if not values.size or not np.isfinite(scale) or scale <= 0:
        raise CBenchError(f"the {what}'s development scores have no spread (standard deviation {scale:g}); they cannot be normalised", source="cbench fuse")
    return Affine(mean=float(values.mean()), scale=scale, n=int(values.size))


def _scores(runs: Mapping[str, Run], qrels: Mapping[str, Qrels]) -> np.ndarray:
    return np.array([s for ds, run in runs.items() for q, docs in run.items() if q in qrels[ds] for s in docs.values()], dtype=np.float64)


def _mapped(run: Run, z: Affine, keep: Qrels) -> Run:
    return {q: {d: (s - z.mean) / z.scale for d, s in docs.items()} for q, docs in run.items() if q in keep}


def fit(first: Mapping[str, Run], second: Mapping[str, Run], qrels: Mapping[str, Qrels], grid: list[float], budget: float) -> Fit:
    """The constants and the weight (module docstring, step 3). ``first`` / ``second``: dataset ->
    the first stage's run and the verifier's scores of the same candidates; ``qrels``: dataset ->
    the development queries to use."""
    import ranx

    for ds in qrels:
        for q in qrels[ds]:
            if set(first[ds].get(q, {})) != set(second[ds].get(q, {})):
                raise CBenchError(f"dataset {ds}, query '{q}': the verifier's run does not score the first stage's candidates", source="cbench fuse")
    z1 = affine(_scores(first, qrels), "first stage")
    z2 = affine(_scores(second, qrels), "verifier")

    def ndcg(runs: dict[str, ranx.Run]) -> dict[str, float]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numba's type-safety notes on ranx's kernels
            return {ds: float(ranx.evaluate(ranx.Qrels(qrels[ds]), runs[ds], METRIC, make_comparable=True)) for ds in qrels}

    def point(weight: float | None, per: dict[str, float]) -> DevPoint:
        return DevPoint.model_validate({"weight": weight, METRIC: float(np.mean(list(per.values()))), "datasets": per})

    raw1 = {ds: ranx.Run({q: d for q, d in first[ds].items() if q in qrels[ds]}) for ds in qrels}
    raw2 = {ds: ranx.Run({q: d for q, d in second[ds].items() if q in qrels[ds]}) for ds in qrels}
    m1 = {ds: ranx.Run(_mapped(first[ds], z1, qrels[ds])) for ds in qrels}
    m2 = {ds: ranx.Run(_mapped(second[ds], z2, qrels[ds])) for ds in qrels}
    first_point = point(0.0, ndcg(raw1))
    verifier_point = point(None, ndcg(raw2))
    points: list[DevPoint] = []
    for w in grid:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fused = {ds: ranx.fuse([m1[ds], m2[ds]], norm=None, method="wsum", params={"weights": [1.0, float(w)]}) for ds in qrels}
        points.append(point(float(w), ndcg(fused)))
    floor = first_point.ndcg_at_10 - budget
    chosen = max(p.weight for p in points if p.weight is not None and p.ndcg_at_10 >= floor - 1e-12)
    return Fit(z1, z2, first_point, verifier_point, points, chosen, budget, list(grid))


# -- the development runs ---------------------------------------------------------------------


def dev_runs(sub: Submission, registry: Registry, dev: Suite, results_dir: Path, *, device: str, progress: bool) -> tuple[dict[str, Run], dict[str, Run]]:
    """Run ``sub`` (a reranker) on ``dev`` through the runner (reusing finished datasets in
    ``results_dir``), then read its kept runs: dataset -> (first stage's run, its own scores of the
    same candidates). Every candidate is kept: top-k = its rerank depth."""
    depth = int(sub.config.rerank_depth)  # type: ignore[attr-defined]
    with Progress(enabled=progress) as bar:
        ctx = RunContext(device=device, progress=bar)
        scorer = build_submission_scorer(sub, ctx, registry)
        outcome = run_suite(sub, scorer, dev, ctx, results_dir, EvalOptions(top_k=depth), dependencies=registry.dependencies(sub))
    if outcome.skipped:
        name, why = next(iter(outcome.skipped.items()))
        raise DataUnavailable(f"development dataset {name} could not be scored: {why}", source=dev.path or dev.name)
    results = outcome.results
    first: dict[str, Run] = {}
    second: dict[str, Run] = {}
    for ds in results.datasets:
        kept = read_kept_runs(outcome.path, results.details, ds)
        if kept.first_stage is None:
            raise CBenchError(f"keeps no first-stage run for {ds}: '{sub.name}' is not a reranker", source=outcome.path)
        first[ds], second[ds] = kept.first_stage, kept.run
    return first, second
