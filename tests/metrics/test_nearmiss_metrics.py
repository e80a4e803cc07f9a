import numpy as np
import pytest

from harness.metrics.nearmiss import pair_metrics, triplet_metrics


def test_triplet_metrics_by_hand():
    s_ap = np.array([0.9, 0.8, 0.7, 0.6])
    s_an = np.array([0.5, 0.85, 0.7, 0.1])  # wins, loses, tie (fails), wins
    m = triplet_metrics(s_ap, s_an)
    assert m["triplet_accuracy"] == 0.5
    assert m["mean_sim_positive"] == pytest.approx(0.75) and m["mean_sim_negative"] == pytest.approx(0.5375)
    assert m["sim_gap"] == pytest.approx(0.2125)
    # AUROC = P(pos > neg) + 0.5 P(tie) over all 16 (pos, neg) pairs
    wins = sum((p > n) + 0.5 * (p == n) for p in s_ap for n in s_an)
    assert m["auroc"] == pytest.approx(wins / 16)
    # accepting 95% of 4 positives means accepting all of them: threshold 0.6 -> negatives >= 0.6: 0.85, 0.7
    assert m["false_accept@95"] == pytest.approx(0.5)
    assert "tot_accuracy" not in m


def test_tot_accuracy_needs_both_conditions():
    s12 = np.array([0.9, 0.9, 0.9])
    s1n = np.array([0.5, 0.95, 0.5])
    s2n = np.array([0.5, 0.5, 0.95])
    assert triplet_metrics(s12, s1n, s2n)["tot_accuracy"] == pytest.approx(1 / 3)


def test_pair_metrics_only_report_what_is_defined():
    only_neg = pair_metrics(np.array([0.2, 0.4]), np.array([0, 0]))
    assert only_neg == {"n": 2.0, "mean_sim_negative": pytest.approx(0.3)}
    both = pair_metrics(np.array([0.9, 0.8, 0.3]), np.array([1, 1, 0]))
    assert both["auroc"] == 1.0 and both["false_accept@95"] == 0.0


def test_item_metrics_four_cells_group_and_pooled_auroc_by_hand():
    from harness.metrics.nearmiss import item_metrics

    # item 0: everything right; item 1: pos_far loses to neg_close only; item 2: ties everywhere
    s_pc = np.array([0.9, 0.8, 0.5])
    s_pf = np.array([0.7, 0.4, 0.5])
    s_nc = np.array([0.3, 0.6, 0.5])
    s_nf = np.array([0.2, 0.1, 0.5])
    m = item_metrics(s_pc, s_pf, s_nc, s_nf)
    assert m["cell_close_close"] == pytest.approx(2 / 3)
    assert m["cell_close_far"] == pytest.approx(2 / 3)
    assert m["cell_far_close"] == pytest.approx(1 / 3)
    assert m["cell_far_far"] == pytest.approx(2 / 3)
    assert m["triplet_accuracy"] == pytest.approx((2 / 3 * 3 + 1 / 3) / 4)
    assert m["group_accuracy"] == pytest.approx(1 / 3)
    assert m["n"] == 3.0
    pos, neg = np.r_[s_pc, s_pf], np.r_[s_nc, s_nf]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    assert m["auroc"] == pytest.approx(wins / 36)
    assert m["sim_gap"] == pytest.approx(pos.mean() - neg.mean())


def test_per_item_values_average_to_the_dataset_metrics():
    """Every accuracy is the mean of its per-item values (what intervals resample)."""
    from harness.metrics.nearmiss import item_item_values, item_metrics, triplet_item_values, triplet_metrics

    rng = np.random.default_rng(0)
    s_ap, s_an, s_pn = rng.random(50), rng.random(50), rng.random(50)
    whole, per = triplet_metrics(s_ap, s_an, s_pn), triplet_item_values(s_ap, s_an, s_pn)
    assert set(per) == {"triplet_accuracy", "tot_accuracy"}
    for k, v in per.items():
        assert len(v) == 50 and v.mean() == pytest.approx(whole[k], abs=1e-12), k
    four = [rng.random(40) for _ in range(4)]
    whole, per = item_metrics(*four), item_item_values(*four)
    assert set(per) == {k for k in whole if k.endswith("_accuracy") or k.startswith("cell_")}
    assert len(per) == 6
    for k, v in per.items():
        assert len(v) == 40 and v.mean() == pytest.approx(whole[k], abs=1e-12), k
    assert set(np.unique(per["triplet_accuracy"])) <= {0.0, 0.25, 0.5, 0.75, 1.0}
