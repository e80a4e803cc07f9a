"""tradeoff.svg: retrieval main score (x) against composition main score (y), Pareto front as a step line.

Two layouts of the same plot: ``wide`` (tradeoff.svg, and the page on a wide screen: legend to the
right) and ``narrow`` (the page on a phone, shown by a media query: taller, legend below, larger
type for its width). Labels never overlap: each is placed by a greedy search over positions around
its point (nearest first, a leader line when it sits away from the point), checked against every
label placed before and every point, in display coordinates measured with the same font the page
uses (DejaVu Sans). The Pareto front is always labelled, first; other points get a label where one
fits near them (wide layout only); every point carries an SVG ``<title>`` (name, both scores and
their 95% intervals), so hovering tells the rest.

Byte-deterministic: no pyplot state, a fixed ``svg.hashsalt`` per layout (element ids), no date in
the metadata, text kept as text (``svg.fonttype = none``), so regenerating from the same results
gives the same file.
"""

from __future__ import annotations

import io
import math
import re
import textwrap
from dataclasses import dataclass
from xml.sax.saxutils import escape

import matplotlib

matplotlib.use("Agg")

from matplotlib import rc_context  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from harness import __version__  # noqa: E402
from harness.leaderboard.collect import Leaderboard, Row  # noqa: E402
from harness.scorers.base import Scorer  # noqa: E402
from harness.scorers.registry import SCORERS  # noqa: E402

# Each scorer kind declares its colour (Scorer.colour); the legend lists kinds in registration order.
OTHER_COLOUR = Scorer.colour
FRONT_COLOUR = "#444444"
BAND_COLOUR = "#9e9e9e"
YOURS_COLOUR = "#d93025"  # the ring around a point from an --overlay folder ("your run")


@dataclass(frozen=True)
class Layout:
    name: str
    size: tuple[float, float]  # inches
    font: float  # ticks, axis titles (points)
    label: float  # point labels (points)
    legend_below: bool
    label_others: bool  # label points off the front where a label fits
    salt: str
    wrap: int  # characters per line of the axis notes


WIDE = Layout("wide", (13.0, 6.2), 10.0, 9.5, False, True, "cbench-leaderboard", 160)
NARROW = Layout("narrow", (4.3, 6.9), 9.0, 8.5, True, False, "cbench-leaderboard-narrow", 58)
LAYOUTS = {"wide": WIDE, "narrow": NARROW}

# Positions tried around a point: directions (8, then 16 for the front) x distances (points).
DIRS8 = [(1, 0), (1, 1), (1, -1), (-1, 0), (-1, 1), (-1, -1), (0, 1), (0, -1)]
DIRS16 = DIRS8 + [(2, 1), (2, -1), (-2, 1), (-2, -1), (1, 2), (1, -2), (-1, 2), (-1, -2)]
NEAR = (5.0, 11.0, 18.0)  # off the front: close by or not at all
FAR = (5.0, 11.0, 18.0, 28.0, 40.0, 55.0, 75.0, 100.0, 130.0)
LEADER_FROM = 11.0  # a leader line from this distance on
PAD = 2.5  # points of clearance around every label
MARKER = 36  # scatter size (points^2)


def kind_colour(kind: str) -> str:
    cls = SCORERS.get(kind)
    return cls.colour if cls is not None else OTHER_COLOUR


def axis_title(role: str, label: str, suite: str | None, metric: str) -> str:
    return f"{role}: {label} {metric}" if suite else f"{role}: (no results)"


def _interval(cell) -> str:
    return f" (95% interval {cell.ci95[0]:.4f}–{cell.ci95[1]:.4f})" if cell.ci95 is not None else ""


def point_title(lb: Leaderboard, r: Row) -> str:
    """The hover text of one point."""
    x, y = r.point  # type: ignore[misc]
    layer = f"Pareto layer {r.layer}" + (" (front)" if r.pareto else "")
    return (
        f"{r.submission}{' (your run)' if r.overlay else ''} · {r.kind} · rank {r.rank}, {layer}\n"
        f"retrieval {lb.label(lb.retrieval_suite)} {lb.retrieval_metric} {x:.4f}{_interval(r.retrieval)}\n"
        f"composition {lb.label(lb.composition_suite)} {lb.composition_metric} {y:.4f}{_interval(r.composition)}"
    )


