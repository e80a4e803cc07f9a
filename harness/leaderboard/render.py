"""Write the leaderboard: leaderboard.md, leaderboard.csv, index.html, tradeoff.svg, and the
explorer's files under explore/ beside index.html (``explorer.py``: one per submission and one per
suite with texts, loaded by the page when selected; nothing else is fetched).

All are a pure function of the results files (no dates, sorted inputs), so regenerating from the
same results gives byte-identical files.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

from harness.atomic import atomic_write_text
from harness.leaderboard.chance import BELOW, INSIDE, Band, band_lines, bands
from harness.leaderboard.collect import (
    FALSE_ACCEPT,
    Cell,
    Leaderboard,
    Row,
)
from harness.leaderboard.cost import COST_COLUMNS, COST_KEYS, COST_LINE, RETRIEVAL_COST_KEYS, cost_cells, cost_columns, cost_raw, has_costs
from harness.leaderboard.explorer import EXPLORE_DIR, BrowserData, ExploreFile, browser_data, comparison_legend, explore_files, explore_index
from harness.leaderboard.fmt import MISSING, fmt_params, fmt_score
from harness.leaderboard.gate import GATE_HEADING
from harness.leaderboard.gate import gate_cells as _gate_cells
from harness.leaderboard.gate import gate_columns as _gate_columns
from harness.leaderboard.gate import gate_keys as _gate_keys
from harness.leaderboard.gate import gate_line as _gate_line
from harness.leaderboard.heatmap import heatmaps
from harness.leaderboard.plot import inline_svg, kind_colour, tradeoff_svg
from harness.leaderboard.reranks import TOP, Rerank, reranks
from harness.leaderboard.summary import bases_line, which_model

FILES = ("leaderboard.md", "leaderboard.csv", "index.html", "tradeoff.svg")


@dataclass(frozen=True)
class Column:
    key: str  # CSV header
    header: str  # shown in md / html / terminal
    numeric: bool = False
    title: str = ""  # html header tooltip


@dataclass(frozen=True)
class Out:
    text: str  # shown
    raw: str  # CSV
    sort: float | str | None = None  # html sort key; None sorts last
    note: str | None = None  # why missing / caveat
    tip: str | None = None  # html tooltip only (no numbered note)


class Notes:
    """Numbered notes shared by every table of one page; equal texts share a number."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def number(self, text: str) -> int:
        if text not in self.texts:
            self.texts.append(text)
        return self.texts.index(text) + 1


def _score(cell: Cell) -> Out:
    raw = "" if cell.value is None else f"{cell.value:.6f}"
    return Out(fmt_score(cell.value), raw, cell.value, cell.note)


def _axis_score(cell: Cell) -> Out:
    """An axis score with the half-width of its 95% interval (the interval itself in CSV columns)."""
    out = _score(cell)
    if cell.value is None or cell.ci95 is None:
        return out
    half = (cell.ci95[1] - cell.ci95[0]) / 2
    return Out(f"{out.text} ±{half:.3f}", out.raw, out.sort, out.note)


def _ci_raw(cell: Cell) -> list[str]:
    return ["", ""] if cell.ci95 is None or cell.value is None else [f"{cell.ci95[0]:.6f}", f"{cell.ci95[1]:.6f}"]


MARK_KEY = "indistinguishable_from"
YOUR_RUN = " (your run)"  # after the name of a row from an --overlay folder (the CSV keeps the bare name)


def _mark(row: Row) -> Out:
    """"≈ A, B": the better-placed submissions this one cannot be told apart from (CSV: A;B)."""
    if row.untested:
        return Out(MISSING, "", None, f"not tested for ≈: {row.untested}")
    if row.layer is None:
        return Out(MISSING, "", None)
    text = row.marks_text  # per axis: "≈ A (both axes); ≈ B (retrieval)"
    return Out(text, ";".join(row.indistinguishable_from), text or None)


