"""How the leaderboard writes numbers (shared by the tables and the generated summary)."""

from __future__ import annotations

MISSING = "—"


def fmt_score(x: float | None) -> str:
    return MISSING if x is None else f"{x:.4f}"


def fmt_params(n: int | None) -> str:
    if n is None:
        return MISSING
    for div, unit in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            return f"{n / div:.1f}{unit}"
    return str(n)
