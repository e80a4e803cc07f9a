"""Chance per column: every composition-type column against its OWN suite's controls and chance level.

A column's band (:class:`Band`) is the range of the control rows' scores on that column (their main
score on the suite, or their score on one category), widened to the suite's declared ``chance``
(``LeaderboardFacts.chance``: the main score of a scorer that ranks at random). A score at or below
the band's top is no evidence of reading for meaning: the page greys it. Where the controls sit
below the declared chance (NevIR: a query-blind scorer prefers the same passage for both queries,
so its paired accuracy is 0, under the 0.25 of random ranking), the band reaches up to the chance
level, and the column's line says so. Columns where a control beats every or most ranked models
get one generated line (:func:`band_lines`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from harness.leaderboard.collect import Cell, Leaderboard, Row, dataset_cell

ABOVE, INSIDE, BELOW = "above", "inside", "below"


@dataclass(frozen=True)
class Band:
    label: str  # the column as the page names it, e.g. "SugarCrepe++" or "nearmiss / negation"
    chance: float | None  # the suite's declared chance level
    controls: tuple[float, float] | None = None  # (lowest, highest) score of the controls on the column
    n_controls: int = 0
    best_control: str | None = None  # the control with the highest score (first by name on ties)
    best_word: str = "control"  # how its description names it ("blind control", "surface control")
    ranked: list[tuple[str, float]] = field(default_factory=list)  # (submission, score) of the ranked rows, page order

    @property
    def reference(self) -> tuple[float, float] | None:
        """(low, high): the controls' range widened to the declared chance; None with neither."""
        values = [v for v in (*(self.controls or ()), self.chance) if v is not None]
        return (min(values), max(values)) if values else None

    @property
    def top(self) -> float | None:
        ref = self.reference
        return None if ref is None else ref[1]

    def place(self, value: float | None) -> str | None:
        """``above`` / ``inside`` / ``below`` the band; None without a score or a band."""
        ref = self.reference
        if value is None or ref is None:
            return None
        if value > ref[1]:
            return ABOVE
        return BELOW if value < ref[0] else INSIDE

    @property
    def below_chance(self) -> bool:
        """The controls all score under the declared chance level."""
        return self.controls is not None and self.chance is not None and self.controls[1] < self.chance

    @property
    def beaten(self) -> int:
        """How many ranked models score below the best control."""
        if self.controls is None:
            return 0
        return sum(1 for _n, v in self.ranked if v < self.controls[1])

    def text(self) -> str:
        """What the band is, in words: 'controls 0.4699–0.5313 (14), chance 0.5000'."""
        parts = []
        if self.controls is not None:
            lo, hi = self.controls
            rng = f"{lo:.4f}" if lo == hi else f"{lo:.4f}–{hi:.4f}"
            parts.append(f"controls {rng} ({self.n_controls})")
        if self.chance is not None:
            parts.append(f"chance {self.chance:.4f}")
        return ", ".join(parts) if parts else "no controls, no chance level"

    def line(self) -> str | None:
        """One sentence when the controls beat every or most ranked models, or sit below chance."""
        out = []
        if self.controls is not None and self.ranked:
            hi, n, m = self.controls[1], self.beaten, len(self.ranked)
            who = f"the {self.best_word} {self.best_control} ({hi:.4f})"
            if n == m:
                best, best_v = max(self.ranked, key=lambda nv: nv[1])
                out.append(f"{self.label}: {who} scores above every ranked model (best ranked: {best} {best_v:.4f}).")
            elif 2 * n > m:
                out.append(f"{self.label}: {who} scores above {n} of {m} ranked models.")
        if self.below_chance:
            lo, hi = self.controls  # type: ignore[misc]
            rng = f"all score {lo:.4f}" if lo == hi else f"score {lo:.4f}–{hi:.4f}"
            out.append(
                f"{self.label}: the {self.n_controls} controls {rng}, below the suite's chance level {self.chance:.4f}; "
                f"the band reaches up to chance, so scores up to {self.chance:.4f} are greyed."
            )
        return " ".join(out) or None


_WORD = re.compile(r"^\s*(\w+) control\b", re.I)


def control_word(description: str) -> str:
    """'blind control' from 'Blind control: ...'; plain 'control' otherwise."""
    m = _WORD.match(description or "")
    return f"{m.group(1).lower()} control" if m else "control"


def make_band(label: str, chance: float | None, controls: list[tuple[Row, float | None]], ranked: list[tuple[Row, float | None]]) -> Band:
    """The band of one column from the controls' and ranked rows' scores on it."""
    scored = [(r, v) for r, v in controls if v is not None]
    rng = (min(v for _r, v in scored), max(v for _r, v in scored)) if scored else None
    best = min(scored, key=lambda rv: (-rv[1], rv[0].submission))[0] if scored else None
    return Band(
        label=label,
        chance=chance,
        controls=rng,
        n_controls=len(scored),
        best_control=best.submission if best is not None else None,
        best_word=control_word(best.description) if best is not None else "control",
        ranked=[(r.submission, v) for r, v in ranked if v is not None],
    )


def _chance(lb: Leaderboard, suite: str | None) -> float | None:
    f = lb.facts.get(suite or "")
    return f.chance if f is not None else None


def cell_band(lb: Leaderboard, suite: str | None, label: str, cell_of) -> Band:
    """A column's band: ``cell_of(row)`` -> Cell for the controls and the ranked rows."""

    def value(row: Row) -> float | None:
        c: Cell = cell_of(row)
        return c.value

    return make_band(label, _chance(lb, suite), [(r, value(r)) for r in lb.controls], [(r, value(r)) for r in lb.rows])


@dataclass
class Bands:
    """The bands of the page's composition-type columns."""

    composition: Band | None
    categories: dict[str, Band]
    second: Band | None
    extras: dict[str, Band]

    def columns(self) -> list[Band]:
        """Suite-level columns in page order: the composition axis, the second column, the extras."""
        return [b for b in (self.composition, self.second, *self.extras.values()) if b is not None]


def bands(lb: Leaderboard) -> Bands:
    comp, second = lb.composition_suite, lb.second_suite
    return Bands(
        composition=cell_band(lb, comp, lb.label(comp), lambda r: r.composition) if comp else None,
        categories={c: cell_band(lb, comp, f"{lb.label(comp)} / {c}", lambda r, c=c: r.categories.get(c, Cell(None))) for c in lb.categories},
        second=cell_band(lb, second, lb.label(second), lambda r: r.second) if second else None,
        extras={s: cell_band(lb, s, lb.label(s), lambda r, s=s: r.extras.get(s, Cell(None))) for s in lb.extra_suites},
    )


def band_lines(lb: Leaderboard) -> list[str]:
    """One line per suite-level column where a control beats every or most ranked models, or where
    the controls sit below the declared chance level."""
    return [line for b in bands(lb).columns() if (line := b.line())]


def dataset_band(lb: Leaderboard, suite: str, dataset: str) -> Band:
    """The band of one dataset (near-miss category) of any suite: its controls' scores on it."""
    ctl = []
    for row in lb.controls:
        r = lb.results.get((row.submission, suite))
        if r is not None:
            ctl.append((row, dataset_cell(r, dataset, r.main_metric).value))
    return make_band(f"{lb.label(suite)} / {dataset}", _chance(lb, suite), ctl, [])
