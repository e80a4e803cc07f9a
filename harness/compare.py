"""Paired comparison of two submissions on one suite, from their results files and per-item scores.

Per dataset: the difference A - B of the main metric (the results files' values), a 95% interval
(percentile bootstrap over the paired items' differences) and a two-sided p-value: for near-miss
suites whose per-item value is a correct / incorrect outcome (triplet or TOT accuracy of
triplets), McNemar's exact test; otherwise the paired permutation test (retrieval: nDCG@10 per
query; five-text items: the item's share of its four comparisons right, so that an item's four
comparisons, which are not independent, stay together). On 0/1 values the two tests agree (the
exact sign-flip test of differences in {-1, 0, 1} is the binomial test of the discordant pairs). For the suite: the difference of the main
scores, the bootstrap and the permutation test resampling within each dataset (stratified) with
the suite's statistic, the unweighted mean over datasets.

Resampling units: when the items carry units (``ItemScores.unit``: the generated near-misses'
generator frames), the bootstrap draws whole units and the permutation test flips each unit's
summed differences; McNemar's test, which assumes independent items, is then replaced by the
permutation test over units, and a note says so. Every p-value comes with the smallest value its
test can give (``p_value_floor``); at the floor the true p-value may be smaller still.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from harness.errors import CBenchError
from harness.results import Results, plural, read_results, results_path
from harness.sidecar import ItemScores, main_values, read_sidecar, sidecar_path, sidecar_problems
from harness.stats.intervals import CONFIDENCE, N_RESAMPLES, SEED, mean_ci
from harness.stats.paired import N_PERMUTATIONS, at_floor, discordant, mcnemar_floor, mcnemar_p, permutation_floor, permutation_p
from harness.stats.units import count_units
from harness.submissions.reproduce import recorded_folders, run_command, suite_arg

SUITE_ROW = "(suite)"
Test = Literal["mcnemar-exact", "paired-permutation", "stratified-paired-permutation"]
ITEM_UNITS = ("query", "item", "pair", "triplet")  # names of one item (each its own unit)
Units = list[str | None] | None  # per paired item, its resampling unit (None: itself); None: no item has one


class CompareRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    dataset: str = Field(description=f"dataset name, or {SUITE_ROW} for the suite's main score")
    n: int = Field(description="paired queries / items")
    units: int = Field(description="resampling units among them: n, or the clusters (e.g. frames) the items belong to")
    a: float = Field(description="A's score (its results file)")
    b: float = Field(description="B's score (its results file)")
    difference: float = Field(description="a - b")
    ci95: tuple[float, float] | None = Field(description="95% interval of the difference; null when fewer than 2 items")
    p_value: float = Field(description="two-sided")
    p_value_floor: float = Field(
        description="the smallest p-value the test can give here: 2 / (resamples + 1) when randomised, its most extreme outcome when exact"
    )
    p_value_at_floor: bool = Field(description="p_value is that floor: the true p-value may be smaller (printed as '≤ floor')")
    test: Test
    discordant: tuple[int, int] | None = Field(default=None, description="McNemar: (items A right and B wrong, items A wrong and B right)")


class CompareReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    a: str
    b: str
    suite: str
    main_metric: str
    resampling_unit: str = Field(description="what the intervals and permutation tests resample: query, item, or a cluster of items (frame)")
    confidence: float = CONFIDENCE
    bootstrap_resamples: int = N_RESAMPLES
    permutation_resamples: int = N_PERMUTATIONS
    seed: int = SEED
    datasets: list[CompareRow]
    suite_row: CompareRow | None = Field(description="null when either suite is incomplete or they cover different datasets")
    notes: list[str] = Field(default_factory=list)


def load_scored(results_dir: Path, submission: str, suite: str, ref: str | None = None) -> tuple[Results, dict[str, list[ItemScores]]]:
    """A results file and its per-item scores by dataset, checked against each other (``ref``: the
    suite as the user named it, for the command to run)."""
    path = results_path(results_dir, submission, suite)
    ref = ref or suite
    if not path.is_file():
        raise CBenchError(f"no results file; run: {run_command(submission, [ref], results_dir=results_dir)}", source=path)
    r = read_results(path)
    spath = sidecar_path(path)
    again = ref if ref != suite else suite_arg(suite, r)  # a suite named by its results: where they came from
    rerun = f"rerun: {run_command(submission, [again], results_dir=results_dir, folders=recorded_folders(r.metadata.submission_file), options=['--overwrite'])}"
    if not spath.is_file():
        raise CBenchError(f"no per-item scores (results made before cbench kept them); {rerun}", source=spath)
    sc = read_sidecar(spath)
    if problems := sidecar_problems(sc, r):
        field, message = problems[0]
        raise CBenchError(f"{message}; {rerun}", source=spath, field=field)
    return r, sc.by_dataset()


def _paired(a: str, b: str, ds: str, items_a: list[ItemScores], items_b: list[ItemScores], metric: str) -> tuple[np.ndarray, np.ndarray, Units]:
    by_b = {it.id: it for it in items_b}
    ids = [it.id for it in items_a]
    if set(ids) != set(by_b):
        common = len(set(ids) & set(by_b))
        raise CBenchError(
            f"{a} and {b} were scored on different items ({len(ids)} and {len(by_b)}, {common} in common); "
            "run both on the same data with the same --limit-queries",
            source="cbench compare",
            field=f"dataset {ds}",
        )
    if not ids:
        raise CBenchError("no per-item scores for this dataset (its suite type keeps none)", source="cbench compare", field=f"dataset {ds}")
    va, vb = main_values(items_a, metric), main_values([by_b[i] for i in ids], metric)
    if va is None or vb is None:
        raise CBenchError(
            f"{metric} has no per-item value (it is not a mean over items), so it cannot be compared item by item",
            source="cbench compare",
            field=f"dataset {ds}",
        )
    return np.asarray(va, dtype=np.float64), np.asarray(vb, dtype=np.float64), paired_units(a, b, ds, ids, items_a, by_b)


def paired_units(a: str, b: str, ds: str, ids: list[str], items_a: list[ItemScores], by_b: dict[str, ItemScores]) -> Units:
    """Each paired item's resampling unit: A's, else B's (a sidecar from before units has none)."""
    unit_a = {it.id: it.unit for it in items_a}
    units = []
    for i in ids:
        ua, ub = unit_a[i], by_b[i].unit
        if ua is not None and ub is not None and ua != ub:
            raise CBenchError(
                f"{a} and {b} put item {i} in different resampling units ({ua} and {ub}); run both on the same data",
                source="cbench compare",
                field=f"dataset {ds}",
            )
        units.append(ua if ua is not None else ub)
    return units if any(u is not None for u in units) else None


