"""The fused-reranker tables of docs/deployment.md, from the committed results and fused YAMLs.

    python scripts/fusion_report.py           # print the markdown
    python scripts/fusion_report.py --write   # replace the block between docs/deployment.md's markers

For every fused submission (``kind: fusion``): the weight ``cbench fuse`` chose on development
queries and the development nDCG@10 it had there; then on the test suites, the first stage, the
fused row and the reranker alone, with the fused row's paired difference from its first stage
(``cbench compare``: 95% interval over the suite's resampling units, two-sided p). The verdict per
row: does fusion keep the retrieval (loss at most 0.01 nDCG@10 on the axis suite) and gain on the
composition suite (interval above 0)? Run by scripts/leaderboard.sh after the runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.compare import compare  # noqa: E402
from harness.errors import CBenchError  # noqa: E402
from harness.results import read_results, results_path  # noqa: E402
from harness.submissions import Registry  # noqa: E402
from scripts.doc_blocks import print_or_write  # noqa: E402

PAGE = ROOT / "docs" / "deployment.md"  # holds the <!-- fusion:start --> block
TAG = "fusion"
RETRIEVAL = "offline-ir"
COMPOSITION = ["nearmiss", "nearmiss-hand", "sugarcrepe-pp", "nevir", "paws"]
BUDGET = 0.01


def main_score(results: Path, sub: str, suite: str) -> float | None:
    path = results_path(results, sub, suite)
    if not path.is_file():
        return None
    r = read_results(path)
    return r.main_score if r.complete else None


def delta(results: Path, a: str, b: str, suite: str) -> tuple[float, tuple[float, float] | None] | None:
    """(a - b, its 95% interval) on ``suite``'s main score; the interval only where the main score
    is a mean over items (not PAWS's AUROC)."""
    sa, sb = main_score(results, a, suite), main_score(results, b, suite)
    if sa is None or sb is None:
        return None
    try:
        rep = compare(results, a, b, suite)
    except CBenchError:
        rep = None
    row = rep.suite_row if rep is not None else None
    if row is None:
        return sa - sb, None
    return row.difference, row.ci95


def fmt(x: float | None, digits: int = 4) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def fmt_delta(d) -> str:
    if d is None:
        return "—"
    diff, ci = d
    text = f"{diff:+.4f}"
    if ci is not None:
        text += f" [{ci[0]:+.3f}, {ci[1]:+.3f}]"
    return text


def report(results: Path) -> str:
    fused = sorted((s for s in Registry().all().values() if s.kind == "fusion"), key=lambda s: s.name)
    rows, comp_rows, verdicts = [], [], []
    for sub in fused:
        cfg = sub.config
        have = main_score(results, sub.name, RETRIEVAL) is not None
        if not have:
            continue
        fit = cfg.fit
        chosen = next((p.ndcg_at_10 for p in fit.dev if p.weight == fit.chosen), None) if fit else None
        dev = f"{fmt(fit.first_stage_dev.ndcg_at_10, 3)} / {fmt(chosen, 3)} / {fmt(fit.verifier_dev.ndcg_at_10, 3)}" if fit else "—"
        r_first, r_fused, r_ver = (main_score(results, n, RETRIEVAL) for n in (cfg.first_stage, sub.name, cfg.verifier))
        c_first, c_fused, c_ver = (main_score(results, n, COMPOSITION[0]) for n in (cfg.first_stage, sub.name, cfg.verifier))
        d_ret = delta(results, sub.name, cfg.first_stage, RETRIEVAL)
        deltas = {s: delta(results, sub.name, cfg.first_stage, s) for s in COMPOSITION}  # each a paired test: once
        d_comp = deltas[COMPOSITION[0]]
        rows.append(
            [f"`{cfg.verifier}`", f"{cfg.weight:g}", dev, fmt(r_first), f"{fmt(r_fused)} ({fmt_delta(d_ret)})", fmt(r_ver),
             fmt(c_first), f"{fmt(c_fused)} ({fmt_delta(d_comp)})", fmt(c_ver)]
        )  # fmt: skip
        comp_rows.append([f"`{sub.name}`", *[fmt_delta(deltas[s]) for s in COMPOSITION]])
        keeps = d_ret is not None and d_ret[0] >= -BUDGET
        gains = [s for s, d in deltas.items() if d is not None and d[1] is not None and d[1][0] > 0]
        losses = [s for s, d in deltas.items() if d is not None and d[1] is not None and d[1][1] < 0]
        verdicts.append(
            f"- `{sub.name}`: {RETRIEVAL} {'within' if keeps else 'beyond'} the {BUDGET} budget ({fmt_delta(d_ret)}); "
            f"composition above its first stage (interval above 0) on {', '.join(gains) or 'no suite'}"
            + (f", below on {', '.join(losses)}" if losses else "")
            + "."
        )
    head = ["reranker", "w (dev)", "dev nDCG@10: first / fused / reranker", f"{RETRIEVAL}: first stage", "fused (Δ [95%])", "reranker alone",
            f"{COMPOSITION[0]}: first stage", "fused (Δ [95%])", "reranker alone"]  # fmt: skip
    lines = [
        "Main scores on the test suites: the first stage, the fused row (its paired difference from the first stage, 95% interval"
        " over queries / frames) and the reranker alone. w and the development nDCG@10 (mean of SciFact train and NFCorpus dev)"
        " come from each fused YAML's `fit`, written by `cbench fuse`; no test number chose anything.",
        "",
        "| " + " | ".join(head) + " |",
        "|---|" + "---:|" * (len(head) - 1),
        *["| " + " | ".join(r) + " |" for r in rows],
        "",
        "Fused row minus its first stage on every composition suite (paired, 95% interval; PAWS: AUROC difference, no interval):",
        "",
        "| fused row | " + " | ".join(COMPOSITION) + " |",
        "|---|" + "---:|" * len(COMPOSITION),
        *["| " + " | ".join(r) + " |" for r in comp_rows],
        "",
        *verdicts,
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    print_or_write(__doc__, PAGE, TAG, lambda: report(ROOT / "leaderboard" / "results"))


if __name__ == "__main__":
    main()
