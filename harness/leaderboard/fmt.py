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


def fmt_ms(x: float | None) -> str:
    """Milliseconds to about three significant digits (0.0412, 1.23, 12.3, 1234); blank when not measured."""
    if x is None:
        return ""
    if abs(x) >= 100:
        return f"{x:.0f}"
    return f"{x:.3g}"
