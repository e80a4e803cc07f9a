"""Paired significance tests for two submissions scored on the same queries / items.

- ``permutation_p``: the paired randomisation test (scipy.stats.permutation_test with
  permutation_type='samples' on the per-item differences A - B: each item's A and B are swapped
  independently, i.e. the sign of its difference flipped). Groups (datasets) are kept apart and
  the statistic is the mean over groups of each group's mean difference, so it tests the suite's
  main score as the results file computes it.
- ``mcnemar_p``: McNemar's exact test for paired correct/incorrect outcomes: under the null the
  discordant pairs split 50/50, so p = scipy.stats.binomtest(b, b + c, 0.5), two-sided.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

N_PERMUTATIONS = 5000
SEED = 0


def permutation_p(differences: Sequence[Sequence[float] | np.ndarray], *, n_resamples: int = N_PERMUTATIONS, seed: int = SEED) -> float:
    """Two-sided p-value for "A and B score alike" from per-item differences, one array per group
    (exact when 2^items <= n_resamples, else randomised with the seed)."""
    groups = [np.asarray(d, dtype=np.float64) for d in differences]
    if not groups or any(len(g) == 0 for g in groups):
        raise ValueError("every group needs at least one difference")
    d = np.concatenate(groups)
    if not np.any(d):
        return 1.0  # every pair identical: no evidence of a difference (scipy agrees, slowly)
    from scipy.stats import permutation_test

    weights = np.concatenate([np.full(len(g), 1.0 / (len(g) * len(groups))) for g in groups])

    def statistic(x: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.sum(x * weights, axis=axis)

    res = permutation_test(
        (d,),
        statistic,
        permutation_type="samples",
        vectorized=True,
        n_resamples=n_resamples,
        batch=max(1, min(n_resamples, 4_000_000 // len(d))),
        alternative="two-sided",
        rng=np.random.default_rng(seed),
    )
    return float(res.pvalue)


def mcnemar_p(a_only: int, b_only: int) -> float:
    """McNemar's exact two-sided p from the discordant counts: ``a_only`` items A gets right and B
    wrong, ``b_only`` the reverse. 1.0 when there are none."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(a_only, n, 0.5, alternative="two-sided").pvalue)


def discordant(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> tuple[int, int]:
    """(A right and B wrong, A wrong and B right) for 0/1 outcomes."""
    x, y = np.asarray(a) == 1, np.asarray(b) == 1
    return int(np.sum(x & ~y)), int(np.sum(~x & y))
