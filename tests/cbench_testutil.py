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


# -- tiny suites for per-item scores, intervals and `cbench compare` ---------------------------
MORE_DOCS = {
    "m1": ("Tea", "Green tea is brewed from the leaves of the tea plant."),
    "m2": ("", "The train to the coast leaves the station every hour."),
    "m3": ("Bees", "Bees collect nectar from flowers and make honey."),
    "m4": ("", "Honey is sweet and the bees store it in the hive."),
    "m5": ("Chess", "In chess the queen moves along rows, columns and diagonals."),
    "m6": ("", "A coastal railway connects the small harbour towns."),
    "m7": ("Ovens", "An oven bakes bread, cakes and pies at high heat."),
    # r6 "cats": one match each; BM25 with length normalisation (b > 0) puts the short m8 first,
    # without it (b = 0) the two tie, and trec_eval, which breaks ties by id descending, puts the relevant m9 first
    "m8": ("", "Cats sleep."),
    "m9": ("", "On the old farm by the river lived dogs, horses, goats, chickens and some cats that hunted mice at night."),
}
MORE_QUERIES = {
    "r1": "how is tea made", "r2": "train timetable to the coast", "r3": "bees and honey", "r4": "queen moves in chess", "r5": "baking bread", "r6": "cats"
}
MORE_QRELS = [("r1", "m1", 1), ("r2", "m2", 1), ("r2", "m6", 1), ("r3", "m3", 1), ("r3", "m4", 2), ("r4", "m5", 1), ("r5", "m7", 1), ("r6", "m9", 1)]

ITEMS = [  # five-text near-miss items (items-jsonl): two categories, four items each
    ("negation", "The bridge is safe to cross.", "The bridge is safe to walk across.", "Crossing the bridge is safe.",
     "The bridge is not safe to cross.", "Crossing the bridge is not safe."),
    ("negation", "The soup is hot.", "The soup is very hot.", "It is a hot soup.", "The soup is not hot.", "It is not a hot soup."),
    ("negation", "She likes the new song.", "She really likes the new song.", "The new song is liked by her.",
     "She does not like the new song.", "The new song is not liked by her."),
    ("negation", "The shop is open on Sunday.", "The shop is open every Sunday.", "On Sunday the shop opens.",
     "The shop is closed on Sunday.", "On Sunday the shop does not open."),
    ("role_swap", "The dog chased the cat.", "The dog ran after the cat.", "The cat was chased by the dog.",
     "The cat chased the dog.", "The dog was chased by the cat."),
    ("role_swap", "Anna paid Ben.", "Anna gave Ben the money.", "Ben was paid by Anna.", "Ben paid Anna.", "Anna was paid by Ben."),
    ("role_swap", "The teacher thanked the student.", "The teacher said thanks to the student.", "The student was thanked by the teacher.",
     "The student thanked the teacher.", "The teacher was thanked by the student."),
    ("role_swap", "The company bought the startup.", "The company acquired the startup.", "The startup was bought by the company.",
     "The startup bought the company.", "The company was bought by the startup."),
]

# generator frames of ITEMS and TRIPLETS (a `frame` field in their files; the suites tiny-frames and
# tiny-triplet-frames resample by it): units of sizes 1 and 2 and 3, 2 and 2, in each category
ITEM_FRAMES = ["neg-a", "neg-b", "neg-b", "neg-b", "rs-a", "rs-a", "rs-b", "rs-b"]
TRIPLET_FRAMES = ["neg-a", "neg-b", "neg-b", "neg-c", "neg-c", "rs-a", "rs-a", "rs-a", "rs-b", "rs-b"]

TRIPLETS = [  # anchor, positive, negative (triplets-jsonl)
    ("negation", "The water is clean.", "The water is very clean.", "The water is not clean."),
    ("negation", "He can swim.", "He is able to swim.", "He cannot swim."),
    ("negation", "The test was easy.", "The exam was easy.", "The test was not easy."),
    ("negation", "We have milk.", "There is milk at home.", "We have no milk."),
    ("negation", "The door is locked.", "Someone locked the door.", "The door is unlocked."),
    ("role_swap", "The boy pushed the girl.", "The girl was pushed by the boy.", "The girl pushed the boy."),
    ("role_swap", "Mia called Tom.", "Tom got a call from Mia.", "Tom called Mia."),
    ("role_swap", "The cat watched the bird.", "The bird was watched by the cat.", "The bird watched the cat."),
    ("role_swap", "The bank lent money to the farmer.", "The farmer borrowed money from the bank.", "The farmer lent money to the bank."),
    ("role_swap", "The coach praised the player.", "The player was praised by the coach.", "The player praised the coach."),
]


def write_tiny_suites(root: Path) -> dict[str, Path]:
    """Suite YAMLs under ``root``: ``tiny-ir`` (two BEIR folders), ``tiny-items`` (five-text
    items) and ``tiny-triplets``, and ``tiny-frames`` / ``tiny-triplet-frames``: the same items /
    triplets resampled by generator frame; their data next to them. Returns suite name -> YAML path."""
    write_beir(root / "beir" / "one", TINY_DOCS, TINY_QUERIES, TINY_QRELS)
    write_beir(root / "beir" / "two", MORE_DOCS, MORE_QUERIES, MORE_QRELS)
    with open(root / "items.jsonl", "w") as f:
        for i, (cat, a, pc, pf, nc, nf) in enumerate(ITEMS):
            row = {
                "id": f"it-{i}", "category": cat, "split": "test", "anchor": a,
                "pos_close": pc, "pos_far": pf, "neg_close": nc, "neg_far": nf, "frame": ITEM_FRAMES[i],
            }
            f.write(json.dumps(row) + "\n")
    with open(root / "triplets.jsonl", "w") as f:
        for i, (cat, a, p, n) in enumerate(TRIPLETS):
            row = {"id": f"tr-{i}", "category": cat, "split": "test", "anchor": a, "positive": p, "negative": n, "frame": TRIPLET_FRAMES[i]}
            f.write(json.dumps(row) + "\n")
    suites = {
        "tiny-ir": "name: tiny-ir\ntype: beir\ndatasets:\n  - {name: one, path: beir/one}\n  - {name: two, path: beir/two}\n",
        "tiny-items": "name: tiny-items\ntype: nearmiss\nformat: items-jsonl\nfiles:\n  - {name: items, path: items.jsonl}\n",
        "tiny-triplets": "name: tiny-triplets\ntype: nearmiss\nformat: triplets-jsonl\nfiles:\n  - {name: triplets, path: triplets.jsonl}\n",
        "tiny-frames": "name: tiny-frames\ntype: nearmiss\nformat: items-jsonl\nresample_by: frame\nfiles:\n  - {name: items, path: items.jsonl}\n",
        "tiny-triplet-frames": "name: tiny-triplet-frames\ntype: nearmiss\nformat: triplets-jsonl\nresample_by: frame\n"
        "files:\n  - {name: triplets, path: triplets.jsonl}\n",
    }
    out = {}
    for name, text in suites.items():
        (root / f"{name}.yaml").write_text(text)
        out[name] = root / f"{name}.yaml"
    return out


def write_lexical(folder: Path, name: str, **fields) -> Path:
    """A ``kind: lexical`` (BM25) submission YAML: no model, deterministic, fast."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"name: {name}", "kind: lexical", *(f"{k}: {v}" for k, v in fields.items())]
    (folder / f"{name}.yaml").write_text("\n".join(lines) + "\n")
    return folder / f"{name}.yaml"
