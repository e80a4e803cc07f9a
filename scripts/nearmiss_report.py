"""The near-miss tables of docs/validity.md, from the committed results (leaderboard/results).

    python scripts/nearmiss_report.py           # print the markdown
    python scripts/nearmiss_report.py --write   # replace the block between docs/validity.md's markers

Run by scripts/leaderboard.sh after the runs, so every number in these tables comes from a
results file that `make leaderboard` rewrites.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.submissions import Registry  # noqa: E402
from harness.tables import main_scores  # noqa: E402
from scripts.doc_blocks import print_or_write  # noqa: E402

PAGE = ROOT / "docs" / "validity.md"  # holds the <!-- nearmiss-report:start --> block

SUITES = ["nearmiss-v1", "nearmiss", "nearmiss-hand", "sugarcrepe-pp"]
MODELS = ["all-MiniLM-L6-v2", "bm25", "minilm-maxsim", "minilm-transformer-frozen", "minilm-transformer", "minilm-cnn-frozen", "minilm-cnn"]
TRAINING = {
    "minilm-transformer-frozen": "frozen",
    "minilm-transformer": "end-to-end (top 2 layers)",
    "minilm-cnn-frozen": "frozen",
    "minilm-cnn": "end-to-end (top 2 layers)",
}


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    return out + ["| " + " | ".join(r) + " |" for r in rows]


def fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def report(results: Path) -> str:
    score = main_scores(results)
    controls = sorted(n for n, s in Registry().all().items() if s.kind == "control")
    lines = ["Controls (main score; chance is 0.5 on the first three, about 1/3 for SugarCrepe++'s TOT accuracy):", ""]
    rows = [[f"`{c}`", *[fmt(score.get((c, s))) for s in SUITES]] for c in controls]
    best = [max((score[(c, s)] for c in controls if (c, s) in score), default=None) for s in SUITES]
    rows.append(["**highest control**", *[f"**{fmt(b)}**" for b in best]])
    lines += table(["control", *SUITES], rows)
    lines += ["", "Models (main score; `classic-ir` nDCG@10 for reference):", ""]
    rows = []
    for m in MODELS:
        rows.append([f"`{m}`", TRAINING.get(m, ""), fmt(score.get((m, "classic-ir"))), *[fmt(score.get((m, s))) for s in SUITES]])
    lines += table(["submission", "verifier training", "classic-ir", *SUITES], rows)
    return "\n".join(lines) + "\n"


def main() -> None:
    print_or_write(__doc__, PAGE, "nearmiss-report", lambda: report(ROOT / "leaderboard" / "results"))


if __name__ == "__main__":
    main()
