"""95% confidence intervals by seeded bootstrap (scipy.stats.bootstrap, percentile method).

The statistic is the mean over groups of each group's mean: one group = one dataset's per-query /
per-item values (the dataset's score), several groups = a suite (the unweighted mean over its
datasets), resampled within each group (stratified). Pass per-item differences A - B as the groups
and it is the paired bootstrap of a difference. The same seed gives the same interval.

Resampling units (``units``, one label per value, ``stats.units``): when items come in clusters
(the generated near-misses, ~14 items per generator frame), whole units are drawn with replacement
and a group's mean is computed from all items of the drawn units (the cluster bootstrap). Without
labels every item is its own unit, and the interval is the item bootstrap, draw for draw.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from harness.stats.units import Labels, unit_codes

CONFIDENCE = 0.95
N_RESAMPLES = 10_000
SEED = 0


def mean_of_means(groups: Sequence[Sequence[float] | np.ndarray]) -> float:
    return float(np.mean([np.mean(np.asarray(g, dtype=np.float64)) for g in groups]))


def mean_ci(
    groups: Sequence[Sequence[float] | np.ndarray],
    *,
    units: Sequence[Labels] | None = None,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> tuple[float, float] | None:
    """The interval of ``mean_of_means(groups)``, resampling the units of each group (``units``:
    per group, each value's unit label, or None: every value alone); None when a group has fewer
    than 2 units (no spread to resample). Groups whose values are all equal give a zero-width interval."""
    arrays = [np.asarray(g, dtype=np.float64) for g in groups]
    labels = list(units) if units is not None else [None] * len(arrays)
    if len(labels) != len(arrays):
        raise ValueError(f"{len(labels)} unit label lists for {len(arrays)} groups")
    if not arrays or any(a.ndim != 1 or len(a) == 0 for a in arrays):
        return None
    codes = [unit_codes(lab, len(a)) for a, lab in zip(arrays, labels, strict=True)]
    sums = [np.bincount(c, weights=a) for a, c in zip(arrays, codes, strict=True)]  # per unit: sum of its values
    sizes = [np.bincount(c).astype(np.float64) for c in codes]  # per unit: its number of items
    if any(len(s) < 2 for s in sums):
        return None
    if all(np.all(a == a[0]) for a in arrays):  # nothing varies: scipy would warn and return NaN
        point = mean_of_means(arrays)
        return (point, point)
    from scipy.stats import bootstrap  # here, not at import: scipy costs a second per cbench start

    def statistic(*drawn: np.ndarray, axis: int = -1) -> np.ndarray:
        # drawn: per group, the indices of the drawn units; a group's mean = items' sum / items' count
        means = [s[i.astype(np.intp)].sum(axis=axis) / z[i.astype(np.intp)].sum(axis=axis) for s, z, i in zip(sums, sizes, drawn, strict=True)]
        return np.mean(means, axis=0)

    res = bootstrap(
        tuple(np.arange(len(s)) for s in sums),
        statistic,
        n_resamples=n_resamples,
        confidence_level=CONFIDENCE,
        method="percentile",
        vectorized=True,
        batch=max(1, min(n_resamples, 4_000_000 // sum(len(s) for s in sums))),  # bounded memory
        rng=np.random.default_rng(seed),
    )
    return (float(res.confidence_interval.low), float(res.confidence_interval.high))
