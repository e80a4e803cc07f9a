"""`cbench results refresh-intervals`: recompute every results file's intervals from its per-item scores.

Intervals (``ci95``, ``main_score_ci95``, ``ci_method``) are statistics of the per-item scores kept
beside each results file, so when a suite's resampling unit (``resample_by``) or the interval method
changes they can be recomputed without rescoring: no model, and whatever the recorded weights
fingerprints say (a plain ``cbench run`` refreshes them only where it can reuse the results). The
scores and the rest of the file stay as the run wrote them; ``ci_method.recomputed`` says which
cbench recomputed the intervals. Seeded: a second run finds nothing to change.
"""

from __future__ import annotations

import sys
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from harness.errors import CBenchError
from harness.paths import DATA_DIR_HELP
from harness.ui import Progress, err_console, escape, fail, out_console, progress_bar

if TYPE_CHECKING:
    from harness.results import Recomputed
    from harness.suites.base import Suite

results_app = typer.Typer(no_args_is_help=True, help="Maintain results files: recompute their intervals.")

EXIT_DIFFERS = 1  # --check: some file's recorded intervals differ from a fresh computation


@results_app.command("refresh-intervals")
def refresh_intervals(
    results_dir: Annotated[Path | None, typer.Option("--results-dir", help="Results folder (default: leaderboard/results).")] = None,
    check: Annotated[
        bool,
        typer.Option("--check", help="Write nothing; exit 1, listing the files, when a recorded interval differs from a fresh computation."),
    ] = False,
    data_dir: Annotated[
        Path | None,
        typer.Option("--data-dir", help=f"{DATA_DIR_HELP} For the units of per-item scores kept before units were."),
    ] = None,
) -> None:
    """Recompute ci95 / main_score_ci95 / ci_method of every results file from its per-item scores,
    with each suite's current resampling unit (frames, pairs, queries, items); nothing is rescored.
    Also gives the per-item scores their units where they lack them."""
    from harness import __version__
    from harness.paths import DEFAULT_RESULTS_DIR
    from harness.paths import data_dir as resolve_data_dir
    from harness.provenance import git_commit
    from harness.results import Recomputed

    rdir = results_dir or DEFAULT_RESULTS_DIR
    try:
        planned, skipped = _plan(rdir)
        droot = resolve_data_dir(data_dir)
    except CBenchError as e:
        fail(e)
    for line in skipped:
        err_console.print(f"skipped {escape(line)}", highlight=False, soft_wrap=True)
    stamp = Recomputed(cbench_version=__version__, git_commit=git_commit())
    changed: list[tuple[Path, list[str]]] = []
    suites: dict[tuple[str, str | None], Suite | None] = {}  # one per suite: its data read once
    try:
        with (
            Progress(enabled=sys.stderr.isatty()) as progress,
            progress_bar(progress, "checking intervals" if check else "refreshing intervals", len(planned)) as advance,
        ):
            for path in planned:
                what, notes = _refresh_one(path, droot, stamp, suites, write=not check)
                for note in notes:
                    err_console.print(f"note: {escape(str(path))}: {escape(note)}", highlight=False, soft_wrap=True)
                if what:
                    changed.append((path, what))
                advance()
    except CBenchError as e:
        fail(e)
    except OSError as e:
        from harness.results import os_reason

        fail(CBenchError(f"cannot write results: {os_reason(e)}", source=e.filename))
    verb = "differ" if check else "changed"
    for path, what in changed:
        out_console.print(f"{verb}: {path} ({', '.join(what)})", highlight=False, soft_wrap=True, markup=False)
    n = len(changed)
    if check:
        out_console.print(
            f"{n} of {len(planned)} results file{'s' if len(planned) != 1 else ''} differ from a fresh computation", highlight=False, markup=False
        )
        if n:
            raise typer.Exit(EXIT_DIFFERS)
        return
    out_console.print(
        f"{n} file{'s' if n != 1 else ''} changed ({len(planned) - n} unchanged, {len(skipped)} skipped) in {rdir}", highlight=False, markup=False
    )


def _plan(rdir: Path) -> tuple[list[Path], list[str]]:
    """Every results file under ``rdir`` that has per-item scores and a suite known here, each checked against them
    (``sidecar_problems``) before anything is written; skipped ones as lines saying why. Raises one
    CBenchError, one line per file, when any file is unreadable or its per-item scores do not match."""
    from harness.errors import ValidationFailed
    from harness.results import read_results, results_files
    from harness.sidecar import read_sidecar, sidecar_path, sidecar_problems
    from harness.suites.registry import find_suite

    if not rdir.is_dir():
        raise CBenchError("no such results folder", source=rdir)
    planned: list[Path] = []
    skipped: list[str] = []
    problems: list[CBenchError] = []
    for path in results_files(rdir):
        try:
            r = read_results(path)
            spath = sidecar_path(path)
            if not spath.is_file():
                skipped.append(f"{path}: no per-item scores ({spath.name}): nothing to recompute the intervals from")
                continue
            sc = read_sidecar(spath)
            if found := sidecar_problems(sc, r):
                field, message = found[0]
                more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
                raise CBenchError(f"does not match {path.name}: {message}{more}; nothing written", source=spath, field=field)
        except CBenchError as e:
            problems.append(e)
            continue
        if find_suite(r.suite, r.metadata.suite_file) is None:
            skipped.append(f"{path}: no suite '{r.suite}' here (not shipped, recorded suite file gone): its resampling unit is unknown")
            continue
        planned.append(path)
    if problems:
        raise ValidationFailed(problems)  # one line per file
    return planned, skipped


def _refresh_one(path: Path, droot: Path | None, stamp: Recomputed, suites: dict, *, write: bool) -> tuple[list[str], list[str]]:
    """What differs in one results file ("intervals", "units") and notes; written (per-item scores
    first, then the results file, each atomically, under the results file's lock) when ``write``.
    ``suites``: (suite name, recorded suite file) -> the suite, filled as they are met."""
    from harness.results import read_results, write_results
    from harness.runner import refresh_intervals as refresh
    from harness.runner import results_lock
    from harness.sidecar import read_sidecar, sidecar_path, sidecar_problems, write_sidecar
    from harness.suites.registry import find_suite

    spath = sidecar_path(path)
    with results_lock(path) if write else nullcontext():
        r = read_results(path)
        sc = read_sidecar(spath)
        if found := sidecar_problems(sc, r):  # changed since it was checked (a run wrote it meanwhile)
            raise CBenchError(f"does not match {path.name}: {found[0][1]}", source=spath, field=found[0][0])
        key = (r.suite, r.metadata.suite_file)
        if key not in suites:
            suites[key] = find_suite(r.suite, r.metadata.suite_file, droot)
        suite = suites[key]
        if suite is None:
            raise CBenchError(f"no suite '{r.suite}' here any more", source=path)
        out = refresh(r, sc, suite, stamp)
        if write and "units" in out.changed:
            write_sidecar(spath, sc.header, out.items)
        if write and "intervals" in out.changed:
            write_results(path, out.results)
    return out.changed, out.notes


def register(app: typer.Typer) -> None:
    app.add_typer(results_app, name="results")

