"""Terminal output: Rich progress bars and tables on stderr, quiet mode, logging setup."""

from __future__ import annotations

import logging
from typing import NoReturn

import typer

from rich.console import Console
from rich.logging import RichHandler
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichProgress

from harness.errors import CBenchError

err_console = Console(stderr=True)
out_console = Console()


def setup_logging(quiet: bool = False, verbose: bool = False) -> None:
    level = logging.DEBUG if verbose else logging.ERROR if quiet else logging.WARNING
    logging.basicConfig(level=level, format="%(message)s", handlers=[RichHandler(console=err_console, show_path=False, show_time=False)], force=True)
    logging.getLogger("cbench").setLevel(logging.DEBUG if verbose else logging.INFO if not quiet else logging.ERROR)
    for noisy in ("sentence_transformers", "transformers", "huggingface_hub", "datasets", "httpx", "urllib3"):
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
        return self._p.add_task(description, total=total) if self._p else None

    def advance(self, task: int | None, n: int = 1) -> None:
        if self._p and task is not None:
            self._p.advance(task, n)

    def finish(self, task: int | None) -> None:
        if self._p and task is not None:
            self._p.remove_task(task)


def fail(e: CBenchError) -> NoReturn:
    """Print a user error (one line per problem) and leave with its exit code."""
    for line in e.lines:
        err_console.print(f"[red]error:[/red] {line}", highlight=False, soft_wrap=True)
    raise typer.Exit(e.exit_code)
