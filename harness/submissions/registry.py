"""Loading and validating submission YAMLs; finding a submission by name, path or model id."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, replace
from pathlib import Path

from pydantic import ConfigDict

from harness.errors import CBenchError, ValidationFailed
from harness.paths import PROJECT_ROOT, submission_dirs
from harness.run_context import RunContext
from harness.scorers.base import BuildStep, Scorer, SubmissionBase, config_hash
from harness.scorers.registry import SCORERS
from harness.yamlfile import load_yaml, validate_as


def dependency_fields(config: SubmissionBase) -> tuple[str, ...]:
    """The fields of a submission that name another submission (its kind's ``parts``)."""
    cls = SCORERS.get(config.kind)
    return cls.parts if cls is not None else ()


@dataclass(frozen=True)
class Submission:
    config: SubmissionBase
    path: Path | None  # None for ad-hoc submissions built from a model id
    folder: Path | None = None  # the submission folder it was found in, as given (None: not from a Registry)

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def kind(self) -> str:
        return self.config.kind

    @property
    def hash(self) -> str:
        """Hash of the fields that change scores (not description, authors, ...)."""
        return config_hash(self.config)

    @property
    def source(self) -> str:
        """How error lines name this submission: its file and name, or its name."""
        return f"{self.path} (submission {self.name})" if self.path else f"submission {self.name}"

    @property
    def unbuilt(self) -> list[Path]:
        """What its ``build`` step makes that is not there yet (empty: nothing to build)."""
        build = self.config.build
        if build is None:
            return []
        base = self.path.parent if self.path is not None else Path.cwd()
        return [q for q in ((base / m).resolve() for m in build.makes) if not q.exists()]

    @property
    def status(self) -> str:
        """``runnable``, or ``needs `<build command>` (<time>)`` while its build step's output is missing."""
        build = self.config.build
        return f"needs `{build.command}` ({build.time})" if build is not None and self.unbuilt else "runnable"

    @property
    def short_status(self) -> str:
        """``status`` without the build time: ``runnable`` or ``needs <build command>``."""
        build = self.config.build
        return f"needs {build.command}" if build is not None and self.unbuilt else "runnable"

    def check_built(self) -> None:
        """One line naming the build command while what it makes is missing."""
        build: BuildStep | None = self.config.build
        if build is None or not (missing := self.unbuilt):
            return
        raise CBenchError(
            f"'{missing[0]}' does not exist: it is built by `{build.command}`, run in {PROJECT_ROOT} ({build.time})",
            source=self.source,
            field="build",
        )


class _CommonFields(SubmissionBase):
    """The fields every kind has, other keys let through: what can be checked without a kind."""

    model_config = ConfigDict(extra="ignore", frozen=True)


def parse_submission(data: object, source: Path | str) -> SubmissionBase:
    """The submission's config; a bad one raises every problem found, one line each (a missing or
    unknown kind, then the other fields as the kind it suggests, or the fields every kind has)."""
    if isinstance(data, dict) and isinstance(data.get("kind"), str) and data["kind"] in SCORERS:
        return validate_as(SCORERS[data["kind"]].Config, data, source)
    if isinstance(data, dict):
        known = sorted(SCORERS)
        guess = None
        if "kind" in data:
            kind = data["kind"]
            found = difflib.get_close_matches(str(kind), known, n=1)
            guess = found[0] if found else None
            hint = f" (did you mean '{guess}'?)" if guess else ""
            problem = CBenchError(f"unknown kind '{kind}'{hint}; known kinds: {', '.join(known)}", source=source, field="kind")
        else:
            problem = CBenchError(f"missing; one of: {', '.join(known)}", source=source, field="kind")
        raise ValidationFailed([problem, *_problems_beyond_kind(data, guess, source)])
    return validate_as(SubmissionBase, data, source)  # raises the "expected a mapping" error


def _problems_beyond_kind(data: dict, guess: str | None, source: Path | str) -> list[CBenchError]:
    """The other problems of a submission whose kind is missing or unknown: as ``guess`` (the kind
    the kind line suggests), else in the fields every kind has."""
    model = SCORERS[guess].Config if guess else _CommonFields
    try:
        validate_as(model, {**data, "kind": guess or "?"}, source)
    except ValidationFailed as e:
        return [p for p in e.problems if p.field != "kind"]
    return []


def load_submission(path: Path, folder: Path | None = None) -> Submission:
    return Submission(parse_submission(load_yaml(path), path), path, folder)


class Registry:
    """All submissions in the submission directories, by name. A file that does not load, or that
    claims a name another file has, is left out and blocks only that name (``problems``)."""

    def __init__(self, extra_dirs: list[Path] | None = None):
        self.dirs = submission_dirs(extra_dirs)
        self._by_name: dict[str, Submission] | None = None
        self._broken: dict[str, CBenchError] = {}  # name (and file stem) -> why it cannot be used
        self._problems: list[CBenchError] = []
        # scorers built by build_submission_scorer, per run context: a first stage or encoder
        # named by several submissions of one run is one scorer (one loaded model)
        self._built: dict[str, tuple[RunContext, Scorer]] = {}

    def _found(self) -> list[tuple[Path, Path]]:
        """(folder, file) of every YAML in the submission folders."""
        out: list[tuple[Path, Path]] = []
        for d in self.dirs:
            if d.is_dir():
                out += [(d, p) for p in sorted(p for p in d.rglob("*") if p.suffix in {".yaml", ".yml"} and p.is_file())]
        return out

    def files(self) -> list[Path]:
        return [p for _d, p in self._found()]

    def all(self) -> dict[str, Submission]:
        """Every submission that loads and is the only one with its name (problems with the others:
        ``problems``; a name two files claim is nobody's, whether either loads or not)."""
        if self._by_name is None:
            loaded: list[tuple[Path, Submission | CBenchError, str]] = []  # (file, submission or why not, name it claims)
            claims: dict[str, list[Path]] = {}
            for folder, path in self._found():
                try:
                    sub = load_submission(path, folder)
                    loaded.append((path, sub, sub.name))
                except CBenchError as e:
                    loaded.append((path, e, _claimed_name(path)))
                claims.setdefault(loaded[-1][2], []).append(path)
            self._by_name = {}
            for path, what, name in loaded:
                first = claims[name][0]
                if isinstance(what, CBenchError):
                    self._problems.append(what)
                    for key in (name, path.stem):
                        self._broken.setdefault(key, what)
                if first != path:
                    e = CBenchError(f"name '{name}' is also used by {first}", source=path, field="name")
                    self._problems.append(e)
                    self._broken.setdefault(name, e)
                elif isinstance(what, Submission) and len(claims[name]) == 1:
                    self._by_name[name] = what
            for name in self._by_name.keys() & self._broken.keys():  # a file stem of a broken file
                del self._broken[name]
        return self._by_name

    @property
    def problems(self) -> list[CBenchError]:
        """Why files in the submission folders were left out, in file order (each error with its lines)."""
        self.all()
        return list(self._problems)

    def get(self, name: str, *, source: str = "--model") -> Submission:
        subs = self.all()
        if name in subs:
            return subs[name]
        if name in self._broken:
            raise self._broken[name]
        guess = difflib.get_close_matches(name, list(subs), n=1)
        hint = f" (did you mean '{guess[0]}'?)" if guess else ""
        raise CBenchError(f"no submission named '{name}'{hint}", source=source)

    def dependencies(self, sub: Submission) -> dict[str, str]:
        """Hashes of the submissions this one builds on (first_stage, encoder), recursively, so
        results are recomputed when any of them changes."""
        out: dict[str, str] = {}
        todo = [sub]
        while todo:
            current = todo.pop()
            for field in dependency_fields(current.config):
                name = getattr(current.config, field, None)
                if isinstance(name, str) and name not in out and name != sub.name:
                    dep = self.get(name, source=f"{current.path or current.name}: {field}")
                    out[name] = dep.hash
                    todo.append(dep)
        return dict(sorted(out.items()))

    def resolve(self, ref: str) -> Submission:
        """--model: a registered name, a submission YAML path, or a model id/folder (ad-hoc encoder)."""
        subs = self.all()
        if ref in subs:
            return subs[ref]
        path = Path(ref).expanduser()
        if path.suffix in {".yaml", ".yml"}:
            return load_submission(path)
        if ref in self._broken:
            raise self._broken[ref]
        for sub in subs.values():  # a hub id that a registered submission already wraps
            if getattr(sub.config, "model", None) == ref and sub.kind == "encoder":
                return sub
        if path.is_dir() or "/" in ref:
            from harness.scorers.encoder import EncoderConfig

            name = re.sub(r"[^A-Za-z0-9._-]", "_", path.name if path.is_dir() else ref.replace("/", "__")).lstrip("._-")
            return Submission(EncoderConfig(name=name, kind="encoder", model=ref), None)
        return self.get(ref)


def _claimed_name(path: Path) -> str:
    """The name a submission file that does not load declares (its file stem when it has none)."""
    try:
        data = load_yaml(path)
    except CBenchError:
        return path.stem
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name else path.stem


def with_backend(sub: Submission, backend: str | None, *, source: str = "--backend") -> Submission:
    """``sub`` run on ``backend`` (``--backend``): a copy of its config with ``backend`` set; only
    kinds with a ``backend`` field (encoder) accept it. None: ``sub`` unchanged."""
    if backend is None:
        return sub
    fields = type(sub.config).model_fields
    if "backend" not in fields:
        raise CBenchError(f"'{sub.name}' is a {sub.kind} submission; only encoder submissions have a backend", source=source)
    config = validate_as(type(sub.config), {**sub.config.model_dump(mode="json"), "backend": backend}, source)
    return replace(sub, config=config)


def build_submission_scorer(sub: Submission, ctx: RunContext, registry: Registry | None = None) -> Scorer:
    """The scorer of a submission, with the scorers it builds on.

    The submissions its kind names in ``parts`` (``first_stage``, ``encoder``) are looked up in
    ``registry``, built first (recursively) and handed to its constructor. Each submission is built
    once per run context, so a first stage or encoder shared by several submissions is one scorer.
    A chain of references that comes back to a submission is the one cycle error.
    """
    return _build(sub, ctx, registry if registry is not None else Registry(), [])


def _build(sub: Submission, ctx: RunContext, registry: Registry, chain: list[str]) -> Scorer:
    key = f"{sub.name}:{sub.hash}"
    built = registry._built.get(key)
    if built is not None and built[0] is ctx:
        return built[1]
    sub.check_built()
    cls = SCORERS[sub.kind]
    chain = [*chain, sub.name]
    parts: dict[str, Scorer] = {}
    for field in cls.parts:
        name = getattr(sub.config, field)
        if name in chain:
            loop = " -> ".join([*chain[chain.index(name) :], name])
            raise CBenchError(f"'{name}' reranks itself through its first_stage/encoder references ({loop})", source=sub.source, field=field)
        try:
            dep = registry.get(name, source=sub.source)
        except CBenchError as e:
            raise CBenchError(e.message, source=e.source, field=field) from None
        parts[field] = _build(dep, ctx, registry, chain)
    scorer = cls(sub.config, ctx, path=sub.path, **parts)
    registry._built[key] = (ctx, scorer)
    return scorer
