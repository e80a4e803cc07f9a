"""The project's own metadata (pyproject.toml) builds without deprecation warnings."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_pyproject_applies_without_deprecation_warnings(tmp_path):
    """What `pip install -e .` runs: setuptools applies [project] to a Distribution. A license given
    as a TOML table (instead of an SPDX string) prints a screen of SetuptoolsDeprecationWarning."""
    from setuptools.config.pyprojecttoml import apply_configuration
    from setuptools.dist import Distribution

    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dist = apply_configuration(Distribution(), tmp_path / "pyproject.toml")
    deprecations = [f"{w.category.__name__}: {str(w.message).strip().splitlines()[0]}" for w in caught if issubclass(w.category, DeprecationWarning)]
    assert deprecations == []
    assert dist.metadata.license_expression == "MIT"
