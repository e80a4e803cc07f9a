"""Terminal output: Rich progress bars and tables on stderr, quiet mode, logging setup."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NoReturn

import typer
from rich.box import Box
from rich.console import Console
from rich.logging import RichHandler
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichProgress

from harness.errors import CBenchError

if TYPE_CHECKING:
    from rich.table import Table

err_console = Console(stderr=True)
out_console = Console()
PIPED_WIDTH = 10_000  # "no limit" for tables written to a pipe or file
# Rich's SIMPLE_HEAD (no borders, a rule under the header) in ASCII: one byte per column, so byte
# counts (awk's length) and character counts agree
ASCII_SIMPLE_HEAD = Box("    \n    \n -- \n    \n    \n    \n    \n    \n", ascii=True)


def print_table(table) -> None:
    """A table on stdout: fitted to the terminal; piped or redirected (Rich would assume 80
    columns and cut cells), at its full natural width so paths and names stay whole."""
    if out_console.is_terminal:
        out_console.print(table)
    else:
        Console(width=PIPED_WIDTH, no_color=out_console.no_color).print(table)


def print_fitted(table: Table, *, piped_width: int = 120) -> None:
    """A table on stdout no wider than the terminal; piped or redirected, no wider than $COLUMNS, else
    ``piped_width`` (long cells wrap)."""
    if out_console.is_terminal:
        out_console.print(table)
        return
    columns = os.environ.get("COLUMNS", "")
    width = int(columns) if columns.isdigit() and int(columns) > 0 else piped_width
    Console(width=width, no_color=out_console.no_color).print(table)


def setup_logging(quiet: bool = False) -> None:
    level = logging.ERROR if quiet else logging.WARNING
    cbench_level = logging.ERROR if quiet else logging.INFO
    handler = RichHandler(console=err_console, show_path=False, show_time=False)
    # The handler filters too: libraries that set their own logger's level at import (bm25s sets
    # DEBUG) bypass the root level, so without this `--quiet` would print their debug lines.
    handler.setLevel(min(level, cbench_level))
    logging.basicConfig(level=level, format="%(message)s", handlers=[handler], force=True)
    logging.getLogger("cbench").setLevel(cbench_level)
    for noisy in ("sentence_transformers", "transformers", "huggingface_hub", "datasets", "httpx", "urllib3", "bm25s", "optimum", "nncf"):
        logging.getLogger(noisy).setLevel(logging.ERROR)


class Progress:
    """Thin wrapper so scorers can report progress without knowing about Rich."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self._p = (
            RichProgress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=err_console,
                transient=True,
            )
            if enabled
            else None
        )

    def __enter__(self) -> Progress:
        if self._p:
            self._p.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._p:
            self._p.stop()

    def add(self, description: str, total: int | None) -> int | None:
        # the description names datasets and files: shown as it is, not read as Rich markup
        return self._p.add_task(escape(description), total=total) if self._p else None

    def advance(self, task: int | None, n: int = 1) -> None:
        if self._p and task is not None:
            self._p.advance(task, n)

    def finish(self, task: int | None) -> None:
        if self._p and task is not None:
            self._p.remove_task(task)


@contextmanager
def progress_bar(progress: Progress | None, description: str, total: int | None) -> Iterator[Callable[..., None]]:
    """One bar for the length of a ``with`` block: yields ``advance(n=1)``; the bar is removed when
    the block ends, also when it fails. ``progress`` None (no display) or disabled: nothing shown."""
    task = progress.add(description, total) if progress is not None else None

    def advance(n: int = 1) -> None:
        if progress is not None:
            progress.advance(task, n)

    try:
        yield advance
    finally:
        if progress is not None:
            progress.finish(task)


def fail(e: CBenchError) -> NoReturn:
    """Print a user error (one line per problem) and leave with its exit code."""
    for line in e.lines:
        err_console.print(f"[red]error:[/red] {escape(line)}", highlight=False, soft_wrap=True)
    raise typer.Exit(e.exit_code)
