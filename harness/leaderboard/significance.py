"""Which ranked submissions cannot be told apart from a better-placed one, axis by axis.

The Pareto layers stay on the point estimates. Then:

- *better-placed*: ranked above on the page, i.e. an earlier Pareto layer, or the same layer and a
  higher mean of the two axes (then name: ``pareto.RANKING_RULE``);
- every pair of ranked submissions with per-item scores for both axis suites is tested on each axis
  with the paired test ``cbench compare`` runs for a whole suite: the sign-flip permutation test on
  per-query nDCG@10 (retrieval) and per-item main metric (composition), datasets kept apart, the
  statistic the suite's main score (``stats.paired``; seeded, so the page is the same on rerun),
  signs flipped per resampling unit as ``cbench compare`` does: the units the per-item scores carry
  (the generated near-misses: generator frames), else the suite's own units from its data
  (``Suite.units_at``: per-item scores kept before units were), else each query / item alone;
- the family: every one of those tests on the page, both axes of every pair (2 x pairs), corrected
  together by Holm's method (statsmodels ``multipletests``); B is *indistinguishable* from A on an
  axis when that axis's test does not reject at alpha = 0.05. The marks are per axis: B "≈ A
  (retrieval)", "≈ A (composition)", or "≈ A (both axes)" when A is better-placed.

The number of resamples grows with the number of tests, so that the smallest p-value a randomised
test can give, 2 / (resamples + 1), is at most half of Holm's first threshold alpha / tests.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from harness.compare import unit_name
from harness.errors import CBenchError
from harness.leaderboard.scored import ScoredCache
from harness.results import Results, plural
from harness.sidecar import main_values
from harness.stats.paired import N_PERMUTATIONS, SEED, sign_flip_p_values
from harness.stats.units import count_units
from harness.suites.base import Suite

ALPHA = 0.05
AXES = ("retrieval", "composition")


@dataclass
class Marks:
    """What the leaderboard shows: per submission and axis, the better-placed ones it is indistinguishable from."""

    indistinguishable: dict[str, list[str]] = field(default_factory=dict)  # name -> better-placed names, on both axes, in rank order
    same: dict[str, dict[str, list[str]]] = field(default_factory=lambda: {axis: {} for axis in AXES})  # axis -> name -> better-placed names on that axis
    untested: dict[str, str] = field(default_factory=dict)  # name -> why it was left out of the tests
    tests: int = 0
    n_resamples: int = 0
    alpha: float = ALPHA
    seed: int = SEED
    units: dict[str, str] = field(default_factory=dict)  # axis -> what its test flips, e.g. "954 queries", "255 frames"

    @property
    def line(self) -> str | None:
        """The page's one-line explanation; None when nothing was tested."""
        if not self.tests:
            return None
        units = "; ".join(f"{axis}: {what}" for axis, what in self.units.items())
        return (
            "≈ X: indistinguishable from X, a better-placed submission (ranked above: earlier Pareto layer, or same layer and "
            "higher mean), per axis: (retrieval), (composition) or (both axes). Paired sign-flip permutation test per axis "
            "(per-query nDCG@10, per-item near-miss score, datasets kept apart), signs flipped per resampling unit: frames for "
            f"nearmiss, pairs for NevIR, queries for retrieval, items otherwise ({units}); {self.n_resamples} resamples, seed {self.seed}; "
            f"alpha = {self.alpha}, Holm-corrected over the {self.tests} tests on this page (both axes of every pair of ranked "
            "submissions with per-item scores). Layers are computed on the point estimates."
        )


@dataclass(frozen=True)
class AxisValues:
    """Per-item values of one axis suite, in one order for every submission that has them."""

    group_sizes: list[int]
    vectors: dict[str, np.ndarray]
    untested: dict[str, str]
    units: list[list[str | None]] | None = None  # per group, each item's resampling unit (None: itself); None: no item has one
    unit: str = "item"  # what the units are: query, item, frame

    @property
    def describe_units(self) -> str:
        n = sum(count_units(u, k) for u, k in zip(self.units or [None] * len(self.group_sizes), self.group_sizes, strict=True))
        return f"{n} {plural(self.unit)}"


