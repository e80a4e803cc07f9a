"""A fused reranker's curve over its weight grid, on TEST data, from what the parts' results keep
(``cbench fusion-curves``): drawn on the page, never used to choose anything (the weight was
chosen on development queries by ``cbench fuse``).

For each weight w of the fused submission's grid (its ``fit.grid``; 0 = the first stage's ranking),
and for the verifier alone:

- retrieval (the retrieval axis suite, e.g. offline-ir): per dataset, the verifier's kept runs
  (its first stage's top ``rerank_depth`` and its own score of each candidate) are fused with the
  submission's normalisations and w, and evaluated against the dataset's qrels (pytrec_eval, as
  every retrieval result is); main score = the mean over the datasets;
- composition (every near-miss suite both parts have complete per-item scores for): each
  comparison of an item (s(anchor, positive) vs s(anchor, negative), ...) is fused from the two
  parts' scores of the same texts and decided again (strict >); the item's value of the suite's
  main metric follows from its comparisons (triplet_accuracy of a five-text item: the share of its
  four; of a triplet: anchor_negative; tot_accuracy, paired_accuracy: all right), the dataset's
  value is the mean over its items and the main score the mean over datasets; AUROC suites (PAWS)
  from the fused pair scores.

Checks, recorded in the file: the w = 0 point reproduces the first stage's recorded main score and
the verifier-alone point the verifier's, suite by suite (within 1e-9); a suite where either does
not is left out with the reason. Nothing is rescored.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from harness.errors import CBenchError, DataUnavailable
from harness.metrics.retrieval import MAIN_METRIC, evaluate
from harness.results import Results, read_results, results_path
from harness.runs import read_kept_runs
from harness.scorers.fusion import FusionConfig, fuse_runs
from harness.sidecar import ItemScores, read_sidecar, sidecar_path
from harness.suites.base import Suite

CURVES_SCHEMA_VERSION = 1
TOLERANCE = 1e-9
CELLS = ("close_close", "close_far", "far_close", "far_far")


class CurvePoint(BaseModel):
    model_config = ConfigDict(extra="forbid")

    weight: float | None = Field(description="w; null: the verifier alone")
    retrieval: float | None = Field(default=None, description="the retrieval suite's main score")
    retrieval_datasets: dict[str, float] = Field(default_factory=dict)
    composition: dict[str, float] = Field(default_factory=dict, description="suite -> main score")


class FusionCurves(BaseModel):
    """``<out>/<submission>.json``: one fused submission's test curve."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = CURVES_SCHEMA_VERSION
    submission: str
    submission_hash: str
    first_stage: str
    verifier: str
    weight: float = Field(description="the weight the submission uses (chosen on development queries)")
    retrieval_suite: str | None
    suites: list[str] = Field(description="composition suites with a curve")
    points: list[CurvePoint] = Field(description="w = 0 (the first stage) first, then the grid ascending, the verifier alone last")
    left_out: dict[str, str] = Field(default_factory=dict, description="suite -> why it has no curve")
    sources: dict[str, str] = Field(description="'<submission>/<suite>' -> the results file's submission_hash it was read from")
    note: str = "test data, drawn as a curve; the weight was chosen on development queries only (cbench fuse)"
    cbench_version: str
    git_commit: str | None
    date: str
    command: str


def item_value(metric: str, ok: Mapping[str, bool]) -> float | None:
    """An item's value of ``metric`` from its comparisons' outcomes (None: not derivable)."""
    if metric == "triplet_accuracy":
        if all(c in ok for c in CELLS):
            return float(np.mean([ok[c] for c in CELLS]))
        if "anchor_negative" in ok:
            return float(ok["anchor_negative"])
        return None
    if metric in {"tot_accuracy", "paired_accuracy", "group_accuracy"} and ok:
        return float(all(ok.values()))
    return None


def _by_key(items: list[ItemScores]) -> dict[tuple[str, str], ItemScores]:
    return {(it.dataset, it.id): it for it in items}


def _main(values: dict[str, list[float]]) -> float:
    return float(np.mean([np.mean(v) for v in values.values()]))