def unit_name(results: list[Results], clustered: bool) -> str:
    """What the tests resample, as the results' ci_method names it: a cluster (frame) when items
    carry units, else one item (query / item / pair); 'unit' when no results file says."""
    names = [r.ci_method.unit for r in results if r.ci_method is not None]
    if clustered:
        return next((n for n in names if n not in ITEM_UNITS), "unit")
    return next((n for n in names if n in ITEM_UNITS), "query" if results[0].task == "retrieval" else "item")


def _outcomes(task: str, pairs: list[tuple[np.ndarray, np.ndarray]]) -> bool:
    """Whether the main metric is a correct / incorrect outcome per item: a near-miss suite whose
    per-item values are all 0 or 1, for both submissions, on every dataset (decided once per suite,
    so that every dataset gets the same test)."""
    return task == "nearmiss" and all(bool(np.all(np.isin(v, (0.0, 1.0)))) for pair in pairs for v in pair)


def _dataset_row(ds: str, ra: Results, rb: Results, va: np.ndarray, vb: np.ndarray, units: Units, mcnemar: bool) -> CompareRow:
    m = ra.main_metric
    x, y = ra.datasets[ds][m], rb.datasets[ds][m]
    d = va - vb
    n_units = count_units(units, len(d))
    if mcnemar:  # correct / incorrect per item, items independent
        counts = discordant(va, vb)
        p, floor, test = mcnemar_p(*counts), mcnemar_floor(*counts), "mcnemar-exact"
    else:
        counts, p, floor, test = None, permutation_p([d], units=[units]), permutation_floor(n_units), "paired-permutation"
    return CompareRow(
        dataset=ds,
        n=len(d),
        units=n_units,
        a=x,
        b=y,
        difference=x - y,
        ci95=mean_ci([d], units=[units]),
        p_value=p,
        p_value_floor=floor,
        p_value_at_floor=at_floor(p, floor),
        test=test,  # type: ignore[arg-type]
        discordant=counts,
    )


