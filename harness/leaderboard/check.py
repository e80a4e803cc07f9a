"""`cbench leaderboard --check`: every results file is valid, registered, current and where it belongs.

One problem per line, ``FILE: field: message``. Checked for each ``*.json`` anywhere under the dir:

- it lies at ``<dir>/<submission>/<suite>.json``, and the folder and file names match its content;
- it validates against the results schema (:class:`harness.results.Results`);
- its ``submission`` is a registered submission;
- its ``metadata.submission_hash`` equals that submission's current hash (the YAML has not changed
  since the run in a way that changes scores);
- when its per-item scores file ``<suite>.items.jsonl.gz`` is there (results from before cbench
  kept them have none, and stay valid): it validates line by line, its header matches the results
  file, ids are unique per dataset, it covers exactly the results file's datasets, and each
  dataset's mean of the main metric over items equals the results file's value within 1e-6. A
  per-item scores file without a results file beside it is a problem too.
"""

from __future__ import annotations

from pathlib import Path

from harness.errors import CBenchError
from harness.results import Results, read_results, results_files
from harness.sidecar import SUFFIX, read_sidecar, results_path_of, sidecar_path, sidecar_problems
from harness.submissions.reproduce import extra_folders, run_command, suite_arg


def _problem(path: Path, field: str, message: str) -> CBenchError:
    return CBenchError(message, source=path, field=field)


def check_results(results_dir: Path, subs: dict) -> tuple[list[CBenchError], int]:
    """(problems, number of results files checked). ``subs``: name -> Submission (``Registry().all()``)."""
    if not results_dir.is_dir():
        return [CBenchError("no such folder", source=results_dir)], 0
    files = results_files(results_dir, anywhere=True)
    problems: list[CBenchError] = []
    for path in files:
        rel = path.relative_to(results_dir)
        if len(rel.parts) != 2:
            problems.append(_problem(path, "path", f"results files belong at {results_dir}/<submission>/<suite>.json"))
            continue
        try:
            r = read_results(path)
        except CBenchError as e:
            problems.append(e)
            continue
        folder, suite = rel.parts[0], path.stem
        if r.submission != folder:
            problems.append(_problem(path, "submission", f"'{r.submission}' but the file is in folder '{folder}'"))
        if r.suite != suite:
            problems.append(_problem(path, "suite", f"'{r.suite}' but the file is named '{path.name}'"))
        problems += _check_sidecar(path, r)
        sub = subs.get(r.submission)
        if sub is None:
            problems.append(_problem(path, "submission", f"no registered submission named '{r.submission}' (add submissions/{r.submission}.yaml)"))
            continue
        if r.metadata.submission_hash != sub.hash:
            where = f" ({sub.path})" if sub.path else ""
            problems.append(
                _problem(
                    path,
                    "metadata.submission_hash",
                    f"'{r.metadata.submission_hash}' but submission '{sub.name}'{where} now hashes to '{sub.hash}'; "
                    "rerun: "
                    f"{run_command(sub.name, [suite_arg(r.suite, r)], results_dir=results_dir, folders=extra_folders(sub, subs), options=['--overwrite'])}",
                )
            )
    for spath in sorted(results_dir.glob(f"*/*{SUFFIX}")):
        if not results_path_of(spath).is_file():
            problems.append(_problem(spath, "path", f"per-item scores without a results file ({results_path_of(spath).name}) beside them"))
    return problems, len(files)


def _check_sidecar(path: Path, r: Results) -> list[CBenchError]:
    spath = sidecar_path(path)
    if not spath.exists():
        return []
    try:
        sc = read_sidecar(spath)
    except CBenchError as e:
        return [e]
    return [_problem(spath, field, message) for field, message in sidecar_problems(sc, r)]