CI_COLUMNS = ["retrieval_ci95_low", "retrieval_ci95_high", "composition_ci95_low", "composition_ci95_high"]
MARK_AXIS_COLUMNS = ["indistinguishable_retrieval", "indistinguishable_composition"]  # per axis; MARK_KEY: on both


def _axis_header(lb: Leaderboard, suite: str | None, metric: str) -> str:
    return f"{lb.label(suite)} {metric}" if suite else "retrieval"


# -- table models ----------------------------------------------------------------------------


def main_columns(lb: Leaderboard) -> list[Column]:
    comp = lb.composition_suite
    cols = [
        Column("rank", "rank", True, "Pareto layer, then mean of the two axes, then name"),
        Column("submission", "submission"),
        Column("kind", "kind"),
        Column("parameters", "parameters", True),
        Column(
            f"{lb.retrieval_suite or 'retrieval'}:{lb.retrieval_metric}",
            f"retrieval: {_axis_header(lb, lb.retrieval_suite, lb.retrieval_metric)}",
            True,
            "retrieval axis (x)",
        ),
        Column(f"{comp}:{lb.composition_metric}", f"composition: {_axis_header(lb, comp, lb.composition_metric)}", True, "composition axis (y)"),
        Column(
            MARK_KEY,
            "≈ better-placed",
            False,
            "statistically indistinguishable from these better-placed submissions, per axis: retrieval, composition or both "
            "(paired test per axis by resampling unit, alpha 0.05, Holm-corrected over the page)",
        ),
        *[Column(key, header, True, title) for key, header, title in cost_columns()],
    ]
    cols += [Column(f"{comp}/{c}:{lb.composition_metric}", c, True, f"{lb.label(comp)} category {c}, {lb.composition_metric}") for c in lb.categories]
    cols += [
        Column(
            f"{comp}:{FALSE_ACCEPT}", f"{FALSE_ACCEPT} ↓", True, "share of near-misses accepted at the threshold that keeps 95% of positives (lower is better)"
        ),
        Column(f"{lb.second_suite}:{lb.second_metric}", f"{lb.label(lb.second_suite)} {lb.second_metric}", True, "second composition column (not an axis)"),
        *[Column(f"{s}:{m}", f"{lb.label(s)} {m}", True, "extra column (not an axis)") for s, m in lb.extra_suites.items()],
        *gate_columns(lb),
        Column("pareto", "Pareto ✓", False, "on the Pareto front (layer 1)"),
        Column("layer", "layer", True, "Pareto layer"),
        Column("reproduce", "reproduce"),
    ]
    return cols


def gate_keys(lb: Leaderboard) -> list[str]:
    return _gate_keys(lb.gate_suites)


def gate_columns(lb: Leaderboard) -> list[Column]:
    return [Column(key, header, True, title) for key, header, title in _gate_columns(lb.gate_suites, lb.label)]


def gate_cells(g) -> list[Out]:
    return [Out(text, raw, sort, note, tip) for text, raw, sort, note, tip in _gate_cells(g)]


def gate_line(lb: Leaderboard) -> str:
    return _gate_line(lb.gate_suites, lb.label)


def main_cells(row: Row) -> list[Out]:
    cells = [
        Out(str(row.rank), str(row.rank), row.rank),
        Out(row.submission + (YOUR_RUN if row.overlay else ""), row.submission, row.submission.lower(), "; ".join(row.notes) or None),
        Out(row.kind, row.kind, row.kind),
        Out(fmt_params(row.parameters), "" if row.parameters is None else str(row.parameters), row.parameters),
        _axis_score(row.retrieval),
        _axis_score(row.composition),
        _mark(row),
        *[Out(text, raw, value, note, tip) for text, raw, value, note, tip in cost_cells(row)],
    ]
    cells += [_score(c) for c in row.categories.values()]
    cells += [
        _score(row.false_accept),
        _score(row.second),
        *[_score(c) for c in row.extras.values()],
        *[out for g in row.gates.values() for out in gate_cells(g)],
        Out("✓" if row.pareto else "", "yes" if row.pareto else "no", 0 if row.pareto else 1),
        Out(str(row.layer) if row.layer else MISSING, str(row.layer or ""), row.layer, None if row.layer else "missing an axis: no layer"),
        Out(row.reproduce, row.reproduce, row.reproduce),
    ]
    return cells


