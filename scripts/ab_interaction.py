"""Does one fine-tuning cost two backbones the same? The paired difference of two paired differences.

    python scripts/ab_interaction.py mpnet-ft-b mpnet-ft-a minilm-ft-b minilm-ft-a --suite offline-ir

prints (B1 - A1) - (B2 - A2) on the suite's main metric, from the committed per-item scores: per
item, the first pair's difference minus the second pair's, with the 95% interval and the two-sided
p-value of `cbench compare` (the bootstrap and the sign-flip test, within each dataset, over the
suite's resampling units). The four submissions must have scored the same items. Positive: the
first pair's B loses less (or gains more) than the second's. "The cost grows with backbone size"
predicts a negative value when the first pair is the larger backbone. `--second-results-dir` reads
the second pair from another folder (two experiments' runs of the same name, ft-b-s14).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.compare import _paired, load_scored  # noqa: E402
from harness.errors import CBenchError  # noqa: E402
from harness.stats.intervals import mean_ci  # noqa: E402
from harness.stats.paired import at_floor, permutation_floor, permutation_p  # noqa: E402
from harness.stats.units import count_units  # noqa: E402


def interaction(results: Path, b1: str, a1: str, b2: str, a2: str, suite: str, second_results: Path | None = None) -> dict:
    """``second_results``: the folder of the second pair's results (default ``results``), so that two
    experiments' runs of the same names (ft-b-s14 on two backbones) can be set against each other."""
    # keyed by role, not by name: with second_results the two pairs may share their names
    names = {"b1": b1, "a1": a1, "b2": b2, "a2": a2}
    folders = {"b1": results, "a1": results, "b2": second_results or results, "a2": second_results or results}
    loaded = {role: load_scored(folders[role], name, suite) for role, name in names.items()}
    if unfinished := [names[role] for role, (r, _) in loaded.items() if not r.complete]:
        raise CBenchError(f"{unfinished[0]}'s results are incomplete (not every dataset has run)", source="ab_interaction", field=f"suite {suite}")
    metric = loaded["b1"][0].main_metric
    if {r.main_metric for r, _ in loaded.values()} != {metric}:
        raise CBenchError("the four results have different main metrics", source="ab_interaction", field=f"suite {suite}")
    datasets = list(loaded["b1"][0].datasets)
    if any(list(r.datasets) != datasets for r, _ in loaded.values()):
        raise CBenchError("the four results cover different datasets", source="ab_interaction", field=f"suite {suite}")
    diffs, units, rows = [], [], []
    for ds in datasets:
        vb1, va1, u1 = _paired(b1, a1, ds, loaded["b1"][1].get(ds, []), loaded["a1"][1].get(ds, []), metric)
        ids = [it.id for it in loaded["b1"][1][ds]]
        by = {role: {it.id: it for it in loaded[role][1].get(ds, [])} for role in ("b2", "a2")}
        if any(set(ids) != set(by[role]) for role in ("b2", "a2")):
            raise CBenchError(f"{b1}, {b2} and {a2} were scored on different items", source="ab_interaction", field=f"dataset {ds}")
        vb2, va2, _ = _paired(b2, a2, ds, [by["b2"][i] for i in ids], [by["a2"][i] for i in ids], metric)
        d = (vb1 - va1) - (vb2 - va2)
        diffs.append(d)
        units.append(u1)
        rows.append((ds, float(np.mean(vb1 - va1)), float(np.mean(vb2 - va2)), float(np.mean(d))))
    n_units = sum(count_units(u, len(d)) for u, d in zip(units, diffs, strict=True))
    p, floor = permutation_p(diffs, units=units), permutation_floor(n_units)
    main = {role: r.main_score for role, (r, _) in loaded.items()}
    first, second = main["b1"] - main["a1"], main["b2"] - main["a2"]
    return {
        "metric": metric,
        "datasets": rows,
        "first": first,
        "second": second,
        "first_relative": first / main["a1"],
        "second_relative": second / main["a2"],
        "difference": first - second,
        "ci95": mean_ci(diffs, units=units),
        "p": p,
        "p_at_floor": at_floor(p, floor),
        "units": n_units,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("b1")
    ap.add_argument("a1")
    ap.add_argument("b2")
    ap.add_argument("a2")
    ap.add_argument("--suite", required=True)
    ap.add_argument("--results-dir", type=Path, default=ROOT / "leaderboard" / "results")
    ap.add_argument("--second-results-dir", type=Path, default=None, help="the second pair's results folder (default: --results-dir)")
    args = ap.parse_args()
    try:
        r = interaction(args.results_dir, args.b1, args.a1, args.b2, args.a2, args.suite, args.second_results_dir)
    except CBenchError as e:
        print(f"ab_interaction: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    print(f"{args.suite} {r['metric']}, per dataset: (B1 - A1), (B2 - A2), difference")
    for ds, x, y, d in r["datasets"]:
        print(f"  {ds:<12} {x:+.4f}  {y:+.4f}  {d:+.4f}")
    lo, hi = r["ci95"] or (float("nan"), float("nan"))
    p = ("≤ " if r["p_at_floor"] else "") + f"{r['p']:.4f}"
    print(
        f"{args.b1} - {args.a1}: {r['first']:+.4f} ({r['first_relative'] * 100:+.1f}%); "
        f"{args.b2} - {args.a2}: {r['second']:+.4f} ({r['second_relative'] * 100:+.1f}%)"
    )
    print(f"difference: {r['difference']:+.4f} [{lo:+.4f}, {hi:+.4f}], p = {p} ({r['units']} units, stratified by dataset)")


if __name__ == "__main__":
    main()
