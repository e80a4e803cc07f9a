"""95% confidence intervals by seeded bootstrap (scipy.stats.bootstrap, percentile method).

The statistic is the mean over groups of each group's mean: one group = one dataset's per-query /
per-item values (the dataset's score), several groups = a suite (the unweighted mean over its
datasets), resampled within each group (stratified). Pass per-item differences A - B as the groups
and it is the paired bootstrap of a difference. The same seed gives the same interval.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

CONFIDENCE = 0.95
N_RESAMPLES = 1000
SEED = 0


def mean_of_means(groups: Sequence[Sequence[float] | np.ndarray]) -> float:
    return float(np.mean([np.mean(np.asarray(g, dtype=np.float64)) for g in groups]))


def mean_ci(groups: Sequence[Sequence[float] | np.ndarray], *, n_resamples: int = N_RESAMPLES, seed: int = SEED) -> tuple[float, float] | None:
    """The interval of ``mean_of_means(groups)``; None when a group has fewer than 2 values (no
    spread to resample). Groups whose values are all equal give a zero-width interval."""
    arrays = [np.asarray(g, dtype=np.float64) for g in groups]
    if not arrays or any(a.ndim != 1 or len(a) < 2 for a in arrays):
        return None
    if all(np.all(a == a[0]) for a in arrays):  # nothing varies: scipy would warn and return NaN
        point = mean_of_means(arrays)
        return (point, point)
    from scipy.stats import bootstrap  # here, not at import: scipy costs a second per cbench start

    def statistic(*samples: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.mean([s.mean(axis=axis) for s in samples], axis=0)

    res = bootstrap(
        tuple(arrays),
        statistic,
        n_resamples=n_resamples,
        confidence_level=CONFIDENCE,
        method="percentile",
        vectorized=True,
        batch=max(1, min(n_resamples, 4_000_000 // sum(len(a) for a in arrays))),  # bounded memory
        rng=np.random.default_rng(seed),
    )
    return (float(res.confidence_interval.low), float(res.confidence_interval.high))
