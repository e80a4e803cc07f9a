"""scripts/paper_ab_report.py over a results folder where one seed has not run every suite yet."""

from __future__ import annotations

import json
from pathlib import Path

from scripts import paper_ab_report

RESULTS = Path(__file__).resolve().parents[1] / "leaderboard" / "results"


def put(folder: Path, source: str, run: str, suite: str, shift: float = 0.0) -> None:
    """A committed results file renamed to the paper-ab run ``run`` (its scores moved by ``shift``)."""
    data = json.loads((RESULTS / source / f"{suite}.json").read_text(encoding="utf-8"))
    data["submission"] = run
    data["main_score"] += shift
    for metrics in [*data["datasets"].values(), data["aggregate"]]:
        if data["main_metric"] in metrics:
            metrics[data["main_metric"]] += shift
    (folder / run).mkdir(parents=True, exist_ok=True)
    (folder / run / f"{suite}.json").write_text(json.dumps(data), encoding="utf-8")


def test_a_seed_missing_a_suite_is_left_out_of_that_columns_mean_and_difference(tmp_path):
    results = tmp_path / "results"
    for suite in ("classic-ir", "nearmiss"):
        put(results, "minilm-ft-a", "ft-a-s13", suite)
        put(results, "minilm-ft-b", "ft-b-s13", suite)
    put(results, "minilm-ft-a", "ft-a-s14", "classic-ir", shift=0.01)
    put(results, "minilm-ft-b", "ft-b-s14", "classic-ir", shift=0.01)
    put(results, "minilm-ft-b", "ft-b-s14", "nearmiss")  # seed 14's Model A has not run nearmiss

    text = paper_ab_report.report(results, suites=["classic-ir", "nearmiss"])
    rows = {line.split(" | ")[0].strip("| *"): line for line in text.splitlines() if line.startswith("|")}
    a13, b13 = (json.loads((RESULTS / m / "nearmiss.json").read_text())["main_score"] for m in ("minilm-ft-a", "minilm-ft-b"))
    assert rows["Model A: meaning pairs (2 seeds)"].endswith(f" | {a13:.3f} (1 of 2 seeds) |")
    assert "± 0.000 |" in rows["Model B: + identity triplets (2 seeds)"]  # both seeds ran it: no mark
    diff = next(line for key, line in rows.items() if key.startswith("B − A"))
    assert diff.endswith(f"| **{b13 - a13:+.3f} (1 of 2 seeds)** |")
    assert "| A, seed 14 |" in text and text.split("| A, seed 14 |")[1].split("\n")[0].split(" | ")[1] == "—"


def test_an_incomplete_result_counts_as_not_run(tmp_path):
    # a run in progress writes its results file after each dataset; its mean covers only those
    results = tmp_path / "results"
    for run, source in (("ft-a-s13", "minilm-ft-a"), ("ft-b-s13", "minilm-ft-b"), ("ft-a-s14", "minilm-ft-a"), ("ft-b-s14", "minilm-ft-b")):
        put(results, source, run, "classic-ir", shift=0.01 if run.endswith("14") else 0.0)
        put(results, source, run, "nearmiss")
    path = results / "ft-a-s14" / "classic-ir.json"
    data = json.loads(path.read_text())
    data["complete"], data["main_score"] = False, None
    data["datasets"] = dict(list(data["datasets"].items())[:1])
    path.write_text(json.dumps(data))

    text = paper_ab_report.report(results, suites=["classic-ir", "nearmiss"])
    rows = {line.split(" | ")[0].strip("| *"): line for line in text.splitlines() if line.startswith("|")}
    a13 = json.loads((RESULTS / "minilm-ft-a" / "classic-ir.json").read_text())["main_score"]
    assert f" | {a13:.3f} (1 of 2 seeds) | " in rows["Model A: meaning pairs (2 seeds)"]
    assert rows["A, seed 14"].split(" | ")[1] == "—"
