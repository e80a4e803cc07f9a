"""The fixed workload ``cbench cost`` times: near-miss pairs and a BEIR collection's queries.

Pairs: items of the ``nearmiss`` suite (v2, its test split) sorted by id, ``ceil(pairs / 4)`` of
them evenly spaced (so every category is in), each giving the four pairs the suite scores,
(anchor, pos_close), (anchor, pos_far), (anchor, neg_close), (anchor, neg_far), laid out as the
suite lays them out (all pos_close pairs first, ...), cut to ``pairs``.
Queries: the ``medline`` collection of the ``classic-ir`` suite (1,033 documents, 30 judged
queries, from $CBENCH_DATA_DIR), its first ``queries`` queries by id.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from harness.data.retrieval import RetrievalData
from harness.errors import CBenchError
from harness.paths import portable
from harness.suites.registry import resolve_suite

PAIRS_SUITE = "nearmiss"
QUERY_SUITE, QUERY_DATASET = "classic-ir", "medline"
PAIRS, QUERIES, REPEATS, TOP_K = 256, 30, 3, 100
FIELDS = ("pos_close", "pos_far", "neg_close", "neg_far")  # the suite's order (suites/nearmiss.py evaluate)
PAIRS_RULE = (
    "items sorted by id, ceil(pairs / 4) evenly spaced; per item (anchor, x) for x in pos_close, pos_far, neg_close, neg_far, field by field; cut to pairs"
)
WARMUP_DOCS = 16  # documents of the warm-ups (search, index build: load the models; the corpus is indexed after them)


def digest(texts: object) -> str:
    return hashlib.sha256(json.dumps(texts, ensure_ascii=False).encode()).hexdigest()


@dataclass(frozen=True)
class Pairs:
    suite: str
    suite_file: str | None
    split: str | None
    a: list[str]
    b: list[str]


@dataclass(frozen=True)
class Queries:
    name: str  # suite:dataset
    source: str | None
    revision: str | None
    corpus: dict[str, str]
    queries: dict[str, str]  # the timed ones, in id order


def near_miss_pairs(n: int, data_dir: Path | None) -> Pairs:
    from harness.suites.nearmiss import NearMissSuite

    suite = resolve_suite(PAIRS_SUITE, data_dir)
    if not isinstance(suite, NearMissSuite):
        raise CBenchError(f"'{PAIRS_SUITE}' is a {suite.type} suite; cost pairs come from a near-miss suite", source=suite.path or PAIRS_SUITE)
    items = sorted((r for name in suite.dataset_names() for r in suite.load(name).items), key=lambda r: r.id)
    want = -(-n // len(FIELDS))
    if len(items) < want:
        raise CBenchError(f"has {len(items)} five-text items, fewer than the {want} that {n} pairs need", source=suite.path or PAIRS_SUITE, field="--pairs")
    chosen = [items[i * len(items) // want] for i in range(want)]
    a = [r.anchor for _ in FIELDS for r in chosen][:n]
    b = [getattr(r, f) for f in FIELDS for r in chosen][:n]
    return Pairs(suite.name, portable(suite.path), suite.config.split, a, b)


def collection_queries(m: int, data_dir: Path | None) -> Queries:
    suite = resolve_suite(QUERY_SUITE, data_dir)
    data: RetrievalData = suite.load(QUERY_DATASET)  # DataUnavailable (one line, exit 3) when it is not here
    if len(data.queries) < m:
        raise CBenchError(f"{QUERY_SUITE}:{QUERY_DATASET} has {len(data.queries)} judged queries, fewer than {m}", source="--queries")
    keep = sorted(data.queries)[:m]
    return Queries(f"{QUERY_SUITE}:{QUERY_DATASET}", machine_free(data.source, data_dir), data.revision, data.corpus, {q: data.queries[q] for q in keep})


def machine_free(path: str | None, data_dir: Path | None) -> str | None:
    """``path`` without this machine's folders: under the data dir as ``$CBENCH_DATA_DIR/...``,
    under the project relative to it, anything else only its last part."""
    if path is None:
        return None
    p = Path(path)
    if data_dir is not None and p.is_absolute() and p.resolve().is_relative_to(data_dir.resolve()):
        return "$CBENCH_DATA_DIR/" + p.resolve().relative_to(data_dir.resolve()).as_posix()
    out = portable(path)
    return p.name if out is not None and Path(out).is_absolute() else out