def axis_values(names: list[str], suite: str, scored: ScoredCache, declared: Suite | None = None) -> AxisValues:
    """Each submission's per-item main-metric values on ``suite``, datasets and items in the order of
    the item set most submissions share (ties: the better-placed one's); others are untested.
    Resampling units: from whichever sidecar has them, else from the data of ``declared`` (the suite
    as defined here) when it clusters and the data is at the revision the results record."""
    per: dict[str, dict[str, dict[str, float]]] = {}
    unit_of: dict[tuple[str, str], str] = {}  # (dataset, item id) -> its resampling unit, from whichever sidecar has it
    results: list[Results] = []
    by_name: dict[str, Results] = {}
    untested: dict[str, str] = {}
    for name in names:
        got = scored.get(name, suite)
        if isinstance(got, CBenchError):
            untested[name] = f"{suite}: {got.message}"
            continue
        r, by_ds = got
        values: dict[str, dict[str, float]] = {}
        for ds in r.datasets:
            items = by_ds.get(ds, [])
            v = main_values(items, r.main_metric)
            if v is None:
                untested[name] = f"{suite}: dataset {ds} has no per-item {r.main_metric}"
                break
            values[ds] = dict(zip((it.id for it in items), v, strict=True))
        else:
            per[name] = values
            results.append(r)
            by_name[name] = r
            for ds in r.datasets:
                for it in by_ds.get(ds, []):
                    if it.unit is not None:
                        unit_of.setdefault((ds, it.id), it.unit)
    if not per:
        return AxisValues([], {}, untested)
    signature = {n: tuple((ds, frozenset(v)) for ds, v in vals.items()) for n, vals in per.items()}
    counts = Counter(signature.values())
    reference = max(per, key=lambda n: (counts[signature[n]], -names.index(n)))
    order = [(ds, list(v)) for ds, v in per[reference].items()]
    vectors: dict[str, np.ndarray] = {}
    for name, vals in per.items():
        if signature[name] != signature[reference]:
            untested[name] = f"{suite}: scored on other datasets or items than {reference} (e.g. another --limit-queries)"
            continue
        vectors[name] = np.array([vals[ds][i] for ds, ids in order for i in ids], dtype=np.float64)
    if declared is not None and declared.cluster_field is not None:
        for ds, ids in order:
            if all((ds, i) in unit_of for i in ids):
                continue
            try:  # per-item scores kept before units were: the suite's units from its data
                from_data = declared.units_at(ds, by_name[reference].metadata.dataset_revisions.get(ds)) or {}
            except CBenchError:  # not here, changed since, or unreadable: those items stay alone
                continue
            for i in ids:
                if (ds, i) not in unit_of and i in from_data:
                    unit_of[(ds, i)] = from_data[i]
    units = [[unit_of.get((ds, i)) for i in ids] for ds, ids in order]
    clustered = any(u is not None for group in units for u in group)
    if declared is None:
        name = unit_name(results, clustered)
    elif not clustered:
        name = declared.item_units[0]  # query, item, pair
    elif declared.cluster_field is not None:
        name = declared.resampling_unit  # frame
    else:
        name = unit_name(results, True)  # units the suite no longer declares
    return AxisValues([len(ids) for _ds, ids in order], vectors, untested, units if clustered else None, name)


def n_resamples_for(tests: int, alpha: float = ALPHA) -> int:
    return max(N_PERMUTATIONS, math.ceil(4 * tests / alpha))


def mark(
    ranked: list[str],
    retrieval_suite: str | None,
    composition_suite: str | None,
    scored: ScoredCache,
    *,
    alpha: float = ALPHA,
    suites: dict[str, Suite | None] | None = None,
) -> Marks:
    """Marks for ``ranked`` (the complete rows' names, best-placed first). ``suites``: the axis
    suites as defined here (name -> suite), for the units of per-item scores that carry none."""
    marks = Marks(alpha=alpha)
    if not retrieval_suite or not composition_suite or len(ranked) < 2:
        return marks
    suites = suites or {}
    axes = [axis_values(ranked, s, scored, suites.get(s)) for s in (retrieval_suite, composition_suite)]
    for ax in axes:
        for name, why in ax.untested.items():
            marks.untested.setdefault(name, why)
    testable = [n for n in ranked if n not in marks.untested]
    pairs = [(a, b) for i, a in enumerate(testable) for b in testable[i + 1 :]]  # a is better-placed
    if not pairs:
        return marks
    marks.tests = len(AXES) * len(pairs)
    marks.n_resamples = n_resamples_for(marks.tests, alpha)
    marks.units = {axis: ax.describe_units for axis, ax in zip(AXES, axes, strict=True)}
    p = np.concatenate(
        [
            sign_flip_p_values(
                np.stack([ax.vectors[a] - ax.vectors[b] for a, b in pairs], axis=1),
                ax.group_sizes,
                units=ax.units,
                n_resamples=marks.n_resamples,
                seed=marks.seed,
            )
            for ax in axes
        ]
    )
    from statsmodels.stats.multitest import multipletests  # here, not at import: it takes seconds

    reject = multipletests(p, alpha=alpha, method="holm")[0].reshape(len(AXES), len(pairs))
    for k, (a, b) in enumerate(pairs):
        for i, axis in enumerate(AXES):
            if not reject[i, k]:
                marks.same[axis].setdefault(b, []).append(a)
        if not reject[:, k].any():
            marks.indistinguishable.setdefault(b, []).append(a)
    return marks
