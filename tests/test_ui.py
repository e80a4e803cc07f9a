"""harness.ui: what reaches the terminal shows names as they are."""

from __future__ import annotations

import io

from rich.console import Console

from harness import ui
from harness.ui import Progress


def test_progress_shows_a_description_with_brackets_as_it_is(monkeypatch):
    screen = io.StringIO()
    monkeypatch.setattr(ui, "err_console", Console(file=screen, force_terminal=True, width=200))
    with Progress(enabled=True) as progress:
        task = progress.add("encoding corpus[red] of data[/red]x", total=3)
        progress.advance(task)
    # read as markup, "[red]" would colour " of data" and vanish from the screen
    assert "encoding corpus[red] of data[/red]x" in screen.getvalue()
    assert "1/3" in screen.getvalue()