# -- views: which of the main columns each table shows ---------------------------------------
#
# The main columns (CSV order) split in two on the page: the compact leaderboard (rank, name, kind,
# parameters, both axes with their intervals, the ≈ marks, the layer, the reproduce command, and
# any column added later) and the composition detail (near-miss categories, false accepts, the
# second composition column, every extra suite). Views select by key, so main_columns stays the
# one list of columns.


def _detail_keys(lb: Leaderboard) -> list[str]:
    comp, metric = lb.composition_suite, lb.composition_metric
    return [
        *(f"{comp}/{c}:{metric}" for c in lb.categories),
        f"{comp}:{FALSE_ACCEPT}",
        f"{lb.second_suite}:{lb.second_metric}",
        *(f"{s}:{m}" for s, m in lb.extra_suites.items()),
    ]


def compact_keep(lb: Leaderboard) -> list[int]:
    """The compact leaderboard: every main column but the composition detail, the gate columns and
    "Pareto ✓" (layer 1 is the front; its rows are highlighted)."""
    detail = set(_detail_keys(lb)) | _unused_cost_keys(lb) | set(gate_keys(lb))
    return [i for i, c in enumerate(main_columns(lb)) if c.key not in detail and c.key != "pareto"]


def _unused_cost_keys(lb: Leaderboard) -> set[str]:
    """The cost columns, when no row has a cost file: the tables leave them out (the CSV keeps them, blank)."""
    return set() if has_costs(lb) else set(COST_KEYS)


def composition_keep(lb: Leaderboard) -> list[int]:
    """The composition detail: rank, submission, then the detail columns."""
    keys = ["rank", "submission", *_detail_keys(lb)]
    at = {c.key: i for i, c in enumerate(main_columns(lb))}
    return [at[k] for k in keys if k in at]


def gate_keep(lb: Leaderboard) -> list[int]:
    """The gate table: rank, submission, then each gate suite's three columns."""
    keys = ["rank", "submission", *gate_keys(lb)]
    at = {c.key: i for i, c in enumerate(main_columns(lb))}
    return [at[k] for k in keys if k in at]


def _pick(keep: list[int]):
    def cells(row: Row) -> list[Out]:
        all_cells = main_cells(row)
        return [all_cells[i] for i in keep]

    return cells


def view_columns(lb: Leaderboard, keep: list[int]) -> list[Column]:
    cols = main_columns(lb)
    return [cols[i] for i in keep]


# Controls are not ranked and have no retrieval: their table keeps the suite-level near-miss
# columns (their categories are in the composition detail, below the ranked rows).
def _control_keep(lb: Leaderboard) -> list[int]:
    cols = main_columns(lb)
    # cols[4]: the retrieval axis; no index or query cost either
    skip = {"rank", "parameters", "pareto", "layer", MARK_KEY, cols[4].key, *RETRIEVAL_COST_KEYS} | _unused_cost_keys(lb) | set(gate_keys(lb))
    cats = {f"{lb.composition_suite}/{c}:{lb.composition_metric}" for c in lb.categories}
    return [i for i, c in enumerate(cols) if c.key not in skip and c.key not in cats]


def control_columns(lb: Leaderboard) -> list[Column]:
    return view_columns(lb, _control_keep(lb))


def control_cells_of(lb: Leaderboard):
    return _pick(_control_keep(lb))


