"""harness.errors: one pydantic problem as one `file: field: message` line."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from harness.errors import first_validation_error, validation_error


class Inner(BaseModel):
    score: int


class Outer(BaseModel):
    name: str
    items: list[Inner]


def problem(data: dict) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        Outer.model_validate(data)
    return info.value


def test_first_problem_as_dotted_field_and_message():
    e = problem({"name": "x", "items": [{"score": 1}, {"score": "high"}]})
    assert first_validation_error(e) == ("items.1.score", "Input should be a valid integer, unable to parse string as an integer")


def test_one_line_names_file_and_field():
    e = problem({"items": []})
    assert validation_error(e, "a/b.json").line == "a/b.json: name: Field required"
    assert validation_error(e, "a/b.jsonl", within="line 3").line == "a/b.jsonl: line 3: name: Field required"


def test_problem_without_a_field_uses_root():
    with pytest.raises(ValidationError) as info:
        Inner.model_validate("not a mapping")
    assert first_validation_error(info.value) == ("(root)", "Input should be a valid dictionary or instance of Inner")
    assert first_validation_error(info.value, root="(line)")[0] == "(line)"
