"""Loading YAML safely and turning pydantic errors into `file: field: message` lines."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from harness.errors import CBenchError, ValidationFailed
from harness.names import NAME_PATTERN

MAX_YAML_BYTES = 1_000_000
M = TypeVar("M", bound=BaseModel)


class _NoAliasLoader(yaml.SafeLoader):
    """yaml.SafeLoader that refuses aliases: no billion-laughs expansion, nothing to execute."""

    def compose_node(self, parent, index):  # type: ignore[override]
        if self.check_event(yaml.events.AliasEvent):
            event = self.peek_event()
            mark = event.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, "aliases (*name) are not allowed in cbench files", mark
            )
        return super().compose_node(parent, index)


def read_text(path: Path, max_bytes: int = MAX_YAML_BYTES) -> str:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise CBenchError("file not found", source=path) from None
    if path.is_dir():
        raise CBenchError("is a directory, expected a file", source=path)
    if size > max_bytes:
        raise CBenchError(f"file is {size} bytes, larger than the {max_bytes}-byte limit", source=path)
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CBenchError(f"not valid UTF-8 (byte {e.start})", source=path) from None


def load_yaml(path: Path) -> Any:
    text = read_text(path)
    try:
        return yaml.load(text, Loader=_NoAliasLoader)  # noqa: S506 - SafeLoader subclass
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "yaml"
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise CBenchError(f"invalid YAML: {problem}", source=path, field=where) from None


def _loc(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(root)"


def validation_problems(exc: ValidationError, model: type[BaseModel], source: str | Path) -> list[CBenchError]:
    problems: list[CBenchError] = []
    for err in exc.errors():
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        msg = err["msg"]
        if err["type"] == "extra_forbidden" and loc:
            known = _fields_at(model, loc[:-1])
            guess = difflib.get_close_matches(str(loc[-1]), known, n=1)
            msg = "unknown key" + (f" (did you mean '{guess[0]}'?)" if guess else f"; known keys: {', '.join(known)}")
        elif err["type"] == "string_pattern_mismatch":
            pattern = (err.get("ctx") or {}).get("pattern", "")
            if pattern == NAME_PATTERN:
                msg = f"{err.get('input')!r} is not a valid name: 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit"
            else:
                msg = f"{err.get('input')!r} does not match the pattern {pattern}"
        problems.append(CBenchError(msg, source=source, field=_loc(loc)))
    return problems


def _fields_at(model: type[BaseModel], loc: tuple) -> list[str]:
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        field = getattr(current, "model_fields", {}).get(part)
        if field is None:
            return []
        ann = field.annotation
        args = getattr(ann, "__args__", ()) or (ann,)
        nxt = next((a for a in args if isinstance(a, type) and issubclass(a, BaseModel)), None)
        if nxt is None:
            for a in args:  # list[Model] / dict[str, Model]
                inner = next((b for b in getattr(a, "__args__", ()) if isinstance(b, type) and issubclass(b, BaseModel)), None)
                if inner is not None:
                    nxt = inner
        if nxt is None:
            return []
        current = nxt
    return sorted(getattr(current, "model_fields", {}).keys())


def validate_as(model: type[M], data: Any, source: str | Path) -> M:
    if data is None:
        raise CBenchError("the file is empty; expected a mapping of keys to values", source=source, field="(root)")
    if not isinstance(data, dict):
        raise CBenchError(f"expected a mapping at the top level, got {type(data).__name__}", source=source, field="(root)")
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise ValidationFailed(validation_problems(e, model, source)) from None
