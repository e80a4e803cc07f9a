"""Pareto layers over (retrieval, composition), both maximised, and the leaderboard ranking rule."""

from __future__ import annotations

from collections.abc import Mapping

Point = tuple[float, float]

RANKING_RULE = (
    "Ranking: Pareto layer ascending (layer 1 = the Pareto front over retrieval and composition, both "
    "maximised; remove it, the next front is layer 2, ...), then the mean of the two axes descending, "
    "then name. Rows missing either axis get no layer and rank after all complete rows, by name."
)


def dominates(p: Point, q: Point) -> bool:
    """p dominates q: at least as good on both axes and strictly better on one."""
    return p[0] >= q[0] and p[1] >= q[1] and (p[0] > q[0] or p[1] > q[1])


def pareto_front(points: Mapping[str, Point]) -> set[str]:
    """Names of the points no other point dominates (identical points are all on the front)."""
    return {name for name, p in points.items() if not any(dominates(q, p) for q in points.values())}


def pareto_layers(points: Mapping[str, Point | None]) -> dict[str, int | None]:
    """Layer per name: 1 = front; remove it and the next front is 2, ... None when an axis is missing."""
    layers: dict[str, int | None] = {name: None for name, p in points.items() if p is None}
    remaining = {name: p for name, p in points.items() if p is not None}
    layer = 1
    while remaining:
        front = pareto_front(remaining)
        for name in front:
            layers[name] = layer
            del remaining[name]
        layer += 1
    return {name: layers[name] for name in points}


def rank_key(name: str, point: Point | None, layer: int | None) -> tuple:
    if point is None or layer is None:
        return (1, 0, 0.0, name)
    return (0, layer, -(point[0] + point[1]) / 2, name)


def rank(points: Mapping[str, Point | None]) -> list[tuple[str, int | None]]:
    """(name, layer) in leaderboard order (see RANKING_RULE)."""
    layers = pareto_layers(points)
    order = sorted(points, key=lambda n: rank_key(n, points[n], layers[n]))
    return [(n, layers[n]) for n in order]
