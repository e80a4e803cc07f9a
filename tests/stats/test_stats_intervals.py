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


# -- resampling units (the cluster bootstrap) ------------------------------------------------------
def test_cluster_interval_by_hand():
    # 3 units of sizes 1, 2, 3 with means 0, 0.5 and 1. Three units drawn with replacement: all
    # three the same unit with probability 1/27 > 2.5% each, so the 2.5% and 97.5% percentiles are
    # the lowest and the highest unit mean: exactly (0, 1). Items drawn alone, the all-zero
    # resample has probability (2/6)^6 < 2.5%: the interval starts above 0.
    values = [0.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    units = ["a", "b", "b", "c", "c", "c"]
    assert mean_ci([values], units=[units]) == (0.0, 1.0)
    low, high = mean_ci([values])
    assert 0.0 < low < high


def test_cluster_interval_agrees_with_a_direct_cluster_bootstrap():
    # units of unequal sizes whose means grow with their size: a resample's statistic is the mean
    # of all items of the drawn units (sum / count), not the mean of unit means, which sits lower
    rng = np.random.default_rng(2)
    sizes = rng.integers(1, 26, 80)
    unit_means = sizes / 25 + rng.normal(0, 0.1, 80)
    values = np.concatenate([m + rng.normal(0, 0.05, k) for m, k in zip(unit_means, sizes, strict=True)])
    labels = np.repeat(np.arange(80), sizes).tolist()
    low, high = mean_ci([values], units=[labels])
    # the same bootstrap written out with numpy (other random draws)
    sums, counts = np.bincount(labels, weights=values), np.bincount(labels)
    draws = np.random.default_rng(123).integers(0, 80, (10_000, 80))
    direct = np.percentile(sums[draws].sum(axis=1) / counts[draws].sum(axis=1), [2.5, 97.5])
    width = high - low
    assert abs(low - direct[0]) < 0.1 * width and abs(high - direct[1]) < 0.1 * width
    assert low < values.mean() < high
    assert not low < unit_means.mean() < high  # the mean of unit means is another statistic


def test_unique_labels_are_the_item_bootstrap_draw_for_draw():
    rng = np.random.default_rng(11)
    groups = [rng.random(30), rng.random(45)]
    labels = [[f"x{i}" for i in range(30)], [None] * 45]
    assert mean_ci(groups, units=labels) == mean_ci(groups) == mean_ci(groups, units=[None, None])


def test_cluster_bootstrap_is_wider_on_clustered_data():
    # 60 clusters of 12 items; each cluster shares a strong effect (items within a cluster alike):
    # the item bootstrap treats 720 items as independent and is far too narrow
    rng = np.random.default_rng(4)
    effect = rng.normal(0.0, 1.0, 60)
    values = np.repeat(effect, 12) + rng.normal(0.0, 0.1, 720)
    labels = np.repeat(np.arange(60), 12).tolist()
    item = mean_ci([values])
    cluster = mean_ci([values], units=[labels])
    assert cluster[0] < values.mean() < cluster[1]
    width_item, width_cluster = item[1] - item[0], cluster[1] - cluster[0]
    # design effect 1 + (12 - 1) * ICC ~ 12: the width about sqrt(12) ~ 3.5 times the item bootstrap's
    assert 2.5 < width_cluster / width_item < 4.5
    # and it agrees with the textbook standard error of a mean of 60 cluster means
    se = effect.std(ddof=1) / np.sqrt(60)
    assert width_cluster == pytest.approx(2 * 1.96 * se, rel=0.15)


def test_stratified_cluster_interval_resamples_units_within_each_group():
    rng = np.random.default_rng(8)
    a = np.repeat(rng.normal(0, 1, 20), 5)
    b = np.repeat(rng.normal(5, 1, 30), 4)
    la, lb = np.repeat(np.arange(20), 5).tolist(), np.repeat(np.arange(30), 4).tolist()  # the same labels in both: separate units
    low, high = mean_ci([a, b], units=[la, lb])
    assert low < mean_of_means([a, b]) < high
    alone = mean_ci([a], units=[la])
    assert high - low < alone[1] - alone[0]  # two strata halve each one's weight


def test_fewer_than_two_units_gives_none_and_labels_must_fit():
    assert mean_ci([[0.1, 0.5, 0.9]], units=[["f", "f", "f"]]) is None  # one frame: no spread to resample
    with pytest.raises(ValueError, match="2 unit labels for 3 items"):
        mean_ci([[0.1, 0.5, 0.9]], units=[["f", "g"]])
    with pytest.raises(ValueError, match="1 unit label lists for 2 groups"):
        mean_ci([[0.1, 0.5], [0.2, 0.3]], units=[None])
