"""The `cbench` command line."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from harness import __version__
from harness.errors import EXIT_BAD_INPUT, EXIT_SKIPPED, CBenchError, DataUnavailable
from harness.paths import DATA_DIR_HELP
from harness.ui import ASCII_SIMPLE_HEAD, err_console, escape, fail, out_console, print_fitted, print_table, setup_logging

if TYPE_CHECKING:
    from harness.suites.base import Suite

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="cbench: rank models by topical retrieval AND by rejection of compositional near-misses.",
)
submissions_app = typer.Typer(no_args_is_help=True, help="List and validate submission YAMLs.")
suites_app = typer.Typer(no_args_is_help=True, help="List suites.")
data_app = typer.Typer(no_args_is_help=True, help="Copy hub data for offline use.")
app.add_typer(submissions_app, name="submissions")
app.add_typer(suites_app, name="suites")
app.add_typer(data_app, name="data")

SubmissionsDir = Annotated[
    list[Path] | None,
    typer.Option("--submissions-dir", help="Extra folder of submission YAMLs (repeatable; also $CBENCH_SUBMISSIONS)."),
]
DataDir = Annotated[Path | None, typer.Option("--data-dir", help=DATA_DIR_HELP)]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="Only errors and the final table.")]


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C's KeyboardInterrupt, so that ``finally`` blocks
    (a results file's lock) run before the process ends."""

    exit_code = 128 + signal.SIGTERM


def _terminate(signum: int, frame: object) -> None:
    raise Terminated()


def os_error(e: OSError) -> CBenchError:
    from harness.results import os_reason

    return CBenchError(os_reason(e), source=e.filename)


@app.callback(invoke_without_command=True)
def _root(version: Annotated[bool, typer.Option("--version", help="Print the version.")] = False) -> None:
    if version:
        out_console.print(f"cbench {__version__}")
        raise typer.Exit(0)


