"""harness.stats.paired: McNemar's exact test and the paired permutation (sign-flip) test."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from harness.stats.paired import at_floor, discordant, mcnemar_floor, mcnemar_p, permutation_floor, permutation_p, sign_flip_p_values


def test_mcnemar_exact_textbook_value():
    # b = 10 discordant pairs one way, c = 2 the other: under H0 X ~ Binomial(12, 1/2),
    # exact two-sided p = 2 * P(X <= 2) = 2 * (1 + 12 + 66) / 4096 = 0.03857421875
    expected = 2 * sum(comb(12, k) for k in range(3)) / 2**12
    assert expected == 0.03857421875
    assert mcnemar_p(10, 2) == pytest.approx(expected, abs=1e-12)
    assert mcnemar_p(2, 10) == pytest.approx(expected, abs=1e-12)  # symmetric
    assert round(mcnemar_p(10, 2), 4) == 0.0386


def test_mcnemar_edge_cases():
    assert mcnemar_p(0, 0) == 1.0  # no discordant pairs: no evidence either way
    assert mcnemar_p(3, 3) == 1.0
    assert mcnemar_p(6, 0) == pytest.approx(2 / 2**6)


def test_discordant_counts():
    a = [1, 1, 0, 0, 1, 1]
    b = [1, 0, 1, 0, 0, 1]
    assert discordant(a, b) == (2, 1)


def test_permutation_exact_by_hand():
    # differences 1, 2, 3: 8 sign patterns, mean 2 observed; |mean| >= 2 only for +++ and ---
    assert permutation_p([[1.0, 2.0, 3.0]]) == pytest.approx(2 / 8)
    assert permutation_p([[0.0, 0.0, 0.0]]) == 1.0


def test_permutation_stratified_statistic_and_seed():
    # group 1 (1, 1) and group 2 (0.5, -0.5): statistic = mean of the group means = (1 + 0) / 2 = 0.5.
    # 16 sign patterns. Group 1's signs agree (4 of them: group-1 mean +-1): statistic = (+-1 + m2) / 2
    # with m2 in {0, 0, 0.5, -0.5}, so |statistic| >= 0.5 for 3 of 4 patterns of group 2; they differ
    # (group-1 mean 0): |m2 / 2| <= 0.25, never. p = (2 * 3) / 16
    assert permutation_p([[1.0, 1.0], [0.5, -0.5]]) == pytest.approx(6 / 16)
    rng = np.random.default_rng(5)
    d = rng.normal(1.0, 1.0, 60)  # a clear shift: p at its floor, two-sided 2 * (0 + 1) / (5000 + 1)
    p1 = permutation_p([d[:20], d[20:]])
    assert p1 == permutation_p([d[:20], d[20:]])  # seeded
    assert p1 == pytest.approx(2 / 5001)


def test_exact_sign_flip_on_outcomes_is_mcnemar():
    # 0/1 outcomes: differences +1 (A right, B wrong) x10, -1 x2; 2^12 sign patterns, enumerated
    d = [1.0] * 10 + [-1.0] * 2
    assert permutation_p([d]) == pytest.approx(mcnemar_p(10, 2), abs=1e-12)


def test_sign_flip_p_values_equal_the_exact_permutation_test():
    # the hand-worked cases above, as columns of one call (exact: 2^items <= resamples)
    cols = np.array([[1.0, 1.0, 0.0], [1.0, -1.0, 0.0], [0.5, 2.0, 0.0], [-0.5, 0.25, 0.0]])
    p = sign_flip_p_values(cols, [2, 2])
    assert p[0] == pytest.approx(6 / 16)
    assert p[1] == pytest.approx(permutation_p([cols[:2, 1], cols[2:, 1]]), abs=1e-12)
    assert p[2] == 1.0  # nothing differs
    d = np.array([1.0] * 10 + [-1.0] * 2)[:, None]
    assert sign_flip_p_values(d, [12])[0] == pytest.approx(mcnemar_p(10, 2), abs=1e-12)


def test_sign_flip_p_values_agree_with_scipy_when_randomised():
    rng = np.random.default_rng(3)
    groups = [40, 25, 60]
    cols = np.stack([rng.normal(shift, 1.0, sum(groups)) for shift in (0.0, 0.15, 0.3, 1.0)], axis=1)
    cols[:, 0] = np.round(cols[:, 0] * 4) / 4  # discrete values: ties with the observed statistic
    mine = sign_flip_p_values(cols, groups)
    assert np.array_equal(mine, sign_flip_p_values(cols, groups))  # seeded
    splits = np.cumsum(groups)[:-1]
    for j in range(cols.shape[1]):
        theirs = permutation_p(np.split(cols[:, j], splits))
        assert abs(mine[j] - theirs) < 0.03 + 0.2 * theirs, (j, mine[j], theirs)  # Monte Carlo error
    assert mine[3] == pytest.approx(2 / 5001)  # a clear shift: the floor, as scipy's
    assert sign_flip_p_values(cols[:, :1], groups, seed=1)[0] != mine[0]  # the seed matters


def test_sign_flip_p_values_need_matching_groups():
    with pytest.raises(ValueError, match="add up to 3"):
        sign_flip_p_values(np.zeros((4, 1)), [1, 2])


# -- resampling units: signs flipped per unit ------------------------------------------------------
def brute_force_p(groups: list[list[float]], units: list[list[str]]) -> float:
    """The two-sided sign-flip p-value by enumeration, written out: every pattern of one sign per
    (group, unit), the statistic the mean over groups of each group's mean difference."""
    from itertools import product

    keys = sorted({(g, u) for g, labels in enumerate(units) for u in labels})

    def stat(signs: dict) -> float:
        return float(np.mean([np.mean([signs[(g, u)] * d for d, u in zip(ds, units[g], strict=True)]) for g, ds in enumerate(groups)]))

    observed = stat(dict.fromkeys(keys, 1))
    null = [stat(dict(zip(keys, s, strict=True))) for s in product((1, -1), repeat=len(keys))]
    eps = 1e-12
    return min(1.0, 2 * min(sum(x <= observed + eps for x in null), sum(x >= observed - eps for x in null)) / len(null))


