"""The one place where suite types are registered, and lookup of suites by name or path."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from harness.errors import CBenchError
from harness.names import NAME_PATTERN
from harness.paths import PROJECT_ROOT, SUITES_DIR
from harness.suites.base import Suite, SuiteFacts
from harness.suites.nearmiss import NearMissSuite
from harness.suites.nevir import NevIRSuite
from harness.suites.paws import PawsSuite
from harness.suites.retrieval import (
    BeirDataset,
    BeirSuite,
    BeirSuiteConfig,
    NanoBEIRSuite,
)
from harness.yamlfile import load_yaml, validate_as

SUITE_CLASSES: list[type[Suite]] = [
    BeirSuite,
    NanoBEIRSuite,
    NearMissSuite,
    NevIRSuite,
    PawsSuite,
]
SUITE_TYPES: dict[str, type[Suite]] = {cls.type: cls for cls in SUITE_CLASSES}


def suite_files() -> dict[str, Path]:
    return {p.stem: p for p in sorted(SUITES_DIR.glob("*.yaml"))}


def load_suite_file(path: Path, data_dir: Path | None) -> Suite:
    data = load_yaml(path)
    if not isinstance(data, dict):
        raise CBenchError("expected a mapping at the top level", source=path, field="(root)")
    kind = data.get("type")
    if kind not in SUITE_TYPES:
        guess = difflib.get_close_matches(str(kind), list(SUITE_TYPES), n=1)
        hint = f" (did you mean '{guess[0]}'?)" if guess else ""
        what = "missing" if kind is None else f"unknown type '{kind}'{hint}"
        raise CBenchError(f"{what}; known types: {', '.join(sorted(SUITE_TYPES))}", source=path, field="type")
    cls = SUITE_TYPES[kind]
    return cls(validate_as(cls.Config, data, path), path, data_dir)


def shipped_suites() -> dict[str, Suite]:
    """Every suite YAML in the suites folder that loads (by name)."""
    out: dict[str, Suite] = {}
    for path in suite_files().values():
        try:
            suite = load_suite_file(path, None)
        except CBenchError:
            continue
        out.setdefault(suite.name, suite)
    return out


def find_suite(name: str, recorded_file: str | None = None, data_dir: Path | None = None) -> Suite | None:
    """The suite results named ``name`` were made with, as defined here now: the shipped suite of that
    name, else the suite file the results recorded (``metadata.suite_file``, when it is still there
    and still names that suite); None when neither. ``data_dir``: where it looks for data not kept
    beside the suite file (None: nowhere but there)."""
    shipped = shipped_suites().get(name)
    if shipped is not None and shipped.path is not None:
        return shipped if data_dir is None else load_suite_file(shipped.path, data_dir)
    recorded = Path(recorded_file) if recorded_file else None
    if recorded is not None and not recorded.is_absolute():  # results record project files relative to it
        recorded = PROJECT_ROOT / recorded
    if recorded is not None and recorded.is_file():
        try:
            suite = load_suite_file(recorded, data_dir)
            if suite.name == name:
                return suite
        except CBenchError:
            pass
    return None


def suite_facts(name: str, task: str, recorded_file: str | None = None) -> SuiteFacts:
    """A suite's leaderboard facts: from the shipped suite of that name, else from the suite file a
    result recorded (when it is still there), else the defaults for its task."""
    shipped = shipped_suites()
    if name in shipped:
        return shipped[name].facts()
    suite = find_suite(name, recorded_file)
    if suite is not None:
        return suite.facts()
    cls = next((c for c in SUITE_CLASSES if c.task == task), None)
    role = "retrieval" if task == "retrieval" else "composition"
    metric = "ndcg@10" if task == "retrieval" else "triplet_accuracy"
    if cls is not None and cls.leaderboard.role:
        role = cls.leaderboard.role
    return SuiteFacts(name, task, name, role, 100, (), metric, cls.leaderboard.chance if cls is not None else None)


def resolve_suite(ref: str, data_dir: Path | None) -> Suite:
    """--suite: a shipped suite name, a suite YAML path, or a BEIR folder (ad-hoc suite)."""
    files = suite_files()
    if ref in files:
        return load_suite_file(files[ref], data_dir)
    path = Path(ref).expanduser()
    if path.suffix in {".yaml", ".yml"}:
        return load_suite_file(path, data_dir)
    if path.is_dir():
        if not (path / "corpus.jsonl").exists():
            raise CBenchError("not a BEIR folder (no corpus.jsonl)", source=path)
        # the folder name becomes the suite/dataset name (a results path): keep it to safe characters
        name = re.sub(r"[^A-Za-z0-9._-]", "_", path.resolve().name).lstrip("._-")[:100] or "beir"
        cfg = BeirSuiteConfig(name=name, type="beir", datasets=[BeirDataset(name=name, path=str(path.resolve()))])
        return BeirSuite(cfg, None, data_dir)
    guess = difflib.get_close_matches(ref, list(files), n=1)
    hint = f" (did you mean '{guess[0]}'?)" if guess else ""
    raise CBenchError(f"no suite named '{ref}'{hint}; known: {', '.join(files)}; or give a suite YAML or a BEIR folder", source="--suite")


def results_suite(ref: str, data_dir: Path | None = None) -> tuple[str, Suite | None]:
    """The suite name ``cbench run --suite REF`` writes its results under (``<submission>/<name>.json``)
    and the suite: the name inside a shipped suite or suite YAML, a BEIR folder's ad-hoc name (as
    ``resolve_suite`` makes it); any other valid name as given, without a suite (results of a
    suite not shipped here)."""
    path = Path(ref).expanduser()
    if ref in suite_files() or path.suffix in {".yaml", ".yml"} or path.is_dir() or not re.fullmatch(NAME_PATTERN, ref):
        suite = resolve_suite(ref, data_dir)
        return suite.name, suite
    return ref, None
