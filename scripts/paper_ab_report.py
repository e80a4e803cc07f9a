"""docs/finetuning.md's "Reproducing the paper's Experiment 1" tables, from scripts/paper_ab.sh's results.

    python scripts/paper_ab_report.py --results-dir runs/paper-ab/results            # print it
    python scripts/paper_ab_report.py --results-dir runs/paper-ab/results --write   # into docs/finetuning.md
    python scripts/paper_ab_report.py --base all-mpnet-base-v2 --results-dir runs/paper-ab-all-mpnet-base-v2/results

Rows: the backbone (leaderboard/results/<base>), Model A and Model B (mean ± sample sd
over the seeds found, submissions ft-a-s<seed> / ft-b-s<seed>), and B - A: relative (%) for
retrieval, as the paper reports it, and absolute for the near-miss suites. Then one row per run.
--write [PAGE] writes between PAGE's (default docs/finetuning.md) <!-- paper-ab:start --> markers
(all-MiniLM-L6-v2) or <!-- paper-ab:<base>:start --> markers (any other backbone).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.tables import main_scores  # noqa: E402
from scripts.doc_blocks import replace_block  # noqa: E402

PAGE = ROOT / "docs" / "finetuning.md"  # holds the paper-ab blocks

SUITES = ["offline-ir", "classic-ir", "nearmiss", "nearmiss-hand", "sugarcrepe-pp", "nevir", "paws"]
RETRIEVAL = {"classic-ir", "offline-ir", "nanobeir"}  # reported as relative change, as the paper does
RUN = re.compile(r"^ft-(?P<arm>[ab])-s(?P<seed>\d+)$")
PAPER = (
    "The paper (NanoBEIR, 13 sets; NQ triplets for A; 3375 steps x batch 128; GPU): B - A = -8 to -9% mean "
    "nDCG@10 on small backbones, up to -40% on a medium one."
)


def partial(n: int, of: int) -> str:
    """Marks a cell that averages fewer seeds than its row names (a seed not yet run on that suite)."""
    return f" ({n} of {of} seeds)" if n < of else ""


def mean_sd(xs: list[float], of: int | None = None) -> str:
    if not xs:
        return "—"
    tail = partial(len(xs), of or len(xs))
    if len(xs) == 1:
        return f"{xs[0]:.3f}{tail}"
    return f"{statistics.mean(xs):.3f} ± {statistics.stdev(xs):.3f}{tail}"


def seconds_per_step(out: Path, arm: str, seed: int) -> float | None:
    folder = out / ("model-a-baseline" if arm == "a" else "model-b-structured") / f"seed_{seed}"
    for f in sorted(folder.glob("*.yaml")):
        import yaml

        prov = (yaml.safe_load(f.read_text()) or {}).get("provenance", {})
        for key in ("seconds_per_step",):
            if isinstance(prov.get(key), (int, float)):
                return float(prov[key])
            if isinstance(prov.get("timing"), dict) and isinstance(prov["timing"].get(key), (int, float)):
                return float(prov["timing"][key])
    run = folder / "finetune-run.json"
    if run.is_file():
        data = json.loads(run.read_text())
        v = data.get("seconds_per_step")
        return float(v) if isinstance(v, (int, float)) else None
    return None


def report(results: Path, base: str = "all-MiniLM-L6-v2", suites: list[str] | None = None) -> str:
    suites = suites or SUITES
    score = main_scores(results)
    backbone = main_scores(ROOT / "leaderboard" / "results")
    runs: dict[str, dict[int, dict[str, float]]] = {"a": {}, "b": {}}
    for (sub, suite), v in score.items():
        m = RUN.match(sub)
        if m:
            runs[m["arm"]].setdefault(int(m["seed"]), {})[suite] = v
    seeds = sorted(set(runs["a"]) & set(runs["b"]))
    if not seeds:
        raise SystemExit(f"no ft-a-s<seed> / ft-b-s<seed> pair under {results}")
    head = ["model", *[f"`{s}`" for s in suites]]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(suites)]
    lines.append(f"| {base} (backbone) | " + " | ".join(f"{backbone[(base, s)]:.3f}" if (base, s) in backbone else "—" for s in suites) + " |")
    col = {arm: {s: [runs[arm][k][s] for k in seeds if s in runs[arm][k]] for s in suites} for arm in "ab"}
    for arm, label in (("a", "Model A: meaning pairs"), ("b", "Model B: + identity triplets")):
        lines.append(f"| {label} ({len(seeds)} seed{'s' if len(seeds) != 1 else ''}) | " + " | ".join(mean_sd(col[arm][s], len(seeds)) for s in suites) + " |")
    cells = []
    for s in suites:
        # B - A pairs each seed's two arms: a seed counts only where both arms ran the suite
        pairs = [(runs["a"][k][s], runs["b"][k][s]) for k in seeds if s in runs["a"][k] and s in runs["b"][k]]
        if not pairs:
            cells.append("—")
            continue
        if s in RETRIEVAL:
            d = [(y - x) / x * 100 for x, y in pairs]
            cell = f"{statistics.mean(d):+.1f}%" + (f" ± {statistics.stdev(d):.1f}" if len(d) > 1 else "")
        else:
            d = [y - x for x, y in pairs]
            cell = f"{statistics.mean(d):+.3f}" + (f" ± {statistics.stdev(d):.3f}" if len(d) > 1 else "")
        cells.append(cell + partial(len(pairs), len(seeds)))
    lines.append("| **B − A** (retrieval relative, near-miss absolute) | " + " | ".join(f"**{c}**" for c in cells) + " |")
    lines += ["", "| run | " + " | ".join(f"`{s}`" for s in suites) + " | s/step |", "|---|" + "---:|" * (len(suites) + 1)]
    out = results.parent
    for arm in "ab":
        for k in seeds:
            sps = seconds_per_step(out, arm, k)
            cells = " | ".join(f"{runs[arm][k][s]:.3f}" if s in runs[arm][k] else "—" for s in suites)
            lines.append(f"| {arm.upper()}, seed {k} | {cells} | " + (f"{sps:.2f}" if sps else "—") + " |")
    return "\n".join(lines) + "\n\n" + PAPER + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results-dir", type=Path, default=ROOT / "runs" / "paper-ab" / "results")
    ap.add_argument("--base", default="all-MiniLM-L6-v2", help="the backbone submission (its leaderboard results give the first row)")
    ap.add_argument("--suites", default=" ".join(SUITES), help="space-separated suites, in column order")
    ap.add_argument(
        "--write", nargs="?", type=Path, const=PAGE, default=None, metavar="PAGE", help=f"replace the paper-ab block of PAGE (default {PAGE.relative_to(ROOT)})"
    )
    args = ap.parse_args()
    text = report(args.results_dir, args.base, args.suites.split())
    if args.write is None:
        print(text, end="")
        return
    replace_block(args.write, "paper-ab" if args.base == "all-MiniLM-L6-v2" else f"paper-ab:{args.base}", text)


if __name__ == "__main__":
    main()
