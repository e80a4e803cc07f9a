"""The project's own metadata (pyproject.toml) builds without deprecation warnings; its requirements
are lower bounds and constraints.txt pins the tested set inside them."""

from __future__ import annotations

import shutil
import tomllib
import warnings
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

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


def project_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = [*project["dependencies"], *(s for extra in project["optional-dependencies"].values() for s in extra)]
    return [Requirement(s) for s in specs]


def constraint_pins() -> dict[str, Version]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            req = Requirement(line)
            (spec,) = req.specifier
            assert spec.operator == "==", line
            pins[canonicalize_name(req.name)] = Version(spec.version)
    return pins


def test_pyproject_has_lower_bounds_and_constraints_the_exact_set():
    """pyproject.toml: no exact pins (they would force this set on every stack cbench joins);
    constraints.txt: one exact version per package, each inside pyproject's bounds, torch the CPU build."""
    reqs = project_requirements()
    assert [str(r) for r in reqs if any(s.operator in ("==", "===") for s in r.specifier)] == []
    pins = constraint_pins()
    pinned = {str(r): pins.get(canonicalize_name(r.name)) for r in reqs}
    assert [r for r, pin in pinned.items() if pin is None] == []
    outside = [f"{r} (constraints.txt: {pinned[str(r)]})" for r in reqs if not r.specifier.contains(pinned[str(r)], prereleases=True)]
    assert outside == []
    assert pins["torch"].local == "cpu"  # a plain torch pin lets pip take PyPI's CUDA build
    assert "cbench" not in pins and "ruff" in pins
