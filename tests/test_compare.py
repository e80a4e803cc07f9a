"""`cbench compare A B --suite S` end to end: tiny suites made here, BM25 variants and a surface
control as the two submissions (no model). The printed difference is the difference of the two
results files' scores; the tests are McNemar's exact test on near-miss outcomes and the paired
permutation test on nDCG@10 per query and on five-text items."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from typer.testing import CliRunner

from cbench_testutil import write_lexical, write_tiny_suites
from harness.cli import app
from harness.compare import CompareReport
from harness.results import read_results
from harness.sidecar import main_values, read_sidecar
from harness.stats.intervals import N_RESAMPLES, mean_ci
from harness.stats.paired import discordant, mcnemar_p, permutation_floor, permutation_p

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """Results + sidecars: bm25 and bm25-flat (b = 0) on tiny-ir, bm25 and control-jaccard on the
    near-miss suites."""
    root = tmp_path_factory.mktemp("compare")
    suites = write_tiny_suites(root / "data")
    flat = write_lexical(root / "subs", "bm25-flat", b=0.0)
    res = root / "res"
    suites["beir-two"] = root / "data" / "beir" / "two"  # a BEIR folder: an ad-hoc suite named "two"
    runs = (
        ("bm25", ["tiny-ir", "tiny-items", "tiny-triplets", "tiny-triplet-frames", "tiny-frames", "beir-two"]),
        (str(flat), ["tiny-ir", "beir-two"]),
        ("control-jaccard", ["tiny-items", "tiny-triplets", "tiny-triplet-frames", "tiny-frames"]),
    )
    for model, names in runs:
        args = ["run", "--model", model, "--results-dir", str(res), "-q"]
        for n in names:
            args += ["--suite", str(suites[n])]
        r = invoke(*args)
        assert r.exit_code == 0, r.output
    return res, suites


def report(res, a, b, suite) -> CompareReport:
    r = invoke("compare", a, b, "--suite", suite, "--results-dir", str(res), "--format", "json")
    assert r.exit_code == 0, r.output
    return CompareReport.model_validate_json(r.stdout)


def test_retrieval_difference_equals_the_results_files(scored):
    res, _ = scored
    a, b = read_results(res / "bm25-flat" / "tiny-ir.json"), read_results(res / "bm25" / "tiny-ir.json")
    rep = report(res, "bm25-flat", "bm25", "tiny-ir")
    assert rep.main_metric == "ndcg@10" and [r.dataset for r in rep.datasets] == ["one", "two"]
    assert rep.suite_row.difference == a.main_score - b.main_score != 0  # b = 0 ranks query r6 better
    for row in rep.datasets:
        assert row.difference == a.datasets[row.dataset]["ndcg@10"] - b.datasets[row.dataset]["ndcg@10"]
        assert row.test == "paired-permutation" and row.discordant is None
        low, high = row.ci95
        assert low <= row.difference <= high
    assert rep.suite_row.test == "stratified-paired-permutation" and rep.suite_row.n == 3 + 6
    # one query differs (r6): of the 2^6 sign patterns, every one is as extreme -> p = 1
    assert rep.datasets[1].p_value == 1.0
    # the table: the same numbers, formatted
    r = invoke("compare", "bm25-flat", "bm25", "--suite", "tiny-ir", "--results-dir", str(res))
    assert r.exit_code == 0, r.output
    assert f"{a.main_score - b.main_score:+.4f}" in r.stdout and "(suite)" in r.stdout and "bm25-flat" in r.stdout


def test_triplets_use_mcnemar_on_the_outcomes(scored):
    res, _ = scored
    rep = report(res, "bm25", "control-jaccard", "tiny-triplets")
    items_a = read_sidecar(res / "bm25" / "tiny-triplets.items.jsonl.gz").by_dataset()
    items_b = read_sidecar(res / "control-jaccard" / "tiny-triplets.items.jsonl.gz").by_dataset()
    for row in rep.datasets:
        va = main_values(items_a[row.dataset], "triplet_accuracy")
        vb = main_values(items_b[row.dataset], "triplet_accuracy")  # same item order (same file)
        assert row.test == "mcnemar-exact"
        assert tuple(row.discordant) == discordant(va, vb)
        assert row.p_value == mcnemar_p(*row.discordant)
        assert row.difference == pytest.approx(np.mean(va) - np.mean(vb), abs=1e-12)
    a, b = read_results(res / "bm25" / "tiny-triplets.json"), read_results(res / "control-jaccard" / "tiny-triplets.json")
    assert rep.suite_row.difference == a.main_score - b.main_score


def test_five_text_items_keep_their_four_comparisons_together(scored):
    res, _ = scored
    rep = report(res, "bm25", "control-jaccard", "tiny-items")
    assert {r.test for r in rep.datasets} == {"paired-permutation"}  # per-item shares 0, .25, ..., 1
    a, b = read_results(res / "bm25" / "tiny-items.json"), read_results(res / "control-jaccard" / "tiny-items.json")
    assert rep.suite_row.difference == a.main_score - b.main_score
    assert report(res, "bm25", "control-jaccard", "tiny-items") == rep  # seeded: identical reports


def test_missing_sidecar_is_one_line_asking_for_overwrite(scored, tmp_path):
    res, _ = scored
    copy = tmp_path / "res"
    shutil.copytree(res, copy)
    gone = copy / "control-jaccard" / "tiny-triplets.items.jsonl.gz"
    gone.unlink()
    r = invoke("compare", "bm25", "control-jaccard", "--suite", "tiny-triplets", "--results-dir", str(copy))
    assert r.exit_code == 2 and "Traceback" not in r.output
    (line,) = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert line == (  # the suite by the file its results recorded (no shipped suite has that name), the results folder
        f"error: {gone}: no per-item scores (results made before cbench kept them); "
        f"rerun: cbench run --model control-jaccard --suite {scored[1]['tiny-triplets']} --results-dir {copy} --overwrite"
    )
    r = invoke("compare", "bm25", "nobody", "--suite", "tiny-triplets", "--results-dir", str(copy))
    assert r.exit_code == 2 and f"no results file; run: cbench run --model nobody --suite tiny-triplets --results-dir {copy}" in r.stderr


def test_different_items_are_refused(scored, tmp_path):
    res, suites = scored
    other = tmp_path / "res"
    r = invoke("run", "--model", "bm25", "--suite", str(suites["tiny-ir"]), "--results-dir", str(other), "-q", "--limit-queries", "2")
    assert r.exit_code == 0, r.output
    shutil.copytree(res / "bm25-flat", other / "bm25-flat")
    r = invoke("compare", "bm25", "bm25-flat", "--suite", "tiny-ir", "--results-dir", str(other))
    assert r.exit_code == 2
    assert "dataset one: bm25 and bm25-flat were scored on different items (2 and 3, 2 in common)" in " ".join(r.stderr.split())


def test_json_is_the_report_schema(scored):
    res, _ = scored
    r = invoke("compare", "bm25", "control-jaccard", "--suite", "tiny-triplets", "--results-dir", str(res), "--format", "json")
    data = json.loads(r.stdout)
    assert set(data) == set(CompareReport.model_fields)
    assert data["seed"] == 0 and data["bootstrap_resamples"] == N_RESAMPLES == 10_000 and data["confidence"] == 0.95
    assert data["resampling_unit"] == "item"
    for row in [*data["datasets"], data["suite_row"]]:
        assert {"units", "p_value_floor", "p_value_at_floor"} <= set(row)


# -- resampling units, p-value floors, --suite as cbench run takes it ------------------------------
def test_clustered_outcomes_use_the_permutation_test_over_frames(scored):
    """Triplets in generator frames: their 0/1 outcomes are not independent, so McNemar is replaced
    by the permutation test over frames (said in a note), and the interval resamples frames."""
    from cbench_testutil import TRIPLET_FRAMES

    res, _ = scored
    rep = report(res, "bm25", "control-jaccard", "tiny-triplet-frames")
    plain = report(res, "bm25", "control-jaccard", "tiny-triplets")
    assert rep.resampling_unit == "frame" and plain.resampling_unit == "item"
    assert any("McNemar's test assumes independent items" in n and "over frames" in n for n in rep.notes)
    items_a = read_sidecar(res / "bm25" / "tiny-triplet-frames.items.jsonl.gz").by_dataset()
    items_b = read_sidecar(res / "control-jaccard" / "tiny-triplet-frames.items.jsonl.gz").by_dataset()
    diffs, units = [], []
    for row, plain_row in zip(rep.datasets, plain.datasets, strict=True):
        va = np.array(main_values(items_a[row.dataset], "triplet_accuracy"))
        vb = np.array(main_values(items_b[row.dataset], "triplet_accuracy"))
        labels = [it.unit for it in items_a[row.dataset]]
        diffs.append(va - vb)
        units.append(labels)
        assert row.test == "paired-permutation" and row.discordant is None and plain_row.test == "mcnemar-exact"
        assert row.units == len(set(labels)) < row.n
        assert row.p_value == permutation_p([va - vb], units=[labels])
        assert row.ci95 == mean_ci([va - vb], units=[labels])
        assert row.p_value_floor == permutation_floor(row.units)  # 2 or 3 frames: exact, 2 / 2^frames
    assert [it.unit for ds in items_a.values() for it in ds] == TRIPLET_FRAMES
    s = rep.suite_row
    assert s.units == 5 and s.p_value == permutation_p(diffs, units=units) and s.ci95 == mean_ci(diffs, units=units)
    r = invoke("compare", "bm25", "control-jaccard", "--suite", "tiny-triplet-frames", "--results-dir", str(res))
    assert r.exit_code == 0, r.output
    assert "paired-permutation (5 frames)" in r.stdout and "signs flipped per frame" in " ".join(r.stdout.split())
    assert "McNemar's test assumes independent items" in " ".join(r.stderr.split())


def fake_pair(res, template, values: dict[str, tuple[list[float], list[float]]], units: dict[str, list[str]] | None = None) -> None:
    """Results and per-item scores for submissions "a" and "b" on a suite "big" (one dataset per key
    of ``values``), made from a real results file with the scores replaced."""
    from harness.results import write_results
    from harness.sidecar import ItemScores, SidecarHeader, sidecar_path, write_sidecar

    base = read_results(template)
    for who, k in (("a", 0), ("b", 1)):
        datasets = {ds: {"triplet_accuracy": float(np.mean(v[k]))} for ds, v in values.items()}
        main = float(np.mean([m["triplet_accuracy"] for m in datasets.values()]))
        meta = base.metadata.model_copy(update={"dataset_revisions": dict.fromkeys(values, "x"), "dataset_sources": dict.fromkeys(values, "")})
        r = base.model_copy(
            update={
                "submission": who, "suite": "big", "datasets": datasets, "aggregate": {"triplet_accuracy": main}, "main_score": main,
                "ci95": {}, "main_score_ci95": None, "ci_method": None, "metadata": meta,
            }
        )
        path = res / who / "big.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_results(path, r)
        items = [
            ItemScores(dataset=ds, id=f"{ds}-{i}", metrics={"triplet_accuracy": x}, unit=units[ds][i] if units else None)
            for ds, v in values.items()
            for i, x in enumerate(v[k])
        ]
        write_sidecar(sidecar_path(path), SidecarHeader.from_results(r, {ds: len(v[k]) for ds, v in values.items()}), items)


def test_p_value_at_its_floor_is_printed_as_a_bound_and_flagged(scored, tmp_path):
    res, _ = scored
    template = res / "bm25" / "tiny-triplets.json"
    fake_pair(tmp_path, template, {"d": ([0.75] * 40, [0.25] * 40)})  # A ahead on every item: 2^40 patterns, randomised
    rep = report(tmp_path, "a", "b", "big")
    (row,) = rep.datasets
    assert row.test == "paired-permutation" and row.p_value == pytest.approx(2 / 5001)
    assert row.p_value_floor == 2 / 5001 and row.p_value_at_floor
    assert rep.suite_row.p_value_at_floor
    r = invoke("compare", "a", "b", "--suite", "big", "--results-dir", str(tmp_path))
    assert r.exit_code == 0, r.output
    assert "≤ 0.0004" in r.stdout and "0.0004 " not in r.stdout.replace("≤ 0.0004", "")
    assert "the smallest value its test can give here" in " ".join(r.stdout.split())
    # a p-value above its floor: printed as it is, not flagged
    fake_pair(tmp_path, template, {"d": ([0.75, 0.25] * 20, [0.5] * 40)})
    row = report(tmp_path, "a", "b", "big").datasets[0]
    assert not row.p_value_at_floor and row.p_value > row.p_value_floor
    r = invoke("compare", "a", "b", "--suite", "big", "--results-dir", str(tmp_path))
    assert "≤" not in r.stdout
    # McNemar: all 12 discordant items one way is its floor, 2 / 2^12
    fake_pair(tmp_path, template, {"d": ([1.0] * 12 + [0.0] * 3, [0.0] * 15)})
    row = report(tmp_path, "a", "b", "big").datasets[0]
    assert row.test == "mcnemar-exact" and row.p_value == row.p_value_floor == pytest.approx(2 / 2**12) and row.p_value_at_floor


def test_p_value_floor_of_a_few_frames(scored, tmp_path):
    """40 items in 4 frames, A ahead everywhere: the item test would give 2 / 5001, the frame test
    gives its exact floor 2 / 2^4, and says so."""
    res, _ = scored
    frames = {"d": [f"f{i // 10}" for i in range(40)]}
    fake_pair(tmp_path, res / "bm25" / "tiny-triplets.json", {"d": ([0.75] * 40, [0.25] * 40)}, frames)
    rep = report(tmp_path, "a", "b", "big")
    (row,) = rep.datasets
    assert (row.units, row.p_value, row.p_value_floor, row.p_value_at_floor) == (4, 2 / 16, 2 / 16, True)
    assert rep.resampling_unit == "unit"  # no results file names the units (ci_method null)
    r = invoke("compare", "a", "b", "--suite", "big", "--results-dir", str(tmp_path))
    assert "≤ 0.1250" in r.stdout and "(4 units)" in r.stdout


def test_suite_given_as_cbench_run_takes_it(scored, monkeypatch):
    """--suite accepts a suite YAML path and a BEIR folder (an ad-hoc suite named after the folder,
    as cbench run named its results), not only a name."""
    res, suites = scored
    by_name = report(res, "bm25-flat", "bm25", "tiny-ir")
    assert report(res, "bm25-flat", "bm25", str(suites["tiny-ir"])) == by_name
    folder = report(res, "bm25-flat", "bm25", str(suites["beir-two"]))
    assert folder.suite == "two" and [r.dataset for r in folder.datasets] == ["two"]
    assert folder.datasets[0].difference == by_name.datasets[1].difference  # the same queries, scores and difference
    monkeypatch.chdir(suites["beir-two"].parent)
    assert report(res, "bm25-flat", "bm25", "../beir/two") == folder  # a relative path, as in ../shared/data/beir/medline
    r = invoke("compare", "bm25-flat", "bm25", "--suite", str(suites["beir-two"].parent / "nothing-here"), "--results-dir", str(res))
    assert r.exit_code == 2 and "no suite named" in r.stderr and "Traceback" not in r.output


def test_per_item_scores_without_the_suites_units_are_tested_item_by_item_with_a_note(scored, tmp_path):
    """Sidecars written before units were kept (here: units stripped) of a suite that resamples by
    frame: compared item by item, and the note says how to add the frames without rescoring."""
    import gzip

    res, suites = scored
    copy = tmp_path / "res"
    shutil.copytree(res, copy)
    for who in ("bm25", "control-jaccard"):
        path = copy / who / "tiny-frames.items.jsonl.gz"
        rows = [json.loads(x) for x in gzip.decompress(path.read_bytes()).decode().splitlines()]
        for row in rows[1:]:
            del row["unit"]
        path.write_bytes(gzip.compress(("\n".join(json.dumps(r) for r in rows) + "\n").encode(), mtime=0))
    rep = report(copy, "bm25", "control-jaccard", str(suites["tiny-frames"]))
    assert rep.resampling_unit == "item" and all(r.units == r.n for r in rep.datasets)
    (note,) = [n for n in rep.notes if "carry no frames" in n]
    assert f"cbench run --model A --suite {suites['tiny-frames']} --results-dir {copy} (without --overwrite) adds them" in note
    assert report(res, "bm25", "control-jaccard", str(suites["tiny-frames"])).resampling_unit == "frame"  # the originals
    assert not any("carry no" in n for n in report(res, "bm25", "control-jaccard", "tiny-frames").notes)
