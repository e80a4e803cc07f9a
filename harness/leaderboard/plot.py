"""tradeoff.svg: retrieval main score (x) against composition main score (y), Pareto front as a step line.

Byte-deterministic: no pyplot state, a fixed ``svg.hashsalt`` (element ids), no date in the metadata,
text kept as text (``svg.fonttype = none``), so regenerating from the same results gives the same file.
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

from matplotlib import rc_context  # noqa: E402
from matplotlib.backends.backend_svg import FigureCanvasSVG  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from harness import __version__  # noqa: E402
from harness.leaderboard.collect import Leaderboard  # noqa: E402
from harness.scorers.base import Scorer  # noqa: E402
from harness.scorers.registry import SCORERS  # noqa: E402

# Each scorer kind declares its colour (Scorer.colour); the legend lists kinds in registration order.
OTHER_COLOUR = Scorer.colour
RC = {"svg.hashsalt": "cbench-leaderboard", "svg.fonttype": "none", "font.family": "DejaVu Sans", "font.size": 9}
# Label offsets (points) tried in turn; the first that does not land on an earlier label wins.
OFFSETS = [(6, 4, "left"), (6, -10, "left"), (-6, 4, "right"), (-6, -10, "right"), (6, 14, "left"), (6, -20, "left")]


def kind_colour(kind: str) -> str:
    cls = SCORERS.get(kind)
    return cls.colour if cls is not None else OTHER_COLOUR


def axis_title(role: str, label: str, suite: str | None, metric: str) -> str:
    return f"{role}: {label} {metric}" if suite else f"{role}: (no results)"


def tradeoff_svg(lb: Leaderboard) -> str:
    """The SVG document as text."""
    with rc_context(RC):
        fig = Figure(figsize=(8.0, 5.6))
        FigureCanvasSVG(fig)
        ax = fig.add_subplot(1, 1, 1)
        rows = [r for r in lb.rows if r.point is not None]
        order = list(SCORERS)
        kinds = sorted({r.kind for r in rows}, key=lambda k: (k not in SCORERS, order.index(k) if k in SCORERS else 0, k))
        for kind in kinds:
            pts = [r.point for r in rows if r.kind == kind]
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=36, color=kind_colour(kind), label=kind, zorder=3, edgecolors="white", linewidths=0.6)
        bars = [r for r in rows if r.retrieval.ci95 is not None or r.composition.ci95 is not None]
        for r in bars:  # 95% intervals as error bars
            x, y = r.point
            xe = [[max(0.0, x - r.retrieval.ci95[0])], [max(0.0, r.retrieval.ci95[1] - x)]] if r.retrieval.ci95 else None
            ye = [[max(0.0, y - r.composition.ci95[0])], [max(0.0, r.composition.ci95[1] - y)]] if r.composition.ci95 else None
            ax.errorbar([x], [y], xerr=xe, yerr=ye, fmt="none", ecolor=kind_colour(r.kind), elinewidth=0.8, alpha=0.6, zorder=2)
        front = sorted((r.point for r in rows if r.pareto), key=lambda p: (p[0], -p[1]))
        if front:
            ax.step([p[0] for p in front], [p[1] for p in front], where="pre", color="#444444", linewidth=1.2, linestyle="--", zorder=2)
        band = lb.chance_band
        if band is not None:  # the controls' composition scores: chance, drawn as a grey band
            lo, hi = band
            pad = 0.002 if hi - lo < 0.004 else 0.0
            ax.axhspan(lo - pad, hi + pad, color="#9e9e9e", alpha=0.22, zorder=1, linewidth=0, label=f"controls {lo:.2f}–{hi:.2f} (chance)")
        _labels(ax, rows)
        if not rows:
            ax.text(0.5, 0.5, "no submission has both scores yet", transform=ax.transAxes, ha="center", va="center", color="#666666")
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1)
        else:
            ax.margins(x=0.18, y=0.15)
            if band is not None:  # keep the band in view
                y0, y1 = ax.get_ylim()
                ax.set_ylim(min(y0, band[0] - 0.02), max(y1, band[1] + 0.02))
        ax.set_xlabel(axis_title("Retrieval", lb.label(lb.retrieval_suite), lb.retrieval_suite, lb.retrieval_metric) + "  (higher is better)")
        ax.set_ylabel(axis_title("Composition", lb.label(lb.composition_suite), lb.composition_suite, lb.composition_metric) + "  (higher is better)")
        ax.grid(True, color="#e5e5e5", linewidth=0.6, zorder=0)
        ax.set_axisbelow(True)
        handles, labels = ax.get_legend_handles_labels()
        if front:
            handles.append(Line2D([], [], color="#444444", linestyle="--", linewidth=1.2))
            labels.append("Pareto front")
        if handles:
            ax.legend(handles, labels, loc="best", fontsize=8, frameon=True, title="kind", title_fontsize=8)
        if lb.axis_notes:  # e.g. "NanoBEIR results: none; retrieval axis = classic-ir"
            fig.text(0.01, 0.012, " | ".join(lb.axis_notes), fontsize=7.5, color="#8a4b00", ha="left", va="bottom")
            fig.tight_layout(rect=(0, 0.035, 1, 1))
        else:
            fig.tight_layout()
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": f"cbench {__version__}"})
    return buf.getvalue()


def _labels(ax, rows) -> None:
    if not rows:
        return
    xs = [r.point[0] for r in rows]
    ys = [r.point[1] for r in rows]
    span_x = (max(xs) - min(xs)) or 1.0
    span_y = (max(ys) - min(ys)) or 1.0
    placed: list[tuple[float, float]] = []  # label anchors in units of the data span
    for r in sorted(rows, key=lambda r: (r.point, r.submission)):
        x, y = r.point
        choice = OFFSETS[0]
        for dx, dy, ha in OFFSETS:
            # ~ 1 point = 1/400 of the axes span: rough, enough to keep labels apart
            ax_x, ax_y = x / span_x + dx / 400, y / span_y + dy / 300
            if all(abs(ax_x - px) > 0.12 or abs(ax_y - py) > 0.035 for px, py in placed):
                choice = (dx, dy, ha)
                break
        dx, dy, ha = choice
        placed.append((x / span_x + dx / 400, y / span_y + dy / 300))
        ax.annotate(r.submission, (x, y), xytext=(dx, dy), textcoords="offset points", ha=ha, fontsize=8, color="#222222", annotation_clip=False)


def inline_svg(svg: str) -> str:
    """The <svg> element alone, for pasting into HTML (no XML declaration, DOCTYPE or RDF metadata)."""
    start = svg.find("<svg")
    body = svg[start:] if start >= 0 else svg
    m0, m1 = body.find("<metadata>"), body.find("</metadata>")
    if m0 >= 0 and m1 > m0:
        body = body[:m0] + body[m1 + len("</metadata>") :]
    return body.strip()