def test_permutation_by_unit_by_hand():
    # 3 units of sizes 1, 2, 3 in one group; their difference sums 1, 2 - 1 = 1 and 0.5 + 0.5 + 1 = 2,
    # i.e. the statistic (mean over the 6 items) is (+-1 +-1 +-2) / 6: 8 sign patterns, observed 4 / 6;
    # as large for +++ only, as small (-4 / 6) for --- only: p = 2 * 1 / 8
    d = [1.0, 2.0, -1.0, 0.5, 0.5, 1.0]
    units = ["a", "b", "b", "c", "c", "c"]
    assert permutation_p([d], units=[units]) == pytest.approx(2 / 8)
    assert permutation_p([d], units=[units]) == pytest.approx(brute_force_p([d], [units]))
    # items flipped alone: 2^6 patterns, a different p (the brute force agrees with the item test too)
    item_p = permutation_p([d])
    assert item_p == pytest.approx(brute_force_p([d], [[str(i) for i in range(6)]]))
    assert item_p != pytest.approx(2 / 8)
    cols = np.array(d)[:, None]
    assert sign_flip_p_values(cols, [6], units=[units])[0] == pytest.approx(2 / 8)
    assert permutation_floor(3) == 2 / 8  # p is at the floor: 3 units can give nothing smaller
    assert at_floor(2 / 8, permutation_floor(3)) and not at_floor(item_p, permutation_floor(6))


def test_permutation_by_unit_stratified_matches_enumeration():
    groups = [[0.3, -0.1, 0.4, 0.2], [1.0, -0.5, 0.25]]
    units = [["f1", "f1", "f2", "f3"], ["f1", "f2", "f2"]]  # f1 of group 1 and f1 of group 2 are different units
    expected = brute_force_p(groups, [[f"0{u}" for u in units[0]], [f"1{u}" for u in units[1]]])
    assert permutation_p(groups, units=units) == pytest.approx(expected, abs=1e-12)
    cols = np.array(groups[0] + groups[1])[:, None]
    assert sign_flip_p_values(cols, [4, 3], units=units)[0] == pytest.approx(expected, abs=1e-12)


def test_units_cancelling_within_give_p_one():
    assert permutation_p([[1.0, -1.0, 2.0, -2.0]], units=[["a", "a", "b", "b"]]) == 1.0


def test_randomised_by_unit_agrees_with_scipy_and_floor():
    rng = np.random.default_rng(9)
    labels = [np.repeat(np.arange(30), 5).tolist(), np.repeat(np.arange(20), 3).tolist()]
    effect = [np.repeat(rng.normal(0.05, 0.3, 30), 5), np.repeat(rng.normal(0.05, 0.3, 20), 3)]
    cols = np.concatenate(effect)[:, None]
    mine = sign_flip_p_values(cols, [150, 60], units=labels)[0]
    theirs = permutation_p(effect, units=labels)
    assert abs(mine - theirs) < 0.03 + 0.2 * theirs
    # the same data flipped item by item looks far more certain than by unit
    assert permutation_p(effect) < theirs
    shifted = [e + 1.0 for e in effect]
    assert permutation_p(shifted, units=labels) == pytest.approx(permutation_floor(50)) == pytest.approx(2 / 5001)


def test_floors():
    assert permutation_floor(12) == 2 / 2**12  # 4096 patterns <= 5000: exact
    assert permutation_floor(13) == 2 / 5001  # randomised
    assert permutation_floor(13, n_resamples=9999) == 2 / 2**13
    assert permutation_floor(0) == 1.0
    assert mcnemar_floor(6, 0) == mcnemar_p(6, 0) == pytest.approx(2 / 64)
    assert mcnemar_floor(0, 0) == 1.0 and mcnemar_floor(1, 0) == 1.0
    assert at_floor(2 / 5001, 2 / 5001) and not at_floor(4 / 5001, 2 / 5001)