def tradeoff_svg(lb: Leaderboard, layout: str = "wide", *, notes: bool = True) -> str:
    """The SVG document as text, in the ``wide`` (tradeoff.svg) or ``narrow`` layout; ``notes``: the
    axis notes (e.g. a fallback axis) as a title over the plot (tradeoff.svg stands alone; the page
    says them once, above its plots)."""
    lay = LAYOUTS[layout]
    rc = {"svg.hashsalt": lay.salt, "svg.fonttype": "none", "font.family": "DejaVu Sans", "font.size": lay.font}
    rows = [r for r in lb.rows if r.point is not None]
    with rc_context(rc):
        fig = Figure(figsize=lay.size, layout="constrained")
        FigureCanvasAgg(fig)  # measures text; the SVG is written by savefig's own canvas
        ax = fig.add_subplot(1, 1, 1)
        handles, labels = _draw(lb, ax, rows)
        if not rows:
            ax.text(0.5, 0.5, "no submission has both scores yet", transform=ax.transAxes, ha="center", va="center", color="#666666")
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1)
        ax.set_xlabel(axis_title("Retrieval", lb.label(lb.retrieval_suite), lb.retrieval_suite, lb.retrieval_metric) + "  (higher is better)")
        ax.set_ylabel(axis_title("Composition", lb.label(lb.composition_suite), lb.composition_suite, lb.composition_metric) + "  (higher is better)")
        ax.xaxis.set_major_locator(MaxNLocator(5 if lay.legend_below else 9))
        ax.yaxis.set_major_locator(MaxNLocator(8))
        ax.grid(True, color="#e5e5e5", linewidth=0.6, zorder=0)
        ax.set_axisbelow(True)
        if handles:
            where = "outside lower center" if lay.legend_below else "outside right upper"
            fig.legend(
                handles,
                labels,
                loc=where,
                ncols=2 if lay.legend_below else 1,
                fontsize=lay.font - 1,
                frameon=False,
                title="kind · marks",
                title_fontsize=lay.font - 1,
            )
        if notes and lb.axis_notes:  # e.g. "The retrieval axis is classic-ir, ... (offline-ir results: none)."
            note = "\n".join(textwrap.wrap(" | ".join(lb.axis_notes), lay.wrap))
            fig.suptitle(note, x=0.01, ha="left", fontsize=lay.font - 1.5, color="#8a4b00")
        fig.draw_without_rendering()  # constrained layout, once
        fig.set_layout_engine("none")  # ... and frozen: labels go into the laid-out axes
        if rows:
            _labels(fig, ax, rows, lay)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": f"cbench {__version__}"})
    svg = buf.getvalue()
    for i, r in enumerate(rows):  # hover text: a <title> first in the point's group and in its label's
        text = escape(point_title(lb, r))
        for gid in (f"pt-{i}", f"label-{i}"):
            svg = svg.replace(f'<g id="{gid}">', f'<g id="{gid}">\n   <title>{text}</title>', 1)
    return svg