@app.command()
def run(
    model: Annotated[
        list[str] | None,
        typer.Option("--model", "-m", help="Registered submission name, submission YAML, or hub id / model folder (repeatable)."),
    ] = None,
    suite: Annotated[list[str] | None, typer.Option("--suite", "-s", help="Suite name, suite YAML or BEIR folder (repeatable).")] = None,
    results_dir: Annotated[Path | None, typer.Option("--results-dir", help="Default: leaderboard/results.")] = None,
    limit_queries: Annotated[int | None, typer.Option("--limit-queries", min=1, help="Evaluate only the first N queries (by id) per dataset.")] = None,
    top_k: Annotated[int, typer.Option("--top-k", min=1, help="Documents kept per query.")] = 100,
    device: Annotated[str, typer.Option("--device", help="cpu, cuda, cuda:0, mps ...")] = "cpu",
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Recompute datasets that already have results.")] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not read or write the embedding cache.")] = False,
    trust_remote_code: Annotated[bool, typer.Option("--trust-remote-code", help="Allow models that ask for it to run their own code.")] = False,
    backend: Annotated[
        str | None,
        typer.Option(
            "--backend",
            help="Encoder submissions: torch, onnx (ONNX Runtime, CPU) or openvino (OpenVINO float32, CPU); overrides the submission's backend.",
        ),
    ] = None,
    submissions_dir: SubmissionsDir = None,
    data_dir: DataDir = None,
    quiet: Quiet = False,
    all_submissions: Annotated[bool, typer.Option("--all", help="Every registered submission (instead of --model).")] = False,
    executor: Annotated[str, typer.Option("--executor", help="local (this process) or ray (one Ray task per submission x suite x dataset).")] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option("--ray-address", help="Ray cluster to use (auto: the one `ray start` made); default: start a local one."),
    ] = None,
    shards: Annotated[
        int | None,
        typer.Option(
            "--shards",
            min=1,
            help="Ray: encode and search each retrieval corpus in N shards (dense/static kinds); default: automatic for large corpora.",
        ),
    ] = None,
    cpus_per_task: Annotated[float, typer.Option("--cpus-per-task", min=0.01, help="Ray: CPUs each task and each shard encoder declares.")] = 1.0,
) -> None:
    """Evaluate submissions on one or more suites and write results JSON (one file per submission and suite)."""
    setup_logging(quiet)
    from harness.executors import RunRequest, check_options, execute
    from harness.paths import DEFAULT_RESULTS_DIR, data_dir_choice
    from harness.submissions import Registry, with_backend
    from harness.suites.base import EvalOptions
    from harness.suites.registry import resolve_suite

    subs = []
    suites: list[Suite] = []
    no_data: list[str] = []  # suites skipped whole: no data directory and none of their data here
    try:
        check_options(executor, shards, ray_address)
        if all_submissions == bool(model):
            raise CBenchError("give --model (repeatable) or --all, not both" if model else "give --model NAME (repeatable) or --all", source="run")
        registry = Registry(submissions_dir)
        if all_submissions:  # a file that does not load blocks only itself: said, the others run
            for problem in registry.problems:
                _warn_lines(problem)
        refs = list(registry.all()) if all_submissions else list(dict.fromkeys(model or []))
        for ref in refs:
            sub = registry.resolve(ref)
            if any(s.name == sub.name for s in subs):
                continue
            if backend is not None and (not all_submissions or "backend" in type(sub.config).model_fields):
                sub = with_backend(sub, backend)  # --all: only the kinds that have a backend take it
            subs.append(sub)
        choice = data_dir_choice(data_dir)
        suites = [resolve_suite(s, choice.path) for s in (suite or ["nanobeir", "nearmiss"])]
        if not choice.found:  # one line for the suites that need the data dir, instead of one per dataset
            lacking = [(s, why) for s in suites if (why := _why_nothing_loads(s)) is not None]
            no_data = [s.name for s, _why in lacking]
            if lacking:
                found = "; ".join(why for _s, why in lacking)
                missing = DataUnavailable(f"no data found here ({found}): {choice.missing_line()}", source=", ".join(no_data))
                if len(lacking) == len(suites):
                    raise missing
                _warn_lines(missing)
                suites = [s for s in suites if all(s is not t for t, _why in lacking)]
        request = RunRequest(
            submissions=subs,
            suites=suites,
            registry=registry,
            results_dir=results_dir or DEFAULT_RESULTS_DIR,
            opts=EvalOptions(top_k=top_k, limit_queries=limit_queries),
            device=device,
            use_cache=not no_cache,
            trust_remote_code=trust_remote_code,
            overwrite=overwrite,
            progress=not quiet and sys.stderr.isatty(),
            quiet=quiet,
        )
        ray_options = {"address": ray_address, "shards": shards, "cpus_per_task": cpus_per_task} if executor == "ray" else {}
        done = execute(request, executor, **ray_options)
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM (Terminated): the locks are released by now
        how = "terminated" if isinstance(e, Terminated) else "interrupted"
        line = interrupted_line(how, results_dir or DEFAULT_RESULTS_DIR, [s.name for s in subs], [s.name for s in suites])
        err_console.print(line, highlight=False, soft_wrap=True, markup=False)
        raise typer.Exit(getattr(e, "exit_code", 130)) from None
    except CBenchError as e:
        for sub in subs:
            if sub.path is not None and e.source == f"submission {sub.name}":
                e.source = f"{sub.path} (submission {sub.name})"  # scorers know the name; name the file too
        fail(e)
    except OSError as e:  # a filesystem fault not handled where it happened: one line, not a traceback
        fail(os_error(e))
    for one in done:
        _summary(one.submission.name, one.outcomes, one.texts_encoded, quiet=quiet)
    if no_data or any(o.skipped for one in done for o, _ in one.outcomes):
        raise typer.Exit(EXIT_SKIPPED)


def _why_nothing_loads(suite: Suite) -> str | None:
    """None when a dataset of ``suite`` is here (stops at the first), even one that fails to load
    for another reason (the run then reports that as it would anyway); else why its first dataset
    is not here, up to the first ``;`` (where the data was looked for)."""
    try:
        names = suite.dataset_names()
    except DataUnavailable as e:
        return e.line.split("; ")[0]
    except Exception:  # noqa: BLE001 - not a missing-data problem: left to the run, which reports it
        return None
    first = None
    for name in names:
        try:
            suite.dataset_revision(name)
        except DataUnavailable as e:
            first = first or e.line.split("; ")[0]
            continue
        except Exception:  # noqa: BLE001 - as above
            return None
        return None
    return first or "no datasets"


def interrupted_line(how: str, results_dir: Path, submissions: list[str], suites: list[str]) -> str:
    """What an interrupted `cbench run` says it kept: the finished datasets of each results file it
    was filling (as that file holds them now), or that nothing is kept."""
    from harness.results import read_results, results_path

    kept: list[str] = []
    for sub in submissions:
        for suite in suites:
            path = results_path(results_dir, sub, suite)
            try:
                names = list(read_results(path).datasets) if path.is_file() else []
            except CBenchError:
                continue
            if names:
                kept.append(f"{path} ({', '.join(names)})")
    if not kept:
        return f"{how} before any dataset finished: nothing is kept in {results_dir}; run the same command again to start over"
    return f"{how}: the finished datasets are kept in {'; '.join(kept)}; run the same command again to resume from there"


