"""Submission YAML files: loading, validation, lookup by name."""

from harness.submissions.registry import Registry, Submission, load_submission

__all__ = ["Registry", "Submission", "load_submission"]