def _draw(lb: Leaderboard, ax, rows: list[Row]) -> tuple[list, list[str]]:
    """Points, intervals, the front and the chance band; the legend's handles and labels."""
    order = list(SCORERS)
    kinds = sorted({r.kind for r in rows}, key=lambda k: (k not in SCORERS, order.index(k) if k in SCORERS else 0, k))
    handles: list = []
    labels: list[str] = []
    for kind in kinds:
        handles.append(Line2D([], [], linestyle="none", marker="o", markersize=6.5, markerfacecolor=kind_colour(kind), markeredgecolor="white"))
        labels.append(kind)
    for i, r in enumerate(rows):
        x, y = r.point  # type: ignore[misc]
        ax.scatter([x], [y], s=MARKER, color=kind_colour(r.kind), zorder=4, edgecolors="white", linewidths=0.6, gid=f"pt-{i}")
    yours = [r.point for r in rows if r.overlay is not None]
    if yours:  # a ring around each point of the user's run (--overlay)
        ax.scatter([p[0] for p in yours], [p[1] for p in yours], s=MARKER * 5, facecolors="none", edgecolors=YOURS_COLOUR, linewidths=1.8, zorder=5)
        handles.append(Line2D([], [], linestyle="none", marker="o", markersize=11, markerfacecolor="none", markeredgecolor=YOURS_COLOUR, markeredgewidth=1.8))
        labels.append("your run (--overlay)")
    bars = [(r, *_error_bars(r)) for r in rows]
    bars = [(r, xe, ye) for r, xe, ye in bars if xe is not None or ye is not None]
    for r, xe, ye in bars:  # 95% intervals as error bars
        x, y = r.point  # type: ignore[misc]
        ax.errorbar([x], [y], xerr=xe, yerr=ye, fmt="none", ecolor=kind_colour(r.kind), elinewidth=0.8, alpha=0.6, zorder=2)
    if bars:
        handles.append(Line2D([], [], color="#777777", linewidth=0.9, marker="|", markersize=7))
        labels.append("error bars: 95% interval")
    curves = [c for c in fusion_curves(lb) if len(set(c[1])) >= 2]  # a curve of one distinct point draws no line
    stars = False
    for name, pts, chosen in curves:  # each fused reranker's test curve: first stage (w = 0) to verifier alone
        colour = kind_colour("fusion")
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color=colour, linewidth=0.9, alpha=0.55, zorder=2, gid=f"curve-{name}")
        if chosen is not None:
            ax.scatter([chosen[0]], [chosen[1]], s=MARKER * 2.2, marker="*", color=colour, edgecolors="#333333", linewidths=0.5, zorder=5)
            stars = True
    if curves:
        star = {"marker": "*", "markersize": 8, "markeredgecolor": "#333333"} if stars else {}
        handles.append(Line2D([], [], color=kind_colour("fusion"), linewidth=0.9, alpha=0.55, **star))
        labels.append("fusion curve, w = 0 → verifier alone (test)" + (";\n★ = w chosen on dev" if stars else ""))
    front = sorted(set(r.point for r in rows if r.pareto), key=lambda p: (p[0], -p[1]))
    if len(front) >= 2:  # a front of one point is that point: no line to draw, nothing to list
        ax.step([p[0] for p in front], [p[1] for p in front], where="pre", color=FRONT_COLOUR, linewidth=1.2, linestyle="--", zorder=3)
        handles.append(Line2D([], [], color=FRONT_COLOUR, linestyle="--", linewidth=1.2))
        labels.append("Pareto front (labelled)")
    band = lb.chance_band
    if band is not None:  # the controls' composition scores: chance, drawn as a grey band
        lo, hi = band
        pad = 0.002 if hi - lo < 0.004 else 0.0
        ax.axhspan(lo - pad, hi + pad, color=BAND_COLOUR, alpha=0.22, zorder=1, linewidth=0)
        handles.append(Patch(color=BAND_COLOUR, alpha=0.22, linewidth=0))
        labels.append(f"controls {lo:.2f}–{hi:.2f} (chance)")
    facts = lb.facts.get(lb.composition_suite)
    chance = facts.chance if facts is not None else None
    if chance is not None and rows:
        ax.axhline(chance, color="#777777", linewidth=0.8, linestyle=":", zorder=1)
        handles.append(Line2D([], [], color="#777777", linewidth=0.8, linestyle=":"))
        labels.append(f"random ranking {chance:.2f}")
    if rows:
        ax.margins(x=0.08, y=0.1)
        y0, y1 = ax.get_ylim()
        keep = [v for v in (*(band or ()), chance) if v is not None]
        if keep:  # keep the band and the chance line in view
            ax.set_ylim(min(y0, min(keep) - 0.02), max(y1, max(keep) + 0.02))
    return handles, labels


def _error_bars(r: Row) -> tuple[list[list[float]] | None, list[list[float]] | None]:
    """(x, y) error bar extents of a point from its 95% intervals; None where there is no interval or
    it has no width (nothing would be drawn)."""
    x, y = r.point  # type: ignore[misc]

    def extent(ci: tuple[float, float] | None, v: float) -> list[list[float]] | None:
        if ci is None:
            return None
        lo, hi = max(0.0, v - ci[0]), max(0.0, ci[1] - v)
        return [[lo], [hi]] if lo > 0 or hi > 0 else None

    return extent(r.retrieval.ci95, x), extent(r.composition.ci95, y)


def fusion_curves(lb: Leaderboard) -> list[tuple[str, list[tuple[float, float]], tuple[float, float] | None]]:
    """(fused submission, its curve's (retrieval, composition) points in weight order with the
    verifier alone last, the point of the weight it uses) for every curve on both axes' suites."""
    out = []
    for name, c in sorted(lb.curves.items()):
        if c.retrieval_suite != lb.retrieval_suite or lb.composition_suite not in c.suites:
            continue
        pts = [(p.retrieval, p.composition[lb.composition_suite]) for p in c.points if p.retrieval is not None]
        chosen = next(((p.retrieval, p.composition[lb.composition_suite]) for p in c.points if p.weight == c.weight and p.retrieval is not None), None)
        if len(pts) >= 2:
            out.append((name, pts, chosen))  # type: ignore[arg-type]
    return out


Box = tuple[float, float, float, float]  # x0, y0, x1, y1 (display pixels)


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _candidates(dirs, dists):
    """(dx, dy) offsets in points, nearest first, then in direction order."""
    out = []
    for d in dists:
        for ux, uy in dirs:
            n = math.hypot(ux, uy)
            out.append((d * ux / n, d * uy / n, ux, uy))
    return out