def _summary(name: str, outcomes: list, texts_encoded: int, *, quiet: bool = False) -> None:
    from rich.table import Table

    table = Table(title=f"cbench results: {name}", title_justify="left")
    for col in ("suite", "dataset", "metric", "score", "95% CI", "status"):
        table.add_column(col, justify="right" if col in ("score", "95% CI") else "left")

    def ci(x: tuple[float, float] | None) -> str:
        return f"{x[0]:.4f}–{x[1]:.4f}" if x is not None else "—"

    for outcome, _secs in outcomes:
        r = outcome.results
        for ds in [*r.datasets, *r.skipped]:
            if ds in r.datasets:
                status = "computed" if ds in outcome.computed else "reused"
                table.add_row(r.suite, ds, r.main_metric, f"{r.datasets[ds].get(r.main_metric, float('nan')):.4f}", ci(r.ci95.get(ds)), status)
            else:
                table.add_row(r.suite, ds, r.main_metric, "—", "—", escape(f"skipped: {r.skipped[ds][:60]}"))
        main = f"{r.main_score:.4f}" if r.main_score is not None else "—"
        where = escape(str(outcome.path)) if outcome.kept else "no results file (no dataset loaded)"
        table.add_row(f"[bold]{r.suite}[/bold]", "[bold]main score[/bold]", r.main_metric, f"[bold]{main}[/bold]", ci(r.main_score_ci95), where)
    print_table(table)
    if not quiet:  # --quiet: errors and the table only
        err_console.print(f"texts encoded this run: {texts_encoded}", highlight=False)


def _warn_lines(e: CBenchError) -> None:
    for line in e.lines:
        err_console.print(f"[yellow]warning:[/yellow] {escape(line)}", highlight=False, soft_wrap=True)


@submissions_app.command("list")
def submissions_list(
    submissions_dir: SubmissionsDir = None,
    wide: Annotated[bool, typer.Option("--wide", help="Every column in full: absolute paths, the build time, exact parameter counts.")] = False,
) -> None:
    """List registered submissions and whether each runs as it is (or which command builds its weights); exit 2 when a file does not load.
    Fits the terminal (piped: $COLUMNS, else 120 columns); --wide prints everything in full."""
    from rich.table import Table

    from harness.submissions import Registry

    registry = Registry(submissions_dir)
    subs = registry.all()
    if wide:
        table = Table()
        for col in ("name", "kind", "model", "parameters", "status", "file"):
            table.add_column(col, no_wrap=col == "name")
        for s in subs.values():
            params = f"{s.config.parameters:,}" if s.config.parameters else ""
            table.add_row(s.name, s.kind, escape(str(getattr(s.config, "model", "") or "")), params, escape(s.status), escape(str(s.path)))
        print_table(table)
    else:  # fits the width: the model only with --wide, paths relative, the status without the build time
        table = Table(box=ASCII_SIMPLE_HEAD, pad_edge=False, show_edge=False, padding=(0, 1, 0, 0))
        for col in ("name", "kind", "params", "status", "file"):
            right = "right" if col == "params" else "left"
            table.add_column(col, no_wrap=col in ("name", "params", "status"), overflow="fold", justify=right, min_width=16 if col == "file" else None)
        for s in subs.values():
            table.add_row(s.name, s.kind, short_count(s.config.parameters), escape(s.short_status), escape(shown_path(s.path)) if s.path else "")
        print_fitted(table)
    for problem in registry.problems:
        for line in problem.lines:
            err_console.print(f"[red]error:[/red] {escape(line)}", highlight=False, soft_wrap=True)
    if registry.problems:
        raise typer.Exit(EXIT_BAD_INPUT)


def short_count(n: int | None) -> str:
    """A parameter count in three significant digits: 22.7M, 110M, 7.56M, 950k; blank when unknown."""
    if not n:
        return ""
    for div, unit in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            return f"{n / div:.3g}{unit}"
    return str(n)


def shown_path(path: Path) -> str:
    """A path as the narrow tables show it: relative to the current folder, or absolute when that is shorter."""
    full = path.resolve()
    try:
        rel = os.path.relpath(full)
    except ValueError:  # another drive
        return str(full)
    return rel if len(rel) <= len(str(full)) else str(full)


