"""harness.ui: what reaches the terminal shows names as they are."""

from __future__ import annotations

from harness.ui import Progress


def test_progress_shows_a_description_with_brackets_as_it_is():
    with Progress(enabled=True) as progress:
        task = progress.add("encoding corpus[red] of data[/red]x", total=3)
        rich_task = progress._p.tasks[0]
        column = progress._p.columns[0]
        assert column.render(rich_task).plain == "encoding corpus[red] of data[/red]x"
        progress.finish(task)
