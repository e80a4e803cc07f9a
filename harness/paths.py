"""Where things live: project folders, data dir, cache dir, extra submission dirs."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SUITES_DIR = PROJECT_ROOT / "suites"
SUBMISSIONS_DIR = PROJECT_ROOT / "submissions"
LEADERBOARD_DIR = PROJECT_ROOT / "leaderboard"
DEFAULT_RESULTS_DIR = LEADERBOARD_DIR / "results"


CONFIG_NAME = "cbench.toml"
DATA_DIR_HELP = "Local data root (default: $CBENCH_DATA_DIR, else data_dir in ./cbench.toml, else in the project's cbench.toml)."
CONFIG_KEYS = ("data_dir",)
HOW_TO_SET_DATA_DIR = f'pass --data-dir DIR, set CBENCH_DATA_DIR=DIR, or put data_dir = "DIR" in {CONFIG_NAME} (in the current folder or in {PROJECT_ROOT})'


@dataclass(frozen=True)
class DataDirChoice:
    """The local data root and how it was found (``data_dir_choice``). ``path``: None when no place
    names one; it may name a folder that does not exist. ``looked``: each place looked at, with
    what it held, in order, up to the one that decided."""

    path: Path | None
    looked: tuple[str, ...]

    @property
    def found(self) -> bool:
        """A data root that is a folder here."""
        return self.path is not None and self.path.is_dir()

    def missing_line(self) -> str:
        """One line for a run that needs local data and has no data root: where cbench looked, how to set one."""
        what = "no data directory" if self.path is None else f"the data directory {self.path} is not a folder"
        return f"{what} (looked at {'; '.join(self.looked)}); {HOW_TO_SET_DATA_DIR}"


def config_files() -> list[Path]:
    """Where ``cbench.toml`` is looked for, first first: the current folder, then the project."""
    return list(dict.fromkeys([Path.cwd().resolve() / CONFIG_NAME, PROJECT_ROOT / CONFIG_NAME]))


def read_config(path: Path) -> dict[str, str]:
    """A ``cbench.toml``'s settings; one-line CBenchError (exit 2) for a file that is not valid
    TOML, an unknown key or a value that is not a string."""
    import tomllib

    from harness.errors import CBenchError

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise CBenchError(f"cannot read it: {e}", source=path) from None
    except tomllib.TOMLDecodeError as e:
        raise CBenchError(f"invalid TOML: {e}", source=path) from None
    for key, value in data.items():
        if key not in CONFIG_KEYS:
            raise CBenchError(f"unknown key; known: {', '.join(CONFIG_KEYS)}", source=path, field=key)
        if not isinstance(value, str) or not value:
            raise CBenchError('expected a folder as a string, e.g. data_dir = "../shared/data"', source=path, field=key)
    return data


def data_dir_choice(override: Path | None = None) -> DataDirChoice:
    """The local data root, by the first of: ``--data-dir``; ``$CBENCH_DATA_DIR``; ``data_dir`` in
    ``./cbench.toml``, then in the project's ``cbench.toml`` (a relative path is relative to that
    file's folder). The first place that names a folder decides, whether or not it exists."""
    if override is not None:
        path = override.expanduser().resolve()
        return DataDirChoice(path, (f"--data-dir {path}",))
    looked = ["--data-dir: not given"]
    env = os.environ.get("CBENCH_DATA_DIR")
    if env:
        path = Path(env).expanduser().resolve()
        return DataDirChoice(path, (*looked, f"$CBENCH_DATA_DIR={path}"))
    looked.append("$CBENCH_DATA_DIR: not set")
    for config in config_files():
        if not config.is_file():
            looked.append(f"{config}: no such file")
            continue
        value = read_config(config).get("data_dir")
        if value is None:
            looked.append(f"{config}: no data_dir")
            continue
        path = (config.parent / Path(value).expanduser()).resolve()
        return DataDirChoice(path, (*looked, f'{config}: data_dir = "{value}" ({path})'))
    return DataDirChoice(None, tuple(looked))


def data_dir(override: Path | None = None) -> Path | None:
    """The local data root (``data_dir_choice``), or None when no place names one (only the hub)."""
    return data_dir_choice(override).path


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
