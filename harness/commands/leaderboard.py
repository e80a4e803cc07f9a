"""`cbench leaderboard` (build / print / check the joint leaderboard) and `cbench export` (MTEB layout)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from harness.errors import EXIT_BAD_INPUT, CBenchError
from harness.ui import err_console, escape, fail, out_console

ResultsDir = Annotated[Path | None, typer.Option("--results-dir", help="Results folder (default: leaderboard/results).")]


class Format(StrEnum):
    files = "files"
    rich = "rich"


class ExportFormat(StrEnum):
    mteb = "mteb"


def leaderboard(
    results_dir: ResultsDir = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Folder for leaderboard.md, leaderboard.csv, index.html, tradeoff.svg and explore/, the files index.html loads (default: leaderboard/).",
        ),
    ] = None,
    retrieval: Annotated[
        str | None,
        typer.Option(
            "--retrieval",
            help="Retrieval suite for the x axis (default: the suites' preferred one, nanobeir; falls back to the retrieval suite with most results when none "
            "has it).",
        ),
    ] = None,
    composition: Annotated[
        str | None,
        typer.Option(
            "--composition",
            help="Near-miss suite for the y axis (default: the suites' preferred one, nearmiss; the next composition suite, sugarcrepe-pp, is shown as a "
            "second column).",
        ),
    ] = None,
    fmt: Annotated[Format, typer.Option("--format", help="files: write the four files; rich: print the table here.")] = Format.files,
    check: Annotated[
        bool,
        typer.Option("--check", help="Only verify the results files (schema, registered submission, hash, location); exit 2 on problems."),
    ] = False,
    submissions_dir: Annotated[
        list[Path] | None,
        typer.Option("--submissions-dir", help="Extra folder of submission YAMLs (repeatable; also $CBENCH_SUBMISSIONS)."),
    ] = None,
    cost_dir: Annotated[
        Path | None,
        typer.Option("--cost-dir", help="Cost files from cbench cost, shown as ms/pair and ms/query (default: cost/ beside the results folder)."),
    ] = None,
    overlay: Annotated[
        list[Path] | None,
        typer.Option(
            "--overlay",
            help="Your results folder, laid over --results-dir (repeatable): its <submission>/<suite>.json replace the base's of the same "
            "submission and suite, others add rows; its rows are marked 'your run', and each file that replaces one is compared with it "
            "(one line each). Nothing is written to --results-dir.",
        ),
    ] = None,
) -> None:
    """Rank every submission by retrieval AND composition (Pareto layers) and write the leaderboard."""
    from harness.paths import DEFAULT_RESULTS_DIR, LEADERBOARD_DIR
    from harness.submissions import Registry

    rdir = results_dir or DEFAULT_RESULTS_DIR
    registry = Registry(submissions_dir)
    try:
        subs = registry.all()
        if check:
            _check(rdir, subs, registry.problems)
            return
        from harness.leaderboard.collect import build

        lb = build(rdir, subs, retrieval=retrieval, composition=composition, cost_dir=cost_dir, overlays=overlay or [])
    except CBenchError as e:
        fail(e)
    for problem in registry.problems:  # its results show as unregistered
        for line in problem.lines:
            err_console.print(f"[yellow]warning:[/yellow] {escape(line)} (left out of the submissions)", highlight=False, soft_wrap=True)
    for w in lb.warnings:  # for whoever builds the board: here, never on the page or in leaderboard.md
        err_console.print(f"[yellow]warning:[/yellow] {escape(w)}", highlight=False, soft_wrap=True)
    if lb.replaced:
        from harness.leaderboard.collect import base_name, compare_line

        for rep in lb.replaced:  # --overlay: does the user's run give the numbers of the file it replaces?
            out_console.print(compare_line(rep, base_name(rdir)), highlight=False, soft_wrap=True, markup=False)
    if fmt is Format.rich:
        _print_rich(lb)
        return
    from harness.leaderboard.render import write_all

    out_dir = out or LEADERBOARD_DIR
    for note in lb.axis_notes:
        err_console.print(note, highlight=False, soft_wrap=True)
    from harness.leaderboard.explorer import EXPLORE_DIR

    paths = write_all(lb, out_dir)
    for path in paths[:4]:
        err_console.print(f"wrote {path}", highlight=False, soft_wrap=True, markup=False)
    if explore := paths[4:]:
        n = len(explore)
        err_console.print(
            f"wrote {n} explorer file{'s' if n != 1 else ''} under {out_dir / EXPLORE_DIR} (loaded by index.html; keep the folder beside it)",
            highlight=False,
            soft_wrap=True,
            markup=False,
        )


def _check(rdir: Path, subs: dict, bad_submissions: list[CBenchError]) -> None:
    from harness.leaderboard.check import check_results

    problems, n = check_results(rdir, subs)
    problems = [*bad_submissions, *problems]  # submission files that do not load, then the results
    for p in problems:
        for line in p.lines:
            err_console.print(line, highlight=False, soft_wrap=True)
    if problems:
        raise typer.Exit(EXIT_BAD_INPUT)
    out_console.print(f"ok: {n} results file{'s' if n != 1 else ''} in {rdir}", highlight=False, soft_wrap=True, markup=False)


def _print_rich(lb) -> None:
    from rich.table import Table
    from rich.text import Text

    from harness.leaderboard.render import Notes, compact_keep, header_lines, main_cells, main_columns
    from harness.leaderboard.summary import which_model

    notes = Notes()
    table = Table(title="cbench leaderboard", title_justify="left")
    cols = main_columns(lb)
    # the page's compact table, less the reproduce command (categories, extra suites and commands: in the files)
    keep = [i for i in compact_keep(lb) if cols[i].key != "reproduce"]
    for i in keep:
        c = cols[i]
        table.add_column(c.header, justify="right" if c.numeric else "left", overflow="fold")
    for row in lb.rows:
        cells, outs = [], main_cells(row)
        for i in keep:
            o, c = outs[i], cols[i]
            text = o.text
            if o.note and c.key != "layer":
                text += f" [{notes.number(o.note)}]"
            cells.append(Text(text))
        table.add_row(*cells, style="bold" if row.pareto else None)
    for line in header_lines(lb):
        out_console.print(line, highlight=False, soft_wrap=True)
    out_console.print(table)
    for i, t in enumerate(notes.texts, start=1):
        out_console.print(f"[{i}] {t}", highlight=False, soft_wrap=True, markup=False)
    for pick in which_model(lb):
        out_console.print(f"- {pick.line}", highlight=False, soft_wrap=True, markup=False)
    out_console.print(
        "Per-category and extra-suite scores, chance per column and reproduce commands: cbench leaderboard --format files", highlight=False, soft_wrap=True
    )


def export(
    fmt: Annotated[ExportFormat, typer.Option("--format", help="Export format.")],
    out: Annotated[Path, typer.Option("--out", help="Folder to write (for mteb.ResultCache(X), use X/results).")],
    results_dir: ResultsDir = None,
) -> None:
    """Export results to another tool's layout (mteb: <out>/<model>/<revision>/<Task>.json + model_meta.json)."""
    from harness.export_mteb import export_mteb
    from harness.paths import DEFAULT_RESULTS_DIR

    try:
        report = export_mteb(results_dir or DEFAULT_RESULTS_DIR, out)
    except CBenchError as e:
        fail(e)
    for note in report.notes:
        err_console.print(note, highlight=False, soft_wrap=True, markup=False)
    tasks = sum(1 for p in report.written if p.name != "model_meta.json")
    err_console.print(f"wrote {tasks} MTEB task results for {len(report.models)} model(s) under {out}", highlight=False, soft_wrap=True, markup=False)


def register(app: typer.Typer) -> None:
    app.command("leaderboard")(leaderboard)
    app.command("export")(export)
