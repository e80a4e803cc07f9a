"""harness.ui: what reaches the terminal shows names as they are."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from harness import ui
from harness.ui import Progress, progress_bar


def test_progress_shows_a_description_with_brackets_as_it_is(monkeypatch):
    screen = io.StringIO()
    monkeypatch.setattr(ui, "err_console", Console(file=screen, force_terminal=True, width=200))
    with Progress(enabled=True) as progress:
        task = progress.add("encoding corpus[red] of data[/red]x", total=3)
        progress.advance(task)
    # read as markup, "[red]" would colour " of data" and vanish from the screen
    assert "encoding corpus[red] of data[/red]x" in screen.getvalue()
    assert "1/3" in screen.getvalue()


class Recorder:
    """Stands in for a Progress display: records what progress_bar asks of it."""

    def __init__(self):
        self.calls: list[tuple] = []

    def add(self, description, total):
        self.calls.append(("add", description, total))
        return 7

    def advance(self, task, n=1):
        self.calls.append(("advance", task, n))

    def finish(self, task):
        self.calls.append(("finish", task))


def test_progress_bar_adds_advances_and_removes_its_task():
    shown = Recorder()
    with progress_bar(shown, "encoding", 5) as advance:
        advance(2)
        advance()
        assert shown.calls == [("add", "encoding", 5), ("advance", 7, 2), ("advance", 7, 1)]
    assert shown.calls[-1] == ("finish", 7)


def test_progress_bar_is_removed_when_the_block_fails():
    shown = Recorder()
    with pytest.raises(RuntimeError), progress_bar(shown, "encoding", 1):
        raise RuntimeError("stopped")
    assert shown.calls == [("add", "encoding", 1), ("finish", 7)]


def test_progress_bar_without_a_display_shows_nothing():
    for off in (None, Progress(enabled=False)):
        with progress_bar(off, "encoding", 3) as advance:
            advance(3)
