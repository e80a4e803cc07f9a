"""`cbench compare A B --suite S`: is A's main score different from B's, per dataset and overall."""

from __future__ import annotations

import math
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from harness.errors import CBenchError
from harness.ui import err_console, fail, out_console, print_table


class CompareFormat(StrEnum):
    table = "table"
    json = "json"


def _p(p: float, at_floor: bool = False) -> str:
    """p to 4 decimals (or 2 digits below 1e-4); at its test's floor '≤ floor', rounded up (the true p may be smaller)."""
    if at_floor:
        if p >= 1e-4:
            return f"≤ {math.ceil(p * 1e4 - 1e-9) / 1e4:.4f}"
        exponent = math.floor(math.log10(p))
        mantissa = math.ceil(p / 10**exponent * 10 - 1e-9) / 10
        if mantissa >= 10:
            mantissa, exponent = mantissa / 10, exponent + 1
        return f"≤ {mantissa:.1f}e{exponent:+03d}"
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def _ci(ci: tuple[float, float] | None) -> str:
    return f"[{ci[0]:+.4f}, {ci[1]:+.4f}]" if ci is not None else "—"


def compare(
    a: Annotated[str, typer.Argument(help="Submission A (its folder under the results dir).")],
    b: Annotated[str, typer.Argument(help="Submission B.")],
    suite: Annotated[
        str,
        typer.Option(
            "--suite", "-s",
            help="What cbench run --suite took: a suite name, a suite YAML or a BEIR folder; compares <results-dir>/A/<its name>.json with B's.",
        ),
    ],
    results_dir: Annotated[Path | None, typer.Option("--results-dir", help="Results folder (default: leaderboard/results).")] = None,
    fmt: Annotated[CompareFormat, typer.Option("--format", help="table: a table on stdout; json: the report as JSON on stdout.")] = CompareFormat.table,
) -> None:
    """Paired comparison A - B of the main metric: difference, 95% bootstrap interval, p-value (McNemar exact or paired permutation), """ \
    """resampling the suite's units (queries, items, or frames)."""
    from harness.compare import compare as run_compare
    from harness.paths import DEFAULT_RESULTS_DIR
    from harness.suites.registry import results_suite

    try:
        name, declared = results_suite(suite)
        clusters = declared.resampling_unit if declared is not None and declared.cluster_field is not None else None
        report = run_compare(results_dir or DEFAULT_RESULTS_DIR, a, b, name, suite, declared_unit=clusters)
    except CBenchError as e:
        fail(e)
    if fmt is CompareFormat.json:
        typer.echo(report.model_dump_json(indent=2))
        return
    _print_table(report)
    for note in report.notes:
        err_console.print(f"note: {note}", highlight=False, soft_wrap=True, markup=False)


def _print_table(report) -> None:
    from rich.table import Table
    from rich.text import Text

    from harness.results import plural

    table = Table(title=f"cbench compare: {report.a} − {report.b} on {report.suite} ({report.main_metric})", title_justify="left")
    for col, right in (("dataset", False), ("n", True), (report.a, True), (report.b, True), ("A − B", True), ("95% CI", True), ("p", True), ("test", False)):
        table.add_column(col, justify="right" if right else "left")
    rows = [*report.datasets, *([report.suite_row] if report.suite_row else [])]
    clustered = any(r.units != r.n for r in rows)
    for r in rows:
        test = r.test + (f" (b={r.discordant[0]}, c={r.discordant[1]})" if r.discordant else "")
        if clustered and r.test != "mcnemar-exact":
            test += f" ({r.units} {plural(report.resampling_unit)})"
        cells = [r.dataset, str(r.n), f"{r.a:.4f}", f"{r.b:.4f}", f"{r.difference:+.4f}", _ci(r.ci95), _p(r.p_value, r.p_value_at_floor), test]
        table.add_row(*(Text(c) for c in cells), style="bold" if r.dataset == "(suite)" else None)
    print_table(table)
    used = {r.test for r in rows}
    units = plural(report.resampling_unit)
    flips = f"signs flipped per {report.resampling_unit}, the differences of its items summed; " if clustered else ""
    tests = []
    if "mcnemar-exact" in used:
        tests.append("McNemar's exact test on the correct / incorrect outcomes (b = items A gets right and B wrong, c = the reverse)")
    if used & {"paired-permutation", "stratified-paired-permutation"}:
        tests.append(
            f"paired permutation test ({flips}{report.permutation_resamples} random sign flips, seed {report.seed}, exact when fewer patterns; "
            "the suite row flips within datasets)"
        )
    floor = (
        " '≤ p': p is the smallest value its test can give here (2 / (resamples + 1) when randomised), the true p may be smaller."
        if any(r.p_value_at_floor for r in rows)
        else ""
    )
    out_console.print(
        f"A = {report.a}, B = {report.b}; A − B from the results files. 95% CI: percentile bootstrap over the paired "
        f"differences of whole {units} ({report.bootstrap_resamples} resamples, seed {report.seed}; the suite row resamples within each dataset). "
        f"p, two-sided: {'; '.join(tests)}.{floor} Not corrected for multiple comparisons.",
        highlight=False,
        soft_wrap=True,
        markup=False,
    )


def register(app: typer.Typer) -> None:
    app.command("compare")(compare)
