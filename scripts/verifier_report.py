"""The verifier comparison of docs/findings.md, from the committed results and cost files.

    python scripts/verifier_report.py           # print the markdown
    python scripts/verifier_report.py --write   # replace the block between docs/findings.md's markers

Every verifier (the token-map ones and the cross-encoder) beside its first stage, on every suite
(main score, 95% interval), with its cost per pair and per query, then the hand-written near-miss
suite per category and per surface-distance cell (positive distance / negative distance). Run by
scripts/leaderboard.sh after the runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.costs.record import read_costs  # noqa: E402
from harness.results import read_results, results_path  # noqa: E402
from scripts.doc_blocks import print_or_write  # noqa: E402

PAGE = ROOT / "docs" / "findings.md"  # holds the <!-- verifiers:start --> block
TAG = "verifiers"

VERIFIERS = [
    ("all-MiniLM-L6-v2", "first stage (bi-encoder)"),
    ("minilm-mean", "token map: mean"),
    ("minilm-maxsim", "token map: MaxSim"),
    ("minilm-align", "token map: soft alignment"),
    ("minilm-cnn-frozen", "token map: CNN, frozen encoder"),
    ("minilm-transformer-frozen", "token map: Transformer, frozen encoder"),
    ("minilm-cnn", "token map: CNN, end to end"),
    ("minilm-transformer", "token map: Transformer, end to end"),
    ("minilm-cross", "cross-encoder (joint attention)"),
    ("all-mpnet-base-v2", "first stage (bi-encoder)"),
    ("mpnet-mean", "token map: mean"),
    ("mpnet-maxsim", "token map: MaxSim"),
    ("mpnet-align", "token map: soft alignment"),
]
# Each reranker, then its fused row (kind fusion, written by cbench fuse) where one has results.
ROWS = [row for name, what in VERIFIERS for row in [(name, what), (f"{name}-fused", "  fused with its first stage (w set on dev)")]]
SUITES = ["offline-ir", "classic-ir", "nearmiss", "nearmiss-hand", "sugarcrepe-pp", "nevir", "paws"]
CATEGORIES = ["negation", "quantity", "role_swap", "attribute_binding", "spatial", "temporal_order", "comparative"]
CELLS = [("close", "close"), ("close", "far"), ("far", "close"), ("far", "far")]


def load(results: Path, submission: str, suite: str):
    path = results_path(results, submission, suite)
    return read_results(path) if path.is_file() else None


def score(r) -> str:
    if r is None or r.main_score is None:
        return "—"
    text = f"{r.main_score:.3f}"
    if r.main_score_ci95 is not None:
        lo, hi = r.main_score_ci95
        text += f" [{lo:.3f}, {hi:.3f}]"
    return text + ("" if r.complete else " (incomplete)")


def ms(x: float | None) -> str:
    return "—" if x is None else f"{x:.3g}"


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(["---", "---"] + ["---:"] * (len(header) - 2)) + "|"]
    return out + ["| " + " | ".join(r) + " |" for r in rows]


def report(results: Path, cost_dir: Path) -> str:
    costs, _ = read_costs(cost_dir)
    rows = []
    for name, what in ROWS:
        if name.endswith("-fused") and load(results, name, SUITES[0]) is None:
            continue
        c = costs.get(name)
        q = c.queries if c is not None else None
        old = c is not None and c.documents_reencoded  # schema 1: documents re-encoded per query
        index = c.index if c is not None else None
        cost = [
            ms(c.pairs.ms_per_pair if c else None),
            "—" if index is None else f"{index.bytes_per_doc / 1024:.3g}",
            "—" if q is None or old else ms(q.ms_per_query),
        ]
        rows.append([f"`{name}`", what, *[score(load(results, name, s)) for s in SUITES], *cost])
    lines = [
        "Main score [95% interval] per suite; ms per near-miss pair, the index's KB per document (what the submission"
        " stores at index time, at the precision stored) and ms per Medline query with that index built (a reranker: its"
        " first stage's search + scoring its top 100 from the stored documents), from `leaderboard/cost/`; — where not"
        " measured that way:",
        "",
    ]
    lines += table(["submission", "scorer", *SUITES, "ms/pair", "index KB/doc", "ms/query"], rows)
    lines += [
        "",
        "`nearmiss-hand` (hand-written, 25 items per category): triplet accuracy per category, and per cell (positive's"
        " distance / negative's distance; far/close: a restructured positive against a one-word-edit negative):",
        "",
    ]
    rows = []
    for name, _ in ROWS:
        r = load(results, name, "nearmiss-hand")
        if r is None:
            continue
        per = [r.datasets.get(cat, {}).get("triplet_accuracy") for cat in CATEGORIES]
        cells = [r.aggregate.get(f"cell_{p}_{n}") for p, n in CELLS]
        rows.append([f"`{name}`", score(r), *["—" if v is None else f"{v:.2f}" for v in per + cells]])
    lines += table(["submission", "all", *CATEGORIES, *[f"{p}/{n}" for p, n in CELLS]], rows)
    return "\n".join(lines) + "\n"


def main() -> None:
    print_or_write(__doc__, PAGE, TAG, lambda: report(ROOT / "leaderboard" / "results", ROOT / "leaderboard" / "cost"))


if __name__ == "__main__":
    main()
