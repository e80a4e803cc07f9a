"""Where things live: project folders, data dir, cache dir, extra submission dirs."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SUITES_DIR = PROJECT_ROOT / "suites"
SUBMISSIONS_DIR = PROJECT_ROOT / "submissions"
LEADERBOARD_DIR = PROJECT_ROOT / "leaderboard"
DEFAULT_RESULTS_DIR = LEADERBOARD_DIR / "results"


def data_dir(override: Path | None = None) -> Path | None:
    """`--data-dir`, else `$CBENCH_DATA_DIR`, else None (only the hub)."""
    if override is not None:
        return override.expanduser().resolve()
    env = os.environ.get("CBENCH_DATA_DIR")
    return Path(env).expanduser().resolve() if env else None


def cache_dir() -> Path:
    env = os.environ.get("CBENCH_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "cbench"


def submission_dirs(extra: list[Path] | None = None) -> list[Path]:
    dirs = [SUBMISSIONS_DIR]
    env = os.environ.get("CBENCH_SUBMISSIONS")
    if env:
        dirs += [Path(p).expanduser() for p in env.split(os.pathsep) if p]
    dirs += list(extra or [])
    return dirs


def recorded_name(path: Path) -> str:
    """A file a scorer's info names: relative to the project, else its bare file name (never a
    machine path)."""
    p = path.resolve()
    return str(p.relative_to(PROJECT_ROOT)) if p.is_relative_to(PROJECT_ROOT) else p.name


def portable(path: str | Path | None) -> str | None:
    """A path as results files record it, without this machine's folders: relative to the project
    (``suites/nearmiss.yaml``), or ``$CBENCH_DATA_DIR/...`` under the data dir; anything else is
    left as given (a user's own file elsewhere). Strings that are not absolute paths pass through."""
    if path is None:
        return None
    text = str(path)
    p = Path(text)
    if not p.is_absolute():
        return text
    try:
        return p.resolve().relative_to(PROJECT_ROOT).as_posix()
    except ValueError:
        pass
    root = data_dir()
    if root is not None:
        try:
            return "$CBENCH_DATA_DIR/" + p.resolve().relative_to(root).as_posix()
        except ValueError:
            pass
    return text


def portable_command(argv: list[str]) -> str:
    """``cbench ...`` as run, each absolute-path argument made portable."""
    import shlex

    return shlex.join(["cbench", *[portable(a) or a for a in argv]])
