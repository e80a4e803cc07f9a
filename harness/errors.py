"""User-facing errors: one line each, naming the file and the field, exit code 2."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError

EXIT_BAD_INPUT = 2
EXIT_SKIPPED = 3


class CBenchError(Exception):
    """An error caused by the user's input. The CLI prints `lines` and exits with `exit_code`."""

    exit_code = EXIT_BAD_INPUT

    def __init__(self, message: str, *, source: str | Path | None = None, field: str | None = None):
        self.message = message
        self.source = str(source) if source is not None else None
        self.field = field
        super().__init__(self.line)

    @property
    def line(self) -> str:
        parts = [p for p in (self.source, self.field) if p]
        return ": ".join([*parts, self.message])

    @property
    def lines(self) -> list[str]:
        return [self.line]


class ValidationFailed(CBenchError):
    """Several problems in one file; one line per problem."""

    def __init__(self, problems: list[CBenchError]):
        self.problems = problems
        super().__init__(problems[0].message, source=problems[0].source, field=problems[0].field)

    @property
    def lines(self) -> list[str]:
        return [p.line for p in self.problems]


class DataUnavailable(CBenchError):
    """The data for a dataset is not here and cannot be fetched. The suite is skipped, not failed."""

    exit_code = EXIT_SKIPPED


def first_validation_error(exc: ValidationError, *, root: str = "(root)") -> tuple[str, str]:
    """The first problem of a pydantic ``ValidationError`` as (field, message): the field as a dotted
    path (``metadata.timings``), or ``root`` when the problem is not in one field."""
    err = exc.errors()[0]
    return ".".join(str(p) for p in err["loc"]) or root, err["msg"]


def validation_error(exc: ValidationError, source: str | Path, *, within: str | None = None, root: str = "(root)") -> CBenchError:
    """The first problem of a pydantic ``ValidationError`` as one line, ``source: [within: ]field: message``
    (``within``: where in the file, e.g. ``line 3``). YAML files, which report every problem with
    hints, use ``yamlfile.validation_problems`` instead."""
    field, message = first_validation_error(exc, root=root)
    return CBenchError(message, source=source, field=f"{within}: {field}" if within else field)
