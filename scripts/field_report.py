"""docs/findings.md's "The field" table: offline-ir (with the two published MTEB sets), NevIR and PAWS,
from the committed results (leaderboard/results), beside the published reference numbers.

    python scripts/field_report.py           # print the markdown
    python scripts/field_report.py --write   # replace the block between docs/findings.md's field markers
    python scripts/field_report.py --results-dir DIR   # another results folder

Run by scripts/leaderboard.sh after the runs, so every number in the table comes from a results
file that `make leaderboard` rewrites. A dash is a suite (or dataset) the submission has no complete
result for; a dataset column also takes a finished dataset of a suite not finished yet (its mean stays a dash).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness import results_frame  # noqa: E402
from harness.tables import MEAN  # noqa: E402
from scripts.doc_blocks import replace_block  # noqa: E402

PAGE = ROOT / "docs" / "findings.md"  # holds the <!-- field:start --> block

# (header, suite, dataset or "(mean)", metric); the dataset columns of offline-ir are the two sets
# with published MTEB numbers for all-MiniLM-L6-v2 and all-mpnet-base-v2.
COLUMNS = [
    ("offline-ir nDCG@10 (mean of 5)", "offline-ir", "(mean)", "ndcg@10"),
    ("SciFact", "offline-ir", "scifact", "ndcg@10"),
    ("NFCorpus", "offline-ir", "nfcorpus", "ndcg@10"),
    ("NevIR paired acc.", "nevir", "(mean)", "paired_accuracy"),
    ("NevIR query acc.", "nevir", "(mean)", "query_accuracy"),
    ("PAWS AUROC", "paws", "(mean)", "auroc"),
    ("PAWS acc. (dev threshold)", "paws", "(mean)", "accuracy"),
]
PUBLISHED = [
    "MTEB, all-MiniLM-L6-v2 (embeddings-benchmark/results): SciFact 0.64508, NFCorpus 0.31594",
    "MTEB, all-mpnet-base-v2 (same repository, revision 84f2bcc0, mteb 1.12.75): SciFact 0.65570, NFCorpus 0.33289",
    "NevIR paper, Table 2: TF-IDF 0.020; bi-encoders 0.068–0.111; ColBERT 0.130–0.197; cross-encoders 0.224–0.506; random 0.25",
    "PAWS: random AUROC 0.5; majority class on test 0.558",
]
ORDER = ["all-MiniLM-L6-v2", "all-mpnet-base-v2", "bm25", "tfidf", "minilm-static"]


def cells(results: Path) -> dict[str, dict[str, float]]:
    df = results_frame(results)
    # A dataset row is a finished dataset even in a results file a stopped run left incomplete (the
    # runner writes the file after every dataset); a mean needs the whole suite.
    df = df[df.complete | (df.dataset != MEAN)]
    out: dict[str, dict[str, float]] = {}
    for header, suite, dataset, metric in COLUMNS:
        part = df[(df.suite == suite) & (df.dataset == dataset) & (df.metric == metric)]
        for r in part.itertuples():
            out.setdefault(r.submission, {})[header] = float(r.value)
    return out


def table(results: Path) -> str:
    found = cells(results)
    names = [n for n in ORDER if n in found] + sorted(n for n in found if n not in ORDER and not n.startswith("control-"))
    names += sorted(n for n in found if n.startswith("control-"))
    head = ["submission", *[h for h, *_ in COLUMNS]]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(COLUMNS)]
    digits = {h: 5 if h in ("SciFact", "NFCorpus") else 4 for h, *_ in COLUMNS}  # the published MTEB numbers have 5
    for n in names:
        lines.append(f"| {n} | " + " | ".join(f"{found[n][h]:.{digits[h]}f}" if h in found[n] else "—" for h, *_ in COLUMNS) + " |")
    return "\n".join(lines) + "\n\nPublished references: " + "; ".join(PUBLISHED) + ".\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results-dir", type=Path, default=ROOT / "leaderboard" / "results")
    ap.add_argument(
        "--write", nargs="?", type=Path, const=PAGE, default=None, metavar="PAGE", help=f"replace the field block of PAGE (default {PAGE.relative_to(ROOT)})"
    )
    args = ap.parse_args()
    text = table(args.results_dir)
    if args.write is None:
        print(text, end="")
        return
    replace_block(args.write, "field", text)


if __name__ == "__main__":
    main()
