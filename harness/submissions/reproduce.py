"""``cbench run`` commands printed for a user to paste (the leaderboard's reproduce column, the
reruns ``cbench compare`` and ``cbench leaderboard --check`` suggest): they name every folder the
run needs beyond the defaults, so they work as printed from the folder the user works in."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

from harness import paths
from harness.results import Results
from harness.scorers.base import BuildStep
from harness.submissions.registry import Submission, dependency_fields
from harness.suites.registry import suite_files

DATA_DIR_VAR = "$CBENCH_DATA_DIR/"  # how results record paths under the data dir (harness.paths.portable)


def shell_word(arg: str) -> str:
    """``arg`` quoted for a POSIX shell; a leading ``$CBENCH_DATA_DIR/`` is left for the shell to expand."""
    if arg.startswith(DATA_DIR_VAR) and len(arg) > len(DATA_DIR_VAR):
        return f'"$CBENCH_DATA_DIR"/{shlex.quote(arg[len(DATA_DIR_VAR) :])}'
    return shlex.quote(arg)


def is_folder_run(r: Results) -> bool:
    """Results of ``cbench run --suite /a/beir/folder``: one retrieval dataset, no suite file, not a
    shipped suite."""
    return r.task == "retrieval" and r.metadata.suite_file is None and len(r.datasets) == 1 and r.suite not in suite_files()


def suite_arg(suite: str, r: Results | None) -> str:
    """What ``cbench run --suite`` takes to make results of ``suite`` again (``r``: results of it, to
    read where it came from): a shipped suite's name, else the suite file the results recorded, else
    the BEIR folder."""
    if suite in suite_files() or r is None:
        return suite
    if r.metadata.suite_file:
        return r.metadata.suite_file
    sources = [s for s in r.metadata.dataset_sources.values() if s]
    return sources[0] if is_folder_run(r) and sources else suite


def extra_folders(sub: Submission, subs: dict[str, Submission]) -> list[Path]:
    """The submission folders beyond the shipped one that a run of ``sub`` reads: its own and those
    of the submissions it builds on (``first_stage``, ``encoder``), recursively, as they were given."""
    out: list[Path] = []
    todo, seen = [sub], {sub.name}
    while todo:
        current = todo.pop(0)
        folder = current.folder
        if folder is not None and folder.resolve() != paths.SUBMISSIONS_DIR.resolve() and folder not in out:
            out.append(folder)
        for field in dependency_fields(current.config):
            name = getattr(current.config, field, None)
            if isinstance(name, str) and name in subs and name not in seen:
                seen.add(name)
                todo.append(subs[name])
    return out


def recorded_folders(submission_file: str | None) -> list[Path]:
    """The ``--submissions-dir`` a rerun needs for results that recorded ``submission_file``
    (``metadata.submission_file``): its folder unless it is a shipped submission."""
    if not submission_file:
        return []
    recorded = Path(submission_file)
    where = recorded if recorded.is_absolute() else paths.PROJECT_ROOT / recorded
    return [] if where.resolve().is_relative_to(paths.SUBMISSIONS_DIR.resolve()) else [recorded.parent]


def run_command(
    model: str,
    suites: Sequence[str],
    *,
    results_dir: Path | None = None,
    folders: Sequence[Path] = (),
    build: BuildStep | None = None,
    options: Sequence[str] = (),
) -> str:
    """``cbench run --model MODEL --suite S ...`` with ``--submissions-dir`` for each of ``folders``,
    ``--results-dir`` unless it is the default, then ``options``; after ``build``'s command when the
    submission has one."""
    words = ["cbench", "run", "--model", model]
    for suite in suites:
        words += ["--suite", suite]
    for folder in folders:
        words += ["--submissions-dir", str(folder)]
    if results_dir is not None and results_dir.resolve() != paths.DEFAULT_RESULTS_DIR.resolve():
        words += ["--results-dir", str(results_dir)]
    words += list(options)
    command = " ".join(shell_word(w) for w in words)
    return f"{build.command} && {command}" if build is not None else command