def column_bands(lb: Leaderboard) -> dict[str, Band]:
    """Column key -> its chance band, for every composition-type column (chance.py)."""
    b = bands(lb)
    comp, metric = lb.composition_suite, lb.composition_metric
    out: dict[str, Band] = {}
    if b.composition is not None:
        out[f"{comp}:{metric}"] = b.composition
    out.update({f"{comp}/{c}:{metric}": band for c, band in b.categories.items()})
    if b.second is not None:
        out[f"{lb.second_suite}:{lb.second_metric}"] = b.second
    out.update({f"{s}:{m}": b.extras[s] for s, m in lb.extra_suites.items() if s in b.extras})
    return {k: v for k, v in out.items() if v.reference is not None}


def _first_sort(col: Column) -> str:
    """The direction of a header's first click: best first (scores high to low; rank, layer,
    parameters and lower-is-better columns low to high; text A to Z)."""
    if not col.numeric or col.key in {"rank", "layer", "parameters", *COST_KEYS} or col.key.endswith(FALSE_ACCEPT):
        return "asc"
    return "desc"


def band_line(lb: Leaderboard) -> str | None:
    band = lb.chance_band
    if band is None:
        return None
    n = len(lb.controls)
    return (
        f"Chance band: the {n} controls (scorers that see only surface form, or only the candidate; table below) "
        f"score {band[0]:.4f}–{band[1]:.4f} on {lb.label(lb.composition_suite)}. "
        "A composition score inside this band is no better than not reading for meaning."
    )


def detail_columns(lb: Leaderboard) -> list[Column]:
    cols = [
        Column("rank", "rank", True),
        Column("submission", "submission"),
        Column("kind", "kind"),
        Column(f"{lb.retrieval_suite or 'retrieval'}:{lb.retrieval_metric}", f"{_axis_header(lb, lb.retrieval_suite, lb.retrieval_metric)} (mean)", True),
    ]
    return cols + [Column(f"{lb.retrieval_suite}/{d}:{lb.retrieval_metric}", d, True) for d in lb.retrieval_datasets]


def detail_cells(row: Row) -> list[Out]:
    return main_cells(row)[:3] + [_score(row.retrieval)] + [_score(c) for c in row.retrieval_datasets.values()]


# -- markdown --------------------------------------------------------------------------------


def _md_escape(text: str) -> str:
    """Plain text in a table cell: no HTML, no column breaks."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("|", "\\|").replace("\n", " ")


def _md_code(text: str) -> str:
    return "`" + text.replace("`", "'").replace("|", "\\|").replace("\n", " ") + "`"


def _md_cell(out: Out, col: Column, notes: Notes) -> str:
    text = _md_code(out.text) if col.key == "reproduce" else _md_escape(out.text)
    if out.note and col.key not in {"layer"}:
        text += f" [{notes.number(out.note)}]"
    return text


def _greyed(out: Out, col: Column, grey: dict[str, Band] | None) -> str | None:
    """INSIDE / BELOW when a score lies at or below its column's chance band, else None."""
    if not grey or col.key not in grey or not isinstance(out.sort, float):
        return None
    where = grey[col.key].place(out.sort)
    return where if where in (INSIDE, BELOW) else None


def _md_table(cols: list[Column], rows: list[list[Out]], notes: Notes, grey: dict[str, Band] | None = None) -> list[str]:
    """``grey``: column key -> band; scores at or below their band are set in italics."""
    lines = ["| " + " | ".join(_md_escape(c.header) for c in cols) + " |"]
    lines.append("|" + "|".join("---:" if c.numeric else "---" for c in cols) + "|")
    for cells in rows:
        texts = []
        for o, c in zip(cells, cols, strict=True):
            text = _md_cell(o, c, notes)
            texts.append(f"*{text}*" if _greyed(o, c, grey) else text)
        lines.append("| " + " | ".join(texts) + " |")
    return lines


def axes_line(lb: Leaderboard) -> str:
    return (
        f"Retrieval axis: {_axis_header(lb, lb.retrieval_suite, lb.retrieval_metric)}. "
        f"Composition axis: {_axis_header(lb, lb.composition_suite, lb.composition_metric)}."
    )


