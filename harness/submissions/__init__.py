"""Submission YAML files: loading, validation, lookup by name."""

from harness.submissions.registry import Registry, Submission, build_submission_scorer, load_submission, with_backend

__all__ = ["Registry", "Submission", "build_submission_scorer", "load_submission", "with_backend"]
