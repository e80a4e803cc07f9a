"""harness.stats.intervals: seeded percentile bootstrap of a mean, and of a mean over strata."""

from __future__ import annotations

import numpy as np
import pytest

from harness.stats.intervals import mean_ci, mean_of_means


def test_interval_contains_the_mean_and_repeats_with_the_seed():
    x = np.random.default_rng(7).random(40)
    ci = mean_ci([x])
    assert ci is not None and ci[0] < x.mean() < ci[1]
    assert mean_ci([x]) == ci  # same seed (0), same interval, bit for bit
    assert mean_ci([x], seed=1) != ci  # another seed resamples differently
    assert 0 < ci[1] - ci[0] < 0.5


def test_interval_of_zero_one_outcomes():
    x = np.array([1.0] * 30 + [0.0] * 10)
    low, high = mean_ci([x])
    assert low < 0.75 < high and 0.5 < low and high < 0.9


def test_stratified_interval_is_of_the_mean_over_groups():
    rng = np.random.default_rng(3)
    groups = [rng.random(10), rng.random(200) + 1.0]  # unequal sizes: the suite mean weighs datasets equally
    point = mean_of_means(groups)
    assert point == pytest.approx((groups[0].mean() + groups[1].mean()) / 2)
    low, high = mean_ci(groups)
    assert low < point < high
    assert mean_ci(groups) == (low, high)
    # resampled within groups: the small group's spread dominates (a pooled bootstrap would not see it)
    alone = mean_ci([groups[0]])
    assert high - low == pytest.approx((alone[1] - alone[0]) / 2, rel=0.5)


def test_constant_values_give_a_zero_width_interval_and_one_value_none():
    assert mean_ci([[1.0, 1.0, 1.0]]) == (1.0, 1.0)
    assert mean_ci([[0.0, 0.0], [1.0, 1.0, 1.0]]) == (0.5, 0.5)
    assert mean_ci([[0.3]]) is None
    assert mean_ci([[0.1, 0.2], [0.3]]) is None
    assert mean_ci([]) is None