def header_lines(lb: Leaderboard) -> list[str]:
    band, marks = band_line(lb), lb.marks.line
    return [lb.meta_line, *lb.axis_notes, axes_line(lb), lb.rule, *([marks] if marks else []), *([band] if band else [])]


PLUS_MINUS = (
    "± = half the width of the score's 95% bootstrap interval (resampling the suite's queries or items; "
    "the CSV has both ends, retrieval_ci95_low / _high and composition_ci95_low / _high)."
)
GREY_MD = (
    "*Italic* score: at or below its column's chance band "
    "(the range of that suite's controls, widened to its declared chance level; see Chance per column)."
)
GREY_HTML = (
    "Grey score: at or below its column's chance band (the range of that suite's controls, widened to its declared chance level); grey italic: below it."
)


def _band_rows(lb: Leaderboard) -> list[tuple[str, Band]]:
    """(column, band) of every banded column in page order: the axis, its categories, the second column, the extras."""
    b = bands(lb)
    rows = [(f"{lb.label(lb.composition_suite)} (composition axis)", b.composition)]
    rows += [(band.label, band) for band in b.categories.values()]
    rows += [(lb.label(lb.second_suite), b.second), *((band.label, band) for band in b.extras.values())]
    return [(name, band) for name, band in rows if band is not None and band.reference is not None]


def _chance_table(lb: Leaderboard) -> list[str]:
    lines = ["| column | chance level | controls: range (n) | greyed at or below | best control | ranked models below it |", "|---|---:|---|---:|---|---:|"]
    for name, band in _band_rows(lb):
        chance = MISSING if band.chance is None else f"{band.chance:.4f}"
        if band.controls is None:
            ctl, best, below = "none", MISSING, MISSING
        else:
            lo, hi = band.controls
            ctl = f"{lo:.4f} ({band.n_controls})" if lo == hi else f"{lo:.4f}–{hi:.4f} ({band.n_controls})"
            best = _md_escape(f"{band.best_control} ({hi:.4f})")
            below = f"{band.beaten} of {len(band.ranked)}"
        lines.append(f"| {_md_escape(name)} | {chance} | {ctl} | {band.top:.4f} | {best} | {below} |")
    return lines