def _labels(fig, ax, rows: list[Row], lay: Layout) -> dict[int, Box]:
    """Place a label per front point (always) and per other point (where one fits, wide layout)."""
    renderer = fig.canvas.get_renderer()
    px = fig.dpi / 72.0  # display pixels per point
    frame = ax.get_window_extent(renderer)
    inside: Box = (frame.x0 + 2, frame.y0 + 2, frame.x1 - 2, frame.y1 - 2)
    to_px = ax.transData.transform
    centres = [tuple(to_px(r.point)) for r in rows]
    radius = math.sqrt(MARKER) / 2 * px + PAD * px
    taken: list[Box] = [(cx - radius, cy - radius, cx + radius, cy + radius) for cx, cy in centres]
    for side in (ax.get_legend(),):  # an inner legend, if any, is an obstacle too
        if side is not None:
            e = side.get_window_extent(renderer)
            taken.append((e.x0, e.y0, e.x1, e.y1))
    probe = ax.text(0, 0, "", fontsize=lay.label)
    placed: dict[int, Box] = {}
    order = sorted(range(len(rows)), key=lambda i: (rows[i].overlay is None, not rows[i].pareto, rows[i].rank, rows[i].submission))
    for i in order:
        r = rows[i]
        shown = r.pareto or r.overlay is not None  # always labelled: the front and the user's run
        if not shown and not lay.label_others:
            continue
        text = r.submission + (" (your run)" if r.overlay is not None else "")
        probe.set_text(text)
        probe.set_fontweight("bold" if shown else "normal")
        ext = probe.get_window_extent(renderer)
        w, h = ext.width + 2 * PAD * px, ext.height + 2 * PAD * px
        cx, cy = centres[i]
        cands = _candidates(DIRS16, FAR) if shown else _candidates(DIRS8, NEAR)
        for dx, dy, ux, uy in cands:
            ax_, ay_ = cx + dx * px, cy + dy * px
            x0 = ax_ if ux > 0 else ax_ - w if ux < 0 else ax_ - w / 2
            y0 = ay_ if uy > 0 else ay_ - h if uy < 0 else ay_ - h / 2
            box = (x0, y0, x0 + w, y0 + h)
            if not (inside[0] <= box[0] and box[2] <= inside[2] and inside[1] <= box[1] and box[3] <= inside[3]):
                continue
            if any(_overlaps(box, t) for t in taken):
                continue
            ha = "left" if ux > 0 else "right" if ux < 0 else "center"
            va = "bottom" if uy > 0 else "top" if uy < 0 else "center"
            # the text sits PAD inside the box, on the side away from the point
            tx = dx + (PAD if ux > 0 else -PAD if ux < 0 else 0)
            ty = dy + (PAD if uy > 0 else -PAD if uy < 0 else 0)
            far = math.hypot(dx, dy) >= LEADER_FROM
            arrow = {"arrowstyle": "-", "color": kind_colour(r.kind), "linewidth": 0.9, "shrinkA": 0.5, "shrinkB": 3.0} if far else None
            ax.annotate(
                text, r.point, xytext=(tx, ty), textcoords="offset points", ha=ha, va=va, fontsize=lay.label,
                color=YOURS_COLOUR if r.overlay is not None else "#111111" if r.pareto else "#555555", fontweight="bold" if shown else "normal",
                bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none", "alpha": 0.8},
                arrowprops=arrow, annotation_clip=False, zorder=5, gid=f"label-{i}",
            )  # fmt: skip
            taken.append(box)
            placed[i] = box
            break
    probe.remove()
    return placed


_ID = re.compile(r'\bid="([^"]+)"')
_REF = re.compile(r'(url\(#|href="#)([^)"]+)')


def inline_svg(svg: str, prefix: str = "") -> str:
    """The <svg> element alone, for pasting into HTML (no XML declaration, DOCTYPE or RDF metadata).
    ``prefix``: put before every element id and every reference to one, so two plots on one page
    never share an id."""
    start = svg.find("<svg")
    body = svg[start:] if start >= 0 else svg
    m0, m1 = body.find("<metadata>"), body.find("</metadata>")
    if m0 >= 0 and m1 > m0:
        body = body[:m0] + body[m1 + len("</metadata>") :]
    if prefix:
        body = _ID.sub(lambda m: f'id="{prefix}{m.group(1)}"', body)
        body = _REF.sub(lambda m: f"{m.group(1)}{prefix}{m.group(2)}", body)
    return body.strip()