def compare(results_dir: Path, a: str, b: str, suite: str, ref: str | None = None, *, declared_unit: str | None = None) -> CompareReport:
    """A - B on the results named ``suite`` (``ref``: the suite as the user gave it, for messages;
    ``declared_unit``: the cluster the suite now resamples by, e.g. frame, to say when the per-item
    scores predate it)."""
    ra, items_a = load_scored(results_dir, a, suite, ref)
    rb, items_b = load_scored(results_dir, b, suite, ref)
    if ra.main_metric != rb.main_metric:
        raise CBenchError(f"main metrics differ: {a} has {ra.main_metric}, {b} has {rb.main_metric}", source="cbench compare", field=f"suite {suite}")
    notes: list[str] = []
    if ra.metadata.suite_hash != rb.metadata.suite_hash:
        notes.append(
            f"the suite definition differs between the two runs (suite_hash {ra.metadata.suite_hash} vs {rb.metadata.suite_hash}); items are paired by id"
        )
    common = [ds for ds in ra.datasets if ds in rb.datasets]
    for who, r, other in ((a, ra, rb), (b, rb, ra)):
        if only := [ds for ds in r.datasets if ds not in other.datasets]:
            notes.append(f"only {who} has {', '.join(only)}: not compared")
    paired = [_paired(a, b, ds, items_a.get(ds, []), items_b.get(ds, []), ra.main_metric) for ds in common]
    pairs = [(va, vb) for va, vb, _ in paired]
    units = [u for _, _, u in paired]
    clustered = any(u is not None for u in units)
    unit = unit_name([ra, rb], clustered)
    if declared_unit is not None and not clustered:
        notes.append(
            f"the suite resamples by {declared_unit}, but these per-item scores carry no {plural(declared_unit)} (written before they were kept): "
            f"tested item by item, too confidently; {run_command('A', [ref or suite], results_dir=results_dir)} "
            "(without --overwrite) adds them, nothing rescored"
        )
    mcnemar = _outcomes(ra.task, pairs) and not clustered
    if clustered and _outcomes(ra.task, pairs):
        notes.append(
            f"correct / incorrect outcomes, but the items come in {plural(unit)}: McNemar's test assumes independent items, "
            f"so the datasets are tested by the paired permutation test over {plural(unit)} instead"
        )
    rows = [_dataset_row(ds, ra, rb, va, vb, u, mcnemar) for ds, (va, vb, u) in zip(common, paired, strict=True)]
    diffs = [va - vb for va, vb in pairs]
    suite_row = None
    if ra.main_score is not None and rb.main_score is not None and set(ra.datasets) == set(rb.datasets) and diffs:
        diff = ra.main_score - rb.main_score
        n_units = sum(count_units(u, len(d)) for u, d in zip(units, diffs, strict=True))
        p, floor = permutation_p(diffs, units=units), permutation_floor(n_units)
        suite_row = CompareRow(
            dataset=SUITE_ROW,
            n=sum(len(d) for d in diffs),
            units=n_units,
            a=ra.main_score,
            b=rb.main_score,
            difference=diff,
            ci95=mean_ci(diffs, units=units),
            p_value=p,
            p_value_floor=floor,
            p_value_at_floor=at_floor(p, floor),
            test="stratified-paired-permutation",
        )
    else:
        notes.append("no suite row: a suite is incomplete or the two cover different datasets")
    return CompareReport(a=a, b=b, suite=suite, main_metric=ra.main_metric, resampling_unit=unit, datasets=rows, suite_row=suite_row, notes=notes)