def render_markdown(lb: Leaderboard) -> str:
    notes = Notes()
    grey = column_bands(lb)
    out = ["# cbench leaderboard", ""]
    for line in [lb.meta_line, *lb.axis_notes, axes_line(lb)]:
        out += [line, ""]
    picks = which_model(lb)
    if picks:
        out += ["## Which model for what", ""]
        out += [f"- **{_md_escape(p.title)}**: {_md_escape(' '.join([p.text, *p.caveats]))}" for p in picks]
        out += ["", _md_escape(bases_line(lb)), ""]
    if _band_rows(lb):
        out += ["## Chance per column", ""]
        out += [f"- {_md_escape(line)}" for line in band_lines(lb)] + ([""] if band_lines(lb) else [])
        out += _chance_table(lb) + [""]
    out += ["![retrieval versus composition](tradeoff.svg)", ""]
    out += ["## Leaderboard", ""]
    marks, band = lb.marks.line, band_line(lb)
    for line in [
        lb.rule,
        *([marks] if marks else []),
        *([band] if band else []),
        PLUS_MINUS,
        *([GREY_MD] if grey else []),
        *([COST_LINE] if has_costs(lb) else []),
    ]:
        out += [line, ""]
    if not lb.rows:
        out += ["No results yet.", ""]
    else:
        keep = [i for i in compact_keep(lb) if main_columns(lb)[i].key != "reproduce"]  # commands: their own list below
        out += _md_table(view_columns(lb, keep), [_pick(keep)(r) for r in lb.rows], notes, grey) + [""]
        out += ["## Composition per category and extra suites", ""]
        keep = composition_keep(lb)
        cols = view_columns(lb, keep)
        out += _md_table(cols, [_pick(keep)(r) for r in lb.rows], notes, grey)[:]
        ctl_rows = [_pick(keep)(r) for r in lb.controls]
        if ctl_rows:  # controls below the ranked rows, unranked and not greyed
            out += _md_table(cols, [[Out("control", ""), *cells[1:]] for cells in ctl_rows], notes)[2:]
        out += [""]
        if lb.gate_suites:
            out += [f"## {GATE_HEADING}", "", _md_escape(gate_line(lb)), ""]
            keep = gate_keep(lb)
            cols = view_columns(lb, keep)
            out += _md_table(cols, [_pick(keep)(r) for r in lb.rows], notes)
            ctl_rows = [_pick(keep)(r) for r in lb.controls]
            if ctl_rows:
                out += _md_table(cols, [[Out("control", ""), *cells[1:]] for cells in ctl_rows], notes)[2:]
            out += [""]
    if lb.controls:
        out += ["## Controls (not ranked; they span the chance band)", ""]
        keep = [i for i in _control_keep(lb) if main_columns(lb)[i].key != "reproduce"]
        out += _md_table(view_columns(lb, keep), [_pick(keep)(r) for r in lb.controls], notes) + [""]
    if lb.rows:
        out += ["## Retrieval per dataset", ""]
        if lb.retrieval_datasets:
            out += _md_table(detail_columns(lb), [detail_cells(r) for r in lb.rows], notes) + [""]
        else:
            out += ["No retrieval results.", ""]
    if lb.rows or lb.controls:
        out += ["## Reproduce", ""]
        out += [f"- {_md_escape(r.submission)}: {_md_code(r.reproduce)}" for r in [*lb.rows, *lb.controls]] + [""]
    if notes.texts:
        out += ["## Notes", ""]
        out += [f"[{i}] {_md_escape(t)}  " for i, t in enumerate(notes.texts, start=1)]
        out += [""]
    return "\n".join(out).rstrip() + "\n"


# -- csv -------------------------------------------------------------------------------------


def render_csv(lb: Leaderboard) -> str:
    """One row per submission: the main columns, per-dataset retrieval, notes (column: reason), axes.

    ``axes`` repeats, on every row, which suites the two axes are and any fallback note, so the CSV
    alone says what was ranked.
    """
    cols = main_columns(lb)
    extra = detail_columns(lb)[4:]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    axes = " ".join([axes_line(lb), *lb.axis_notes])
    w.writerow([c.key for c in cols] + [c.key for c in extra] + ["notes", "axes", "group", *CI_COLUMNS, *MARK_AXIS_COLUMNS, *COST_COLUMNS])
    for group, rows in (("ranked", lb.rows), ("control", lb.controls)):
        for row in rows:
            main, detail = main_cells(row), detail_cells(row)[4:]
            if group == "control":  # not ranked
                main = [Out("", "") if c.key in {"rank", "pareto", "layer"} else o for o, c in zip(main, cols, strict=True)]
            notes = [f"{c.key}: {o.note}" for o, c in zip([*main, *detail], [*cols, *extra], strict=True) if o.note and c.key != "layer"]
            marks = [";".join(row.same_retrieval_as), ";".join(row.same_composition_as)]
            w.writerow(
                [o.raw for o in main]
                + [o.raw for o in detail]
                + ["; ".join(notes), axes, group, *_ci_raw(row.retrieval), *_ci_raw(row.composition), *marks, *cost_raw(row)]
            )
    return buf.getvalue()


# -- html ------------------------------------------------------------------------------------


def _html_cols(cols: list[Column], grey: dict[str, Band] | None = None) -> list[dict]:
    """Header cells: sort type, first-click direction, the sticky name column, the column's band."""
    out = []
    for c in cols:
        band = (grey or {}).get(c.key)
        out.append(
            {
                "key": c.key,
                "header": c.header,
                "title": c.title,
                "numeric": c.numeric,
                "first": _first_sort(c),
                "sticky": c.key == "submission",
                "band": band,
                "sortable": c.key != "reproduce",
            }
        )
    return out


