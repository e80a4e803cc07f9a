"""Pareto front, layers and the ranking rule."""

from __future__ import annotations

from harness.leaderboard.pareto import dominates, pareto_front, pareto_layers, rank


def test_single_point_is_the_front():
    assert pareto_front({"a": (0.1, 0.2)}) == {"a"}
    assert rank({"a": (0.1, 0.2)}) == [("a", 1)]


def test_empty():
    assert pareto_layers({}) == {}
    assert rank({}) == []


def test_strictly_dominated_point_is_layer_two():
    assert pareto_layers({"a": (0.5, 0.5), "b": (0.4, 0.4)}) == {"a": 1, "b": 2}


def test_identical_points_are_both_on_the_front():
    layers = pareto_layers({"a": (0.5, 0.5), "b": (0.5, 0.5), "c": (0.1, 0.1)})
    assert layers == {"a": 1, "b": 1, "c": 2}


def test_weakly_dominated_point_is_not_on_the_front():
    # equal on one axis, lower on the other
    assert pareto_front({"a": (0.5, 0.5), "b": (0.5, 0.4), "c": (0.3, 0.5)}) == {"a"}
    assert pareto_layers({"a": (0.5, 0.5), "b": (0.5, 0.4), "c": (0.3, 0.5)}) == {"a": 1, "b": 2, "c": 2}
    assert dominates((0.5, 0.5), (0.5, 0.4))
    assert not dominates((0.5, 0.5), (0.5, 0.5))


def test_trade_off_points_share_the_front_and_layers_peel():
    pts = {"ret": (0.9, 0.1), "comp": (0.1, 0.9), "mid": (0.5, 0.5), "low": (0.4, 0.4), "lowest": (0.05, 0.05)}
    assert pareto_layers(pts) == {"ret": 1, "comp": 1, "mid": 1, "low": 2, "lowest": 3}


def test_ranking_within_a_layer_by_mean_then_name():
    pts = {"b": (0.2, 0.8), "a": (0.8, 0.2), "c": (0.6, 0.6), "d": (0.1, 0.1)}
    # c: mean 0.6; a and b: mean 0.5 -> by name
    assert rank(pts) == [("c", 1), ("a", 1), ("b", 1), ("d", 2)]


def test_layer_beats_mean():
    # y is on the front with a low mean; x is dominated by z yet has a higher mean than y
    pts = {"y": (0.0, 1.0), "z": (0.9, 0.9), "x": (0.8, 0.8)}
    assert rank(pts) == [("z", 1), ("y", 1), ("x", 2)]


def test_missing_axes_get_no_layer_and_rank_last_by_name():
    pts = {"zz": (0.1, 0.1), "m2": None, "m1": None, "top": (0.9, 0.9)}
    assert pareto_layers(pts) == {"zz": 2, "m2": None, "m1": None, "top": 1}
    assert rank(pts) == [("top", 1), ("zz", 2), ("m1", None), ("m2", None)]


def test_only_missing():
    assert rank({"b": None, "a": None}) == [("a", None), ("b", None)]