@submissions_app.command("validate")
def submissions_validate(
    files: Annotated[list[Path] | None, typer.Argument(help="Submission YAML files (default: every one in the submission folders).")] = None,
    submissions_dir: SubmissionsDir = None,
) -> None:
    """Validate submission files: exit 0 when all are valid, 2 with one line per problem otherwise."""
    from harness.submissions import Registry, load_submission

    problems: list[CBenchError] = []
    if files:
        for f in files:
            try:
                sub = load_submission(f)
                out_console.print(f"ok: {f} ({sub.kind} '{sub.name}')", highlight=False, markup=False, soft_wrap=True)
            except CBenchError as e:
                problems.append(e)
    else:
        registry = Registry(submissions_dir)
        for sub in registry.all().values():
            out_console.print(f"ok: {sub.path} ({sub.kind} '{sub.name}')", highlight=False, markup=False, soft_wrap=True)
        problems = registry.problems
    for e in problems:
        for line in e.lines:
            err_console.print(line, highlight=False, soft_wrap=True)
    raise typer.Exit(EXIT_BAD_INPUT if problems else 0)


@suites_app.command("list")
def suites_list(data_dir: DataDir = None) -> None:
    """List shipped suites and their datasets."""
    from rich.table import Table

    from harness.paths import data_dir as resolve_data_dir
    from harness.suites.registry import load_suite_file, suite_files

    table = Table()
    for col in ("suite", "type", "task", "datasets", "description"):
        table.add_column(col)
    try:
        for _name, path in suite_files().items():
            s = load_suite_file(path, resolve_data_dir(data_dir))
            try:
                names = ", ".join(s.dataset_names())
            except DataUnavailable as e:
                names = f"(data unavailable: {e.message[:80]})"
            table.add_row(s.name, s.type, s.task, escape(names), escape(s.config.description))
    except CBenchError as e:
        fail(e)
    print_table(table)


@data_app.command("pull")
def data_pull(
    what: Annotated[str, typer.Argument(help="Data set to copy: nanobeir.")],
    to: Annotated[Path, typer.Option("--to", help="Data root to write into (use it as CBENCH_DATA_DIR).")],
    revision: Annotated[
        list[str] | None,
        typer.Option("--revision", help="NAME=REV: pull dataset NAME at hub revision REV instead of the suite's pinned commit (repeatable)."),
    ] = None,
) -> None:
    """Copy hub data into the local layout cbench reads offline (run on a connected machine)."""
    from harness.data.nanobeir import pull
    from harness.model_refs import hub_offline
    from harness.suites.registry import load_suite_file, suite_files

    try:
        if what != "nanobeir":
            raise CBenchError(f"unknown data set '{what}'; known: nanobeir", source="data pull")
        suite = load_suite_file(suite_files()["nanobeir"], None)
        revisions = dict(suite.config.revisions)
        for item in revision or []:
            name, sep, rev = item.partition("=")
            if not sep or not rev or name not in suite.config.datasets:
                raise CBenchError(
                    f"expected NAME=REV with NAME one of {', '.join(suite.config.datasets)}, got {item!r}", source="data pull", field="--revision"
                )
            revisions[name] = rev
        if hub_offline():
            raise CBenchError("HF_HUB_OFFLINE is set; pulling needs the hub", source="data pull")
        for folder in pull(suite.config.datasets, to=to, prefix=suite.config.hub_prefix, revisions=revisions):
            err_console.print(f"wrote {folder}", highlight=False, markup=False)
    except CBenchError as e:
        fail(e)
    except OSError as e:  # --to unwritable, read-only, full
        fail(CBenchError(f"cannot write: {os_error(e).message}", source=e.filename or to))


from harness.commands import register_all  # noqa: E402

register_all(app)


def main() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    # transformers resets its logger's level when it first logs (after setup_logging ran): its
    # warnings (e.g. during an OpenVINO export) would reach stderr even with --quiet.
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    signal.signal(signal.SIGTERM, _terminate)  # unwind like Ctrl-C: no results lock left behind
    try:
        app()
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)
    except OSError as e:  # any command: a filesystem fault is one line and exit 2, never a traceback
        err_console.print(f"[red]error:[/red] {escape(os_error(e).line)}", highlight=False, soft_wrap=True)
        sys.exit(EXIT_BAD_INPUT)


if __name__ == "__main__":
    main()