def _html_rows(cols: list[Column], rows: list[Row], cells_of, notes: Notes, grey: dict[str, Band] | None = None, control: bool = False) -> list[dict]:
    """Body rows; ``grey``: column key -> band, for greying scores at or below it (ranked rows only)."""
    out = []
    for row in rows:
        cells = []
        for o, c in zip(cells_of(row), cols, strict=True):
            if control and c.key == "rank":  # controls are not ranked
                o = Out("control", "", None)
            note_no = notes.number(o.note) if o.note and c.key != "layer" else None
            sort = "" if o.sort is None else (f"{o.sort:.9f}" if isinstance(o.sort, float) else str(o.sort))
            where = None if control else _greyed(o, c, grey)
            band = (grey or {}).get(c.key)
            title = " — ".join(t for t in (o.note, o.tip) if t) or (f"{where} the chance band: {band.text()}" if where and band is not None else None)
            cells.append(
                {
                    "text": o.text,
                    "sort": sort,
                    "note": title,
                    "note_no": note_no,
                    "numeric": c.numeric,
                    "key": c.key,
                    "missing": o.text == MISSING,
                    "chance": where,
                    "sticky": c.key == "submission",
                }
            )
        out.append(
            {
                "name": row.submission,
                "kind": row.kind,
                "pareto": row.pareto,
                "control": control,
                "yours": row.overlay is not None,
                "cells": cells,
                "colour": kind_colour(row.kind),
                "description": row.description,
                "reproduce": row.reproduce,
            }
        )
    return out


