"""Paired significance tests for two submissions scored on the same queries / items.

- ``permutation_p``: the paired randomisation test (scipy.stats.permutation_test with
  permutation_type='samples' on the per-item differences A - B: each item's A and B are swapped
  independently, i.e. the sign of its difference flipped). Groups (datasets) are kept apart and
  the statistic is the mean over groups of each group's mean difference, so it tests the suite's
  main score as the results file computes it.
- ``sign_flip_p_values``: the same test for many comparisons on the same items at once (the
  leaderboard's marks): one matrix product per chunk of sign patterns, the patterns drawn once from
  the seed and shared by every comparison. scipy's permutation_test loops over the items in Python
  for each batch, about a second per test of 3,500 items, a minute for a page of 45 pairs.
- ``mcnemar_p``: McNemar's exact test for paired correct/incorrect outcomes: under the null the
  discordant pairs split 50/50, so p = scipy.stats.binomtest(b, b + c, 0.5), two-sided. It assumes
  independent items: not for clustered items (use the permutation test by unit).

Resampling units (``units``, ``stats.units``): when items come in clusters (generator frames), the
sign is flipped per unit, not per item: the statistic's terms (difference x item weight) are summed
within each unit and the units' sums flipped. Without labels each item is its own unit (the tests
above, draw for draw). ``permutation_floor``: the smallest p-value the test can give.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from harness.stats.units import Labels, unit_codes

N_PERMUTATIONS = 5000
SEED = 0


def permutation_p(
    differences: Sequence[Sequence[float] | np.ndarray],
    *,
    units: Sequence[Labels] | None = None,
    n_resamples: int = N_PERMUTATIONS,
    seed: int = SEED,
) -> float:
    """Two-sided p-value for "A and B score alike" from per-item differences, one array per group,
    signs flipped per unit (``units``: per group, each item's unit label, or None: every item alone);
    exact when 2^units <= n_resamples, else randomised with the seed."""
    groups = [np.asarray(d, dtype=np.float64) for d in differences]
    if not groups or any(len(g) == 0 for g in groups):
        raise ValueError("every group needs at least one difference")
    x = unit_terms(np.concatenate(groups)[:, None], [len(g) for g in groups], units)[:, 0]
    if not np.any(x):
        return 1.0  # every pair (unit) identical: no evidence of a difference (scipy agrees, slowly)
    from scipy.stats import permutation_test

    def statistic(x: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.sum(x, axis=axis)

    res = permutation_test(
        (x,),
        statistic,
        permutation_type="samples",
        vectorized=True,
        n_resamples=n_resamples,
        batch=max(1, min(n_resamples, 4_000_000 // len(x))),
        alternative="two-sided",
        rng=np.random.default_rng(seed),
    )
    return float(res.pvalue)


def permutation_floor(n_units: int, n_resamples: int = N_PERMUTATIONS) -> float:
    """The smallest two-sided p-value of the sign-flip test on ``n_units`` units: 2 / 2^units when
    exact (the observed pattern and its mirror), 2 / (n_resamples + 1) when randomised."""
    if n_units < 63 and 2**n_units <= n_resamples:
        return min(1.0, 2.0 / 2**n_units)
    return min(1.0, 2.0 / (n_resamples + 1))


def mcnemar_floor(a_only: int, b_only: int) -> float:
    """The smallest p-value McNemar's exact test can give with these many discordant pairs: all on one side."""
    return min(1.0, 2.0 * 0.5 ** (a_only + b_only))


def at_floor(p: float, floor: float) -> bool:
    """Whether ``p`` is its test's smallest attainable value (the true p may be smaller still)."""
    return p <= floor * (1 + 1e-9)


def unit_terms(columns: np.ndarray, group_sizes: Sequence[int], units: Sequence[Labels] | None = None) -> np.ndarray:
    """The statistic's terms per unit: each item's value times its weight (``group_weights``),
    summed over the items of each unit (units numbered group by group, first appearance first);
    rows = units, columns as given. Without ``units``, one row per item."""
    x = np.asarray(columns, dtype=np.float64) * group_weights(group_sizes)[:, None]
    if units is None:
        return x
    if len(units) != len(group_sizes):
        raise ValueError(f"{len(units)} unit label lists for {len(group_sizes)} groups")
    codes, offset = [], 0
    for size, labels in zip(group_sizes, units, strict=True):
        c = unit_codes(labels, size) + offset
        codes.append(c)
        offset = int(c.max(initial=offset - 1)) + 1
    out = np.zeros((offset, x.shape[1]), dtype=np.float64)
    np.add.at(out, np.concatenate(codes), x)
    return out


def group_weights(group_sizes: Sequence[int]) -> np.ndarray:
    """Per-item weights of the statistic "mean over groups of each group's mean": 1 / (size * groups)."""
    if not group_sizes or any(n < 1 for n in group_sizes):
        raise ValueError("every group needs at least one item")
    return np.concatenate([np.full(n, 1.0 / (n * len(group_sizes))) for n in group_sizes])


def sign_flip_p_values(
    columns: np.ndarray,
    group_sizes: Sequence[int],
    *,
    units: Sequence[Labels] | None = None,
    n_resamples: int = N_PERMUTATIONS,
    seed: int = SEED,
) -> np.ndarray:
    """Two-sided p-value of :func:`permutation_p` for each column of ``columns`` (items x comparisons:
    per-item differences A - B, items grouped as ``group_sizes`` says, the same items for every column;
    ``units``: per group, each item's unit label, signs flipped per unit).

    The same test and p-value rule as scipy.stats.permutation_test (permutation_type='samples'):
    exact over all 2^units sign patterns when that is at most ``n_resamples``; otherwise
    ``n_resamples`` random patterns, p = 2 * (min(#{null <= observed}, #{null >= observed}) + 1) /
    (n_resamples + 1), capped at 1, with ties counted within a relative 1e-14.
    """
    x = np.asarray(columns, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError("columns: a 2-d array, items x comparisons")
    if sum(group_sizes) != x.shape[0]:
        raise ValueError(f"group sizes add up to {sum(group_sizes)}, but there are {x.shape[0]} items")
    x = unit_terms(x, group_sizes, units)
    n = x.shape[0]
    observed = x.sum(axis=0)
    gamma = np.finfo(np.float64).eps * 100 * np.abs(x).sum(axis=0)  # rounding of sums of n terms
    less = np.zeros(x.shape[1], dtype=np.int64)
    greater = np.zeros(x.shape[1], dtype=np.int64)
    exact = n < 63 and 2**n <= n_resamples
    for signs in _sign_patterns(n, n_resamples, seed, exact):
        null = signs @ x
        less += np.count_nonzero(null <= observed + gamma, axis=0)
        greater += np.count_nonzero(null >= observed - gamma, axis=0)
    adjustment, total = (0, 2**n) if exact else (1, n_resamples)
    p = 2 * np.minimum(less + adjustment, greater + adjustment) / (total + adjustment)
    return np.clip(p, 0.0, 1.0)


def _sign_patterns(n: int, n_resamples: int, seed: int, exact: bool):
    """Chunks of +-1 sign patterns (rows) as float64: every pattern when ``exact``, else
    ``n_resamples`` random ones from the seed (the same for every call with the same arguments)."""
    rows = max(1, 4_000_000 // max(n, 1))  # bounded memory
    if exact:
        codes = np.arange(2**n, dtype=np.int64)
        for start in range(0, len(codes), rows):
            bits = (codes[start : start + rows, None] >> np.arange(n)) & 1
            yield 2.0 * bits - 1.0
        return
    rng = np.random.default_rng(seed)
    for start in range(0, n_resamples, rows):
        bits = rng.integers(0, 2, size=(min(rows, n_resamples - start), n), dtype=np.int8)
        yield 2.0 * bits - 1.0


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