def composition_curve(
    first: list[ItemScores], second: list[ItemScores], metric: str, cfg: FusionConfig, weights: list[float]
) -> tuple[dict[float | None, float], float, float]:
    """{weight (None: the verifier alone): main score}, and the first stage's and the verifier's
    main scores recomputed from their own items (for the checks)."""
    a, b = _by_key(first), _by_key(second)
    if set(a) != set(b):
        raise ValueError("the two parts were scored on different items")
    keys = sorted(a)
    z1, z2 = cfg.first_stage_norm, cfg.verifier_norm
    if metric == "auroc":
        y = np.array([a[k].pair.label for k in keys if a[k].pair is not None])  # type: ignore[union-attr]
        s1 = np.array([a[k].pair.score for k in keys if a[k].pair is not None])  # type: ignore[union-attr]
        s2 = np.array([b[k].pair.score for k in keys if b[k].pair is not None])  # type: ignore[union-attr]
        if len(y) != len(keys) or len(s2) != len(keys):
            raise ValueError("pair scores missing")
        from sklearn.metrics import roc_auc_score

        out: dict[float | None, float] = {w: float(roc_auc_score(y, z1.apply(s1) + w * z2.apply(s2))) for w in weights}
        out[None] = float(roc_auc_score(y, s2))
        return out, float(roc_auc_score(y, s1)), out[None]

    rows: list[tuple[tuple[str, str], str]] = []  # (item, comparison name), one per comparison
    p1, n1, p2, n2 = [], [], [], []
    for k in keys:
        ca = {c.name: c for c in a[k].comparisons}
        cb = {c.name: c for c in b[k].comparisons}
        if set(ca) != set(cb) or not ca:
            raise ValueError(f"item {k}: the parts' comparisons differ")
        for n in sorted(ca):
            rows.append((k, n))
            p1.append(ca[n].positive)
            n1.append(ca[n].negative)
            p2.append(cb[n].positive)
            n2.append(cb[n].negative)
    P1, N1, P2, N2 = (np.array(x, dtype=np.float64) for x in (p1, n1, p2, n2))
    ZP1, ZN1, ZP2, ZN2 = z1.apply(P1), z1.apply(N1), z2.apply(P2), z2.apply(N2)

    def main(ok: np.ndarray) -> float:
        per_item: dict[tuple[str, str], dict[str, bool]] = {}
        for (k, n), v in zip(rows, ok.tolist(), strict=True):
            per_item.setdefault(k, {})[n] = v
        values: dict[str, list[float]] = {}
        for k, outcomes in per_item.items():
            v = item_value(metric, outcomes)
            if v is None:
                raise ValueError(f"{metric} cannot be derived from comparisons {sorted(outcomes)}")
            values.setdefault(k[0], []).append(v)
        return _main(values)

    out = {w: main((ZP1 + w * ZP2) > (ZN1 + w * ZN2)) for w in weights}
    out[None] = main(P2 > N2)
    return out, main(P1 > N1), out[None]


def _results(results_dir: Path, sub: str, suite: str) -> Results | None:
    path = results_path(results_dir, sub, suite)
    if not path.is_file():
        return None
    return read_results(path)