def _env():
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    return Environment(
        loader=PackageLoader("harness.leaderboard", "templates"),
        autoescape=select_autoescape(["html", "j2"], default_for_string=True, default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


@dataclass(frozen=True)
class Explorer:
    """What the page's explorer shows, and the files under explore/ it loads."""

    browser: BrowserData
    reranks: list[Rerank]
    files: list[ExploreFile]


def explorer(lb: Leaderboard) -> Explorer:
    browser, rr = browser_data(lb), reranks(lb)
    return Explorer(browser, rr, explore_files(browser, rr))


def _script_json(obj: object) -> str:
    """JSON to sit inside a <script> element: no ``<``, ``>`` or ``&`` (escaped as \\u003c ...), so no
    text can close the element."""
    text = json.dumps(obj, ensure_ascii=True, separators=(",", ":"), sort_keys=False, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_html(lb: Leaderboard, svg: str, narrow_svg: str | None = None, explore: Explorer | None = None) -> str:
    """index.html; ``svg``: the wide plot, ``narrow_svg``: the phone layout (made here when None; the
    page's plots carry no axis notes, which the page says once above them); ``explore``: the
    explorer and its files (made here when None)."""
    from markupsafe import Markup

    notes = Notes()
    grey = column_bands(lb)
    compact, comp, gates = compact_keep(lb), composition_keep(lb), gate_keep(lb)
    main_cols, comp_cols, detail_cols = view_columns(lb, compact), view_columns(lb, comp), detail_columns(lb)
    gate_cols = view_columns(lb, gates) if lb.gate_suites else []
    gate_rows = _html_rows(gate_cols, lb.rows, _pick(gates), notes) if gate_cols else []
    gate_controls = _html_rows(gate_cols, lb.controls, _pick(gates), notes, control=True) if gate_cols else []
    main_rows = _html_rows(main_cols, lb.rows, _pick(compact), notes, grey)
    comp_rows = _html_rows(comp_cols, lb.rows, _pick(comp), notes, grey)
    comp_controls = _html_rows(comp_cols, lb.controls, _pick(comp), notes, grey, control=True)
    detail_rows = _html_rows(detail_cols, lb.rows, detail_cells, notes) if lb.retrieval_datasets else []
    control_cols = control_columns(lb)
    control_rows = _html_rows(control_cols, lb.controls, control_cells_of(lb), notes, control=True)
    kinds = sorted({r.kind for r in [*lb.rows, *lb.controls]})
    ex = explore if explore is not None else explorer(lb)
    browser = ex.browser
    narrow = narrow_svg if narrow_svg is not None else tradeoff_svg(lb, "narrow", notes=False)
    rr_at: dict[str, dict[str, int]] = {}  # suite -> reranker -> its entry in the picker
    for i, r in enumerate(ex.reranks):
        rr_at.setdefault(r.suite, {})[r.reranker] = i
    return _env().get_template("index.html.j2").render(
        heatmaps=heatmaps(lb),
        reranks=ex.reranks,
        rr_at=rr_at,
        fb_suites=[s.suite for s in browser.suites],
        top=TOP,
        browser=browser,
        explore_index=Markup(_script_json(explore_index(browser, ex.files))),  # noqa: S704 - no <, > or & (_script_json)
        legend=comparison_legend(browser),
        lb=lb,
        axis_notes=[page_note(n) for n in lb.axis_notes],
        picks=which_model(lb),
        bases=bases_line(lb),
        chance_lines=band_lines(lb),
        marks=lb.marks.line,
        axes=axes_line(lb),
        band=band_line(lb),
        plus_minus=PLUS_MINUS,
        grey_legend=GREY_HTML if grey else None,
        control_cols=_html_cols(control_cols),
        control_rows=control_rows,
        main_cols=_html_cols(main_cols, grey),
        main_rows=main_rows,
        comp_cols=_html_cols(comp_cols, grey),
        comp_rows=comp_rows,
        comp_controls=comp_controls,
        detail_cols=_html_cols(detail_cols),
        detail_rows=detail_rows,
        gate_heading=GATE_HEADING,
        gate_line=gate_line(lb) if lb.gate_suites else "",
        gate_cols=_html_cols(gate_cols),
        gate_rows=gate_rows,
        gate_controls=gate_controls,
        kinds=kinds,
        notes=notes.texts,
        svg=inline_svg(svg, "wide-"),
        svg_narrow=inline_svg(narrow, "narrow-"),
        missing=MISSING,
    )


# -- all files -------------------------------------------------------------------------------


def page_note(note: str) -> str:
    """An axis note as a sentence for the page."""
    return note if note.endswith(".") else note + "."


def write_all(lb: Leaderboard, out_dir: Path) -> list[Path]:
    """Write the four files and the explorer's (explore/: each file atomically, the explorer's before
    the page that lists them; then explorer files no longer listed are removed). Returns the four
    files' paths (FILES order), then the explorer files' (path order)."""
    svg = tradeoff_svg(lb)
    ex = explorer(lb)
    page_svg = tradeoff_svg(lb, notes=False) if lb.axis_notes else svg  # the page says its axis notes once, above the plot
    payloads = {
        "leaderboard.md": render_markdown(lb),
        "leaderboard.csv": render_csv(lb),
        "index.html": render_html(lb, page_svg, tradeoff_svg(lb, "narrow", notes=False), ex),
        "tradeoff.svg": svg,
    }
    explore_paths = []
    for f in ex.files:
        path = out_dir / f.path
        atomic_write_text(path, f.text)
        explore_paths.append(path)
    paths = []
    for name in FILES:
        path = out_dir / name
        atomic_write_text(path, payloads[name])
        paths.append(path)
    remove_stale(out_dir, {out_dir / f.path for f in ex.files})
    return paths + explore_paths


def remove_stale(out_dir: Path, keep: set[Path]) -> None:
    """Remove the explorer files (``*.js`` under explore/ and explore/items/) not in ``keep`` (those of
    submissions no longer on the board), then those folders when left empty."""
    folder = out_dir / EXPLORE_DIR
    for sub in (folder / "items", folder):
        if not sub.is_dir():
            continue
        for path in sorted(sub.glob("*.js")):
            if path not in keep:
                path.unlink()
        if not any(sub.iterdir()):
            sub.rmdir()
