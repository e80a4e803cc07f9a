"""Heatmaps for index.html: submissions x datasets of each suite (near-miss categories, retrieval
datasets), each cell coloured by its main-metric score, so the trade-off's shape shows at a glance.

One table per suite with results: ranked submissions in page order, then the controls, marked.
Colours are centred on chance: per column, the band of that column's controls widened to the
suite's declared chance level (:mod:`harness.leaderboard.chance`) is neutral grey; above it blue,
below it orange, darker with the distance from the band (darkest at 0.5 away). So a column at
chance stays grey however its scores spread, and a score just outside its band stays pale. A suite
with neither controls nor a chance level (retrieval) keeps a sequential scale from its table's lowest score (light) to its highest (dark).

The page keeps each cell's score and colour; a cell's ``title`` (hover text) is written only where
there is no score (the reason), and the page's script makes the others' from the column's header.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.leaderboard.chance import ABOVE, BELOW, Band, dataset_band
from harness.leaderboard.collect import Leaderboard, dataset_cell

# ColorBrewer YlGnBu, light (low) to dark (high): suites without a chance band
RAMP = ("#ffffd9", "#c7e9b4", "#7fcdbb", "#41b6c4", "#1d91c0", "#225ea8", "#0c2c84")
# Centred on chance: ColorBrewer Blues above the band, Oranges below, light (near it) to dark (far)
NEUTRAL = "#e9e9e9"
ABOVE_RAMP = ("#dbe9f6", "#9ecae1", "#6baed6", "#3182bd", "#08519c", "#08306b")
BELOW_RAMP = ("#fde3c8", "#fdae6b", "#f16913", "#d94801", "#8c2d04")
FULL_AT = 0.5  # the distance from the band at which a colour is darkest


@dataclass(frozen=True)
class HeatCell:
    text: str
    title: str
    colour: str | None = None  # None: no score
    dark: bool = False  # white text


@dataclass(frozen=True)
class HeatRow:
    submission: str
    control: bool
    cells: list[HeatCell]


@dataclass(frozen=True)
class Heatmap:
    suite: str
    title: str
    metric: str
    columns: list[str]
    rows: list[HeatRow]
    low: float | None
    high: float | None
    centred: bool = False  # coloured around each column's chance band (else: sequential low..high)
    bands: list[str] | None = None  # per column: its band in words (centred tables)

    @property
    def gradient(self) -> str:
        if self.centred:
            stops = [*reversed(BELOW_RAMP), NEUTRAL, NEUTRAL, *ABOVE_RAMP]
            return "linear-gradient(to right, " + ", ".join(stops) + ")"
        return "linear-gradient(to right, " + ", ".join(RAMP) + ")"


def colour(t: float, ramp: tuple[str, ...] = RAMP) -> tuple[str, bool]:
    """The ramp's colour at ``t`` in [0, 1] (linear in RGB between stops), and whether it is dark."""
    t = min(1.0, max(0.0, t)) * (len(ramp) - 1)
    i = min(int(t), len(ramp) - 2)
    a, b = (tuple(int(c[k : k + 2], 16) for k in (1, 3, 5)) for c in (ramp[i], ramp[i + 1]))
    rgb = [round(x + (y - x) * (t - i)) for x, y in zip(a, b, strict=True)]
    luminance = (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255
    return "#" + "".join(f"{v:02x}" for v in rgb), luminance < 0.5


def _columns(lb: Leaderboard, suite: str, names: list[str]) -> list[str]:
    seen: list[str] = []
    for name in names:
        r = lb.results[(name, suite)]
        for ds in [*r.datasets, *r.skipped]:
            if ds not in seen:
                seen.append(ds)
    order = list(lb.facts[suite].category_order) if suite in lb.facts else []
    return [c for c in order if c in seen] + [c for c in seen if c not in order]


def centred_colour(value: float, band: Band) -> tuple[str, bool]:
    """Grey inside the band; above it blue, below it orange, darker with the distance from the band,
    full colour at FULL_AT (score units: the main metrics of near-miss suites are accuracies and
    AUROC, in [0, 1]), so a score just outside its band stays pale wherever the band lies."""
    low, high = band.reference  # type: ignore[misc]
    where = band.place(value)
    if where == ABOVE:
        return colour((value - high) / FULL_AT, ABOVE_RAMP)
    if where == BELOW:
        return colour((low - value) / FULL_AT, BELOW_RAMP)
    return NEUTRAL, False


def heatmap(lb: Leaderboard, suite: str) -> Heatmap:
    rows = [(r.submission, False) for r in lb.rows] + [(r.submission, True) for r in lb.controls]
    rows = [(name, control) for name, control in rows if (name, suite) in lb.results]
    names = [name for name, _c in rows]
    columns = _columns(lb, suite, names)
    metric = lb.results[(names[0], suite)].main_metric
    cells = {name: {ds: dataset_cell(lb.results[(name, suite)], ds, metric) for ds in columns} for name in names}
    values = [c.value for per in cells.values() for c in per.values() if c.value is not None]
    low, high = (min(values), max(values)) if values else (None, None)
    bands = {ds: dataset_band(lb, suite, ds) for ds in columns}
    centred = all(b.reference is not None for b in bands.values()) and bool(columns)
    out = []
    for name, control in rows:
        row = []
        for ds in columns:
            c = cells[name][ds]
            if c.value is None or low is None or high is None:
                row.append(HeatCell("—", f"{name} · {ds}: {c.note or 'no score'}"))
                continue
            title = f"{name} · {ds}: {metric} {c.value:.4f}"
            if centred:
                fill, dark = centred_colour(c.value, bands[ds])
                title += f" ({bands[ds].place(c.value)} the band: {bands[ds].text()})"
            else:
                fill, dark = colour((c.value - low) / (high - low) if high > low else 0.5)
            row.append(HeatCell(f"{c.value:.3f}", title, fill, dark))
        out.append(HeatRow(name, control, row))
    band_texts = [bands[ds].text() for ds in columns] if centred else None
    return Heatmap(suite, lb.label(suite), metric, columns, out, low, high, centred, band_texts)


def heatmaps(lb: Leaderboard) -> list[Heatmap]:
    """Near-miss suites first (the composition axis, then the page's columns), then retrieval."""
    return [heatmap(lb, s) for s in [*lb.suites_of("nearmiss"), *lb.suites_of("retrieval")]]
