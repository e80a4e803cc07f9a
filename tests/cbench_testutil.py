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
