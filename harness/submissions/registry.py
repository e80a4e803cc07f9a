"""Loading and validating submission YAMLs; finding a submission by name, path or model id."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from harness.errors import CBenchError
from harness.paths import submission_dirs
from harness.run_context import RunContext
from harness.scorers.base import Scorer, SubmissionBase, config_hash
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


def parse_submission(data: object, source: Path | str) -> SubmissionBase:
    if isinstance(data, dict) and "kind" in data:
        kind = data["kind"]
        if not isinstance(kind, str) or kind not in SCORERS:
            known = sorted(SCORERS)
            guess = difflib.get_close_matches(str(kind), known, n=1)
            hint = f" (did you mean '{guess[0]}'?)" if guess else ""
            raise CBenchError(f"unknown kind '{kind}'{hint}; known kinds: {', '.join(known)}", source=source, field="kind")
        return validate_as(SCORERS[kind].Config, data, source)
    if isinstance(data, dict):
        raise CBenchError(f"missing; one of: {', '.join(sorted(SCORERS))}", source=source, field="kind")
    return validate_as(SubmissionBase, data, source)  # raises the "expected a mapping" error


def load_submission(path: Path) -> Submission:
    return Submission(parse_submission(load_yaml(path), path), path)


class Registry:
    """All submissions in the submission directories, by name."""

    def __init__(self, extra_dirs: list[Path] | None = None):
        self.dirs = submission_dirs(extra_dirs)
        self._by_name: dict[str, Submission] | None = None
        # scorers built by build_submission_scorer, per run context: a first stage or encoder
        # named by several submissions of one run is one scorer (one loaded model)
        self._built: dict[str, tuple[RunContext, Scorer]] = {}

    def files(self) -> list[Path]:
        out: list[Path] = []
        for d in self.dirs:
            if d.is_dir():
                out += sorted(p for p in d.rglob("*") if p.suffix in {".yaml", ".yml"} and p.is_file())
        return out

    def all(self) -> dict[str, Submission]:
        if self._by_name is None:
            self._by_name = {}
            for path in self.files():
                sub = load_submission(path)
                if sub.name in self._by_name:
                    other = self._by_name[sub.name].path
                    raise CBenchError(f"name '{sub.name}' is also used by {other}", source=path, field="name")
                self._by_name[sub.name] = sub
        return self._by_name

    def get(self, name: str, *, source: str = "--model") -> Submission:
        subs = self.all()
        if name in subs:
            return subs[name]
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
        for sub in subs.values():  # a hub id that a registered submission already wraps
            if getattr(sub.config, "model", None) == ref and sub.kind == "encoder":
                return sub
        if path.is_dir() or "/" in ref:
            from harness.scorers.encoder import EncoderConfig

            name = re.sub(r"[^A-Za-z0-9._-]", "_", path.name if path.is_dir() else ref.replace("/", "__")).lstrip("._-")
            return Submission(EncoderConfig(name=name, kind="encoder", model=ref), None)
        return self.get(ref)


def with_backend(sub: Submission, backend: str | None, *, source: str = "--backend") -> Submission:
    """``sub`` run on ``backend`` (``--backend``): a copy of its config with ``backend`` set; only
    kinds with a ``backend`` field (encoder) accept it. None: ``sub`` unchanged."""
    if backend is None:
        return sub
    fields = type(sub.config).model_fields
    if "backend" not in fields:
        raise CBenchError(f"'{sub.name}' is a {sub.kind} submission; only encoder submissions have a backend", source=source)
    config = validate_as(type(sub.config), {**sub.config.model_dump(mode="json"), "backend": backend}, source)
    return Submission(config, sub.path)


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
