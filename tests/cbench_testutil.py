"""Helpers shared by tests in several folders (importable: pytest puts tests/ on sys.path)."""

from __future__ import annotations

import json
import os
from pathlib import Path

SHARED_DATA = Path(os.environ.get("CBENCH_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data"))
MEDLINE = SHARED_DATA / "beir" / "medline"


def write_beir(folder: Path, docs: dict[str, tuple[str, str]], queries: dict[str, str], qrels: list[tuple[str, str, int]]) -> Path:
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    with open(folder / "corpus.jsonl", "w") as f:
        for i, (title, text) in docs.items():
            f.write(json.dumps({"_id": i, "title": title, "text": text}) + "\n")
    with open(folder / "queries.jsonl", "w") as f:
        for i, text in queries.items():
            f.write(json.dumps({"_id": i, "text": text}) + "\n")
    with open(folder / "qrels" / "test.tsv", "w") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for q, d, s in qrels:
            f.write(f"{q}\t{d}\t{s}\n")
    return folder


TINY_DOCS = {
    "d1": ("Cats", "Cats are small domesticated felines that purr."),
    "d2": ("", "The stock market fell sharply on Monday after the bank report."),
    "d3": ("Rain", "Heavy rain caused flooding in the river valley."),
    "d4": ("Python", "Python is a programming language used for data science."),
    "d5": ("", "Dogs are loyal animals that bark at strangers."),
    "d6": ("Bread", "Bake the bread in a hot oven for forty minutes."),
}
TINY_QUERIES = {"q1": "domestic cat behaviour", "q2": "why did shares drop", "q3": "programming languages for data", "q4": "unjudged query"}
TINY_QRELS = [("q1", "d1", 1), ("q2", "d2", 2), ("q3", "d4", 1), ("q3", "d6", 0)]


# -- filesystem faults -----------------------------------------------------------------------
def mount_tmpfs(folder: Path, size: str = "16k", *, readonly: bool = False) -> Path:
    """Mount a small tmpfs on ``folder`` (created), or skip the test with the reason. Unmount with
    ``unmount``. Needs root (or CAP_SYS_ADMIN); the ENOSPC tests also have a monkeypatched variant
    that runs anywhere."""
    import subprocess

    import pytest

    folder.mkdir(parents=True, exist_ok=True)
    opts = f"size={size}" + (",ro" if readonly else "")
    try:
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(folder)], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        pytest.skip(f"cannot mount a tmpfs here ({e}); the monkeypatched variant covers the logic")
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({(r.stderr or r.stdout).strip()}); the monkeypatched variant covers the logic")
    return folder


def remount_readonly(folder: Path) -> None:
    import subprocess

    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True, capture_output=True, timeout=30)


def unmount(folder: Path) -> None:
    import subprocess

    subprocess.run(["umount", "-l", str(folder)], capture_output=True, timeout=30)


def fill_up(folder: Path) -> None:
    """Write a filler file until the file system says ENOSPC."""
    import errno

    with open(folder / "filler", "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 1024)
        except OSError as e:
            assert e.errno == errno.ENOSPC, e


def enospc_open(after_bytes: int = 100, match: str = ""):
    """A stand-in for ``open`` whose write-mode files fail with ENOSPC after ``after_bytes`` bytes
    (a partial write, as on a full disk), for files whose name contains ``match``."""
    import builtins
    import errno
    import os

    class Full:
        def __init__(self, f):
            self.f, self.n = f, 0

        def write(self, b):
            if self.n + len(b) > after_bytes:
                self.f.write(b[: max(0, after_bytes - self.n)])
                self.n = after_bytes
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            self.n += len(b)
            return self.f.write(b)

        def __getattr__(self, name):
            return getattr(self.f, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

    def fake_open(file, mode="r", *args, **kwargs):
        f = builtins.open(file, mode, *args, **kwargs)
        return Full(f) if "w" in mode and match in str(file) else f

    return fake_open