def curves(
    cfg: FusionConfig,
    submission_hash: str,
    results_dir: Path,
    retrieval_suite: Suite | None,
    composition_suites: list[str],
    weights: list[float],
    *,
    provenance: dict,
    command: str,
) -> FusionCurves:
    """The curve file's content for ``cfg`` (module docstring). ``retrieval_suite``: the axis suite
    with its data (qrels); ``composition_suites``: names of the near-miss suites to try."""
    weights = sorted({0.0, *weights, cfg.weight})
    points: dict[float | None, CurvePoint] = {w: CurvePoint(weight=w) for w in [*weights, None]}
    left_out: dict[str, str] = {}
    sources: dict[str, str] = {}
    ret_name = retrieval_suite.name if retrieval_suite is not None else None
    if retrieval_suite is not None:
        first_r = _results(results_dir, cfg.first_stage, retrieval_suite.name)
        ver_r = _results(results_dir, cfg.verifier, retrieval_suite.name)
        if ver_r is None or not ver_r.complete or first_r is None or not first_r.complete:
            left_out[retrieval_suite.name] = "the first stage or the verifier has no complete results"
        else:
            sources[f"{cfg.verifier}/{retrieval_suite.name}"] = ver_r.metadata.submission_hash
            sources[f"{cfg.first_stage}/{retrieval_suite.name}"] = first_r.metadata.submission_hash
            per: dict[float | None, dict[str, float]] = {w: {} for w in points}
            path = results_path(results_dir, cfg.verifier, retrieval_suite.name)
            for ds in ver_r.datasets:
                kept = read_kept_runs(path, ver_r.details, ds)
                if kept.first_stage is None:
                    raise CBenchError(f"keeps no first-stage run for {ds}", source=path)
                try:
                    qrels = retrieval_suite.load(ds).qrels
                except DataUnavailable as e:
                    raise CBenchError(f"the qrels of {ds} are needed for the retrieval curve: {e.message}", source=retrieval_suite.path or ds) from None
                for w in weights:
                    wcfg = cfg.model_copy(update={"weight": w})
                    per[w][ds] = evaluate(qrels, fuse_runs(kept.first_stage, kept.run, wcfg))[MAIN_METRIC]
                per[None][ds] = evaluate(qrels, kept.run)[MAIN_METRIC]
            checks = {0.0: first_r, None: ver_r}
            bad = [
                f"{'w = 0' if w == 0.0 else 'the verifier alone'} gives {float(np.mean(list(per[w].values()))):.6f}, its results {r.main_score:.6f}"
                for w, r in checks.items()
                if r.main_score is None or abs(float(np.mean(list(per[w].values()))) - r.main_score) > TOLERANCE
            ]
            if bad:
                left_out[retrieval_suite.name] = "; ".join(bad)
            else:
                for w, p in points.items():
                    p.retrieval_datasets = per[w]
                    p.retrieval = float(np.mean(list(per[w].values())))
    kept_suites: list[str] = []
    for suite in composition_suites:
        r1, r2 = _results(results_dir, cfg.first_stage, suite), _results(results_dir, cfg.verifier, suite)
        if r1 is None or r2 is None or not r1.complete or not r2.complete:
            left_out[suite] = "the first stage or the verifier has no complete results"
            continue
        try:
            s1 = read_sidecar(sidecar_path(results_path(results_dir, cfg.first_stage, suite)))
            s2 = read_sidecar(sidecar_path(results_path(results_dir, cfg.verifier, suite)))
            values, own1, own2 = composition_curve(s1.items, s2.items, r1.main_metric, cfg, weights)
        except (CBenchError, ValueError) as e:
            left_out[suite] = str(e.line if isinstance(e, CBenchError) else e)
            continue
        bad = [
            f"{who} recomputed {own:.6f}, its results {r.main_score:.6f}"
            for who, own, r in (("the first stage", own1, r1), ("the verifier", own2, r2))
            if r.main_score is None or abs(own - r.main_score) > TOLERANCE
        ]
        if abs(values[0.0] - own1) > TOLERANCE:
            bad.append(f"w = 0 gives {values[0.0]:.6f}, the first stage {own1:.6f}")
        if bad:
            left_out[suite] = "; ".join(bad)
            continue
        sources[f"{cfg.first_stage}/{suite}"] = r1.metadata.submission_hash
        sources[f"{cfg.verifier}/{suite}"] = r2.metadata.submission_hash
        for w, p in points.items():
            p.composition[suite] = values[w]
        kept_suites.append(suite)
    return FusionCurves(
        submission=cfg.name,
        submission_hash=submission_hash,
        first_stage=cfg.first_stage,
        verifier=cfg.verifier,
        weight=cfg.weight,
        retrieval_suite=ret_name,
        suites=kept_suites,
        points=list(points.values()),
        left_out=left_out,
        sources=sources,
        command=command,
        **provenance,
    )


# -- files -------------------------------------------------------------------------------------


def curves_path(folder: Path, submission: str) -> Path:
    return folder / f"{submission}.json"


def read_curves(folder: Path) -> tuple[dict[str, FusionCurves], list[str]]:
    """Every ``<folder>/*.json``: submission -> curves, and one warning line per file left out."""
    import json

    from pydantic import ValidationError

    found: dict[str, FusionCurves] = {}
    warnings: list[str] = []
    if not folder.is_dir():
        return found, warnings
    for path in sorted(p for p in folder.glob("*.json") if p.is_file() and not p.name.startswith(".")):
        try:
            c = FusionCurves.model_validate(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, ValidationError) as e:
            warnings.append(f"{path}: not a fusion curve file ({str(e).splitlines()[0]}) (left out)")
            continue
        found[c.submission] = c
    return found, warnings
