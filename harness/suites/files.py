"""Data files a suite names: where they are looked for, how they are fetched, and their sha256 pin."""

from __future__ import annotations

import hashlib
import urllib.request
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from harness.errors import CBenchError, DataUnavailable
from harness.model_refs import hub_offline
from harness.suites.base import Suite

SHA256_PATTERN = r"^[0-9a-f]{64}$"


class PinnedFile(BaseModel):
    """A data file of a suite YAML: its path, optionally its sha256 and where to download it."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    path: str = Field(description="relative to the suite file or to $CBENCH_DATA_DIR")
    sha256: str | None = Field(default=None, pattern=SHA256_PATTERN)
    url: str | None = Field(default=None, pattern=r"^https://", description="where to fetch it when absent (online only)")


def locate(suite: Suite, f: PinnedFile, label: str) -> Path:
    """The file: the first of ``suite.candidates(f.path)`` that exists, else downloaded from
    ``f.url`` when online; DataUnavailable (the dataset ``label`` is skipped) otherwise."""
    candidates = suite.candidates(f.path)
    for c in candidates:
        if c.is_file():
            return c
    if f.url and not hub_offline():
        return _download(f, label)
    tried = ", ".join(str(c) for c in candidates) or f.path
    how = f"download {f.url} there, or " if f.url else ""
    raise DataUnavailable(f"file not found (tried {tried}); {how}set CBENCH_DATA_DIR / --data-dir to the folder holding '{f.path}'", source=label)


def _download(f: PinnedFile, label: str) -> Path:
    from harness.paths import cache_dir

    assert f.url is not None
    target = cache_dir() / "downloads" / (f.sha256 or hashlib.sha256(f.url.encode()).hexdigest()) / Path(f.path).name
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            with urllib.request.urlopen(f.url, timeout=60) as r:  # noqa: S310 - https only (validated)
                payload = r.read()
        except OSError as e:
            raise DataUnavailable(f"cannot download {f.url}: {e}", source=label) from None
        from harness.atomic import atomic_write_bytes

        atomic_write_bytes(target, payload)
    return target


def checked_digest(path: Path, f: PinnedFile, suite: Suite, field: str) -> str:
    """The file's sha256; one-line CBenchError (naming the suite file and ``field``) when it
    differs from the pin."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if f.sha256 and digest != f.sha256:
        raise CBenchError(f"sha256 mismatch for {path} (expected {f.sha256[:12]}…, got {digest[:12]}…)", source=suite.path, field=field)
    return digest
